// Process a queue of tool jobs with at most two running at a time.
class TaskQueue {
  #running = 0;
  #waiting = [];
  constructor(concurrency) {
    this.concurrency = concurrency;
    this.maxSeen = 0;
    this.order = [];
  }

  push(label, task) {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ label, task, resolve, reject });
      this.#next();
    });
  }

  #next() {
    if (this.#running >= this.concurrency || this.#waiting.length === 0) return;
    const { label, task, resolve, reject } = this.#waiting.shift();
    this.#running++;
    this.maxSeen = Math.max(this.maxSeen, this.#running);
    this.order.push(`start ${label}`);
    (async () => {
      try {
        resolve(await task());
      } catch (err) {
        reject(err);
      } finally {
        this.order.push(`end ${label}`);
        this.#running--;
        this.#next();
      }
    })();
  }
}

const ticks = async (n) => {
  for (let i = 0; i < n; i++) await null;
};

const queue = new TaskQueue(2);
const jobs = [
  queue.push('u1', async () => { await ticks(60); return tools.users.get({ id: 1 }).name; }),
  queue.push('kv', async () => { await ticks(1); return tools.kv.get({ key: 'k' }); }),
  queue.push('bad', async () => tools.fail({ message: 'job failed' })),
  queue.push('add', async () => { await ticks(2); return tools.math.add({ a: 2, b: 40 }); }),
];

const results = await Promise.allSettled(jobs);
for (const line of queue.order) console.log(line);

return {
  results: results.map((r) => (r.status === 'fulfilled' ? r.value : `error: ${r.reason.message}`)),
  maxConcurrent: queue.maxSeen,
  order: queue.order,
};
