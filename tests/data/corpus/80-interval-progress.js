// Report progress on an interval while work runs in timed steps.
const steps = ["download", "parse", "index"];
let done = 0;
const reports = [];

const progress = setInterval(() => {
  reports.push(Math.round((done / steps.length) * 100));
}, 25);

for (const step of steps) {
  await new Promise((resolve) => setTimeout(resolve, 60));
  done++;
  console.log(`finished ${step} (${done}/${steps.length})`);
}
clearInterval(progress);

return {
  finished: done,
  reported: reports.length >= 3,
  monotonic: reports.every((p, i) => i === 0 || p >= reports[i - 1]),
  last: reports.length ? reports[reports.length - 1] <= 100 : null,
};
