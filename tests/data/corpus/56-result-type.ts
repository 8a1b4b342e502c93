// A Result type for tool calls that may fail.
type Ok<T> = { ok: true; value: T };
type Err<E = string> = { ok: false; error: E };
type Result<T, E = string> = Ok<T> | Err<E>;

const ok = <T,>(value: T): Ok<T> => ({ ok: true, value });
const err = <E,>(error: E): Err<E> => ({ ok: false, error });

function attempt<T>(fn: () => T): Result<T> {
  try {
    return ok(fn());
  } catch (e) {
    return err(e instanceof Error ? e.message : String(e));
  }
}

function map<T, U, E>(r: Result<T, E>, fn: (value: T) => U): Result<U, E> {
  return r.ok ? ok(fn(r.value)) : r;
}

function unwrapOr<T, E>(r: Result<T, E>, fallback: T): T {
  return r.ok ? r.value : fallback;
}

function collect<T, E>(results: Result<T, E>[]): Result<T[], E[]> {
  const errors = results.filter((r): r is Err<E> => !r.ok).map((r) => r.error);
  if (errors.length) return err(errors);
  return ok(results.map((r) => (r as Ok<T>).value));
}

const results: Result<string>[] = [
  attempt(() => tools.kv.get({ key: 'a' }) as string),
  attempt(() => tools.fail({ message: 'no such key' }) as string),
  attempt(() => tools.kv.get({ key: 'b' }) as string),
];

const lengths = results.map((r) => map(r, (s) => s.length));
const unwrapped = results.map((r) => unwrapOr(r, 'missing'));
const all = collect(results);
const good = collect([ok(1), ok(2)]);

return { lengths, unwrapped, all, good };
