// A small event bus on EventTarget: typed events, once listeners,
// listeners removed by a signal, and handler objects.
class JobEvent extends Event {
  constructor(type, job) {
    super(type, { cancelable: true });
    this.job = job;
  }
}

class Bus extends EventTarget {
  emit(type, job) {
    return this.dispatchEvent(new JobEvent(type, job));
  }
}

const bus = new Bus();
const log = [];
const stop = new AbortController();

bus.addEventListener('start', (e) => log.push(`start ${e.job}`));
bus.addEventListener('start', () => log.push('first start only'), { once: true });
bus.addEventListener('done', (e) => log.push(`done ${e.job}: ${tools.kv.get({ key: e.job })}`), { signal: stop.signal });
bus.addEventListener('veto', (e) => { if (e.job === 'rm') e.preventDefault(); });
const auditor = {
  seen: 0,
  handleEvent(e) { this.seen++; log.push(`audit ${e.type}`); },
};
bus.addEventListener('done', auditor);

const allowed = [];
for (const job of ['build', 'test']) {
  bus.emit('start', job);
  bus.emit('done', job);
}
stop.abort();
bus.emit('done', 'deploy');
for (const job of ['ls', 'rm']) allowed.push([job, bus.emit('veto', job)]);

for (const line of log) console.log(line);

return { log, allowed, audited: auditor.seen, isTarget: bus instanceof EventTarget, aborted: stop.signal.aborted };
