// Run tasks with at most two at a time, in the order they were queued.
async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  const order = [];
  let next = 0;
  let running = 0;
  let peak = 0;
  async function worker() {
    while (next < tasks.length) {
      const i = next++;
      running++;
      peak = Math.max(peak, running);
      results[i] = await tasks[i]();
      running--;
      order.push(i);
    }
  }
  await Promise.all(Array.from({ length: limit }, worker));
  return { results, order, peak };
}

const task = (name, ms) => () =>
  new Promise((resolve) =>
    setTimeout(() => {
      console.log(`done ${name}`);
      resolve(tools.math.add({ a: ms, b: 1 }));
    }, ms)
  );

return await pool([task("a", 60), task("b", 20), task("c", 20), task("d", 100)], 2);
