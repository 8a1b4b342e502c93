// Parse a JSON payload, transform it and serialise it back.
const payload = `{
  "orders": [
    {"id": "A1", "customer": "ada", "lines": [{"sku": "pen", "qty": 3, "price": 1.5}, {"sku": "pad", "qty": 1, "price": 4}]},
    {"id": "B2", "customer": "bob", "lines": [{"sku": "ink", "qty": 2, "price": 7.25}]},
    {"id": "C3", "customer": "ada", "lines": []}
  ],
  "currency": "EUR"
}`;

const { orders, currency } = JSON.parse(payload);

const totals = orders.map(({ id, customer, lines }) => ({
  id,
  customer,
  total: lines.reduce((sum, { qty, price }) => sum + qty * price, 0),
  items: lines.length,
}));

const byCustomer = {};
for (const { customer, total } of totals) {
  byCustomer[customer] = (byCustomer[customer] ?? 0) + total;
}

const summary = JSON.stringify({ currency, byCustomer, empty: totals.filter((t) => t.items === 0).map((t) => t.id) });

const pretty = JSON.stringify({ a: [1, 2], b: { c: null } }, null, 2);
const filtered = JSON.stringify(totals[0], ['id', 'total']);
const revived = JSON.parse('{"when":"2024-01-02","n":"5"}', (key, value) => (key === 'n' ? Number(value) : value));
const withToJSON = JSON.stringify({ secret: { toJSON: () => '***' }, list: [undefined, () => 1] });

const echoed = tools.echo(JSON.parse(summary));

console.log(summary);
console.log(pretty);

return { totals, byCustomer, filtered, revived, withToJSON, echoed, roundTrip: JSON.stringify(echoed) === summary };
