// Show the active users and their search scores as a table, then summarise.
const users = tools.users.list({ limit: 5 });
const rows = users.map((u) => {
  const { results } = tools.search({ q: u.name });
  return {
    name: u.name,
    email: u.email,
    active: u.active,
    best: Math.max(...results.map((r) => r.score)),
  };
});

console.log('%d users fetched', rows.length);
console.table(rows);
console.table(rows.filter((r) => r.active), ['name', 'best']);

const byDomain = new Map();
for (const r of rows) {
  const domain = r.email.split('@')[1];
  byDomain.set(domain, (byDomain.get(domain) ?? 0) + 1);
}
console.table(byDomain);
console.log('domains:', byDomain);

return { active: rows.filter((r) => r.active).map((r) => r.name), domains: [...byDomain.keys()] };
