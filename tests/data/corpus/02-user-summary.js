// Fetch the users and summarise who is active.
const users = await tools.users.list({ limit: 5 });

const describe = ({ id, name, active }) => `${name} (#${id})${active ? '' : ' [inactive]'}`;
const active = users.filter(({ active }) => active);
const inactive = users.filter((u) => !u.active);

for (const u of users) console.log(describe(u));

const domains = new Set(users.map(({ email }) => email.split('@')[1]));

return {
  count: users.length,
  active: active.map(({ name }) => name),
  inactiveIds: inactive.map(({ id }) => id),
  domains: [...domains],
  byName: Object.fromEntries(users.map(({ name, email }) => [name, email])),
};
