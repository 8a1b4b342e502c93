// Tuples, typed rest parameters and explicit generic calls.
type Pair<A, B> = [A, B];
type Range = [start: number, end: number];
type Row = [string, ...number[]];

function zip<A, B>(as: A[], bs: B[]): Pair<A, B>[] {
  const n = Math.min(as.length, bs.length);
  return Array.from({ length: n }, (_, i): Pair<A, B> => [as[i], bs[i]]);
}

function sum(...values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function tagged<T extends unknown[]>(tag: string, ...rest: T): [string, ...T] {
  return [tag, ...rest];
}

function span([start, end]: Range): number {
  return end - start;
}

function first<T>(items: T[]): T | undefined {
  return items[0];
}

const users = tools.users.list({ limit: 3 }) as { id: number; name: string }[];
const pairs = zip<string, number>(users.map((u) => u.name), [90, 75, 60, 45]);
const rows: Row[] = pairs.map(([name, score]): Row => [name, score, score / 10]);
const [[firstName, firstScore], ...others] = pairs;
const totals = rows.map(([label, ...nums]) => `${label}:${sum(...nums)}`);
const ranges: Range[] = [[0, 10], [5, 7]];
const t = tagged('point', 1, 2, true);
const none = first<number>([]);
const explicit = first<string>(['only']);

return { pairs, firstName, firstScore, others: others.length, totals, spans: ranges.map(span), t, none: none ?? null, explicit };
