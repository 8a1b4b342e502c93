// Clean up and format strings from tool results.
const raw = tools.echo({ text: '   Hello, World!   ', csv: 'a,b,,c', slug: 'My Blog Post: Part 2' });

const trimmed = raw.text.trim();
const ends = [raw.text.trimStart().length, raw.text.trimEnd().length];
const slug = raw.slug
  .toLowerCase()
  .replaceAll(':', '')
  .split(' ')
  .filter(Boolean)
  .join('-');

const checks = [
  trimmed.startsWith('Hello'),
  trimmed.endsWith('!'),
  trimmed.includes('World'),
  trimmed.includes('world'),
];

const ids = [7, 42, 300].map((n) => `ID-${String(n).padStart(5, '0')}`);
const table = ['name', 'qty'].map((h) => h.padEnd(6, '.') + '|').join('');
const banner = '='.repeat(3) + ' done ' + '='.repeat(3);
const parts = raw.csv.split(',');
const initials = 'grace brewster murray hopper'
  .split(' ')
  .map((w) => w[0].toUpperCase() + w.slice(1))
  .join(' ');
const codes = [...'abc'].map((c) => c.charCodeAt(0));
const fromCodes = String.fromCharCode(...codes.map((c) => c - 32));
const replaced = 'a-b-c'.replace(/-/g, '+');
const counted = 'mississippi'.split('s').length - 1;
const found = 'find the needle here'.indexOf('needle');
const multi = `line one
line two`.split('\n');

console.log(slug);
console.log(ids.join(' '));

return { trimmed, ends, slug, checks, ids, table, banner, parts, initials, codes, fromCodes, replaced, counted, found, multi, sub: trimmed.substring(7, 12) };
