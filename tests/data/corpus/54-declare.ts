// Ambient declarations for the environment, then typed calls.
declare const tools: {
  users: {
    get(args: { id: number }): { id: number; name: string; email: string; active: boolean };
    list(args?: { limit?: number }): { id: number; name: string; email: string; active: boolean }[];
  };
  kv: { get(args: { key: string }): string };
  math: { add(args: { a: number; b: number }): number };
};
declare function load(key: string): unknown;
declare let debugMode: boolean | undefined;

type UserRecord = ReturnType<typeof tools.users.get>;

interface TeamReport {
  readonly team: string;
  members: UserRecord[];
  score: number;
}

async function buildTeam(team: string, ids: number[]): Promise<TeamReport> {
  const members = ids.map((id) => tools.users.get({ id }));
  let score = 0;
  for (const m of members) score = tools.math.add({ a: score, b: m.id * 10 });
  return { team, members, score };
}

const teams: TeamReport[] = await Promise.all([buildTeam('red', [1, 2]), buildTeam('blue', [3])]);
const label: string = tools.kv.get({ key: 'season' });

console.log(teams.map((t) => `${t.team}=${t.score}`).join(' '));

return {
  label,
  teams: teams.map(({ team, members, score }) => ({ team, score, names: members.map((m) => m.name) })),
};
