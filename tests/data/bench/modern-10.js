const users = [{name: 'ada', age: 36}, {name: 'bob', age: 25}, {name: 'cy', age: 41}];
const byAge = [...users].sort((a, b) => a.age - b.age);
const names = byAge.map(({name}) => name.toUpperCase());
const total = users.reduce((sum, {age}) => sum + age, 0);
class Stats { constructor(xs) { this.xs = xs; } get mean() { return this.xs.reduce((a, b) => a + b, 0) / this.xs.length; } }
const stats = new Stats(users.map(u => u.age));
const oldest = byAge.at(-1)?.name ?? 'nobody';
let summary = `${names.join(', ')}: total ${total}, mean ${stats.mean.toFixed(1)}`;
for (const [i, u] of users.entries()) summary += ` ${i}:${u.name}`;
return {summary, oldest};
