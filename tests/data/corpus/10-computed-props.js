// Shorthand properties, methods and computed keys.
const field = 'status';
const prefix = 'get';
let counter = 0;

const record = {
  counter,
  [field]: 'open',
  [`${field}Code`]: 200,
  [prefix + 'Name']() {
    return 'record';
  },
  ['key' + (1 + 1)]: 'two',
  describe() {
    return `${this.status}/${this[field + 'Code']}`;
  },
};

const handlers = {};
for (const action of ['create', 'update', 'remove']) {
  handlers[`on${action[0].toUpperCase()}${action.slice(1)}`] = () => `${action}d`;
}

const makePoint = (x, y) => ({ x, y, get length() { return Math.sqrt(x * x + y * y); } });
const p = makePoint(3, 4);

const keys = ['alpha', 'beta'];
const lookup = keys.reduce((acc, k, i) => ({ ...acc, [k]: i }), {});

const kv = { [tools.kv.get({ key: 'dynamic' })]: true };

console.log(record.describe(), record.getName());

return {
  record: { counter: record.counter, status: record.status, statusCode: record.statusCode, key2: record.key2 },
  handlers: Object.keys(handlers).map((k) => `${k}:${handlers[k]()}`),
  point: { ...p },
  lookup,
  kv,
};
