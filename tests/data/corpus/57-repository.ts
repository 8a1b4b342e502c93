// A generic in-memory repository behind an interface.
interface Entity {
  id: string;
}

interface Repository<T extends Entity> {
  save(item: T): T;
  find(id: string): T | undefined;
  findAll(predicate?: (item: T) => boolean): T[];
  readonly size: number;
}

class MemoryRepository<T extends Entity> implements Repository<T> {
  protected items = new Map<string, T>();
  private writes = 0;

  save(item: T): T {
    this.writes++;
    this.items.set(item.id, { ...item });
    return item;
  }
  find(id: string): T | undefined {
    return this.items.get(id);
  }
  findAll(predicate: (item: T) => boolean = () => true): T[] {
    return [...this.items.values()].filter(predicate);
  }
  get size(): number { return this.items.size; }
  get writeCount(): number { return this.writes; }
}

interface Contact extends Entity {
  name: string;
  email: string;
  vip?: boolean;
}

class ContactRepository extends MemoryRepository<Contact> {
  vips(): string[] {
    return this.findAll((c) => c.vip === true).map((c) => c.name);
  }
}
const repo = new ContactRepository();
for (const id of [1, 2, 3, 4]) {
  const u = tools.users.get({ id }) as { name: string; email: string; active: boolean };
  repo.save({ id: `c${id}`, name: u.name, email: u.email, vip: u.active || undefined });
}
repo.save({ id: 'c2', name: 'renamed', email: 'new@example.com', vip: true });

const found: Contact | undefined = repo.find('c2');
const asInterface: Repository<Contact> = repo;

return {
  size: asInterface.size,
  writes: repo.writeCount,
  found,
  missing: repo.find('nope') ?? null,
  vips: repo.vips(),
  names: repo.findAll().map((c) => c.name),
};
