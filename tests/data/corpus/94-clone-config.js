// Copy a configuration before handing it out: what structuredClone keeps, drops and refuses.
class RetryPolicy {
  constructor(tries, backoff) {
    this.tries = tries;
    this.backoff = backoff;
  }
  get total() {
    return this.tries * this.backoff;
  }
}

const settings = tools.kv.get({ key: 'settings' });
const config = {
  name: 'nightly',
  source: settings,
  retry: new RetryPolicy(3, 250),
  limits: new Map([['cpu', 2], ['memory', 512]]),
  created: new Date(Date.UTC(2024, 5, 1)),
  lastError: new RangeError('quota exceeded'),
  hook: function onDone() {},
};

function safeClone(value) {
  try {
    return { copy: structuredClone(value) };
  } catch (e) {
    return { error: `${e.name} (${e.code}): ${e instanceof DOMException}` };
  }
}

const attempt = safeClone(config);
console.log(`with a function: ${attempt.error}`);

const { hook, ...data } = config;
const { copy } = safeClone(data);
console.log(`without it: ${Object.keys(copy).join(', ')}`);
console.log(`retry is a plain object now: ${!(copy.retry instanceof RetryPolicy)}`);

const refused = [];
for (const [label, v] of [['symbol', Symbol('id')], ['weakmap', new WeakMap()], ['promise', Promise.resolve(1)]]) {
  const r = safeClone({ v });
  if (r.error) refused.push(label);
}
console.log(`refused: ${refused.join(', ')}`);

let abort;
try {
  throw new DOMException('The operation was aborted', 'AbortError');
} catch (e) {
  abort = { name: e.name, code: e.code, message: e.message, isError: e instanceof Error };
}

return {
  keys: Object.keys(copy),
  retry: copy.retry,
  limits: [...copy.limits],
  created: copy.created.toISOString(),
  lastError: [copy.lastError instanceof RangeError, copy.lastError.message],
  independent: copy.limits !== config.limits,
  refused,
  abort,
};
