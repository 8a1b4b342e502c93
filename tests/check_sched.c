/*
 * check_sched.c - the scheduler on its own: slots, round-robin between
 * owners, per-owner caps, queue positions, removal and re-entrant starts.
 */
#include <check.h>
#include <stdlib.h>

#include "../server/sched.h"

#define N 512

/* An entry with its owner, and the order things started in. */
struct item {
	struct sched_entry e;
	unsigned owner;
	int started;	    /* 0: not yet; else the order it started in */
	bool fail_at_start; /* releases its slot from inside the start callback */
	bool released;
};

static struct item items[N];
static int n_started;
static int order[N]; /* item index by start order */

static void on_start(struct sched_entry *e)
{
	struct item *it = (struct item *)(void *)e;
	order[n_started] = (int)(it - items);
	it->started = ++n_started;
	if (it->fail_at_start) {
		it->released = true;
		sched_release(e); /* a failed spawn gives the slot back at once */
	}
}

static void setup(unsigned workers, unsigned queue, unsigned per_running, unsigned per_queued)
{
	struct sched_settings s = {workers, queue, per_running, per_queued};
	sched_init(&s, on_start);
	n_started = 0;
	for (int i = 0; i < N; i++)
		items[i] = (struct item){.started = 0};
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

int main(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("sched");
	tcase_add_test(tc, test_burst_does_not_block_others);
	tcase_add_test(tc, test_round_robin_order);
	tcase_add_test(tc, test_positions_interleave);
	tcase_add_test(tc, test_running_cap);
	tcase_add_test(tc, test_queue_caps);
	tcase_add_test(tc, test_reentrant_release);
	tcase_add_test(tc, test_first_queued_drains);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
