/* lcache.c - the cache of lowered code; see lcache.h. */
#include "lcache.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/ctl.h"
#include "../protocol/limits.h"
#include "list.h"
#include "owner.h"

struct lcache_text {
	unsigned refs;
	size_t len;
	char data[];
};

/* What one owner holds, its entries least recently used first. */
struct holder {
	struct list_node link;
	struct list_node lru;
	char key[OWNER_KEY_SIZE];
	unsigned count;
	uint64_t bytes;
	uint64_t hits, stores;
};

struct entry {
	struct entry *next; /* in its bucket */
	struct list_node lru;
	struct holder *holder;
	uint8_t key[32];
	struct lcache_text *text;
	size_t cost; /* counted against the byte bound */
};

static unsigned max_entries = LIMIT_LCACHE_ENTRIES_DEFAULT;
static uint64_t max_bytes = LIMIT_LCACHE_BYTES_DEFAULT;
static struct entry **buckets;
static size_t n_buckets; /* a power of two, or 0 before the first entry */
static struct list_node holders = {&holders, &holders};
static unsigned n_entries;
static uint64_t n_bytes;
static uint64_t total_hits, total_misses, total_stores, total_evictions;

static void text_unref(struct lcache_text *t)
{
	if (t && --t->refs == 0)
		free(t);
}

/* The bucket of (owner, key): the key is a digest already, so its first
 * bytes spread well; the owner's bytes are mixed in so that one script of
 * many owners does not chain in one bucket. */
static size_t bucket_of(const char *owner, const uint8_t key[32])
{
	uint64_t h = 0;
	memcpy(&h, key, sizeof h);
	for (const char *p = owner; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29)) & (n_buckets - 1);
}

static struct holder *find_holder(const char *owner, bool create)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &holders) {
		struct holder *h = LIST_ITEM(n, struct holder, link);
		if (strcmp(h->key, owner) == 0)
			return h;
	}
	if (!create)
		return NULL;
	struct holder *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	snprintf(h->key, sizeof h->key, "%s", owner);
	list_init(&h->lru);
	list_add_tail(&holders, &h->link);
	return h;
}

static struct entry *find(const char *owner, const uint8_t key[32])
{
	if (!n_buckets)
		return NULL;
	for (struct entry *e = buckets[bucket_of(owner, key)]; e; e = e->next)
		if (memcmp(e->key, key, 32) == 0 && strcmp(e->holder->key, owner) == 0)
			return e;
	return NULL;
}

/* Takes e out of the table and its owner's totals, and frees it (its text
 * lives on while slots hold it). */
static void forget(struct entry *e)
{
	struct holder *h = e->holder;
	struct entry **p = &buckets[bucket_of(h->key, e->key)];
	while (*p != e)
		p = &(*p)->next;
	*p = e->next;
	list_del(&e->lru);
	n_entries--;
	n_bytes -= e->cost;
	h->count--;
	h->bytes -= e->cost;
	if (h->count == 0) {
		list_del(&h->link);
		free(h);
	}
	text_unref(e->text);
	free(e);
}

/* Drops entries over the bounds: the least recently used of the owner
 * holding the most (entries when over the entry bound, else bytes). */
static void enforce_limits(void)
{
	while (n_entries > max_entries || n_bytes > max_bytes) {
		bool by_count = n_entries > max_entries;
		struct holder *top = NULL;
		struct list_node *n, *tmp;
		LIST_FOREACH_SAFE (n, tmp, &holders) {
			struct holder *h = LIST_ITEM(n, struct holder, link);
			if (!top || (by_count ? h->count > top->count : h->bytes > top->bytes))
				top = h;
		}
		if (!top)
			return;
		total_evictions++;
		forget(LIST_ITEM(list_first(&top->lru), struct entry, lru));
	}
}

/* Doubles the table (or makes its first one); false when out of memory,
 * the table then as it was. */
static bool grow(void)
{
	size_t n = n_buckets ? n_buckets * 2 : 256;
	struct entry **b = calloc(n, sizeof *b);
	if (!b)
		return false;
	struct entry **old = buckets;
	size_t old_n = n_buckets;
	buckets = b;
	n_buckets = n;
	for (size_t i = 0; i < old_n; i++)
		for (struct entry *e = old[i], *next; e; e = next) {
			next = e->next;
			size_t k = bucket_of(e->holder->key, e->key);
			e->next = buckets[k];
			buckets[k] = e;
		}
	free(old);
	return true;
}

void lcache_configure(unsigned entries, uint64_t bytes)
{
	max_entries = entries;
	max_bytes = bytes;
	enforce_limits();
}

/* The key: the version as 4 bytes, the language as one, then the code,
 * so that no two inputs share their hashed bytes. */
static void make_key(uint8_t out[32], const char *language, const char *code, size_t len)
{
	uint8_t head[5] = {(uint8_t)(CTL_LOWERING_VERSION >> 24),
			   (uint8_t)(CTL_LOWERING_VERSION >> 16),
			   (uint8_t)(CTL_LOWERING_VERSION >> 8), (uint8_t)CTL_LOWERING_VERSION,
			   !language				 ? 'a'
			   : strcmp(language, "typescript") == 0 ? 't'
								 : 'j'};
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, sizeof head, head);
	sha256_update(&ctx, len, (const uint8_t *)code);
	sha256_digest(&ctx, 32, out);
}

void lcache_lookup(struct lcache_slot *s, const char *owner, const char *language, const char *code,
		   size_t len)
{
	lcache_slot_clear(s);
	if (!owner || !*owner || max_entries == 0)
		return;
	make_key(s->key, language, code, len);
	s->keyed = true;
	struct entry *e = find(owner, s->key);
	if (!e) {
		total_misses++;
		return;
	}
	/* Most recently used last. */
	list_del(&e->lru);
	list_add_tail(&e->holder->lru, &e->lru);
	e->holder->hits++;
	total_hits++;
	e->text->refs++;
	s->hit = e->text;
	s->view = (struct buf){e->text->data, 0, e->text->len, e->text->len};
}

const char *lcache_slot_text(const struct lcache_slot *s, size_t *len)
{
	*len = s->hit ? s->hit->len : 0;
	return s->hit ? s->hit->data : NULL;
}

void lcache_offer(struct lcache_slot *s, const char *owner, const char *text, size_t len)
{
	if (!s->keyed || s->hit || !text || len < 2 || len > CTL_LOWERED_BYTES || !owner ||
	    strlen(owner) >= OWNER_KEY_SIZE)
		return;
	size_t cost = sizeof(struct entry) + sizeof(struct lcache_text) + len;
	if (cost > max_bytes || max_entries == 0)
		return;
	if (find(owner, s->key))
		return; /* two runs of one code at once: the first text stays */
	/* Chains stay short: the table grows with the entries (a failed
	 * growth only makes them longer). */
	if (n_entries + 1 > n_buckets && !grow() && !n_buckets)
		return;
	struct holder *h = find_holder(owner, true);
	struct entry *e = h ? calloc(1, sizeof *e) : NULL;
	struct lcache_text *t = e ? malloc(sizeof *t + len) : NULL;
	if (!t) {
		free(e);
		if (h && h->count == 0) {
			list_del(&h->link);
			free(h);
		}
		return;
	}
	t->refs = 1;
	t->len = len;
	memcpy(t->data, text, len);
	memcpy(e->key, s->key, 32);
	e->text = t;
	e->holder = h;
	e->cost = cost;
	size_t k = bucket_of(owner, e->key);
	e->next = buckets[k];
	buckets[k] = e;
	list_add_tail(&h->lru, &e->lru);
	h->count++;
	h->bytes += cost;
	h->stores++;
	n_entries++;
	n_bytes += cost;
	total_stores++;
	enforce_limits();
}

void lcache_slot_clear(struct lcache_slot *s)
{
	text_unref(s->hit);
	memset(s, 0, sizeof *s);
}

json_t *lcache_describe(const char *scope)
{
	if (scope) {
		const struct holder *h = find_holder(scope, false);
		return json_pack("{s:I, s:I, s:I, s:I}", "entries", (json_int_t)(h ? h->count : 0),
				 "bytes", (json_int_t)(h ? h->bytes : 0), "hits",
				 (json_int_t)(h ? h->hits : 0), "stores",
				 (json_int_t)(h ? h->stores : 0));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "entries", (json_int_t)n_entries,
			 "bytes", (json_int_t)n_bytes, "hits", (json_int_t)total_hits, "stores",
			 (json_int_t)total_stores, "misses", (json_int_t)total_misses, "evictions",
			 (json_int_t)total_evictions);
}

void lcache_free_all(void)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &holders) {
		struct holder *h = LIST_ITEM(n, struct holder, link);
		while (!list_empty(&h->lru)) {
			bool last = h->count == 1;
			forget(LIST_ITEM(list_first(&h->lru), struct entry, lru));
			if (last)
				break; /* h is freed */
		}
	}
	free(buckets);
	buckets = NULL;
	n_buckets = 0;
}
