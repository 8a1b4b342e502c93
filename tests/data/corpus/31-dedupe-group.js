// Deduplicate search hits and group them by query.
const queries = ['cats', 'dogs', 'cats', 'birds', 'dogs'];
const uniqueQueries = [...new Set(queries)];
const responses = uniqueQueries.map((q) => tools.search({ q }));

const hits = responses.flatMap(({ query, results }) => results.map((r) => ({ query, ...r })));
const withDupes = [...hits, ...hits.slice(0, 2)];

const seen = new Set();
const deduped = withDupes.filter(({ title }) => (seen.has(title) ? false : (seen.add(title), true)));

const groups = deduped.reduce((acc, hit) => {
  (acc[hit.query] ??= []).push(hit.title);
  return acc;
}, {});

const byBucket = new Map();
for (const hit of deduped) {
  const bucket = hit.score >= 0.75 ? 'high' : 'low';
  byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), hit.title]);
}

const counted = queries.reduce((m, q) => m.set(q, (m.get(q) ?? 0) + 1), new Map());
const mostAsked = [...counted].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0];

console.log(`${withDupes.length} hits, ${deduped.length} unique`);

return {
  uniqueQueries,
  groups,
  buckets: Object.fromEntries(byBucket),
  mostAsked,
  sortedTitles: deduped.map((h) => h.title).sort(),
};
