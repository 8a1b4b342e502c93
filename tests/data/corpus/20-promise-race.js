// Race tool-backed tasks that take different numbers of steps.
async function slowLookup(key, steps) {
  const value = tools.kv.get({ key });
  for (let i = 0; i < steps; i++) await null;
  return value;
}

const winner = await Promise.race([
  slowLookup('slow', 12),
  slowLookup('fast', 1),
  slowLookup('medium', 6),
]);

const immediate = await Promise.race([tools.echo({ first: true }), Promise.resolve('second')]);

const failing = async () => {
  await null;
  return tools.fail({ message: 'primary down' });
};
let raceError = null;
try {
  await Promise.race([failing(), slowLookup('late', 20)]);
} catch (e) {
  raceError = e.message;
}

const withTimeout = (promise, steps) =>
  Promise.race([
    promise,
    (async () => {
      for (let i = 0; i < steps; i++) await null;
      return 'timed out';
    })(),
  ]);

const quick = await withTimeout(slowLookup('q', 0), 8);
const slow = await withTimeout(slowLookup('s', 30), 3);

console.log(`winner=${winner}`);
return { winner, immediate, raceError, quick, slow };
