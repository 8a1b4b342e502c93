/* store.c - the script's key-value store; see store.h. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "../protocol/ctl.h"
#include "../protocol/jnum.h"
#include "../protocol/limits.h"

static json_t *values;	/* key -> value */
static json_t *sizes;	/* key -> bytes of its JSON */
static json_t *counts;	/* key -> JSON values in it */
static json_t *set;	/* keys written, with their last value */
static json_t *deleted; /* keys deleted (as an object, used as a set) */
static size_t total, total_nodes;
/* store_writes as JSON: the set keys with their values, the deleted keys
 * (each counted with its quotes and separators). */
static size_t writes_bytes;

/* What store_writes may take beside its own braces and names. */
#define WRITES_MAX (CTL_STORE_WRITES_BYTES - 64u)

static size_t json_size(const json_t *v)
{
	char *text = jnum_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t n = text ? strlen(text) : (size_t)-1;
	free(text);
	return n;
}

/* The values (scalars, arrays, objects) in v, as a request's store counts
 * them. */
static size_t json_nodes(json_t *v)
{
	size_t n = 1, i;
	json_t *c;
	const char *k;
	if (json_is_array(v)) {
		json_array_foreach (v, i, c)
			n += json_nodes(c);
	} else if (json_is_object(v)) {
		json_object_foreach (v, k, c)
			n += json_nodes(c);
	}
	return n;
}

/* A key's bytes in store_writes: as a JSON string, and ':' or ','. */
static size_t key_cost(const char *key, size_t klen)
{
	json_t *s = json_stringn(key, klen);
	size_t n = s ? json_size(s) + 2 : (size_t)-1 / 4;
	json_decref(s);
	return n;
}

static size_t count_of(json_t *obj, const char *key, size_t klen)
{
	return (size_t)json_integer_value(json_object_getn(obj, key, klen));
}

/* Makes the store's objects, which a script that never stores and a
 * request without a store never need. 0, or -1 without memory. */
static int store_alloc(void)
{
	if (!values)
		values = json_object();
	if (!sizes)
		sizes = json_object();
	if (!counts)
		counts = json_object();
	if (!set)
		set = json_object();
	if (!deleted)
		deleted = json_object();
	return values && sizes && counts && set && deleted ? 0 : -1;
}

void store_init(json_t *initial)
{
	values = sizes = counts = set = deleted = NULL;
	total = total_nodes = writes_bytes = 0;
	if (json_object_size(initial) && store_alloc() < 0) {
		json_decref(initial);
		return; /* every load() then finds nothing, every store() fails */
	}
	const char *key;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach(initial, key, klen, v)
	{
		size_t n = json_size(v), nodes = json_nodes(v);
		json_object_setn(values, key, klen, v);
		json_object_setn_new(sizes, key, klen, json_integer((json_int_t)n));
		json_object_setn_new(counts, key, klen, json_integer((json_int_t)nodes));
		total += n;
		total_nodes += nodes;
	}
	json_decref(initial);
}

json_t *store_get(const char *key, size_t klen) { return json_object_getn(values, key, klen); }

int store_put(const char *key, size_t klen, json_t *value, const char **why)
{
	if (store_alloc() < 0) {
		*why = "store: out of memory";
		json_decref(value);
		return -1;
	}
	size_t old = count_of(sizes, key, klen), old_nodes = count_of(counts, key, klen);
	bool in_set = json_object_getn(set, key, klen) != NULL;
	bool in_del = json_object_getn(deleted, key, klen) != NULL;
	size_t kc = key_cost(key, klen);
	/* The writes without this key, then with what this call makes it. */
	size_t writes = writes_bytes - (in_set ? kc + old : 0) - (in_del ? kc : 0);
	if (!value) {
		if (writes + kc > WRITES_MAX) {
			*why = "store: the writes would be over 4 MiB of JSON, keys included";
			return -1;
		}
		if (!in_del && json_object_size(deleted) >= LIMIT_STORE_NODES) {
			*why = "store: over 65536 keys deleted";
			return -1;
		}
		if (json_object_getn(values, key, klen)) {
			json_object_deln(values, key, klen);
			json_object_deln(sizes, key, klen);
			json_object_deln(counts, key, klen);
			total -= old;
			total_nodes -= old_nodes;
		}
		json_object_deln(set, key, klen);
		json_object_setn_new(deleted, key, klen, json_true());
		writes_bytes = writes + kc;
		return 0;
	}
	size_t n = json_size(value), nodes = json_nodes(value);
	if (n > LIMIT_STORE_VALUE_BYTES) {
		*why = "store: the value is over 256 KiB of JSON";
		json_decref(value);
		return -1;
	}
	if (total - old + n > LIMIT_STORE_TOTAL_BYTES) {
		*why = "store: the store would hold over 1 MiB of JSON";
		json_decref(value);
		return -1;
	}
	/* What a request's store may hold: the writes go back as one. */
	if (total_nodes - old_nodes + nodes + 1 > LIMIT_STORE_NODES) { /* 1: the object */
		*why = "store: the store would hold over 65536 JSON values";
		json_decref(value);
		return -1;
	}
	if (writes + kc + n > WRITES_MAX) {
		*why = "store: the writes would be over 4 MiB of JSON, keys included";
		json_decref(value);
		return -1;
	}
	total = total - old + n;
	total_nodes = total_nodes - old_nodes + nodes;
	writes_bytes = writes + kc + n;
	json_object_setn(values, key, klen, value);
	json_object_setn_new(sizes, key, klen, json_integer((json_int_t)n));
	json_object_setn_new(counts, key, klen, json_integer((json_int_t)nodes));
	json_object_setn_new(set, key, klen, value);
	json_object_deln(deleted, key, klen);
	return 0;
}

json_t *store_writes(void)
{
	if (!set)
		return json_pack("{s:{}, s:[]}", "set", "delete");
	json_t *del = json_array();
	const char *key;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach(deleted, key, klen, v)
		json_array_append_new(del, json_stringn(key, klen));
	return json_pack("{s:O, s:o}", "set", set, "delete", del);
}
