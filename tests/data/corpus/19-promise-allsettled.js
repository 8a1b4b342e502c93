// Call several tools and report which succeeded.
const jobs = [
  { label: 'user', run: async () => tools.users.get({ id: 3 }) },
  { label: 'broken', run: async () => tools.fail({ message: 'backend timeout' }) },
  { label: 'config', run: async () => tools.kv.get({ key: 'config' }) },
  { label: 'quota', run: async () => { throw new RangeError('quota exceeded'); } },
];

const settled = await Promise.allSettled(jobs.map((j) => j.run()));

const report = settled.map((s, i) =>
  s.status === 'fulfilled'
    ? { label: jobs[i].label, ok: true, value: s.value }
    : { label: jobs[i].label, ok: false, reason: s.reason.message }
);

for (const r of report) {
  console.log(`${r.label}: ${r.ok ? 'ok' : 'failed (' + r.reason + ')'}`);
}

const failures = report.filter((r) => !r.ok).length;
let allError = null;
try {
  await Promise.all(jobs.map((j) => j.run()));
} catch (e) {
  allError = e.message;
}

return { report, failures, allError, statuses: settled.map((s) => s.status) };
