// Statistics over search scores held in typed arrays, with ES2023's
// copying methods and the Math functions models reach for.
const queries = ['alpha', 'beta', 'gamma', 'delta'];
const scores = new Float64Array(queries.length * 2);
queries.forEach((q, i) => {
  const { results } = tools.search({ q });
  results.forEach((r, j) => { scores[i * 2 + j] = r.score * (i + 1); });
});

const sorted = scores.toSorted();
const median = (sorted.at(3) + sorted.at(4)) / 2;
const top = scores.toSorted((x, y) => y - x).slice(0, 3);
const buckets = Uint8Array.from(scores, (s) => Math.min(255, Math.round(s * 10)));
const above = scores.filter((s) => s > median);
const lastBig = scores.findLast((s) => s > 2);
const lastBigAt = scores.findLastIndex((s) => s > 2);
const norm = Math.hypot(...scores);
const growth = scores.map((s) => Math.log1p(s));

console.log(`median ${median.toFixed(2)}, top ${Array.from(top).join(' ')}`);
console.log(`buckets ${buckets.join(',')}`);

return {
  sorted: Array.from(sorted),
  unchanged: Array.from(scores.slice(0, 2)),
  median,
  top: Array.from(top),
  buckets: Array.from(buckets),
  above: above.length,
  lastBig,
  lastBigAt,
  norm: Number(norm.toFixed(6)),
  growth: Array.from(growth, (g) => Number(g.toFixed(4))),
  cube: Math.cbrt(27),
  replaced: Array.from(buckets.with(0, 1).subarray(0, 2)),
  reversed: Array.from(buckets.toReversed().slice(0, 2)),
};
