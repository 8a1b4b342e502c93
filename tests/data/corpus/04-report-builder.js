// Build a plain-text report of users and their search hit counts.
const users = tools.users.list({ limit: 4 });
const rows = users.map((u) => {
  const { results } = tools.search({ q: u.name });
  return { name: u.name, hits: results.length, top: results[0].score };
});

const width = Math.max(...rows.map((r) => r.name.length)) + 2;
const line = '-'.repeat(width + 12);

const header = `${'NAME'.padEnd(width)}${'HITS'.padStart(5)}${'TOP'.padStart(7)}`;
const body = rows
  .map(({ name, hits, top }) => `${name.padEnd(width)}${String(hits).padStart(5)}${top.toFixed(2).padStart(7)}`)
  .join('\n');

const report = `Report
${line}
${header}
${line}
${body}
${line}
total hits: ${rows.reduce((n, r) => n + r.hits, 0)}`;

console.log(report);
return report.split('\n').length;
