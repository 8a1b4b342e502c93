// Render users as a Markdown table with aligned columns.
const users = tools.users.list({ limit: 5 });
const columns = [
  { key: 'id', title: 'ID', align: 'right' },
  { key: 'name', title: 'Name' },
  { key: 'email', title: 'Email' },
  { key: 'active', title: 'Active', format: (v) => (v ? 'yes' : 'no') },
];

const cells = users.map((u) => columns.map(({ key, format = String }) => format(u[key])));
const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));

const pad = (text, width, align = 'left') => (align === 'right' ? text.padStart(width) : text.padEnd(width));
const renderRow = (values) =>
  `| ${values.map((v, i) => pad(v, widths[i], columns[i].align)).join(' | ')} |`;

const separator = `|${widths.map((w, i) => (columns[i].align === 'right' ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`;

const table = [renderRow(columns.map((c) => c.title)), separator, ...cells.map(renderRow)].join('\n');
console.log(table);

return { lines: table.split('\n').length, widths };
