// Typed user lookups with interfaces and a generic helper.
interface User {
  id: number;
  name: string;
  email: string;
  active: boolean;
}

interface Summary {
  total: number;
  active: string[];
  domains: Record<string, number>;
}

function pluck<T, K extends keyof T>(items: T[], key: K): T[K][] {
  return items.map((item) => item[key]);
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = keyOf(item);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

const users = (await tools.users.list({ limit: 4 })) as User[];
const extra = tools.users.get({ id: 11 }) as User;
const all: User[] = [...users, extra];

const summary: Summary = {
  total: all.length,
  active: all.filter((u: User): boolean => u.active).map((u) => u.name),
  domains: countBy<User>(all, (u) => u.email.split('@')[1]),
};

const ids: number[] = pluck(all, 'id');
const label = (u: User): string => `${u.name} <${u.email}>`;

console.log(all.map(label).join('\n'));
return { summary, ids };
