// Parse a form-encoded body and a query string, merge them, and encode the
// result for a POST, with the user looked up by the id the form names.
const body = 'name=Ada+Lovelace&email=ada%40example.com&tags=math&tags=poetry&note=1%2B1%3D2&empty=&flag';
const query = new URLSearchParams('?id=3&utm_source=mail&utm_medium=x&lang=en');

const form = new URLSearchParams(body);
const fields = {};
for (const [key, value] of form) {
  if (key in fields) fields[key] = [].concat(fields[key], value);
  else fields[key] = value;
}
console.log(`fields: ${Object.keys(fields).join(', ')}`);

for (const key of [...query.keys()]) {
  if (key.startsWith('utm_')) query.delete(key);
}
const user = tools.users.get({ id: Number(query.get('id')) });
console.log(`user ${user.name} <${user.email}>`);

const out = new URLSearchParams({ user: user.name, lang: query.get('lang') });
out.append('tags', form.getAll('tags').join(','));
out.append('note', form.get('note'));
out.append('quote', "it's ~50% off! (today)");
out.sort();
const pairs = [];
out.forEach((value, key) => pairs.push(`${key}=${value}`));
console.log(`post: ${out}`);
return {
  fields,
  kept: [...query.entries()],
  has: [form.has('flag'), form.has('missing'), form.get('empty'), form.get('missing')],
  encoded: out.toString(),
  pairs,
};
