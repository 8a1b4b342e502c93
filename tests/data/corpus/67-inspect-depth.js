// Nested results past the default depth print as [Object] / [Array]; a
// tree with parent links prints its cycles as Node marks them.
const r = tools.search({ q: 'deep' });
const nested = { level1: { level2: { level3: { level4: r } } } };
console.log(nested);
console.log({ data: { rows: [[1, [2, [3, [4]]]]] } });

const root = { name: 'root', children: [] };
for (const name of ['a', 'b']) {
  const child = { name, parent: root, children: [] };
  root.children.push(child);
}
console.log(root);

const ring = [1, 2];
ring.push(ring);
console.log('ring', ring);

return { depth: 4, children: root.children.map((c) => c.name) };
