// What runs first: sync code, microtasks, immediates or timers?
const log = [];
await new Promise((resolve) => {
  setTimeout(() => {
    log.push("timer");
    setTimeout(() => {
      log.push("nested timer");
      resolve();
    }, 0);
    setImmediate(() => log.push("immediate"));
    Promise.resolve().then(() => log.push("promise"));
    queueMicrotask(() => log.push("microtask"));
    log.push("sync in timer");
  }, 0);
});
console.log(log.join(" -> "));
return log;
