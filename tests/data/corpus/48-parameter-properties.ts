// Parameter properties and access modifiers on a service client.
class ApiClient {
  private requests = 0;
  protected readonly log: string[] = [];

  constructor(
    public readonly name: string,
    private readonly prefix: string = 'api',
    protected retries = 2,
  ) {}

  fetchUser(id: number): { id: number; name: string } {
    this.requests++;
    this.log.push(`${this.prefix}/users/${id}`);
    const u = tools.users.get({ id }) as { id: number; name: string };
    return { id: u.id, name: u.name };
  }

  get requestCount(): number {
    return this.requests;
  }

  history(): readonly string[] {
    return this.log;
  }
}

class AdminClient extends ApiClient {
  constructor(name: string, public readonly scopes: string[]) {
    super(name, 'admin', 5);
  }

  describe(): string {
    return `${this.name} retries=${this.retries} scopes=${this.scopes.join('+')}`;
  }
}

const client = new ApiClient('public');
const admin = new AdminClient('ops', ['read', 'write']);

const fetched = [client.fetchUser(1), client.fetchUser(2), admin.fetchUser(3)];

console.log(admin.describe());

return {
  fetched,
  counts: [client.requestCount, admin.requestCount],
  history: [...client.history(), ...admin.history()],
  keys: Object.keys(admin).sort(),
};
