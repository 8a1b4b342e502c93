// Look up users one by one, pausing between calls to respect a rate limit.
const delay = (ms) => new Promise((r) => setTimeout(r, ms));

async function fetchAll(ids, { gapMs }) {
  const users = [];
  let last = 0;
  for (const id of ids) {
    const wait = Math.max(0, last + gapMs - Date.now());
    if (last && wait > 0) await delay(wait);
    last = Date.now();
    const user = tools.users.get({ id });
    users.push(user);
    console.log(`fetched ${user.name}`);
  }
  return users;
}

const t0 = Date.now();
const users = await fetchAll([3, 1, 2], { gapMs: 15 });
const elapsed = Date.now() - t0;
return {
  names: users.map((u) => u.name),
  active: users.filter((u) => u.active).length,
  pacedAtLeast28ms: elapsed >= 28,
};
