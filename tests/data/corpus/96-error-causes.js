// Wrap tool failures with a cause, collect them in an AggregateError and
// report the chain, the way an agent explains what went wrong.
class ToolFailure extends Error {
  constructor(tool, options) {
    super(`${tool} failed`, options);
    this.name = 'ToolFailure';
    this.tool = tool;
    if (Error.captureStackTrace) Error.captureStackTrace(this, ToolFailure);
  }
}

function call(name, args) {
  try {
    return tools.fail(args);
  } catch (err) {
    throw new ToolFailure(name, { cause: err });
  }
}

const failures = [];
for (const message of ['disk full', 'timeout', 'quota']) {
  try {
    call('fail', { message });
  } catch (err) {
    failures.push(err);
  }
}

const all = new AggregateError(failures, 'every attempt failed', { cause: 'retries exhausted' });

function chain(err) {
  const out = [];
  for (let e = err; e; e = e.cause) {
    out.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    if (!(e instanceof Error)) break;
  }
  return out;
}

for (const f of all.errors) console.log(chain(f).join(' <- '));
console.log(`${all.name}: ${all.message} (${all.errors.length} errors; cause: ${all.cause})`);

const firstOk = await Promise.any([
  Promise.reject(new Error('mirror 1 down')),
  Promise.resolve(tools.kv.get({ key: 'mirror2' })),
]);
const none = await Promise.any([Promise.reject(new Error('x'))]).catch((e) => [e.name, e.message, e.errors.length]);

return {
  chains: all.errors.map(chain),
  tools: all.errors.map((e) => e.tool),
  causeOwn: Object.keys(all.errors[0]),
  hasCause: Object.hasOwn(all.errors[0], 'cause'),
  stackHead: all.errors[0].stack.split('\n')[0],
  firstOk,
  none,
};
