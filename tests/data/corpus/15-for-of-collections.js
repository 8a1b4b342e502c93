// for-of over arrays, strings, Maps and Sets.
const users = tools.users.list({ limit: 4 });

const names = [];
for (const user of users) names.push(user.name);

let vowels = 0;
for (const ch of 'sandbox daemon') {
  if ('aeiou'.includes(ch)) vowels++;
}

const roles = new Map([
  ['admin', ['user1']],
  ['editor', ['user2', 'user3']],
]);
roles.set('viewer', ['user4']);
const roleLines = [];
for (const [role, members] of roles) {
  roleLines.push(`${role}=${members.join('+')}`);
}
for (const key of roles.keys()) console.log('role', key);

const seen = new Set();
const dupes = [];
for (const word of 'the cat and the hat and the bat'.split(' ')) {
  if (seen.has(word)) dupes.push(word);
  seen.add(word);
}
const setItems = [];
for (const w of seen) setItems.push(w);

const indexed = [];
for (const [i, name] of names.entries()) indexed.push(`${i}:${name}`);

let total = 0;
for (const value of new Map([['a', 1], ['b', 2]]).values()) total += value;

return { names, vowels, roleLines, dupes, setItems, indexed, total };
