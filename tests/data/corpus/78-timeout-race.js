// Give each operation a deadline; clear the timer once the race is decided.
function withTimeout(promise, ms, label) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const later = (value, ms) => new Promise((resolve) => setTimeout(() => resolve(value), ms));

const results = [];
for (const [label, ms, limit] of [["fast", 5, 60], ["slow", 80, 20], ["ok", 10, 50]]) {
  try {
    const v = await withTimeout(later(tools.echo({ label }), ms), limit, label);
    results.push(`${v.label}: done`);
  } catch (e) {
    results.push(e.message);
  }
}
for (const line of results) console.log(line);
return results;
