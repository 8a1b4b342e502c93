// Default parameters, including ones computed from earlier parameters.
function paginate(items, page = 1, size = Math.min(items.length, 2), label = `page ${page}`) {
  const start = (page - 1) * size;
  return { label, items: items.slice(start, start + size) };
}

const greet = (name = 'stranger', greeting = name === 'admin' ? 'Welcome back' : 'Hello') =>
  `${greeting}, ${name}!`;

let calls = 0;
const nextId = () => ++calls;
function makeRecord(title, id = nextId()) {
  return { id, title };
}

const items = ['a', 'b', 'c', 'd', 'e'];
console.log(greet());
console.log(greet('admin'));
console.log(greet(undefined, 'Hi'));
console.log(greet(null));

const records = [makeRecord('first'), makeRecord('second', 99), makeRecord('third')];

async function lookup(key, fallback = tools.kv.get({ key: 'default' })) {
  return key ? tools.kv.get({ key }) : fallback;
}

return {
  first: paginate(items),
  second: paginate(items, 2),
  third: paginate(items, 2, 3),
  records,
  calls,
  lookups: [await lookup('name'), await lookup('')],
};
