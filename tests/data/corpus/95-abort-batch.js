// Cancel a batch of lookups part way with an AbortController, as a model
// would to stop once it has enough results.
const controller = new AbortController();
const { signal } = controller;
const found = [];
let aborts = 0;
signal.addEventListener('abort', () => { aborts++; }, { once: true });

async function lookup(id, signal) {
  signal.throwIfAborted();
  const user = tools.users.get({ id });
  await Promise.resolve();
  return user;
}

const outcomes = [];
for (let id = 1; id <= 6; id++) {
  try {
    const user = await lookup(id, signal);
    if (user.active) found.push(user.name);
    outcomes.push('ok');
    if (found.length === 2) controller.abort(new Error('enough results'));
  } catch (err) {
    outcomes.push(err.message);
  }
}
controller.abort('again');

// A combined signal aborts with whichever source aborts first.
const a = new AbortController();
const b = new AbortController();
const either = AbortSignal.any([a.signal, b.signal]);
let seen = null;
either.onabort = () => { seen = either.reason; };
b.abort('b first');
a.abort('a second');

// The default reason is a DOMException named AbortError.
const c = new AbortController();
c.abort();
const r = c.signal.reason;
console.log(`stopped after ${found.length} active users: ${found.join(', ')}`);
console.log(`default reason: ${r.name} (${r.message}), code ${r.code}`);
return { found, outcomes, aborts, reason: signal.reason.message, seen, isDom: r instanceof DOMException, aborted: either.aborted };
