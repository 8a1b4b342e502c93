// Resolve the links found on a page against its URL, dedupe them and group
// them by origin, the way a crawler step would.
const page = 'https://docs.example.com/guide/v1/intro.html?lang=en#top';
const hrefs = [
  'setup.html',
  './setup.html#install',
  '../v2/intro.html',
  '../../blog/',
  '/about',
  '//cdn.example.com/app.js',
  'https://DOCS.example.com:443/guide/v1/setup.html',
  'http://other.example.org/a/b/../c',
  '?lang=fr',
  '#faq',
  'mailto:team@example.com',
  'javascript:void(0)',
  'https://exa mple.com/',
];

const seen = new Set();
const byOrigin = {};
const skipped = [];
for (const href of hrefs) {
  let url;
  try {
    url = new URL(href, page);
  } catch (err) {
    skipped.push(`${href} (${err.code})`);
    continue;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    skipped.push(`${href} (${url.protocol})`);
    continue;
  }
  url.hash = '';
  const key = url.origin + url.pathname;
  if (seen.has(key)) continue;
  seen.add(key);
  (byOrigin[url.origin] ??= []).push(url.pathname + url.search);
}

for (const [origin, paths] of Object.entries(byOrigin)) {
  console.log(`${origin}: ${paths.length} link(s)`);
  for (const p of paths) console.log(`  ${p}`);
}
console.log(`skipped: ${skipped.join(', ')}`);
return { byOrigin, skipped, unique: seen.size };
