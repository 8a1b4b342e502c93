// Merge settings with the logical assignment operators.
const settings = { retries: 0, name: '', tags: null, verbose: true, depth: 2 };

settings.retries ??= 3;
settings.timeout ??= 1000;
settings.name ||= 'default';
settings.tags ??= [];
settings.verbose &&= 'very';
settings.depth &&= settings.depth * 2;
settings.missing &&= 'never';

let cache;
const calls = [];
function getCache() {
  calls.push('build');
  return (cache ??= new Map());
}
getCache().set('a', 1);
getCache().set('b', 2);

const counts = {};
for (const word of ['x', 'y', 'x', 'z', 'x']) {
  counts[word] ||= 0;
  counts[word] += 1;
}

let label = '';
label ||= tools.kv.get({ key: 'label' });
label ||= tools.kv.get({ key: 'never-called' });

let user = null;
user ??= tools.users.get({ id: 5 });
user.nickname ??= user.name.toUpperCase();

const obj = { nested: {} };
obj.nested.list ??= [];
obj.nested.list.push('first');
obj.nested.list ??= ['replaced'];

return { settings, cacheSize: cache.size, calls, counts, label, user, obj };
