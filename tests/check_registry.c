/*
 * check_registry.c - the registry on its own (server/registry.c with the
 * real event loop): ids and finding them, the order of iteration,
 * retention by time, by count and by bytes, which records go first, an
 * entry over the caps on its own, records the evict callback keeps alive
 * (a reply still streams from them), and what a caller sees of an id.
 *
 * Entries are plain structs embedding a registry_entry; the evict callback
 * records what was dropped, when, and what the registry said meanwhile.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../server/loop.h"
#include "../server/registry.h"

#define N 6000

struct item {
	struct registry_entry reg;
	int evicted;		  /* 0: not yet; else the order it went in */
	uint64_t finished_ms;	  /* the loop's clock when registry_finished was called */
	uint64_t evicted_ms;	  /* the loop's clock when the evict callback ran */
	uint64_t evicted_us;	  /* the real monotonic clock then */
	bool found_while_evicted; /* registry_find still gave it in evict */
	bool listed_while_evicted;
};

static struct item items[N];
static int n_evicted;
static int evict_order[N];
static int stop_after; /* loop_stop once this many were evicted (0: never) */

static struct item *item_of(struct registry_entry *e) { return (struct item *)(void *)e; }

static int index_of(const struct item *it) { return (int)(it - items); }

/* Whether e is among the entries iteration gives. */
static bool listed(const struct registry_entry *e)
{
	for (struct registry_entry *r = registry_newest(); r; r = registry_older(r))
		if (r == e)
			return true;
	return false;
}

/* Records the drop. The record stays valid memory (nothing is freed): as
 * the daemon's evict callback does for a record a reply streams from. */
static void on_evict(struct registry_entry *e)
{
	struct item *it = item_of(e);
	ck_assert_int_eq(it->evicted, 0); /* once only */
	it->evicted = ++n_evicted;
	it->evicted_ms = loop_now_ms();
	it->evicted_us = loop_clock_us();
	evict_order[n_evicted - 1] = index_of(it);
	it->found_while_evicted = registry_find(e->id) == e;
	it->listed_while_evicted = listed(e);
	if (stop_after && n_evicted >= stop_after)
		loop_stop();
}

static struct loop_timer guard = LOOP_TIMER_INIT;

static void on_guard(struct loop_timer *t)
{
	(void)t;
	ck_abort_msg("the registry did not evict in time (%d evicted, %d awaited)", n_evicted,
		     stop_after);
}

static void setup(uint64_t retention_ms, unsigned max_count, uint64_t max_bytes)
{
	ck_assert_int_eq(loop_init(), 0);
	struct registry_config cfg = {retention_ms, max_count, max_bytes, on_evict};
	registry_init(&cfg);
	n_evicted = 0;
	stop_after = 0;
	memset(items, 0, sizeof items);
}

static void add(int i) { ck_assert_int_eq(registry_add(&items[i].reg), 0); }

static void finish(int i, size_t bytes)
{
	items[i].finished_ms = loop_now_ms();
	registry_finished(&items[i].reg, bytes);
}

/* Runs the loop until want entries were evicted in all; a guard (far
 * longer than any test's retention) fails the test instead of hanging. */
static void run_until_evicted(int want)
{
	stop_after = want;
	if (n_evicted >= want)
		return;
	ck_assert_int_eq(loop_timer_set(&guard, 20000, on_guard), 0);
	ck_assert_int_eq(loop_run(), 0);
	loop_timer_cancel(&guard);
	stop_after = 0;
}

/* One turn of the loop: what was due "on the next turn" has run. */
static struct loop_timer turn = LOOP_TIMER_INIT;
static void on_turn(struct loop_timer *t)
{
	(void)t;
	loop_stop();
}
static void run_one_turn(void)
{
	ck_assert_int_eq(loop_timer_set(&turn, 0, on_turn), 0);
	ck_assert_int_eq(loop_run(), 0);
}

static bool id_well_formed(const char *id)
{
	if (strncmp(id, "exec_", 5) != 0 || strlen(id) != 21)
		return false;
	for (const char *p = id + 5; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

/* Ids: well formed, unique over thousands (the table grows several times
 * on the way), found again exactly, gone once removed. */
START_TEST(test_ids_and_find)
{
	setup(60000, N, UINT64_MAX);
	ck_assert_ptr_null(registry_find("exec_0000000000000000")); /* empty table */
	ck_assert_ptr_null(registry_newest());
	uint64_t before = loop_wall_ms();
	for (int i = 0; i < N; i++)
		add(i);
	uint64_t after = loop_wall_ms();
	ck_assert_uint_eq(registry_count(), N);
	for (int i = 0; i < N; i++) {
		const struct registry_entry *e = &items[i].reg;
		ck_assert_msg(id_well_formed(e->id), "bad id %s", e->id);
		ck_assert_ptr_eq(registry_find(e->id), e);
		ck_assert_uint_ge(e->created_ms, before);
		ck_assert_uint_le(e->created_ms, after);
		ck_assert_uint_eq(e->finished_ms, 0);
	}
	/* Removing every other one: those are gone, the rest still found. */
	for (int i = 0; i < N; i += 2)
		registry_remove(&items[i].reg);
	ck_assert_uint_eq(registry_count(), N / 2);
	for (int i = 0; i < N; i++)
		ck_assert_ptr_eq(registry_find(items[i].reg.id), i % 2 ? &items[i].reg : NULL);
	/* New ones after removals are unique among the live. */
	for (int i = 0; i < N; i += 2)
		add(i);
	for (int i = 0; i < N; i++)
		ck_assert_ptr_eq(registry_find(items[i].reg.id), &items[i].reg);
	ck_assert_int_eq(n_evicted, 0);
}
END_TEST

/* What a caller sees of an id: only an exact match finds a record (no
 * prefix, no other case, nothing appended), and ids say nothing about one
 * another, so knowing one's own ids does not lead to another owner's. */
START_TEST(test_ids_exact_and_unguessable)
{
	setup(60000, 100, UINT64_MAX);
	for (int i = 0; i < 64; i++)
		add(i);
	const char *id = items[0].reg.id;
	char probe[64];
	snprintf(probe, sizeof probe, "%.20s", id); /* a prefix */
	ck_assert_ptr_null(registry_find(probe));
	snprintf(probe, sizeof probe, "%sx", id);
	ck_assert_ptr_null(registry_find(probe));
	snprintf(probe, sizeof probe, "EXEC_%.16s", id + 5);
	ck_assert_ptr_null(registry_find(probe));
	snprintf(probe, sizeof probe, "%s", id);
	for (char *p = probe + 5; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	if (strcmp(probe, id) != 0)
		ck_assert_ptr_null(registry_find(probe));
	ck_assert_ptr_null(registry_find(""));
	ck_assert_ptr_null(registry_find("exec_"));
	/* Consecutive ids are not neighbours: of 63 pairs, on average 32
	 * bits differ; sequential or clock-derived ids would differ in a
	 * handful. */
	unsigned bits = 0;
	for (int i = 1; i < 64; i++) {
		uint64_t a = strtoull(items[i - 1].reg.id + 5, NULL, 16);
		uint64_t b = strtoull(items[i].reg.id + 5, NULL, 16);
		bits += (unsigned)__builtin_popcountll(a ^ b);
	}
	ck_assert_uint_gt(bits, 63u * 20u);
}
END_TEST

/* Newest first, live and finished alike; finishing does not move a
 * record, removing one leaves the order of the others. */
START_TEST(test_iteration_order)
{
	setup(60000, 100, UINT64_MAX);
	for (int i = 0; i < 10; i++)
		add(i);
	finish(3, 10);
	finish(7, 10);
	finish(0, 10);
	registry_remove(&items[5].reg);
	int expect[] = {9, 8, 7, 6, 4, 3, 2, 1, 0};
	int k = 0;
	for (struct registry_entry *r = registry_newest(); r; r = registry_older(r)) {
		ck_assert_int_lt(k, 9);
		ck_assert_int_eq(index_of(item_of(r)), expect[k]);
		k++;
	}
	ck_assert_int_eq(k, 9);
	ck_assert_ptr_null(registry_older(&items[0].reg));
	ck_assert_uint_ne(items[3].reg.finished_ms, 0);
	ck_assert_uint_eq(items[4].reg.finished_ms, 0);
}
END_TEST

/* Finished records age out after the retention period, in the order they
 * finished (not the order they were made), never before their time; live
 * ones never age out. The finishes happen from inside the loop, as in the
 * daemon, so that the loop's clock is current. */
#define RETENTION_MS 60
static int finish_step;
static struct loop_timer stepper = LOOP_TIMER_INIT;

static void on_step(struct loop_timer *t)
{
	/* Made 0 1 2 3; finished 2, then 0 (20 ms later), then 3 (20 ms
	 * after that); 1 stays live. */
	static const int which[] = {2, 0, 3};
	finish(which[finish_step], 100);
	if (++finish_step < 3)
		loop_timer_set(t, 20, on_step);
}

START_TEST(test_retention_by_time)
{
	setup(RETENTION_MS, 100, UINT64_MAX);
	for (int i = 0; i < 4; i++)
		add(i);
	finish_step = 0;
	ck_assert_int_eq(loop_timer_set(&stepper, 0, on_step), 0);
	run_until_evicted(3);
	ck_assert_int_eq(evict_order[0], 2);
	ck_assert_int_eq(evict_order[1], 0);
	ck_assert_int_eq(evict_order[2], 3);
	for (int k = 0; k < 3; k++) {
		const struct item *it = &items[evict_order[k]];
		/* On the loop's clock (which finishing read), never early;
		 * and the real clock, which runs ahead of it, agrees. */
		ck_assert_msg(it->evicted_ms >= it->finished_ms + RETENTION_MS,
			      "evicted %" PRIu64 " ms after finishing",
			      it->evicted_ms - it->finished_ms);
		ck_assert_uint_ge(it->evicted_us, (it->finished_ms + RETENTION_MS) * 1000u);
		ck_assert(!it->found_while_evicted);
		ck_assert(!it->listed_while_evicted);
		ck_assert_ptr_null(registry_find(it->reg.id));
	}
	ck_assert_int_eq(items[1].evicted, 0);
	ck_assert_ptr_eq(registry_find(items[1].reg.id), &items[1].reg);
	ck_assert_uint_eq(registry_count(), 1);
}
END_TEST

/* A record removed before its time (the caller took it back) is not
 * evicted later, and the timer goes on for the others. */
START_TEST(test_removed_before_expiry)
{
	setup(RETENTION_MS, 100, UINT64_MAX);
	for (int i = 0; i < 3; i++)
		add(i);
	run_one_turn(); /* the loop's clock is now current */
	finish(0, 1);
	finish(1, 1);
	finish(2, 1);
	registry_remove(&items[0].reg); /* the one the timer is armed for */
	run_until_evicted(2);
	ck_assert_int_eq(items[0].evicted, 0);
	ck_assert_int_eq(evict_order[0], 1);
	ck_assert_int_eq(evict_order[1], 2);
	ck_assert_uint_eq(registry_count(), 0);
}
END_TEST

/* The count cap: the oldest finished go first, at once, when a newer one
 * finishes; live records do not count. */
START_TEST(test_count_cap)
{
	setup(60000, 3, UINT64_MAX);
	for (int i = 0; i < 8; i++)
		add(i);
	int order[] = {4, 1, 6, 0, 3};
	for (int k = 0; k < 5; k++)
		finish(order[k], 10);
	/* 5 finished, 3 kept: the first two to finish went, in that order. */
	ck_assert_int_eq(n_evicted, 2);
	ck_assert_int_eq(evict_order[0], 4);
	ck_assert_int_eq(evict_order[1], 1);
	ck_assert_uint_eq(registry_count(), 6); /* 3 finished, 3 live */
	for (int i = 0; i < 8; i++)
		ck_assert_ptr_eq(registry_find(items[i].reg.id),
				 items[i].evicted ? NULL : &items[i].reg);
}
END_TEST

/* The byte cap: the sum of the finished records' bytes; at the cap
 * exactly, nothing goes. Removing a finished record gives its bytes back. */
START_TEST(test_byte_cap)
{
	setup(60000, 100, 100);
	for (int i = 0; i < 8; i++)
		add(i);
	finish(0, 40);
	finish(1, 40);
	finish(2, 20); /* 100: at the cap */
	ck_assert_int_eq(n_evicted, 0);
	finish(3, 1); /* 101: the oldest goes */
	ck_assert_int_eq(n_evicted, 1);
	ck_assert_int_eq(evict_order[0], 0);
	/* 61 held. Taking back 1 (40) leaves 21: 79 more fit. */
	registry_remove(&items[1].reg);
	finish(4, 79);
	ck_assert_int_eq(n_evicted, 1);
	finish(5, 1); /* 101 again: 2 goes, the oldest left */
	ck_assert_int_eq(n_evicted, 2);
	ck_assert_int_eq(evict_order[1], 2);
	ck_assert_int_eq(items[1].evicted, 0); /* removed, never evicted */
}
END_TEST

/* A record over the byte cap on its own cannot be kept, whatever goes:
 * it alone goes, on the next turn (not under the feet of whoever just
 * finished it), and the records already kept stay. */
START_TEST(test_alone_over_the_cap)
{
	setup(60000, 100, 100);
	for (int i = 0; i < 5; i++)
		add(i);
	finish(0, 30);
	finish(1, 30);
	finish(2, 30);
	finish(3, 150);
	ck_assert_int_eq(n_evicted, 0); /* not in registry_finished */
	ck_assert_ptr_eq(registry_find(items[3].reg.id), &items[3].reg);
	run_until_evicted(1);
	ck_assert_int_eq(n_evicted, 1);
	ck_assert_int_eq(evict_order[0], 3);
	for (int i = 0; i < 3; i++)
		ck_assert_ptr_eq(registry_find(items[i].reg.id), &items[i].reg);
	/* The caps still hold for what comes next. */
	finish(4, 20); /* 110: the oldest goes */
	ck_assert_int_eq(n_evicted, 2);
	ck_assert_int_eq(evict_order[1], 0);
}
END_TEST

/* With no room at all (a count cap of 0), every finished record goes on
 * the next turn, and never inside registry_finished. */
START_TEST(test_no_room)
{
	setup(60000, 0, UINT64_MAX);
	add(0);
	add(1);
	finish(0, 0);
	ck_assert_int_eq(n_evicted, 0);
	run_until_evicted(1);
	ck_assert_int_eq(evict_order[0], 0);
	finish(1, 0);
	ck_assert_int_eq(n_evicted, 1);
	run_until_evicted(2);
	ck_assert_int_eq(evict_order[1], 1);
	ck_assert_uint_eq(registry_count(), 0);
}
END_TEST

/* A record the evict callback keeps alive (pinned: a reply still streams
 * from it) is forgotten by the registry all the same: not found, not
 * listed, not counted, and never touched again by what follows. */
START_TEST(test_pinned_records)
{
	setup(60000, 2, UINT64_MAX);
	for (int i = 0; i < 6; i++)
		add(i);
	finish(0, 5);
	finish(1, 5);
	finish(2, 5); /* 0 goes: its memory stays valid, as a pinned one's */
	ck_assert_int_eq(n_evicted, 1);
	struct registry_entry *pinned = &items[0].reg;
	ck_assert(!items[0].found_while_evicted);
	ck_assert(!items[0].listed_while_evicted);
	ck_assert(!list_linked(&pinned->all));
	ck_assert(!list_linked(&pinned->done));
	/* A walk that held it ends there rather than loop on it. */
	ck_assert_ptr_null(registry_older(pinned));
	ck_assert_uint_eq(registry_count(), 5);
	/* More finishes and a clear: the kept record is never handed to
	 * evict again, whose assertion would fail. */
	finish(3, 5);
	finish(4, 5);
	registry_clear_finished();
	ck_assert_int_eq(items[0].evicted, 1);
	ck_assert_ptr_null(registry_find(pinned->id));
	ck_assert(!listed(pinned));
	/* Only the live one is left. */
	ck_assert_uint_eq(registry_count(), 1);
	ck_assert_ptr_eq(registry_newest(), &items[5].reg);
}
END_TEST

/* Shutdown: clearing drops every finished record in the order they
 * finished, leaves live ones, and no expiry fires afterwards. */
START_TEST(test_clear_finished)
{
	setup(20, 100, UINT64_MAX);
	for (int i = 0; i < 5; i++)
		add(i);
	run_one_turn();
	finish(3, 1);
	finish(1, 1);
	finish(4, 1);
	registry_clear_finished();
	ck_assert_int_eq(n_evicted, 3);
	ck_assert_int_eq(evict_order[0], 3);
	ck_assert_int_eq(evict_order[1], 1);
	ck_assert_int_eq(evict_order[2], 4);
	ck_assert_uint_eq(registry_count(), 2);
	/* A record finished afterwards ages out alone: the cleared ones are
	 * never handed to evict again (on_evict asserts it). */
	finish(0, 1);
	run_until_evicted(4);
	ck_assert_int_eq(evict_order[3], 0);
	ck_assert_int_eq(items[2].evicted, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("registry");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ids_and_find);
	tcase_add_test(tc, test_ids_exact_and_unguessable);
	tcase_add_test(tc, test_iteration_order);
	tcase_add_test(tc, test_retention_by_time);
	tcase_add_test(tc, test_removed_before_expiry);
	tcase_add_test(tc, test_count_cap);
	tcase_add_test(tc, test_byte_cap);
	tcase_add_test(tc, test_alone_over_the_cap);
	tcase_add_test(tc, test_no_room);
	tcase_add_test(tc, test_pinned_records);
	tcase_add_test(tc, test_clear_finished);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
