// Classes, instances, getters and functions as console.log shows them.
class Account {
  constructor(user, balance) {
    this.owner = user.name;
    this.balance = balance;
  }
  get overdrawn() {
    return this.balance < 0;
  }
  deposit(n) {
    this.balance += n;
    return this;
  }
}
class Savings extends Account {
  static rate = 0.02;
}

const u = tools.users.get({ id: 3 });
const acct = new Savings(u, 100).deposit(25);
console.log(acct);
console.log(Account, Savings, [Savings.rate]);
console.log(acct.deposit, function helper() {}, () => {}, async function load() {});
function* ids() { yield 1; }
console.log(ids, ids());
console.log({ get total() { return 1; }, set total(v) {}, kind: Symbol('account') });
console.log(Object.create(null), Object.assign(Object.create(null), { bare: true }));

return { owner: acct.owner, balance: acct.balance, overdrawn: acct.overdrawn };
