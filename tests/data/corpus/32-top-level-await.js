// Top-level await, step by step.
const config = await tools.kv.get({ key: 'config' });
console.log('loaded', config);

const delay = async (value) => {
  await undefined;
  return value;
};

const first = await delay('one');
const second = await delay(await delay('two'));
const user = await tools.users.get({ id: 9 });
const nested = await (async () => {
  const inner = await Promise.resolve(await delay(21));
  return inner * 2;
})();

let total = 0;
for (const n of [1, 2, 3]) {
  total += await delay(n);
}

const chained = await Promise.resolve(5)
  .then((v) => v + 1)
  .then(async (v) => (await delay(v)) * 10);

const thenable = await { then: (resolve) => resolve('thenable value') };

return { config, first, second, user: user.name, nested, total, chained, thenable };
