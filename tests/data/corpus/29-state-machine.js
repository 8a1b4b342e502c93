// An order workflow as a small state machine.
const transitions = {
  draft: { submit: 'pending', cancel: 'cancelled' },
  pending: { approve: 'approved', reject: 'draft', cancel: 'cancelled' },
  approved: { ship: 'shipped' },
  shipped: { deliver: 'delivered' },
};

class OrderMachine {
  state = 'draft';
  history = [];

  constructor(id) {
    this.id = id;
  }

  can(event) {
    return Boolean(transitions[this.state]?.[event]);
  }

  send(event) {
    const next = transitions[this.state]?.[event];
    if (!next) {
      this.history.push(`${event}: ignored in ${this.state}`);
      return false;
    }
    this.history.push(`${this.state} -> ${next}`);
    this.state = next;
    return true;
  }

  get done() {
    return ['delivered', 'cancelled'].includes(this.state);
  }
}

const order = new OrderMachine('A-1');
const events = ['ship', 'submit', 'reject', 'submit', 'approve', 'ship', 'deliver', 'cancel'];
const accepted = events.map((e) => order.send(e));

const second = new OrderMachine('B-2');
for (const e of ['submit', 'cancel']) second.send(e);

console.log(order.history.join('\n'));

return {
  final: order.state,
  done: order.done,
  accepted,
  second: { state: second.state, done: second.done, canSubmit: second.can('submit') },
  ignored: order.history.filter((h) => h.includes('ignored')).length,
};
