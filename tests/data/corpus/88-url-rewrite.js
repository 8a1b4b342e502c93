// Rewrite links for a report: force https, move a host, drop tracking
// parameters and fragments, and keep the URLs as JSON through toJSON.
const links = [
  'http://shop.example.com/item/42?utm_campaign=spring&ref=home#reviews',
  'http://old.example.net/docs/a%20b/?page=2&fbclid=XYZ',
  'https://shop.example.com:8443/cart?session=abc&utm_source=ad',
  'http://shop.example.com/search?q=caf%C3%A9&sort=price',
];

const TRACKING = /^(utm_|fbclid$|gclid$)/;
function rewrite(href) {
  const url = new URL(href);
  url.protocol = 'https:';
  if (url.hostname === 'old.example.net') url.hostname = 'docs.example.com';
  if (url.port === '8443') url.port = '';
  for (const key of [...url.searchParams.keys()]) {
    if (TRACKING.test(key)) url.searchParams.delete(key);
  }
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url;
}

const rewritten = links.map(rewrite);
rewritten.forEach((u, i) => console.log(`${i + 1}. ${u}`));
const q = new URL(rewritten[3]).searchParams.get('q');
console.log(`decoded query: ${q}`);
return { rewritten, json: JSON.stringify({ first: rewritten[0] }), q };
