// Retry a failing tool with a counter per attempt and a table of what happened.
const attempts = [];

function call(message, i) {
  console.count(message);
  try {
    return { ok: true, value: tools.echo({ attempt: i, message }) };
  } catch (err) {
    return { ok: false, error: err.message };
  }
}

for (let i = 1; i <= 4; i++) {
  const failing = i < 3;
  const result = failing ? (() => { try { tools.fail({ message: `try ${i}` }); } catch (e) { console.count('fail'); return { ok: false, error: e.message }; } })() : call('echo', i);
  attempts.push({ attempt: i, ok: result.ok, detail: result.ok ? result.value : result.error });
  console.assert(result.ok || i < 3, 'attempt %d should have worked', i);
}

console.group('attempts');
console.table(attempts);
console.groupEnd();
console.info('last: %o', attempts.at(-1));
return { attempts: attempts.length, succeeded: attempts.filter((a) => a.ok).map((a) => a.attempt) };
