// Everyday array work on tool results.
const users = tools.users.list({ limit: 6 });
const searches = ['alpha', 'beta'].map((q) => tools.search({ q }));

const titles = searches.flatMap((s) => s.results.map((r) => r.title));
const nested = [[1, [2, [3, [4]]]], 5];
const flatOnce = nested.flat();
const flatAll = nested.flat(Infinity);

const firstActive = users.find((u) => u.active);
const lastActive = users.findLast((u) => u.active);
const idx = users.findIndex((u) => u.name === 'user4');
const allHaveEmail = users.every((u) => u.email.endsWith('@example.com'));
const someInactive = users.some((u) => !u.active);
const ids = users.map((u) => u.id);

const grid = Array.from({ length: 3 }, (_, row) => Array.from({ length: 3 }, (_, col) => row * 3 + col));
const filled = new Array(4).fill('-');
const chunks = ids.reduce((acc, id, i) => {
  if (i % 4 === 0) acc.push([]);
  acc[acc.length - 1].push(id);
  return acc;
}, []);
const last = ids.at(-1);
const sortedDesc = [...ids].sort((a, b) => b - a);
const joined = ids.slice(1, 4).join('|');
const reversed = [...titles].reverse();
const spliced = [...ids];
const removed = spliced.splice(1, 2, 'x', 'y', 'z');

console.log(titles.join(', '));

return {
  titles, flatOnce, flatAll,
  firstActive: firstActive.id, lastActive: lastActive.id, idx,
  allHaveEmail, someInactive,
  includes: [ids.includes(3), ids.includes(30), ids.indexOf(5)],
  grid, filled, chunks, last, sortedDesc, joined, reversed, spliced, removed,
  isArray: Array.isArray(grid), of: Array.of(7, 8),
};
