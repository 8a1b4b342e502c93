// util.format's placeholders, as a model writes log lines.
const hits = tools.search({ q: 'format' });
const scores = hits.results.map((r) => r.score);

console.log('%s returned %d results', hits.query, hits.results.length);
console.log('best score: %f, as integer %i', scores[0], scores[0] * 100);
console.log('payload %j', hits);
console.log('object %o', { q: hits.query, n: scores.length });
console.log('inspected %O', hits);
console.log('%cstyled%c output is plain', 'color: green', '');
console.log('progress: 100%% done', 'extra', 42, { k: 'v' });
console.log('%s|%s|%s', null, undefined, ['a', 'b']);
console.log('%d %d', '12', 'abc');
console.log(3, '%s', 'not a format');

return scores;
