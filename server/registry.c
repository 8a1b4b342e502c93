/* registry.c - executions by id, and their retention; see registry.h. */
#include "registry.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "log.h"
#include "loop.h"

static struct registry_config config;
static struct registry_entry **buckets;
static size_t nbuckets, count;
static struct list_node all = {&all, &all}, done = {&done, &done};
static unsigned done_count;
static uint64_t done_bytes;
static struct loop_timer expiry = LOOP_TIMER_INIT;

void registry_init(const struct registry_config *cfg) { config = *cfg; }
unsigned registry_count(void) { return (unsigned)count; }

/* FNV-1a: ids are random already, this only spreads them over buckets. */
static size_t hash(const char *id)
{
	uint64_t h = 1469598103934665603ull;
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	return (size_t)h;
}

static int grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 256;
	struct registry_entry **b = calloc(n, sizeof *b);
	if (!b)
		return -1;
	for (size_t i = 0; i < nbuckets; i++) {
		for (struct registry_entry *e = buckets[i], *next; e; e = next) {
			next = e->hash_next;
			size_t k = hash(e->id) & (n - 1);
			e->hash_next = b[k];
			b[k] = e;
		}
	}
	free(buckets);
	buckets = b;
	nbuckets = n;
	return 0;
}

struct registry_entry *registry_find(const char *id)
{
	if (!nbuckets)
		return NULL;
	for (struct registry_entry *e = buckets[hash(id) & (nbuckets - 1)]; e; e = e->hash_next)
		if (strcmp(e->id, id) == 0)
			return e;
	return NULL;
}

int registry_add(struct registry_entry *e)
{
	if (count >= nbuckets && grow() < 0)
		return -1;
	do {
		uint64_t r;
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			r = loop_clock_us() * 6364136223846793005ull + count;
		snprintf(e->id, sizeof e->id, "exec_%016" PRIx64, r);
	} while (registry_find(e->id));
	size_t k = hash(e->id) & (nbuckets - 1);
	e->hash_next = buckets[k];
	buckets[k] = e;
	count++;
	list_add_tail(&all, &e->all);
	list_init(&e->done);
	e->created_ms = loop_wall_ms();
	e->finished_ms = 0;
	e->bytes = 0;
	return 0;
}

void registry_remove(struct registry_entry *e)
{
	struct registry_entry **p = &buckets[hash(e->id) & (nbuckets - 1)];
	while (*p && *p != e)
		p = &(*p)->hash_next;
	if (*p)
		*p = e->hash_next;
	count--;
	list_del(&e->all);
	if (list_linked(&e->done)) {
		list_del(&e->done);
		done_count--;
		done_bytes -= e->bytes;
	}
}

static void drop(struct registry_entry *e)
{
	registry_remove(e);
	config.evict(e);
}

static void on_expiry(struct loop_timer *t);

static void arm_expiry(void)
{
	struct list_node *n = list_first(&done);
	if (!n) {
		loop_timer_cancel(&expiry);
		return;
	}
	struct registry_entry *oldest = LIST_ITEM(n, struct registry_entry, done);
	uint64_t now = loop_now_ms();
	/* Without the timer, expiry waits for the next arming (the next
	 * execution to finish); the count and byte limits still hold. */
	if (loop_timer_set(&expiry, oldest->expires_ms > now ? oldest->expires_ms - now : 0,
			   on_expiry) < 0)
		log_warn("retention: cannot arm the expiry timer (out of memory)");
}

static void on_expiry(struct loop_timer *t)
{
	(void)t;
	struct list_node *n;
	while ((n = list_first(&done)) != NULL &&
	       LIST_ITEM(n, struct registry_entry, done)->expires_ms <= loop_now_ms())
		drop(LIST_ITEM(n, struct registry_entry, done));
	arm_expiry();
}

void registry_finished(struct registry_entry *e, size_t bytes)
{
	if (!e->finished_ms)
		e->finished_ms = loop_wall_ms();
	e->bytes = bytes;
	done_count++;
	done_bytes += bytes;
	if (config.max_count == 0 || bytes > config.max_bytes) {
		/* Over the caps on its own: no eviction could make room for
		 * it, so the others stay. It goes first, on the next turn of
		 * the loop, not under the feet of whoever just finished it. */
		e->expires_ms = loop_now_ms();
		list_add_tail(done.next, &e->done);
		arm_expiry();
		return;
	}
	e->expires_ms = loop_now_ms() + config.retention_ms;
	list_add_tail(&done, &e->done);
	struct list_node *n;
	while ((done_count > config.max_count || done_bytes > config.max_bytes) &&
	       (n = list_first(&done)) != NULL && n != &e->done)
		drop(LIST_ITEM(n, struct registry_entry, done));
	arm_expiry();
}

void registry_clear_finished(void)
{
	struct list_node *n;
	while ((n = list_first(&done)) != NULL)
		drop(LIST_ITEM(n, struct registry_entry, done));
	loop_timer_cancel(&expiry);
}

struct registry_entry *registry_newest(void)
{
	return list_empty(&all) ? NULL : LIST_ITEM(all.prev, struct registry_entry, all);
}

struct registry_entry *registry_older(struct registry_entry *e)
{
	/* A forgotten entry (evicted, but kept alive by its owner) is on no
	 * list: its own node would give e again, and a walk would never end. */
	if (!list_linked(&e->all) || e->all.prev == &all)
		return NULL;
	return LIST_ITEM(e->all.prev, struct registry_entry, all);
}
