// Debug-print the intermediate data of a join the way a model checks its work.
const users = tools.users.list({ limit: 3 });
const settings = Object.fromEntries(users.map((u) => [u.id, tools.kv.get({ key: `pref:${u.id}` })]));

console.log('users:', users);
console.log('settings %o', settings);
console.log('first user is %s (%d), score %f, raw %j', users[0].name, users[0].id, 0.75, users[0]);

const joined = users.map((u) => ({ ...u, setting: settings[u.id], tags: new Set(['a', u.active ? 'on' : 'off']) }));
console.dir(joined[0], { depth: 0 });
console.dir(joined[0]);
console.log(joined.map((j) => [j.id, j.tags]));

const nested = { level1: { level2: { level3: { level4: 'deep' } } }, list: Array.from({ length: 120 }, (_, i) => i) };
console.log(nested);

const cyclic = { name: 'root', children: [] };
cyclic.children.push({ name: 'child', parent: cyclic });
console.log(cyclic);

console.log([undefined, null, -0, 1 / 3, 'str', Symbol('tag'), [, 1]]);
return joined.map((j) => `${j.name}=${j.setting}`);
