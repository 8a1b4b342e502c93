// Look at what a tool returns before using it: console.log shows the
// objects the way Node's util.inspect does.
const users = tools.users.list({ limit: 4 });
console.log('users:', users);
console.log('first:', users[0]);

const byId = new Map(users.map((u) => [u.id, u]));
console.log(byId);

const domains = new Set(users.map((u) => u.email.split('@')[1]));
console.log('domains', domains, 'size', domains.size);

const active = users.filter((u) => u.active).map(({ id, name }) => ({ id, name }));
console.log({ active, inactive: users.length - active.length });

return { ids: [...byId.keys()], domains: [...domains], active: active.length };
