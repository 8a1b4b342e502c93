// Try data sources in order until one answers.
const sources = [
  { name: 'primary', fetch: () => tools.fail({ message: 'primary offline' }) },
  { name: 'replica', fetch: () => tools.fail({ message: 'replica lagging' }) },
  { name: 'cache', fetch: () => tools.kv.get({ key: 'users' }) },
  { name: 'never', fetch: () => tools.kv.get({ key: 'unused' }) },
];

async function firstAvailable(list) {
  const errors = [];
  for (const { name, fetch } of list) {
    try {
      const value = await fetch();
      return { source: name, value, errors };
    } catch (err) {
      errors.push(`${name}: ${err.message}`);
    }
  }
  throw new Error(`all sources failed: ${errors.join('; ')}`);
}

const result = await firstAvailable(sources);

let allFailed = null;
try {
  await firstAvailable(sources.slice(0, 2));
} catch (e) {
  allFailed = e.message;
}

function parseOr(text, fallback) {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

const cleanup = [];
function guarded(fn) {
  try {
    return fn();
  } catch {
    return 'recovered';
  } finally {
    cleanup.push(fn.name || 'anon');
  }
}

console.log(result.errors.join('\n'));

return {
  result,
  allFailed,
  parsed: [parseOr('{"ok":true}', null), parseOr('not json', 'fallback')],
  guarded: [guarded(function boom() { throw new Error('x'); }), guarded(function fine() { return 'fine'; })],
  cleanup,
};
