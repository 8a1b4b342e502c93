/*
 * cache.h - the script cache: code that ran successfully, kept on disk.
 *
 * Scripts belong to an owner, named by a key that is a plain file name
 * ("uid-1000"). Each script is one file, <owner>/script-<UTC time>-<12 hex
 * of its SHA-256>.js under the cache directory: one directory per owner,
 * mode 0700, each file mode 0600, written atomically (temp file, fsync,
 * rename) through descriptors opened without following symlinks. The same
 * content is never stored twice for one owner (two owners storing the same
 * script hold one copy each). Operations take a scope: an owner's key to
 * see only that owner's scripts, or NULL to see everyone's (an admin).
 *
 * When the limits are reached, the oldest script of the owner holding the
 * most is evicted first, so one owner's flood evicts its own scripts.
 * Scripts from before owners existed (files directly in the cache
 * directory) are moved to uid 0's directory at start: admins only.
 *
 * The index and the contents live in memory
 * too (bounded by the entry and byte limits, oldest evicted first), so
 * running a cached script touches no disk; writes and removals happen on a
 * thread of their own and report back through the event loop.
 *
 * A cache that cannot be written logs once and otherwise stays out of the
 * way: executions never fail because of it.
 */
#ifndef SANDBOXD_CACHE_H
#define SANDBOXD_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for an owner key and its NUL. */
#define CACHE_OWNER_SIZE 48
/* Whose scripts without a recorded owner are: root's. */
#define CACHE_LEGACY_OWNER "uid-0"

struct cache_settings {
	const char *dir;
	unsigned max_entries;
	uint64_t max_bytes;
};

/* Loads the directory (creating it, mode 0700) and starts the writer. When
 * the directory cannot be used, logs why and disables the cache. */
void cache_init(const struct cache_settings *s);
/* Waits for pending writes, then stops the writer. */
void cache_stop(void);

/*
 * Stores code for owner unless the owner has the same content cached
 * already. Returns the new entry's {name, description, created_at_ms,
 * content_hash} (a new reference) at once: the entry is in the index (and
 * found by cache_lookup) from now on, and its file is written on the
 * writer thread; the caller never waits for the disk. A write that later
 * fails is logged once (as any failure of the cache) and the entry leaves
 * the index, so that the index holds only what is on disk or on its way
 * there. NULL when nothing is stored: a duplicate, an owner key that is no
 * plain file name, the cache disabled, or memory ran out; NULL too while
 * the last write failed: the store is tried (the disk may recover) but
 * not promised.
 */
json_t *cache_store(const char *owner, const char *code, size_t len);

/*
 * Waits (blocking) until every write and removal submitted so far is done
 * and its outcome applied to the index. For tests and shutdown only: the
 * loop never calls it on a request's path.
 */
void cache_flush(void);

enum cache_lookup_result {
	CACHE_FOUND = 0,
	CACHE_NOT_FOUND,
	CACHE_AMBIGUOUS,
};

/*
 * Finds a script in scope by exact name, else by a unique prefix, else by a
 * unique substring (both case-insensitive); scripts out of scope do not
 * exist for it. "OWNER/QUERY" (an owner key, a slash, then a query) looks
 * only among that owner's scripts, which for a scope of another owner are
 * none. With scope NULL several owners may hold the exact name: that is
 * ambiguous too, never one of them picked. A pure lookup over the
 * in-memory index (no I/O). On CACHE_FOUND, *code, *len and *name point
 * into the cache (valid until the next call into this module). On
 * CACHE_AMBIGUOUS, *matches is a malloc'd list of at most 10 of the
 * matches for a message (each "OWNER/NAME" with scope NULL), or NULL when
 * out of memory.
 */
enum cache_lookup_result cache_lookup(const char *scope, const char *query, const char **code,
				      size_t *len, const char **name, char **matches);

/* [{name, description, created_at_ms, content_hash, size_bytes}] in scope
 * (with scope NULL each also has its "owner"), newest first, those whose
 * name or description contains filter (case-insensitive; NULL: all). */
json_t *cache_list(const char *scope, const char *filter);

/* removed: the files removed; complete: false when memory ran out before
 * every script in scope was taken (the others stay). */
typedef void (*cache_cleared_cb)(void *arg, unsigned removed, bool complete);
/* Removes every script in scope; cleared is called exactly once, from the
 * loop (or from within when nothing is to be written), with the count. */
void cache_clear(const char *scope, cache_cleared_cb cleared, void *arg);

/* For health: {"dir", "scripts", "bytes", "writable", "pending_writes"},
 * the counts those of the scripts in scope (all with NULL);
 * pending_writes the writes and removals of files in scope not yet done
 * (or done and not yet applied to the index). */
json_t *cache_describe(const char *scope);

#endif
