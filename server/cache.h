/*
 * cache.h - the script cache: code that ran successfully, kept on disk.
 *
 * Each script is one file, script-<UTC time>-<12 hex of its SHA-256>.js,
 * mode 0600, written atomically (temp file, fsync, rename) through a
 * descriptor of the cache directory and never through a symlink. The same
 * content is never stored twice. The index and the contents live in memory
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
#include <stddef.h>
#include <stdint.h>

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

/* Called from the loop when a store has finished: info is the new entry's
 * {name, description, created_at_ms, content_hash}, or NULL when it could
 * not be written. */
typedef void (*cache_stored_cb)(void *arg, json_t *info);

/*
 * Stores code unless the same content is cached already. Returns 1 when a
 * write has started (stored is called later, exactly once), 0 when there is
 * nothing to do (a duplicate, or the cache is disabled).
 */
int cache_store(const char *code, size_t len, cache_stored_cb stored, void *arg);

enum cache_lookup_result {
	CACHE_FOUND = 0,
	CACHE_NOT_FOUND,
	CACHE_AMBIGUOUS,
};

/*
 * Finds a script by exact name, else by a unique prefix, else by a unique
 * substring (both case-insensitive). On CACHE_FOUND, *code, *len and *name
 * point into the cache (valid until the next call into this module). On
 * CACHE_AMBIGUOUS, *matches is a malloc'd list of the names for a message.
 */
enum cache_lookup_result cache_lookup(const char *query, const char **code, size_t *len,
				      const char **name, char **matches);

/* [{name, description, created_at_ms, content_hash, size_bytes}], newest
 * first, those whose name or description contains filter (case-insensitive;
 * NULL: all). */
json_t *cache_list(const char *filter);

typedef void (*cache_cleared_cb)(void *arg, unsigned removed);
/* Removes every script; cleared is called from the loop with the count. */
void cache_clear(cache_cleared_cb cleared, void *arg);

/* For health: {"dir", "scripts", "bytes", "writable"}. */
json_t *cache_describe(void);

#endif
