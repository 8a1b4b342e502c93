// Destructuring in declarations, parameters and assignments.
const user = tools.users.get({ id: 7 });
const { name, email: mail, active, role = 'member' } = user;

const response = tools.search({ q: 'config' });
const {
  query,
  results: [{ title: firstTitle, score: firstScore }, ...otherResults],
} = response;

const [head, , third = 'none', ...tail] = ['a', 'b', undefined, 'd', 'e'];

let left = 'L';
let right = 'R';
[left, right] = [right, left];

let host, port;
({ host, port = 8080 } = { host: 'localhost' });

const summarize = ({ id, name: userName, meta: { tags = [] } = {} }, [first = 0, second = 0] = []) =>
  `${id}:${userName}:${tags.length}:${first + second}`;

const { a, ...restProps } = { a: 1, b: 2, c: 3 };

const pairs = Object.entries({ x: 1, y: 2 }).map(([k, v]) => `${k}=${v}`);

return {
  name, mail, active, role,
  query, firstTitle, firstScore, others: otherResults.length,
  head, third, tail,
  swapped: [left, right],
  host, port,
  summary: summarize(user, [2, 3]),
  summaryDefaults: summarize({ id: 1, name: 'x', meta: { tags: ['t'] } }),
  restProps,
  pairs,
};
