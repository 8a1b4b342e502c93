// Everything else a script holds: promises, Map iterators, dates,
// regular expressions, boxed primitives, special numbers and strings.
const p = Promise.resolve(tools.kv.get({ key: 'a' }));
await p;
console.log(p, new Promise(() => {}));

const counts = new Map([['x', 1], ['y', 2]]);
console.log(counts.entries(), counts.keys());

console.log(new Date(Date.UTC(2024, 1, 29, 12)), /^v(\d+)$/i, new Number(7), new String('s'));
console.log([-0, 0, NaN, Infinity, 1 / 3, 1e21, 1e-7]);
console.log(["it's", 'say "hi"', 'tab\there', 'line\nbreak']);
console.log({ 'needs-quotes': 1, valid_key: 2, 3: 'three' });
console.log(new WeakMap(), Symbol('tag'), [undefined, null]);

return { value: await p, keys: [...counts.keys()] };
