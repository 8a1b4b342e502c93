// A tiny event emitter with once() and listener removal.
class Emitter {
  #listeners = new Map();

  on(event, fn) {
    if (!this.#listeners.has(event)) this.#listeners.set(event, new Set());
    this.#listeners.get(event).add(fn);
    return () => this.off(event, fn);
  }

  once(event, fn) {
    const wrapper = (...args) => {
      this.off(event, wrapper);
      fn(...args);
    };
    return this.on(event, wrapper);
  }

  off(event, fn) {
    this.#listeners.get(event)?.delete(fn);
  }

  emit(event, ...args) {
    const fns = [...(this.#listeners.get(event) ?? [])];
    fns.forEach((fn) => fn(...args));
    return fns.length;
  }

  count(event) {
    return this.#listeners.get(event)?.size ?? 0;
  }
}

const bus = new Emitter();
const log = [];
const stop = bus.on('user', (u) => log.push(`seen ${u.name}`));
bus.once('user', (u, extra) => log.push(`first ${u.name} ${extra}`));
bus.on('done', (...all) => log.push(`done with ${all.length} args`));

for (const id of [1, 2]) bus.emit('user', tools.users.get({ id }), 'x');
stop();
const afterStop = bus.emit('user', { name: 'ghost' });
bus.emit('done', 1, 2, 3);

console.log(log.join('; '));
return { log, afterStop, counts: [bus.count('user'), bus.count('done'), bus.count('none')] };
