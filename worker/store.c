/* store.c - the script's key-value store; see store.h. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"

static json_t *values;	/* key -> value */
static json_t *sizes;	/* key -> bytes of its JSON */
static json_t *set;	/* keys written, with their last value */
static json_t *deleted; /* keys deleted (as an object, used as a set) */
static size_t total;

static size_t json_size(const json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	size_t n = text ? strlen(text) : (size_t)-1;
	free(text);
	return n;
}

void store_init(json_t *initial)
{
	values = json_object();
	sizes = json_object();
	set = json_object();
	deleted = json_object();
	total = 0;
	const char *key;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach(initial, key, klen, v)
	{
		size_t n = json_size(v);
		json_object_setn(values, key, klen, v);
		json_object_setn_new(sizes, key, klen, json_integer((json_int_t)n));
		total += n;
	}
	json_decref(initial);
}

json_t *store_get(const char *key, size_t klen) { return json_object_getn(values, key, klen); }

int store_put(const char *key, size_t klen, json_t *value, const char **why)
{
	size_t old = (size_t)json_integer_value(json_object_getn(sizes, key, klen));
	if (!value) {
		if (json_object_getn(values, key, klen)) {
			json_object_deln(values, key, klen);
			json_object_deln(sizes, key, klen);
			total -= old;
		}
		json_object_deln(set, key, klen);
		json_object_setn_new(deleted, key, klen, json_true());
		return 0;
	}
	size_t n = json_size(value);
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
	total = total - old + n;
	json_object_setn(values, key, klen, value);
	json_object_setn_new(sizes, key, klen, json_integer((json_int_t)n));
	json_object_setn_new(set, key, klen, value);
	json_object_deln(deleted, key, klen);
	return 0;
}

json_t *store_writes(void)
{
	json_t *del = json_array();
	const char *key;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach(deleted, key, klen, v)
		json_array_append_new(del, json_stringn(key, klen));
	return json_pack("{s:O, s:o}", "set", set, "delete", del);
}
