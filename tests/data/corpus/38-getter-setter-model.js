// Accessors that validate and derive values.
class Temperature {
  #celsius = 0;
  static #conversions = 0;
  get celsius() {
    return this.#celsius;
  }
  set celsius(value) {
    if (typeof value !== 'number' || value < -273.15) throw new RangeError(`invalid temperature ${value}`);
    this.#celsius = value;
  }
  get fahrenheit() {
    Temperature.#conversions++;
    return Math.round((this.#celsius * 9) / 5 + 32);
  }
  set fahrenheit(f) {
    this.celsius = ((f - 32) * 5) / 9;
  }
  static get conversions() {
    return Temperature.#conversions;
  }
}

const t = new Temperature();
t.celsius = 25;
const f1 = t.fahrenheit;
t.fahrenheit = 212;
const c2 = t.celsius;
let rejected = null;
try {
  t.celsius = -300;
} catch (e) {
  rejected = `${e.name}: ${e.message}`;
}
const account = {
  _balance: 0,
  history: [],
  get balance() {
    return this._balance;
  },
  set balance(v) {
    this.history.push(v - this._balance);
    this._balance = v;
  },
  get summary() {
    return `balance ${this.balance} after ${this.history.length} changes`;
  },
};
account.balance = 100;
account.balance += 50;
account.balance -= tools.math.add({ a: 20, b: 5 });

const descriptor = Object.getOwnPropertyDescriptor(Temperature.prototype, 'celsius');
console.log(account.summary);

return {
  f1, c2, rejected, fahrenheit: t.fahrenheit, conversions: Temperature.conversions,
  history: account.history,
  accessor: [typeof descriptor.get, typeof descriptor.set, 'value' in descriptor],
};
