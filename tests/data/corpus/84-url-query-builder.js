// Build search API requests with URL and URLSearchParams, then call the tool
// with each URL's parts.
const API = 'https://api.example.com/v2/search';

function buildUrl(query, { page = 1, tags = [], sort } = {}) {
  const url = new URL(API);
  url.searchParams.set('q', query);
  url.searchParams.set('page', String(page));
  for (const tag of tags) url.searchParams.append('tag', tag);
  if (sort) url.searchParams.set('sort', sort);
  return url;
}

const requests = [
  buildUrl('red shoes'),
  buildUrl('café & crème', { page: 2, tags: ['food', 'paris'] }),
  buildUrl('a+b=c?', { sort: 'score:desc' }),
];

const results = [];
for (const url of requests) {
  console.log(`GET ${url}`);
  const q = url.searchParams.get('q');
  const res = tools.search({ q, page: Number(url.searchParams.get('page')) });
  results.push({
    href: url.href,
    search: url.search,
    tags: url.searchParams.getAll('tag'),
    top: res.results[0].title,
  });
}

const again = new URL(requests[1].href);
again.searchParams.delete('tag', 'food');
again.searchParams.sort();
console.log(`sorted: ${again.search}`);
return { results, sorted: again.toString(), size: again.searchParams.size };
