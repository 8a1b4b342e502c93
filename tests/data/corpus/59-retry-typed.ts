// A typed retry helper with an options object and a custom error.
interface RetryOptions {
  attempts?: number;
  baseDelay?: number;
  shouldRetry?: (error: Error, attempt: number) => boolean;
}

class RetryExhaustedError extends Error {
  public readonly name = 'RetryExhaustedError';
  constructor(public readonly attempts: number, public readonly last: string) {
    super(`failed after ${attempts} attempts: ${last}`);
  }
}

async function retry<T>(task: (attempt: number) => T | Promise<T>, options: RetryOptions = {}): Promise<{ value: T; waited: number[] }> {
  const { attempts = 3, baseDelay = 50, shouldRetry = () => true } = options;
  const waited: number[] = [];
  let last = 'none';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return { value: await task(attempt), waited };
    } catch (e) {
      const error = e as Error;
      last = error.message;
      if (!shouldRetry(error, attempt)) break;
      waited.push(baseDelay * 2 ** (attempt - 1));
    }
  }
  throw new RetryExhaustedError(waited.length + 1, last);
}

const eventually = await retry((n) => (n < 3 ? tools.fail({ message: `try ${n}` }) : tools.kv.get({ key: 'ok' })) as string, { attempts: 4 });

let exhausted: { name: string; attempts: number; message: string; isError: boolean } | undefined;
try {
  await retry(() => tools.fail({ message: 'fatal: bad request' }), {
    shouldRetry: (e) => !e.message.startsWith('fatal'),
  });
} catch (e) {
  if (e instanceof RetryExhaustedError) {
    exhausted = { name: e.name, attempts: e.attempts, message: e.message, isError: e instanceof Error };
  }
}

const quick = await retry(async () => tools.math.add({ a: 1, b: 1 }) as number);

return { eventually, exhausted, quick };
