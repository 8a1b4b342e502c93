// Retry a flaky operation with exponential backoff (counted, not slept).
class RetryError extends Error {
  constructor(message, attempts) {
    super(message);
    this.name = 'RetryError';
    this.attempts = attempts;
  }
}

let attempt = 0;
const flaky = async () => {
  attempt++;
  if (attempt < 3) {
    return tools.fail({ message: `attempt ${attempt} failed` });
  }
  return tools.kv.get({ key: 'config' });
};

async function withRetry(fn, { retries = 5, base = 100 } = {}) {
  const delays = [];
  for (let i = 0; i <= retries; i++) {
    try {
      const value = await fn();
      return { value, delays };
    } catch (err) {
      console.log(`retry ${i + 1}: ${err.message}`);
      delays.push(base * 2 ** i);
    }
  }
  throw new RetryError('gave up', retries + 1);
}

const ok = await withRetry(flaky);

let gaveUp = null;
try {
  await withRetry(() => tools.fail({ message: 'down' }), { retries: 1 });
} catch (e) {
  gaveUp = { name: e.name, attempts: e.attempts, isRetry: e instanceof RetryError, isError: e instanceof Error };
}

return { ...ok, attempts: attempt, gaveUp };
