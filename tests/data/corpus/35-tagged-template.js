// Tagged templates: escaping, highlighting and raw strings.
const escapeHtml = (s) =>
  String(s).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function html(strings, ...values) {
  return strings.reduce((out, str, i) => out + str + (i < values.length ? escapeHtml(values[i]) : ''), '');
}

function highlight(strings, ...values) {
  return strings.raw.map((s, i) => `${s}${i < values.length ? `[${values[i]}]` : ''}`).join('');
}

function sql(strings, ...params) {
  const text = strings.reduce((acc, s, i) => acc + '$' + i + s);
  return { text, params };
}

function inspect(strings, ...values) {
  return { count: strings.length, cooked: [...strings], raw: [...strings.raw], values };
}

const user = tools.users.get({ id: 3 });
const comment = '<script>alert("x")</script> & more';

const card = html`<div class="user">${user.name}</div><p>${comment}</p>`;
const marked = highlight`user ${user.id} has email ${user.email}`;
const query = sql`SELECT * FROM users WHERE id = ${user.id} AND active = ${user.active}`;
const parts = inspect`a${1}b\n${2}`;
const rawPath = String.raw`C:\temp\new\${user.name}`;
const empty = inspect``;

console.log(card);
console.log(marked);

return { card, marked, query, parts, rawPath, empty };
