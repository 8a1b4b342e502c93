// A typed event bus keyed by an event map.
interface Events {
  login: { user: string };
  logout: { user: string; reason?: string };
  error: { code: number; message: string };
}

type Handler<T> = (payload: T) => void;

class TypedBus<M> {
  private handlers: { [K in keyof M]?: Handler<M[K]>[] } = {};

  on<K extends keyof M>(event: K, handler: Handler<M[K]>): this {
    (this.handlers[event] ??= []).push(handler);
    return this;
  }

  emit<K extends keyof M>(event: K, payload: M[K]): number {
    const list = this.handlers[event] ?? [];
    list.forEach((h) => h(payload));
    return list.length;
  }
}

const log: string[] = [];
const sessions = new Set<string>();
const bus = new TypedBus<Events>();

bus
  .on('login', ({ user }) => {
    sessions.add(user);
    log.push(`login ${user}`);
  })
  .on('logout', ({ user, reason = 'manual' }) => {
    sessions.delete(user);
    log.push(`logout ${user} (${reason})`);
  })
  .on('error', (e) => log.push(`error ${e.code}: ${e.message}`))
  .on('error', () => log.push('alert sent'));

const users = tools.users.list({ limit: 3 }) as { name: string }[];
for (const u of users) bus.emit('login', { user: u.name });
bus.emit('logout', { user: 'user2' });
bus.emit('logout', { user: 'user3', reason: 'timeout' });
const notified = bus.emit('error', { code: 503, message: 'upstream' });

console.log(log.join('\n'));
return { log, sessions: [...sessions], notified };
