// Non-null assertions and optional parameters in a lookup table.
interface Account {
  id: number;
  owner?: { name: string; email?: string };
  tags?: string[];
}

const byId = new Map<number, Account>();
for (const id of [1, 2, 3]) {
  const u = tools.users.get({ id }) as { id: number; name: string; email: string; active: boolean };
  byId.set(id, u.active ? { id, owner: { name: u.name, email: u.email }, tags: ['active'] } : { id });
}

function ownerName(id: number, fallback?: string): string {
  const account = byId.get(id);
  return account?.owner?.name ?? fallback ?? 'unknown';
}

function firstTag(account: Account, defaultTag?: string): string | undefined {
  return account.tags?.[0] ?? defaultTag;
}

const first = byId.get(1)!;
const email = first.owner!.email!;
const third = byId.get(3)!.owner!.name;
let maybe: string | undefined;
maybe = tools.kv.get({ key: 'x' }) as string;
const length = maybe!.length;

const el = { value: 'typed' } as { value: string } | null;
const text = el!.value;

return {
  email,
  third,
  length,
  text,
  names: [ownerName(1), ownerName(2), ownerName(2, 'nobody'), ownerName(9)],
  tags: [firstTag(first), firstTag(byId.get(2)!), firstTag(byId.get(2)!, 'none')],
};
