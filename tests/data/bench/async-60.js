// A model-style agent script: fetch pages, enrich, aggregate, report.
const db = {
  users: Array.from({length: 12}, (_, i) => ({id: i + 1, name: `user${i + 1}`, team: i % 3})),
  orders: Array.from({length: 40}, (_, i) => ({id: i + 1, user: (i % 12) + 1, total: (i * 37) % 250})),
};

async function fetchPage(kind, page, size = 5) {
  await null;
  const items = db[kind].slice(page * size, (page + 1) * size);
  return {items, next: items.length === size ? page + 1 : null};
}

function* chunks(list, size) {
  for (let i = 0; i < list.length; i += size) {
    yield list.slice(i, i + size);
  }
  return list.length;
}

async function fetchAll(kind) {
  const out = [];
  let page = 0;
  do {
    const {items, next} = await fetchPage(kind, page);
    out.push(...items);
    page = next;
  } while (page !== null);
  return out;
}

class Report {
  #rows = [];
  static currency = 'EUR';
  add(label, value) { this.#rows.push({label, value}); return this; }
  get size() { return this.#rows.length; }
  render() {
    return this.#rows.map(({label, value}) => `${label.padEnd(12)} ${value} ${Report.currency}`).join('\n');
  }
}

const [users, orders] = await Promise.all([fetchAll('users'), fetchAll('orders')]);
const byUser = new Map();
for (const o of orders) {
  const entry = byUser.get(o.user) ?? {count: 0, total: 0};
  entry.count++;
  entry.total += o.total;
  byUser.set(o.user, entry);
}
const teams = {};
for (const u of users) {
  const stats = byUser.get(u.id);
  teams[u.team] ??= {members: 0, revenue: 0};
  teams[u.team].members += 1;
  teams[u.team].revenue += stats?.total ?? 0;
}
const report = new Report();
Object.entries(teams).sort(([, a], [, b]) => b.revenue - a.revenue)
  .forEach(([team, t]) => report.add(`team ${team}`, t.revenue));
const sizes = [...chunks(orders, 16)].map(c => c.length);
const top = [...byUser.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 3).map(([id]) => id);
return {lines: report.size, top, sizes, text: report.render()};
