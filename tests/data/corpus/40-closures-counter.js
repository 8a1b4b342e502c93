// Closures for counters, once() and function composition.
const makeCounter = (start = 0, step = 1) => {
  let value = start;
  return {
    next: () => (value += step),
    reset: () => {
      value = start;
    },
    get current() {
      return value;
    },
  };
};

const once = (fn) => {
  let done = false;
  let result;
  return (...args) => {
    if (!done) {
      done = true;
      result = fn(...args);
    }
    return result;
  };
};

const compose = (...fns) => (x) => fns.reduceRight((acc, fn) => fn(acc), x);
const pipe = (...fns) => (x) => fns.reduce((acc, fn) => fn(acc), x);

const a = makeCounter();
const b = makeCounter(100, -10);
a.next();
a.next();
b.next();
const beforeReset = a.current;
a.reset();

const init = once(() => tools.kv.get({ key: 'init' }));
const inits = [init(), init(), init()];

const inc = (x) => x + 1;
const dbl = (x) => x * 2;

const adders = [];
for (let i = 1; i <= 3; i++) {
  adders.push((x) => x + i);
}

const partial = (fn, ...preset) => (...later) => fn(...preset, ...later);
const add3 = (x, y, z) => x + y + z;

return {
  counters: [beforeReset, a.current, b.current],
  inits,
  composed: compose(inc, dbl)(5),
  piped: pipe(inc, dbl)(5),
  adders: adders.map((f) => f(10)),
  partial: partial(add3, 1, 2)(3),
};
