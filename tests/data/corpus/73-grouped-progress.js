// Walk a small task tree, logging progress in nested groups and counting outcomes.
const tasks = [
  { name: 'fetch', steps: ['users', 'settings'] },
  { name: 'index', steps: ['search'] },
  { name: 'verify', steps: ['users', 'missing', 'settings'] },
];

const done = new Set();
for (const task of tasks) {
  console.group(`task ${task.name}`);
  for (const step of task.steps) {
    console.group(`step ${step}`);
    try {
      if (step === 'missing') tools.fail({ message: `no handler for ${step}` });
      const value = tools.kv.get({ key: `${task.name}/${step}` });
      console.log('got', value);
      console.count('ok');
      done.add(step);
    } catch (err) {
      console.log('failed: %s', err.message);
      console.count('failed');
    }
    console.groupEnd();
  }
  console.log('steps so far:', done);
  console.groupEnd();
}

console.countReset('ok');
console.count('ok');
console.assert(done.size === 3, 'expected three distinct steps');
return { done: [...done].sort(), tasks: tasks.length };
