// Memoise tool lookups so repeated keys cost one call.
function memoize(fn, keyOf = (x) => JSON.stringify(x)) {
  const cache = new Map();
  const memo = (arg) => {
    const key = keyOf(arg);
    if (cache.has(key)) {
      memo.hits++;
      return cache.get(key);
    }
    memo.misses++;
    const value = fn(arg);
    cache.set(key, value);
    return value;
  };
  memo.hits = 0;
  memo.misses = 0;
  memo.clear = () => cache.clear();
  return memo;
}

const getValue = memoize((key) => tools.kv.get({ key }), (k) => k);
const keys = ['a', 'b', 'a', 'c', 'b', 'a'];
const values = keys.map(getValue);

const getUser = memoize(({ id }) => tools.users.get({ id }), ({ id }) => `user:${id}`);
const names = [3, 1, 3, 3].map((id) => getUser({ id }).name);

getValue.clear();
getValue('a');

const fib = memoize((n) => (n < 2 ? n : fib(n - 1) + fib(n - 2)));
const fib30 = fib(30);

console.log(`kv hits=${getValue.hits} misses=${getValue.misses}`);

return { values, names, kv: [getValue.hits, getValue.misses], users: [getUser.hits, getUser.misses], fib30, fibMisses: fib.misses };
