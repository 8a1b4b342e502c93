// Typed configuration checked with satisfies and read with optional chaining.
type Env = 'dev' | 'prod';
interface ServiceConfig {
  url: string;
  timeoutMs?: number;
  retries?: number;
  headers?: Record<string, string>;
}

const services = {
  users: { url: '/users', timeoutMs: 500 },
  search: { url: '/search', retries: 3, headers: { accept: 'json' } },
  billing: { url: '/billing' },
} satisfies Record<string, ServiceConfig>;

type ServiceName = keyof typeof services;

const envOverrides: Partial<Record<Env, Partial<Record<ServiceName, Partial<ServiceConfig>>>>> = {
  prod: { users: { timeoutMs: 2000 }, billing: { retries: 5 } },
};

function resolve(env: Env, name: ServiceName): Required<Pick<ServiceConfig, 'url' | 'timeoutMs' | 'retries'>> & { accept: string } {
  const base: ServiceConfig = services[name];
  const over = envOverrides[env]?.[name];
  return {
    url: `${env === 'prod' ? 'https://api' : 'http://localhost'}${base.url}`,
    timeoutMs: over?.timeoutMs ?? base.timeoutMs ?? 1000,
    retries: over?.retries ?? base.retries ?? 0,
    accept: base.headers?.accept ?? 'any',
  };
}

const names = Object.keys(services) as ServiceName[];
const resolved = Object.fromEntries(
  (['dev', 'prod'] as const).flatMap((env) => names.map((n) => [`${env}.${n}`, resolve(env, n)]))
);

const stored = tools.echo(resolved['prod.users']) as { url: string };

console.log(names.join(','));
return { resolved, stored, searchHeaders: services.search.headers.accept };
