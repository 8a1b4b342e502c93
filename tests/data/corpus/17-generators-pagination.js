// Page through users with a generator and stop early.
function* pages(total, pageSize) {
  let fetched = 0;
  let page = 1;
  while (fetched < total) {
    const limit = Math.min(fetched + pageSize, total);
    const all = tools.users.list({ limit });
    const batch = all.slice(fetched);
    fetched += batch.length;
    const command = yield { page: page++, users: batch };
    if (command === 'stop') return 'stopped';
  }
  return 'done';
}

const seen = [];
for (const { page, users } of pages(7, 3)) {
  seen.push(`${page}:${users.map((u) => u.id).join(',')}`);
}

const it = pages(10, 2);
const first = it.next();
const second = it.next();
const stopped = it.next('stop');
const after = it.next();

function* take(iterable, n) {
  if (n <= 0) return;
  for (const item of iterable) {
    yield item;
    if (--n <= 0) return;
  }
}

function* naturals() {
  let n = 1;
  while (true) yield n++;
}

console.log(seen.join(' | '));

return {
  seen,
  first: first.value.page,
  second: second.value.users.map((u) => u.name),
  stopped,
  after,
  firstFive: [...take(naturals(), 5)],
};
