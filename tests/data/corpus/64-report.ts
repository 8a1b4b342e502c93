// Weekly activity report: users, settings and searches fetched concurrently.
enum Tier {
  Bronze = 'bronze',
  Silver = 'silver',
  Gold = 'gold',
}

interface User {
  id: number;
  name: string;
  email: string;
  active: boolean;
}

interface Row {
  user: User;
  setting: string;
  hits: number;
  score: number;
  tier: Tier;
}

const tierFor = (score: number): Tier => (score >= 6 ? Tier.Gold : score >= 2.5 ? Tier.Silver : Tier.Bronze);

async function loadRow(user: User): Promise<Row> {
  const [setting, search] = await Promise.all([
    Promise.resolve(tools.kv.get({ key: `pref:${user.id}` }) as string),
    Promise.resolve(tools.search({ q: user.name }) as { results: { score: number }[] }),
  ]);
  const hits = search.results.length;
  const score = Math.round(search.results.reduce((s, r) => s + r.score, 0) * user.id * 10) / 10;
  return { user, setting, hits, score, tier: tierFor(score) };
}

async function buildReport(limit: number): Promise<{ rows: Row[]; text: string }> {
  const users = (await tools.users.list({ limit })) as User[];
  const settled = await Promise.allSettled(
    users.map((u) => (u.id === 4 ? Promise.reject(new Error(`user ${u.id} locked`)) : loadRow(u)))
  );
  const rows: Row[] = [];
  const problems: string[] = [];
  settled.forEach((s) => (s.status === 'fulfilled' ? rows.push(s.value) : problems.push((s.reason as Error).message)));
  rows.sort((a, b) => b.score - a.score || a.user.id - b.user.id);

  const byTier = new Map<Tier, string[]>();
  for (const r of rows) byTier.set(r.tier, [...(byTier.get(r.tier) ?? []), r.user.name]);

  const lines = [
    `Report for ${rows.length} users`,
    ...rows.map((r) => `${r.user.name.padEnd(6)} ${r.tier.padEnd(6)} ${r.score.toFixed(1).padStart(5)}`),
    ...[Tier.Gold, Tier.Silver, Tier.Bronze].map((t) => `${t}: ${(byTier.get(t) ?? []).join(', ') || '-'}`),
    ...problems.map((p) => `problem: ${p}`),
  ];
  return { rows, text: lines.join('\n') };
}

const { rows, text } = await buildReport(6);
console.log(text);

return { order: rows.map((r) => r.user.id), tiers: rows.map((r) => r.tier), settings: rows.map((r) => r.setting) };
