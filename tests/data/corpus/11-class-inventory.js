// A small inventory class with accessors, static members and fields.
class Inventory {
  static instances = 0;
  static DEFAULT_STOCK = 10;
  items = new Map();
  log = [];
  constructor(name) {
    this.name = name;
    Inventory.instances++;
  }

  static fromList(name, list) {
    const inv = new Inventory(name);
    for (const [sku, qty] of list) inv.add(sku, qty);
    return inv;
  }

  add(sku, qty = Inventory.DEFAULT_STOCK) {
    this.items.set(sku, (this.items.get(sku) ?? 0) + qty);
    this.log.push(`+${qty} ${sku}`);
    return this;
  }

  remove(sku, qty) {
    const have = this.items.get(sku) ?? 0;
    if (qty > have) throw new Error(`not enough ${sku}: have ${have}, want ${qty}`);
    this.items.set(sku, have - qty);
    this.log.push(`-${qty} ${sku}`);
    return this;
  }
  get total() {
    let n = 0;
    for (const qty of this.items.values()) n += qty;
    return n;
  }

  get label() {
    return `${this.name} (${this.items.size} skus)`;
  }
  set label(value) {
    this.name = value.split(' ')[0];
  }
}
const shop = Inventory.fromList('shop', [['apple', 5], ['pear', 2]]);
shop.add('plum').remove('apple', 3);
let error = null;
try { shop.remove('pear', 9); } catch (e) { error = e.message; }
const warehouse = new Inventory('warehouse').add('crate', 100);
shop.label = 'store front';

console.log(shop.label, warehouse.label);

return {
  total: shop.total,
  items: Object.fromEntries(shop.items),
  log: shop.log,
  error,
  instances: Inventory.instances,
  hasOwnDefault: Object.keys(Inventory).includes('DEFAULT_STOCK'),
};
