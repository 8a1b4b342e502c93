/*
 * store.h - the key-value store a script reads with load() and writes with
 * store(). The client passes its current values with the request; the
 * daemon keeps nothing, and a successful execution reports what changed.
 */
#ifndef SANDBOXD_STORE_H
#define SANDBOXD_STORE_H

#include <jansson.h>

/* Starts from initial (an object, or NULL: empty); takes a reference. */
void store_init(json_t *initial);

/* The value under key (klen bytes of UTF-8, NUL allowed; borrowed), or
 * NULL. */
json_t *store_get(const char *key, size_t klen);

/*
 * Sets key (klen bytes of UTF-8) to value (stealing the reference), or deletes it when value is
 * NULL. -1 when the value or the store would be over its limits (nothing
 * changes), with *why set to a static message: 256 KiB of JSON a value,
 * 1 MiB and LIMIT_STORE_NODES values in all (what a request's store may
 * hold, so the writes can be sent back as one), and the writes themselves
 * (keys included, deletions too) within CTL_STORE_WRITES_BYTES and
 * LIMIT_STORE_NODES deleted keys, which the supervisor checks again.
 */
int store_put(const char *key, size_t klen, json_t *value, const char **why);

/* {"set": {key: value}, "delete": [key]}: the changes since store_init. */
json_t *store_writes(void);

#endif
