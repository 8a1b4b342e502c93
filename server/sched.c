/* sched.c - slots and a queue fair between owners; see sched.h. */
#include "sched.h"

#include <stdlib.h>

/*
 * An owner with something running or queued. Owners with queued entries
 * are on the ring, ordered by when each was last served (least recent
 * first; never served: 0). Serving an owner moves it to the ring's tail,
 * which is round-robin. An owner with nothing running or queued is freed:
 * there are never more owners than entries.
 */
struct sched_owner {
	struct list_node link; /* all owners */
	struct list_node ring; /* on the ring while it has entries queued */
	struct list_node queue;
	uint64_t key;
	uint64_t last_served;
	unsigned running, queued;
};

static struct sched_settings cfg;
static unsigned running, queued, n_owners;
/* fill_slots is starting entries: a release from inside a start gives its
 * slot back and leaves the starting to that loop. */
static bool filling;
static uint64_t serial; /* counts services, for last_served */
static struct list_node owners = {&owners, &owners}, ring = {&ring, &ring};
static sched_start_cb start_cb;

static void fill_slots(void);

void sched_init(const struct sched_settings *s, sched_start_cb start)
{
	cfg = *s;
	if (cfg.per_owner_running == 0 || cfg.per_owner_running > cfg.max_workers)
		cfg.per_owner_running = cfg.max_workers;
	start_cb = start;
	/* Caps raised at runtime: what waits starts in the new slots now. */
	fill_slots();
}

unsigned sched_running(void) { return running; }
unsigned sched_queued(void) { return queued; }
unsigned sched_owner_queued(uint64_t key)
{
	for (struct list_node *n = owners.next; n != &owners; n = n->next) {
		const struct sched_owner *o = LIST_ITEM(n, struct sched_owner, link);
		if (o->key == key)
			return o->queued;
	}
	return 0;
}
unsigned sched_max_workers(void) { return cfg.max_workers; }
unsigned sched_per_owner_running(void) { return cfg.per_owner_running; }
unsigned sched_per_owner_queued(void) { return cfg.per_owner_queued; }
unsigned sched_owners(void) { return n_owners; }

/* The owner of this key, made when absent; NULL when out of memory.
 * Linear: owners are at most the entries running and queued, and in
 * practice the handful of users of one machine. */
static struct sched_owner *owner_get(uint64_t key)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &owners) {
		struct sched_owner *o = LIST_ITEM(n, struct sched_owner, link);
		if (o->key == key)
			return o;
	}
	struct sched_owner *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->key = key;
	list_init(&o->ring);
	list_init(&o->queue);
	list_add_tail(&owners, &o->link);
	n_owners++;
	return o;
}

static void owner_put(struct sched_owner *o)
{
	if (o->running || o->queued)
		return;
	list_del(&o->link);
	list_del(&o->ring);
	n_owners--;
	free(o);
}

/* Puts o on the ring in order of last service (ties: after the others, so
 * owners never served go in order of arrival). */
static void ring_insert(struct sched_owner *o)
{
	struct list_node *at = &ring;
	while (at->prev != &ring &&
	       LIST_ITEM(at->prev, struct sched_owner, ring)->last_served > o->last_served)
		at = at->prev;
	list_add_tail(at, &o->ring);
}

/* o gets the slot for e (already off the queue). */
static void start(struct sched_owner *o, struct sched_entry *e)
{
	running++;
	o->running++;
	o->last_served = ++serial;
	if (list_linked(&o->ring)) { /* to the back of the round */
		list_del(&o->ring);
		list_add_tail(&ring, &o->ring);
	}
	start_cb(e);
}

enum sched_result sched_submit(struct sched_entry *e, uint64_t owner_key)
{
	list_init(&e->node);
	e->owner = NULL;
	struct sched_owner *o = owner_get(owner_key);
	if (!o)
		return SCHED_NO_MEMORY;
	enum sched_result r = SCHED_OK;
	if (running < cfg.max_workers && o->running < cfg.per_owner_running && o->queued == 0) {
		e->owner = o;
		start(o, e);
		return SCHED_OK;
	}
	if (queued >= cfg.queue_max)
		r = SCHED_QUEUE_FULL;
	else if (o->queued >= cfg.per_owner_queued)
		r = SCHED_OWNER_FULL;
	if (r != SCHED_OK) {
		owner_put(o);
		return r;
	}
	e->owner = o;
	list_add_tail(&o->queue, &e->node);
	o->queued++;
	queued++;
	if (!list_linked(&o->ring))
		ring_insert(o);
	return SCHED_OK;
}

/* Unlinks a queued e, keeping its owner (the caller decides). */
static void unqueue(struct sched_entry *e)
{
	struct sched_owner *o = e->owner;
	list_del(&e->node);
	o->queued--;
	queued--;
	if (o->queued == 0)
		list_del(&o->ring);
}

void sched_remove(struct sched_entry *e)
{
	if (!list_linked(&e->node))
		return;
	struct sched_owner *o = e->owner;
	unqueue(e);
	e->owner = NULL;
	owner_put(o);
}

/* The next entry to start: the first owner on the ring under its running
 * cap, its oldest entry. NULL when none may start. */
static struct sched_entry *next_startable(void)
{
	for (struct list_node *n = ring.next; n != &ring; n = n->next) {
		struct sched_owner *o = LIST_ITEM(n, struct sched_owner, ring);
		if (o->running < cfg.per_owner_running)
			return LIST_ITEM(list_first(&o->queue), struct sched_entry, node);
	}
	return NULL;
}

/* Starts as many as there are free slots. A start may finish at once (a
 * failed spawn, an execution held back) and release its slot from inside
 * the start callback: that release comes back here only to find the loop
 * running, so the callbacks never nest, however long the queue. */
static void fill_slots(void)
{
	if (filling)
		return;
	filling = true;
	struct sched_entry *next;
	while (running < cfg.max_workers && (next = next_startable()) != NULL) {
		struct sched_owner *no = next->owner;
		unqueue(next);
		start(no, next);
	}
	filling = false;
}

void sched_release(struct sched_entry *e)
{
	struct sched_owner *o = e->owner;
	e->owner = NULL;
	running--;
	o->running--;
	owner_put(o);
	fill_slots();
}

unsigned sched_position(const struct sched_entry *e)
{
	if (!list_linked(&e->node))
		return 0;
	const struct sched_owner *mine = e->owner;
	/* e is the k-th of its owner: it starts in round k. Before it: up to
	 * k - 1 of every owner's, and the k-th of owners ahead on the ring. */
	unsigned k = 1;
	for (const struct list_node *n = mine->queue.next; n != &e->node; n = n->next)
		k++;
	unsigned pos = 1;
	bool ahead = true;
	for (const struct list_node *n = ring.next; n != &ring; n = n->next) {
		const struct sched_owner *o = LIST_ITEM(n, struct sched_owner, ring);
		if (o == mine) {
			ahead = false;
			pos += k - 1;
			continue;
		}
		pos += o->queued < k - 1 ? o->queued : k - 1;
		if (ahead && o->queued >= k)
			pos++;
	}
	return pos;
}

struct sched_entry *sched_first_queued(void)
{
	struct list_node *n = list_first(&ring);
	if (!n)
		return NULL;
	struct sched_owner *o = LIST_ITEM(n, struct sched_owner, ring);
	return LIST_ITEM(list_first(&o->queue), struct sched_entry, node);
}
