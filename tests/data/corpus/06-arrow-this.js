// Arrow functions keep the enclosing this and arguments.
function Counter(start) {
  this.count = start;
  this.history = [];
}
Counter.prototype.addAll = function () {
  const add = (n) => {
    this.count += n;
    this.history.push(this.count);
  };
  Array.prototype.forEach.call(arguments, (n) => add(n));
  return this.count;
};
Counter.prototype.argsLater = function () {
  const grab = () => Array.from(arguments);
  return grab('ignored');
};

const counter = new Counter(10);
counter.addAll(1, 2, 3);

const obj = {
  prefix: 'item',
  names(list) {
    return list.map((x, i) => `${this.prefix}-${i}-${x}`);
  },
  delayed() {
    return Promise.resolve().then(() => this.prefix.toUpperCase());
  },
};

function outer() {
  const inner = () => arguments.length;
  return inner(1, 2, 3, 4, 5);
}

const upper = await obj.delayed();
console.log('history', counter.history.join(','));

return {
  count: counter.count,
  args: counter.argsLater('a', 'b'),
  names: obj.names(['x', 'y']),
  upper,
  outerArgs: outer('only', 'two'),
};
