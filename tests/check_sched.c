/*
 * check_sched.c - the scheduler on its own: slots, round-robin between
 * owners, per-owner caps, queue positions, removal and re-entrant starts;
 * how deep starts that fail at once nest, submissions, removals and
 * releases from inside a start, caps changed at runtime, and fairness
 * over many owners checked against a model of the rules in sched.h.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"
#include "../server/sched.h"

/* Enough for a full queue (--queue's maximum) and its running slots. */
#define N (LIMIT_QUEUE_MAX + 2048)

/* An entry with its owner, and the order things started in. */
struct item {
	struct sched_entry e;
	unsigned owner;
	int started;	    /* 0: not yet; else the order it started in */
	bool fail_at_start; /* releases its slot from inside the start callback */
	bool released;
	bool removed; /* taken out of the queue by the test */
};

static struct item items[N];
static int n_started;
static int order[N]; /* item index by start order */
/* How deeply start callbacks nest now, and at most. */
static int depth, max_depth;
/* Called first in each start, for tests that act from inside one. */
static void (*start_hook)(struct item *it);

static void on_start(struct sched_entry *e)
{
	struct item *it = (struct item *)(void *)e;
	if (++depth > max_depth)
		max_depth = depth;
	ck_assert_int_eq(it->started, 0); /* once per submission */
	order[n_started] = (int)(it - items);
	it->started = ++n_started;
	if (start_hook)
		start_hook(it);
	if (it->fail_at_start) {
		it->released = true;
		sched_release(e); /* a failed spawn gives the slot back at once */
	}
	depth--;
}

static void setup(unsigned workers, unsigned queue, unsigned per_running, unsigned per_queued)
{
	struct sched_settings s = {workers, queue, per_running, per_queued};
	sched_init(&s, on_start);
	n_started = 0;
	depth = max_depth = 0;
	start_hook = NULL;
	memset(items, 0, sizeof items);
}

static enum sched_result submit(int i, unsigned owner)
{
	items[i].owner = owner;
	return sched_submit(&items[i].e, owner);
}

/* Releases the slot of started item i. */
static void finish(int i)
{
	ck_assert_int_ne(items[i].started, 0);
	ck_assert(!items[i].released);
	items[i].released = true;
	sched_release(&items[i].e);
}

/* Lets everything run to the end, one release at a time (oldest running
 * first), so the scheduler is clean for the next test. */
static void drain(void)
{
	for (int k = 0; k < n_started; k++) /* releases start more: n_started grows */
		if (!items[order[k]].released)
			finish(order[k]);
	ck_assert_uint_eq(sched_running(), 0);
	ck_assert_uint_eq(sched_queued(), 0);
	ck_assert_uint_eq(sched_owners(), 0);
}

/* One owner's burst of 200 cannot hold back another owner's single entry:
 * it starts at the next free slot. */
START_TEST(test_burst_does_not_block_others)
{
	setup(1, 1000, 1, 1000);
	for (int i = 0; i < 201; i++)
		ck_assert_int_eq(submit(i, 1), SCHED_OK);
	ck_assert_int_eq(items[0].started, 1); /* A's first took the slot */
	ck_assert_uint_eq(sched_queued(), 200);
	ck_assert_int_eq(submit(201, 2), SCHED_OK);
	ck_assert_int_eq(items[201].started, 0);
	/* B has never been served: it is next, ahead of A's 200. */
	ck_assert_uint_eq(sched_position(&items[201].e), 1);
	ck_assert_uint_eq(sched_position(&items[1].e), 2);
	ck_assert_uint_eq(sched_position(&items[200].e), 201);
	finish(0);
	ck_assert_int_eq(items[201].started, 2);
	ck_assert_int_eq(items[1].started, 0);
	ck_assert_uint_eq(sched_owners(), 2);
	drain();
}
END_TEST

/* Three owners with queues alternate one entry each, FIFO within each. */
START_TEST(test_round_robin_order)
{
	setup(1, 1000, 1, 1000);
	ck_assert_int_eq(submit(0, 9), SCHED_OK); /* holds the slot */
	int next = 1;
	for (int k = 0; k < 4; k++)
		for (unsigned owner = 1; owner <= 3; owner++)
			ck_assert_int_eq(submit(next++, owner), SCHED_OK);
	/* Submitted 1,2,3 (owners 1,2,3), 4,5,6, ... : positions follow. */
	for (int i = 1; i < next; i++)
		ck_assert_uint_eq(sched_position(&items[i].e), (unsigned)i);
	/* Each start gives the slot back at once, so the order is the
	 * scheduler's alone. */
	for (int i = 1; i < next; i++)
		items[i].fail_at_start = true;
	finish(0);
	ck_assert_int_eq(n_started, next);
	for (int k = 1; k < next; k++) {
		ck_assert_int_eq(order[k], k);
		ck_assert_uint_eq(items[order[k]].owner, (unsigned)((k - 1) % 3 + 1));
	}
	ck_assert_uint_eq(sched_running(), 0);
	ck_assert_uint_eq(sched_owners(), 0);
}
END_TEST

/* An owner that arrives later, with one entry, goes before the next round
 * of an owner that was served already; positions say so. */
START_TEST(test_positions_interleave)
{
	setup(1, 1000, 1, 1000);
	submit(0, 1); /* A runs */
	for (int i = 1; i <= 5; i++)
		submit(i, 1); /* A queues 5 */
	submit(6, 2);	      /* B: next */
	submit(7, 2);	      /* B's second: after A's first */
	ck_assert_uint_eq(sched_position(&items[6].e), 1);
	ck_assert_uint_eq(sched_position(&items[1].e), 2);
	ck_assert_uint_eq(sched_position(&items[7].e), 3);
	ck_assert_uint_eq(sched_position(&items[2].e), 4);
	ck_assert_uint_eq(sched_position(&items[5].e), 7);
	/* Taking one out moves the others up. */
	sched_remove(&items[1].e);
	ck_assert_uint_eq(sched_position(&items[1].e), 0);
	ck_assert_uint_eq(sched_position(&items[6].e), 1);
	ck_assert_uint_eq(sched_position(&items[2].e), 2);
	ck_assert_uint_eq(sched_position(&items[7].e), 3);
	ck_assert_uint_eq(sched_queued(), 6);
	finish(0);
	ck_assert_int_ne(items[6].started, 0);
	finish(6);
	ck_assert_int_ne(items[2].started, 0);
	finish(2);
	ck_assert_int_ne(items[7].started, 0);
	drain();
}
END_TEST

/* The running cap: an owner at its cap queues even with a free slot, and
 * the free slot goes to another owner. */
START_TEST(test_running_cap)
{
	setup(3, 1000, 2, 1000);
	submit(0, 1);
	submit(1, 1);
	submit(2, 1); /* A at its cap of 2: queued */
	ck_assert_int_ne(items[0].started, 0);
	ck_assert_int_ne(items[1].started, 0);
	ck_assert_int_eq(items[2].started, 0);
	ck_assert_uint_eq(sched_running(), 2);
	submit(3, 2); /* B finds the third slot free */
	ck_assert_int_ne(items[3].started, 0);
	ck_assert_uint_eq(sched_running(), 3);
	/* B's slot frees: A is still at its cap, so nothing starts. */
	finish(3);
	ck_assert_uint_eq(sched_running(), 2);
	ck_assert_int_eq(items[2].started, 0);
	/* A's own slot frees: its queued one starts. */
	finish(0);
	ck_assert_int_ne(items[2].started, 0);
	ck_assert_uint_eq(sched_running(), 2);
	drain();
}
END_TEST

/* Queue caps: per owner first, then overall; a refused entry leaves no
 * trace, and other owners still queue. */
START_TEST(test_queue_caps)
{
	setup(1, 5, 1, 3);
	submit(0, 1);
	for (int i = 1; i <= 3; i++)
		ck_assert_int_eq(submit(i, 1), SCHED_OK);
	ck_assert_int_eq(submit(4, 1), SCHED_OWNER_FULL);
	ck_assert_uint_eq(sched_position(&items[4].e), 0); /* not queued */
	ck_assert_uint_eq(sched_queued(), 3);
	ck_assert_int_eq(submit(5, 2), SCHED_OK);
	ck_assert_int_eq(submit(6, 3), SCHED_OK);
	ck_assert_int_eq(submit(7, 4), SCHED_QUEUE_FULL); /* 5 waiting in all */
	ck_assert_uint_eq(sched_owners(), 3);		  /* owner 4 was not kept */
	ck_assert_uint_eq(sched_queued(), 5);
	drain();
}
END_TEST

/* Starts that fail at once (the slot comes back inside the callback) are
 * served on, and the counts stay right. */
START_TEST(test_reentrant_release)
{
	setup(2, 100, 2, 100);
	submit(0, 1);
	submit(1, 2);
	for (int i = 2; i < 10; i++) {
		items[i].fail_at_start = i % 2 == 0;
		submit(i, (unsigned)(i % 3));
	}
	finish(0);
	finish(1);
	ck_assert_uint_le(sched_running(), 2);
	drain();
	for (int i = 0; i < 10; i++)
		ck_assert_int_ne(items[i].started, 0);
}
END_TEST

/* Shutdown drains the queue through sched_first_queued. */
START_TEST(test_first_queued_drains)
{
	setup(1, 100, 1, 100);
	submit(0, 1);
	submit(1, 1);
	submit(2, 2);
	submit(3, 3);
	int removed = 0;
	struct sched_entry *e;
	while ((e = sched_first_queued()) != NULL) {
		sched_remove(e);
		removed++;
	}
	ck_assert_int_eq(removed, 3);
	ck_assert_uint_eq(sched_owners(), 1); /* only the running one's */
	drain();
}
END_TEST

/* A full queue of starts that each fail at once (a failed spawn, or the
 * daemon holding an execution back) drains without the start callbacks
 * nesting: each release from inside a start gives its slot back and
 * returns, and the loop already running starts the next. Nested, a
 * queue of 65536 would be as many frames deep on the loop's stack. */
START_TEST(test_failed_starts_do_not_nest)
{
	const int q = (int)LIMIT_QUEUE_MAX;
	setup(1, LIMIT_QUEUE_MAX, 1, LIMIT_QUEUE_MAX);
	submit(0, 0);
	for (int i = 1; i <= q; i++) {
		items[i].fail_at_start = true;
		ck_assert_int_eq(submit(i, (unsigned)(i % 997 + 1)), SCHED_OK);
	}
	ck_assert_uint_eq(sched_queued(), LIMIT_QUEUE_MAX);
	finish(0);
	ck_assert_int_eq(n_started, q + 1);
	ck_assert_int_le(max_depth, 1);
	ck_assert_uint_eq(sched_running(), 0);
	ck_assert_uint_eq(sched_queued(), 0);
	ck_assert_uint_eq(sched_owners(), 0);
}
END_TEST

/* A start that submits another entry (as an execution that ends at once
 * may let a held one in): it queues in order, and everything starts once. */
static void submit_from_start(struct item *it)
{
	if (it == &items[1])
		ck_assert_int_eq(submit(3, 4), SCHED_OK);
	if (it == &items[2])
		ck_assert_int_eq(submit(4, 2), SCHED_OK);
}

START_TEST(test_submit_from_start)
{
	setup(1, 100, 1, 100);
	submit(0, 1); /* A runs */
	submit(1, 2); /* B */
	submit(2, 3); /* C */
	items[1].fail_at_start = true;
	start_hook = submit_from_start;
	finish(0);
	/* 1 started, submitted D's 3 (behind C: both never served, C came
	 * first), failed; C's 2 started and submitted B's 4 (B was served:
	 * behind D). */
	ck_assert_int_eq(n_started, 3);
	ck_assert_int_eq(order[1], 1);
	ck_assert_int_eq(order[2], 2);
	ck_assert_uint_eq(sched_position(&items[3].e), 1);
	ck_assert_uint_eq(sched_position(&items[4].e), 2);
	start_hook = NULL;
	finish(2);
	ck_assert_int_eq(order[3], 3);
	finish(3);
	ck_assert_int_eq(order[4], 4);
	drain();
}
END_TEST

/* A start that takes a queued entry out (a cancel arriving while the
 * scheduler starts others): the entry never starts, the one after it
 * does, and its owner is forgotten. */
static void remove_from_start(struct item *it)
{
	if (it == &items[1]) {
		sched_remove(&items[2].e);
		items[2].removed = true;
		sched_remove(&items[1].e); /* itself: no longer queued, a no-op */
	}
}

START_TEST(test_remove_while_starting)
{
	setup(1, 100, 1, 100);
	submit(0, 1);
	submit(1, 2);
	submit(2, 3);
	submit(3, 4);
	items[1].fail_at_start = true;
	start_hook = remove_from_start;
	finish(0);
	ck_assert_int_eq(items[2].started, 0);
	ck_assert_uint_eq(sched_position(&items[2].e), 0);
	ck_assert_int_ne(items[3].started, 0);
	ck_assert_uint_eq(sched_queued(), 0);
	ck_assert_uint_eq(sched_owners(), 1); /* 3's owner alone */
	ck_assert_uint_eq(sched_owner_queued(3), 0);
	drain();
}
END_TEST

/* A start that releases another running entry: the slot freed is filled
 * too, and never more than max_workers run. */
static void release_from_start(struct item *it)
{
	if (it == &items[2])
		finish(1);
	ck_assert_uint_le(sched_running(), 2);
}

START_TEST(test_release_other_from_start)
{
	setup(2, 100, 2, 100);
	submit(0, 1);
	submit(1, 2);
	submit(2, 3);
	submit(3, 4);
	start_hook = release_from_start;
	finish(0);
	ck_assert_int_ne(items[2].started, 0);
	ck_assert_int_ne(items[3].started, 0);
	ck_assert_uint_eq(sched_running(), 2);
	ck_assert_uint_eq(sched_queued(), 0);
	start_hook = NULL;
	drain();
}
END_TEST

/* An entry released from its own start (held back) and submitted again
 * later queues anew, at the back of its owner's round. */
START_TEST(test_resubmit_after_release)
{
	setup(1, 100, 1, 100);
	submit(0, 1);
	submit(1, 1);
	submit(2, 2);
	items[2].fail_at_start = true;
	finish(0); /* B's 2 first (never served), held; then A's 1 */
	ck_assert_int_eq(order[1], 2);
	ck_assert_int_eq(order[2], 1);
	ck_assert_uint_eq(sched_owners(), 1);
	items[2] = (struct item){.started = 0};
	ck_assert_int_eq(submit(2, 2), SCHED_OK);
	submit(5, 1);
	ck_assert_uint_eq(sched_position(&items[2].e), 1); /* B anew: never served */
	ck_assert_uint_eq(sched_position(&items[5].e), 2);
	finish(1);
	ck_assert_int_eq(order[3], 2);
	drain();
}
END_TEST

/* Caps changed at runtime (sched_init again): lowered, nothing starts
 * until the running are under the new caps; raised, the entries waiting
 * start at once as far as the new caps allow, rather than leave the new
 * slots idle until someone's release. */
START_TEST(test_caps_changed_at_runtime)
{
	setup(2, 100, 2, 100);
	submit(0, 1);
	submit(1, 1);
	for (int i = 2; i < 6; i++)
		submit(i, 2);
	ck_assert_uint_eq(sched_queued(), 4);
	struct sched_settings lower = {1, 100, 1, 100};
	sched_init(&lower, on_start);
	ck_assert_uint_eq(sched_max_workers(), 1);
	finish(0); /* 1 still runs: at the new cap */
	ck_assert_uint_eq(sched_running(), 1);
	ck_assert_int_eq(items[2].started, 0);
	finish(1);
	ck_assert_int_ne(items[2].started, 0);
	ck_assert_uint_eq(sched_running(), 1);
	struct sched_settings raise = {4, 100, 0, 100}; /* 0: per owner, max_workers */
	sched_init(&raise, on_start);
	ck_assert_uint_eq(sched_per_owner_running(), 4);
	ck_assert_int_ne(items[3].started, 0);
	ck_assert_int_ne(items[4].started, 0);
	ck_assert_int_ne(items[5].started, 0);
	ck_assert_uint_eq(sched_running(), 4);
	ck_assert_uint_eq(sched_queued(), 0);
	/* A running cap over max_workers is max_workers. */
	struct sched_settings over = {4, 100, 9, 100};
	sched_init(&over, on_start);
	ck_assert_uint_eq(sched_per_owner_running(), 4);
	drain();
}
END_TEST

static unsigned long rng;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % n);
}

/* One slot, one entry at a time: the positions sched_position gives are
 * exactly the order entries start in. Rounds of random submissions from
 * 40 owners (a few of them heavy), random removals, and starts that fail
 * at once, each round checked against the positions taken before it. */
START_TEST(test_positions_predict_order)
{
	setup(1, N, 1, N);
	rng = 1000u + (unsigned)_i;
	int next = 0, holder = next++;
	static int by_pos[N + 1];
	submit(holder, 0);
	for (int round = 0; round < 60; round++) {
		int add = 1 + (int)rnd(80);
		for (int k = 0; k < add; k++) {
			int i = next++;
			items[i].fail_at_start = rnd(6) != 0;
			unsigned owner = rnd(3) ? 1 + rnd(4) : 1 + rnd(40);
			ck_assert_int_eq(submit(i, owner), SCHED_OK);
		}
		for (int k = 0; k < 3; k++) {
			int i = (int)rnd((unsigned)next);
			if (!items[i].started && !items[i].removed) {
				sched_remove(&items[i].e);
				items[i].removed = true;
			}
		}
		unsigned count = 0;
		memset(by_pos, -1, sizeof by_pos);
		for (int i = 0; i < next; i++) {
			if (items[i].started || items[i].removed)
				continue;
			unsigned p = sched_position(&items[i].e);
			ck_assert_uint_ge(p, 1);
			ck_assert_uint_le(p, sched_queued());
			ck_assert_int_eq(by_pos[p], -1); /* no two share a place */
			by_pos[p] = i;
			count++;
		}
		ck_assert_uint_eq(count, sched_queued());
		int before = n_started;
		finish(holder);
		for (int k = before; k < n_started; k++)
			ck_assert_msg(order[k] == by_pos[k - before + 1],
				      "round %d: start %d was entry %d, position said %d", round,
				      k - before + 1, order[k], by_pos[k - before + 1]);
		if (n_started > before && !items[order[n_started - 1]].fail_at_start) {
			holder = order[n_started - 1];
		} else {
			ck_assert_uint_eq(sched_queued(), 0);
			holder = next++;
			submit(holder, 1 + rnd(40));
			ck_assert_int_ne(items[holder].started, 0);
		}
	}
	drain();
}
END_TEST

/*
 * Fairness over many owners, against a model of sched.h's rules: 200
 * owners (a few heavy), 8 slots, a running cap of 2 and a queued cap of 40
 * per owner, thousands of random submissions, releases, removals and
 * failed starts. Every start must be the one the rules pick: the oldest
 * entry of the owner served least recently among those under their cap
 * (never served first, in order of arrival), or a submission that found a
 * slot free with no one waiting who could have had it. The caps, the
 * refusals and every count are checked after each step, and the
 * positions always order the queue 1..queued.
 */
#define OWNERS 200
#define SLOTS 8u
#define RUN_CAP 2u
#define QUEUE_CAP 400u
#define OWNER_QUEUE_CAP 40u

struct mowner {
	unsigned running, queued;
	int head, tail; /* FIFO of item indices through m_next / m_prev */
	uint64_t last_served, ring_seq;
};
static struct mowner mo[OWNERS + 1];
static int m_next[N], m_prev[N];
static unsigned m_running, m_queued;
static uint64_t m_serial, m_ring_serial;
static int submitting = -1;
static int running_list[N], n_running_list;

static void model_reset(void)
{
	memset(mo, 0, sizeof mo);
	for (int k = 0; k <= OWNERS; k++)
		mo[k].head = mo[k].tail = -1;
	m_running = m_queued = 0;
	m_serial = m_ring_serial = 0;
	n_running_list = 0;
	submitting = -1;
}

static void model_forget(struct mowner *o)
{
	if (!o->running && !o->queued)
		o->last_served = 0; /* freed: comes back as never served */
}

static void model_unlink(int i)
{
	struct mowner *o = &mo[items[i].owner];
	if (m_prev[i] >= 0)
		m_next[m_prev[i]] = m_next[i];
	else
		o->head = m_next[i];
	if (m_next[i] >= 0)
		m_prev[m_next[i]] = m_prev[i];
	else
		o->tail = m_prev[i];
	o->queued--;
	m_queued--;
}

static void model_enqueue(int i)
{
	struct mowner *o = &mo[items[i].owner];
	if (!o->queued)
		o->ring_seq = ++m_ring_serial;
	m_next[i] = -1;
	m_prev[i] = o->tail;
	if (o->tail >= 0)
		m_next[o->tail] = i;
	else
		o->head = i;
	o->tail = i;
	o->queued++;
	m_queued++;
}

/* The owner the rules serve next, or NULL when none may start. */
static struct mowner *model_best(void)
{
	struct mowner *best = NULL;
	for (int k = 0; k <= OWNERS; k++) {
		struct mowner *o = &mo[k];
		if (!o->queued || o->running >= RUN_CAP)
			continue;
		if (!best || o->last_served < best->last_served ||
		    (o->last_served == best->last_served && o->ring_seq < best->ring_seq))
			best = o;
	}
	return best;
}

static void model_release(int i)
{
	struct mowner *o = &mo[items[i].owner];
	o->running--;
	m_running--;
	model_forget(o);
}

static void model_start(struct item *it)
{
	int i = (int)(it - items);
	struct mowner *o = &mo[it->owner];
	ck_assert_uint_lt(m_running, SLOTS);
	ck_assert_uint_lt(o->running, RUN_CAP);
	if (i == submitting) {
		ck_assert_uint_eq(o->queued, 0);
		ck_assert_msg(model_best() == NULL,
			      "entry %d started on submission while another owner waited", i);
	} else {
		ck_assert_msg(model_best() == o, "entry %d of owner %u started out of turn", i,
			      it->owner);
		ck_assert_int_eq(o->head, i); /* first come, first served */
		model_unlink(i);
	}
	o->running++;
	m_running++;
	o->last_served = ++m_serial;
	if (it->fail_at_start)
		model_release(i);
	else
		running_list[n_running_list++] = i;
}

static unsigned model_owners(void)
{
	unsigned n = 0;
	for (int k = 0; k <= OWNERS; k++)
		n += mo[k].running || mo[k].queued;
	return n;
}

static void model_check(void)
{
	ck_assert_uint_eq(sched_running(), m_running);
	ck_assert_uint_eq(sched_queued(), m_queued);
	ck_assert_uint_eq(sched_owners(), model_owners());
	unsigned k = 1 + rnd(OWNERS);
	ck_assert_uint_eq(sched_owner_queued(k), mo[k].queued);
	/* After every step no slot is left free while someone could use it. */
	ck_assert(m_running == SLOTS || model_best() == NULL);
}

START_TEST(test_fairness_model)
{
	setup(SLOTS, QUEUE_CAP, RUN_CAP, OWNER_QUEUE_CAP);
	model_reset();
	start_hook = model_start;
	rng = 77u + (unsigned)_i;
	int next = 0;
	static bool seen[QUEUE_CAP + 1];
	for (int step = 0; step < 40000 && next < (int)N; step++) {
		unsigned what = rnd(100);
		if (what < 50) {
			int i = next++;
			unsigned owner = rnd(2) ? 1 + rnd(5) : 1 + rnd(OWNERS);
			struct mowner *o = &mo[owner];
			items[i].fail_at_start = rnd(10) == 0;
			enum sched_result want = SCHED_OK;
			bool starts = m_running < SLOTS && o->running < RUN_CAP && !o->queued;
			if (!starts && m_queued >= QUEUE_CAP)
				want = SCHED_QUEUE_FULL;
			else if (!starts && o->queued >= OWNER_QUEUE_CAP)
				want = SCHED_OWNER_FULL;
			submitting = i;
			ck_assert_int_eq(submit(i, owner), want);
			submitting = -1;
			ck_assert_int_eq(items[i].started != 0, starts);
			if (want == SCHED_OK && !starts)
				model_enqueue(i);
			if (want != SCHED_OK)
				items[i].removed = true; /* refused: never queued */
		} else if (what < 85) {
			if (!n_running_list)
				continue;
			int k = (int)rnd((unsigned)n_running_list);
			int i = running_list[k];
			running_list[k] = running_list[--n_running_list];
			model_release(i);
			finish(i);
		} else if (what < 95) {
			int i = (int)rnd((unsigned)(next ? next : 1));
			if (i < next && !items[i].started && !items[i].removed) {
				model_unlink(i);
				model_forget(&mo[items[i].owner]);
				sched_remove(&items[i].e);
				items[i].removed = true;
			}
		} else {
			memset(seen, 0, sizeof seen);
			for (int i = 0; i < next; i++) {
				if (items[i].started || items[i].removed)
					continue;
				unsigned p = sched_position(&items[i].e);
				ck_assert(p >= 1 && p <= m_queued && !seen[p]);
				seen[p] = true;
			}
		}
		model_check();
	}
	while (n_running_list) {
		int i = running_list[--n_running_list];
		model_release(i);
		finish(i);
		model_check();
	}
	ck_assert_uint_eq(sched_running(), 0);
	ck_assert_uint_eq(sched_queued(), 0);
	ck_assert_uint_eq(sched_owners(), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("sched");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_burst_does_not_block_others);
	tcase_add_test(tc, test_round_robin_order);
	tcase_add_test(tc, test_positions_interleave);
	tcase_add_test(tc, test_running_cap);
	tcase_add_test(tc, test_queue_caps);
	tcase_add_test(tc, test_reentrant_release);
	tcase_add_test(tc, test_first_queued_drains);
	tcase_add_test(tc, test_failed_starts_do_not_nest);
	tcase_add_test(tc, test_submit_from_start);
	tcase_add_test(tc, test_remove_while_starting);
	tcase_add_test(tc, test_release_other_from_start);
	tcase_add_test(tc, test_resubmit_after_release);
	tcase_add_test(tc, test_caps_changed_at_runtime);
	tcase_add_loop_test(tc, test_positions_predict_order, 0, 4);
	tcase_add_loop_test(tc, test_fairness_model, 0, 4);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
