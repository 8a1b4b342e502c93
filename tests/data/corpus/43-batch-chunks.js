// Sum numbers in batches with parallel tool calls per batch.
function* chunks(items, size) {
  for (let i = 0; i < items.length; i += size) {
    yield items.slice(i, i + size);
  }
}

const numbers = Array.from({ length: 10 }, (_, i) => (i + 1) * 3);
const batchTotals = [];

for (const batch of chunks(numbers, 4)) {
  const pairs = [];
  for (let i = 0; i < batch.length; i += 2) pairs.push([batch[i], batch[i + 1] ?? 0]);
  const sums = await Promise.all(pairs.map(([a, b]) => tools.math.add({ a, b })));
  const total = sums.reduce((x, y) => x + y, 0);
  batchTotals.push(total);
  console.log(`batch [${batch.join(',')}] -> ${total}`);
}

const grand = batchTotals.reduce((acc, n) => tools.math.add({ a: acc, b: n }), 0);
const expected = numbers.reduce((a, b) => a + b, 0);

return { batches: batchTotals.length, batchTotals, grand, matches: grand === expected };
