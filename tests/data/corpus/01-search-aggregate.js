// Run several searches at once and merge the hits into one ranked list.
const queries = ['duktape', 'sandbox', 'seccomp'];
const responses = await Promise.all(queries.map((q) => tools.search({ q })));

const hits = responses.flatMap((r) =>
  r.results.map((hit) => ({ ...hit, query: r.query }))
);

hits.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title));

const best = hits.filter((h) => h.score >= 0.9).map((h) => h.title);
console.log(`searched ${queries.length} queries, ${hits.length} hits`);
console.log(`best: ${best.join(', ')}`);

return {
  total: hits.length,
  best,
  average: Number((hits.reduce((sum, h) => sum + h.score, 0) / hits.length).toFixed(2)),
};
