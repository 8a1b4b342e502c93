// Retry a flaky tool with exponential backoff, then fall back.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function retry(fn, { retries, baseMs }) {
  const delays = [];
  for (let attempt = 0; ; attempt++) {
    try {
      return { value: fn(attempt), delays };
    } catch (err) {
      if (attempt >= retries) {
        err.delays = delays;
        throw err;
      }
      const wait = baseMs * 2 ** attempt;
      delays.push(wait);
      console.log(`attempt ${attempt + 1} failed (${err.message}); retrying in ${wait} ms`);
      await sleep(wait);
    }
  }
}

const flaky = await retry((n) => (n < 2 ? tools.fail({ message: `busy ${n}` }) : tools.kv.get({ key: "report" })), {
  retries: 3,
  baseMs: 5,
});

let fallback;
try {
  await retry(() => tools.fail({ message: "down" }), { retries: 1, baseMs: 5 });
} catch (err) {
  fallback = { message: err.message, delays: err.delays };
}
return { flaky, fallback };
