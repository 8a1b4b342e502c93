// A typed async pipeline: fetch, enrich and rank in parallel stages.
interface User {
  id: number;
  name: string;
  email: string;
  active: boolean;
}
interface SearchResult {
  title: string;
  score: number;
}
interface SearchResponse {
  query: string;
  results: SearchResult[];
}
type Stage<I, O> = (input: I) => Promise<O>;

function pipeline<A, B, C>(first: Stage<A, B>, second: Stage<B, C>): Stage<A, C> {
  return async (input: A): Promise<C> => second(await first(input));
}

async function mapParallel<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  return Promise.all(items.map((item, i) => fn(item, i)));
}

const fetchUsers: Stage<number, User[]> = async (limit) => {
  const users = (await tools.users.list({ limit })) as User[];
  return users.filter((u) => u.active);
};

const enrich: Stage<User[], Array<{ user: User; best: SearchResult }>> = (users) =>
  mapParallel(users, async (user) => {
    const res = tools.search({ q: user.name }) as SearchResponse;
    const best = res.results.reduce<SearchResult>((a, b) => (b.score > a.score ? b : a), res.results[0]);
    return { user, best };
  });

const run = pipeline(fetchUsers, enrich);
const rows = await run(5);

const ranked = rows
  .map(({ user, best }) => ({ id: user.id, title: best.title, weighted: best.score * user.id }))
  .sort((a, b) => b.weighted - a.weighted || a.id - b.id);

const totals = await mapParallel(ranked, async (r, i) => tools.math.add({ a: r.id, b: i }) as number);

for (const r of ranked) console.log(`${r.id} ${r.title} ${r.weighted.toFixed(1)}`);

return { ranked: ranked.map((r) => r.title), totals, stages: 2 };
