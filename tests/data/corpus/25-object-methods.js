// Reshape objects with Object.entries/fromEntries and friends.
const prices = { apple: 1.2, banana: 0.5, cherry: 3, date: 2.25 };

const discounted = Object.fromEntries(
  Object.entries(prices).map(([fruit, price]) => [fruit, Math.round(price * 80) / 100])
);

const expensive = Object.keys(prices).filter((k) => prices[k] > 1);
const total = Object.values(prices).reduce((a, b) => a + b, 0);

const user = tools.users.get({ id: 8 });
const picked = Object.fromEntries(['name', 'email'].map((k) => [k, user[k]]));
const withoutEmail = Object.fromEntries(Object.entries(user).filter(([k]) => k !== 'email'));

const merged = Object.assign({}, { a: 1, b: { c: 2 } }, { b: { d: 3 }, e: 4 });
const frozen = Object.freeze({ locked: true });

const inverted = Object.fromEntries(Object.entries({ one: 'uno', two: 'dos' }).map(([k, v]) => [v, k]));

const entriesOfMap = Object.fromEntries(new Map([['x', 1], ['y', 2]]));
const hasOwn = [Object.hasOwn(user, 'name'), Object.hasOwn(user, 'toString'), 'toString' in user];

console.log(Object.entries(discounted).map(([k, v]) => `${k}:${v}`).join(' '));

return { discounted, expensive, total: total.toFixed(2), picked, withoutEmail, merged, isFrozen: Object.isFrozen(frozen), inverted, entriesOfMap, hasOwn };
