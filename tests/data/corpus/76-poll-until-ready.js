// Poll a job's status until it is ready, waiting between attempts.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let checks = 0;
function jobStatus() {
  checks++;
  const value = tools.kv.get({ key: `job-${checks}` });
  return { ready: checks >= 3, value };
}

async function waitForJob({ interval = 10, maxAttempts = 5 } = {}) {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const status = jobStatus();
    console.log(`attempt ${attempt}: ${status.ready ? "ready" : "pending"}`);
    if (status.ready) return { attempts: attempt, value: status.value };
    await sleep(interval);
  }
  throw new Error("job never became ready");
}

const started = Date.now();
const result = await waitForJob();
const waited = Date.now() - started;
return { ...result, waitedAtLeast20ms: waited >= 20 };
