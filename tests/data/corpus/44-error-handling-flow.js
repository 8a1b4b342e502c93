// Collect errors from a multi-step job and always clean up.
class StepError extends Error {
  constructor(step, cause) {
    super(`step ${step} failed: ${cause.message}`);
    this.name = 'StepError';
    this.step = step;
  }
}

const log = [];
async function step(name, fn) {
  log.push(`begin ${name}`);
  try {
    const value = await fn();
    log.push(`ok ${name}`);
    return value;
  } catch (err) {
    log.push(`fail ${name}`);
    throw new StepError(name, err);
  } finally {
    log.push(`end ${name}`);
  }
}

async function job(failAt) {
  const results = {};
  try {
    results.user = await step('user', () => tools.users.get({ id: 6 }));
    results.search = await step('search', () =>
      failAt === 'search' ? tools.fail({ message: 'index missing' }) : tools.search({ q: results.user.name })
    );
    results.save = await step('save', () => tools.kv.get({ key: 'saved' }));
    return { ok: true, steps: Object.keys(results) };
  } catch (e) {
    return { ok: false, error: e.message, step: e.step, name: e.name, partial: Object.keys(results) };
  } finally {
    log.push('cleanup');
  }
}

const good = await job(null);
const bad = await job('search');

const errors = await Promise.allSettled([
  Promise.reject(new TypeError('bad type')),
  step('direct', () => tools.fail({ message: 'nope' })),
]).then((rs) => rs.map((r) => `${r.reason.name}: ${r.reason.message}`));

let aggregate = null;
try {
  await Promise.any([Promise.reject(new Error('x')), Promise.reject(new Error('y'))]);
} catch (e) {
  aggregate = { isAggregate: e instanceof AggregateError, count: e.errors.length, messages: e.errors.map((x) => x.message) };
}

console.log(log.join(' > '));
return { good, bad, errors, aggregate, logLength: log.length };
