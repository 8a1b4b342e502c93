// For each active user, search their name and look up a setting, all in
// parallel, then build a summary.
async function loadUsers(limit) {
  const users = await tools.users.list({ limit });
  return users.filter((u) => u.active);
}

async function enrich(user) {
  const [search, setting] = await Promise.all([
    tools.search({ q: user.name }),
    tools.kv.get({ key: `theme:${user.id}` }),
  ]);
  const best = search.results.reduce((a, b) => (b.score > a.score ? b : a));
  return {
    id: user.id,
    name: user.name,
    theme: setting.split(':').slice(1).join(':'),
    best: best.title,
    hits: search.results.length,
  };
}

async function summarise(rows) {
  const totalHits = rows.reduce((n, r) => n + r.hits, 0);
  const themes = [...new Set(rows.map((r) => r.theme))];
  await null;
  return { users: rows.length, totalHits, themes };
}

const active = await loadUsers(6);
console.log(`active users: ${active.map((u) => u.id).join(', ')}`);

const rows = await Promise.all(active.map(enrich));
for (const row of rows) {
  console.log(`${row.name.padEnd(6)} best=${row.best} theme=${row.theme}`);
}

const summary = await summarise(rows);
const checksum = await rows.reduce(
  async (accP, row) => tools.math.add({ a: await accP, b: row.id }),
  Promise.resolve(0)
);

const lines = [
  `users: ${summary.users}`,
  `hits: ${summary.totalHits}`,
  `themes: ${summary.themes.length}`,
  `checksum: ${checksum}`,
];

return { rows, summary, checksum, text: lines.join('\n') };
