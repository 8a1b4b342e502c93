// Type guards over a union of tool responses.
interface Hit {
  kind: 'hit';
  title: string;
  score: number;
}
interface Miss {
  kind: 'miss';
  query: string;
}
interface Failure {
  kind: 'failure';
  error: string;
}
type Outcome = Hit | Miss | Failure;

function isHit(o: Outcome): o is Hit {
  return o.kind === 'hit';
}

function isString(v: unknown): v is string {
  return typeof v === 'string';
}

function lookup(q: string): Outcome {
  try {
    if (q === '') return { kind: 'miss', query: q };
    const res = tools.search({ q }) as { results: { title: string; score: number }[] };
    const top = res.results[0];
    return { kind: 'hit', title: top.title, score: top.score };
  } catch (e) {
    return { kind: 'failure', error: (e as Error).message };
  }
}

function describe(o: Outcome): string {
  switch (o.kind) {
    case 'hit':
      return `hit ${o.title} (${o.score})`;
    case 'miss':
      return `miss for "${o.query}"`;
    case 'failure':
      return `failed: ${o.error}`;
  }
}

const outcomes: Outcome[] = ['types', '', 'guards'].map(lookup);
try {
  tools.fail({ message: 'search disabled' });
} catch (e: unknown) {
  if (e instanceof Error) outcomes.push({ kind: 'failure', error: e.message });
}

const hits = outcomes.filter(isHit);
const mixed: unknown[] = ['a', 1, 'b', null, { s: 'c' }];
const strings = mixed.filter(isString).map((s) => s.toUpperCase());

for (const o of outcomes) console.log(describe(o));

return { hits: hits.map((h) => h.title), strings, kinds: outcomes.map((o) => o.kind) };
