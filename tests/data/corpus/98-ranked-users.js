// Rank users by tier with a stable sort, then render a report with
// replaceAll, matchAll and at.
const users = tools.users.list({ limit: 8 });
const tierOf = (u) => (u.id % 3 === 0 ? 'gold' : u.id % 3 === 1 ? 'silver' : 'bronze');
const rank = { gold: 0, silver: 1, bronze: 2 };

// Equal tiers keep the list's order (a stable sort).
const ranked = users
  .map((u) => ({ ...u, tier: tierOf(u) }))
  .sort((a, b) => rank[a.tier] - rank[b.tier]);

const template = 'Dear {name}, your tier is {tier} ({email}).';
const letters = ranked.map((u) =>
  template.replaceAll('{name}', u.name).replaceAll('{tier}', u.tier).replaceAll('{email}', u.email));

const placeholders = [...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], m.index]);
const counts = {};
for (const u of ranked) counts[u.tier] = (counts[u.tier] ?? 0) + 1;

const byTier = new Map();
for (const u of ranked) {
  if (!byTier.has(u.tier)) byTier.set(u.tier, []);
  byTier.get(u.tier).push(u.id);
}

for (const line of letters.slice(0, 3)) console.log(line);
console.log(`last: ${ranked.at(-1).name}, first: ${ranked.at(0).name}`);

return {
  order: ranked.map((u) => u.id),
  tiers: Object.fromEntries(byTier),
  counts,
  placeholders,
  hasGold: Object.hasOwn(counts, 'gold'),
  hasPlatinum: Object.hasOwn(counts, 'platinum'),
  reversedIds: ranked.toReversed().map((u) => u.id).slice(0, 3),
  firstActive: ranked.findLast((u) => u.active)?.name,
};
