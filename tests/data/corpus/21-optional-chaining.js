// Read deeply nested, sometimes missing data safely.
const response = tools.echo({
  data: {
    user: { profile: { name: 'Ada', links: [{ href: '/ada' }] }, settings: null },
    items: [],
  },
});

const name = response.data?.user?.profile?.name;
const missing = response.data?.account?.id;
const href = response.data?.user?.profile?.links?.[0]?.href;
const noLink = response.data?.user?.profile?.links?.[5]?.href ?? 'no link';
const theme = response.data.user.settings?.theme ?? 'light';
const key = 'profile';
const computed = response.data.user?.[key]?.name;

const api = {
  format: (s) => `<${s}>`,
  nested: { ping: () => 'pong' },
};
const formatted = api.format?.('x');
const notThere = api.missing?.('x');
const deep = api.nested?.ping?.();
const maybeNull = null;
const chainOnNull = maybeNull?.a.b.c.d;

const users = tools.users.list();
const firstInactive = users.find((u) => !u.active)?.name;
const nobody = users.find((u) => u.id > 100)?.name ?? 'nobody';
const callbacks = { onDone: undefined };
callbacks.onDone?.('ignored');

const counts = { zero: 0, empty: '', nothing: null };
const kept = [counts.zero ?? 5, counts.empty ?? 'x', counts.nothing ?? 'fallback', counts.absent ?? 'absent'];
const ored = [counts.zero || 5, counts.empty || 'x'];

return { name, missing, href, noLink, theme, computed, formatted, notThere, deep, chainOnNull, firstInactive, nobody, kept, ored, userCount: users.length };
