// Spread in arrays, calls and objects.
const base = [3, 1, 4];
const more = [1, 5, 9];
const merged = [...base, ...more, 2, 6];

const largest = Math.max(...merged);
const smallest = Math.min(...base, ...more);

function sum(...numbers) {
  return numbers.reduce((a, b) => a + b, 0);
}

const defaults = { retries: 3, verbose: false, tags: ['default'] };
const overrides = { verbose: true, timeout: 500 };
const config = { ...defaults, ...overrides, tags: [...defaults.tags, 'custom'] };

const letters = [...'hello'];
const unique = [...new Set(merged)].sort((a, b) => a - b);

const user = tools.users.get({ id: 2 });
const publicUser = { ...user, email: undefined, display: `${user.name}!` };
const copy = tools.echo({ ...publicUser, extra: [...base] });

const args = [10, 20];
const total = tools.math.add({ a: sum(...args), b: sum(1, ...args, 2) });

console.log(merged.length, largest, smallest);

return { merged, sum: sum(...merged), config, letters, unique, copy, total };
