/*
 * check_loop.c - the supervisor's event loop (server/loop.c): timer order,
 * cancelling and re-arming, fd watches, and the rule that a watch removed
 * during a batch gets no further callback from it; epoll told lazily of
 * changed events (counted in the loop's stats), with the callback getting
 * only what it asked for.
 *
 * The loop is process-global; Check forks each test, so every test starts
 * with a fresh one from loop_init. A test that would hang fails on Check's
 * timeout instead.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../server/loop.h"

/* What fired, in order: timers and watches record a tag. */
static int fired[256];
static int nfired;

static void record(int tag)
{
	ck_assert_int_lt(nfired, 256);
	fired[nfired++] = tag;
}

/* Timers live in an array so a callback can tell which one it is. */
static struct loop_timer timers[128];

static int tag_of(const struct loop_timer *t) { return (int)(t - timers); }

static void on_timer(struct loop_timer *t)
{
	ck_assert(!loop_timer_armed(t)); /* disarmed before its callback */
	record(tag_of(t));
}

static void on_timer_stop(struct loop_timer *t)
{
	record(tag_of(t));
	loop_stop();
}

static void init_loop(void)
{
	ck_assert_int_eq(loop_init(), 0);
	for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++)
		timers[i] = (struct loop_timer)LOOP_TIMER_INIT;
	nfired = 0;
}

static void make_pipe(int p[2]) { ck_assert_int_eq(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0); }

/* ---- timers */

START_TEST(timers_fire_in_deadline_order)
{
	init_loop();
	/* Armed out of order; they must come out sorted. */
	loop_timer_set(&timers[3], 30, on_timer);
	loop_timer_set(&timers[1], 10, on_timer);
	loop_timer_set(&timers[4], 40, on_timer_stop);
	loop_timer_set(&timers[0], 0, on_timer);
	loop_timer_set(&timers[2], 20, on_timer);
	for (int i = 0; i < 5; i++)
		ck_assert(loop_timer_armed(&timers[i]));
	uint64_t start = loop_now_ms();
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(fired[i], i);
		ck_assert(!loop_timer_armed(&timers[i]));
	}
	/* The last one waited its time. */
	ck_assert_uint_ge(loop_now_ms() - start, 40);
}
END_TEST

static int remaining;

static void on_timer_count(struct loop_timer *t)
{
	record(tag_of(t));
	if (--remaining == 0)
		loop_stop();
}

START_TEST(many_timers_in_order)
{
	/* Enough timers, with ties, to exercise the heap both ways. */
	init_loop();
	unsigned seed = 7;
	remaining = 100;
	for (int i = 0; i < 100; i++) {
		seed = seed * 1103515245u + 12345u;
		loop_timer_set(&timers[i], (seed >> 16) % 40, on_timer_count);
	}
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 100);
	bool seen[100] = {false};
	for (int i = 0; i < 100; i++) {
		ck_assert(!seen[fired[i]]);
		seen[fired[i]] = true;
		if (i > 0)
			ck_assert_uint_le(timers[fired[i - 1]].when_ms, timers[fired[i]].when_ms);
	}
}
END_TEST

START_TEST(cancel_removes_one)
{
	init_loop();
	loop_timer_set(&timers[0], 5, on_timer);
	loop_timer_set(&timers[1], 10, on_timer);
	loop_timer_set(&timers[2], 15, on_timer);
	loop_timer_set(&timers[3], 20, on_timer);
	loop_timer_set(&timers[4], 30, on_timer_stop);
	loop_timer_cancel(&timers[2]);
	ck_assert(!loop_timer_armed(&timers[2]));
	loop_timer_cancel(&timers[2]); /* again: a no-op */
	loop_timer_cancel(&timers[9]); /* never armed: a no-op */
	loop_timer_cancel(&timers[0]); /* the earliest, at the heap's root */
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 3);
	ck_assert_int_eq(fired[0], 1);
	ck_assert_int_eq(fired[1], 3);
	ck_assert_int_eq(fired[2], 4);
}
END_TEST

START_TEST(rearm_moves)
{
	init_loop();
	loop_timer_set(&timers[0], 10, on_timer);
	loop_timer_set(&timers[1], 20, on_timer);
	loop_timer_set(&timers[2], 30, on_timer);
	loop_timer_set(&timers[3], 50, on_timer_stop);
	loop_timer_set(&timers[0], 40, on_timer); /* later: now after 2 */
	loop_timer_set(&timers[2], 5, on_timer);  /* earlier: now first */
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 4);
	ck_assert_int_eq(fired[0], 2);
	ck_assert_int_eq(fired[1], 1);
	ck_assert_int_eq(fired[2], 0); /* once: the first arming is gone */
	ck_assert_int_eq(fired[3], 3);
}
END_TEST

static void on_timer_rearm_once(struct loop_timer *t)
{
	record(tag_of(t));
	if (nfired == 1)
		loop_timer_set(t, 10, on_timer_rearm_once); /* from its own callback */
}

START_TEST(rearm_from_own_callback)
{
	init_loop();
	loop_timer_set(&timers[0], 5, on_timer_rearm_once);
	loop_timer_set(&timers[1], 40, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 3);
	ck_assert_int_eq(fired[0], 0);
	ck_assert_int_eq(fired[1], 0);
	ck_assert_int_eq(fired[2], 1);
}
END_TEST

static void on_timer_cancel_next(struct loop_timer *t)
{
	record(tag_of(t));
	loop_timer_cancel(&timers[tag_of(t) + 1]);
}

static void on_timer_cancel_pair(struct loop_timer *t)
{
	/* 0 and 1 are due together: whichever runs first cancels the other. */
	record(tag_of(t));
	loop_timer_cancel(&timers[1 - tag_of(t)]);
}

START_TEST(callback_cancels_another)
{
	init_loop();
	/* A later timer, cancelled before its turn. */
	loop_timer_set(&timers[2], 10, on_timer_cancel_next);
	loop_timer_set(&timers[3], 20, on_timer);
	/* Two timers due in the same pass. */
	loop_timer_set(&timers[0], 0, on_timer_cancel_pair);
	loop_timer_set(&timers[1], 0, on_timer_cancel_pair);
	loop_timer_set(&timers[4], 30, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 3);
	ck_assert(fired[0] == 0 || fired[0] == 1);
	ck_assert_int_eq(fired[1], 2);
	ck_assert_int_eq(fired[2], 4);
	ck_assert(!loop_timer_armed(&timers[0]));
	ck_assert(!loop_timer_armed(&timers[1]));
	ck_assert(!loop_timer_armed(&timers[3]));
}
END_TEST

START_TEST(stop_ends_run)
{
	init_loop();
	loop_timer_set(&timers[0], 0, on_timer_stop);
	loop_timer_set(&timers[1], 60000, on_timer); /* must not be waited for */
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 1);
	ck_assert(loop_timer_armed(&timers[1]));
	/* The loop can run again afterwards. */
	loop_timer_set(&timers[2], 1, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 2);
	ck_assert_int_eq(fired[1], 2);
}
END_TEST

/* ---- fd watches */

static struct loop_watch watches[4];
static int pipes[4][2];
static uint32_t seen_events;

static int watch_tag(const struct loop_watch *w) { return (int)(w - watches); }

static void on_readable(struct loop_watch *w, uint32_t events)
{
	int tag = watch_tag(w);
	record(100 + tag);
	seen_events = events;
	ck_assert_int_eq(w->fd, pipes[tag][0]);
	char c;
	ck_assert_int_eq(read(w->fd, &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	loop_del(w);
	ck_assert_int_eq(w->fd, -1);
	loop_stop();
}

START_TEST(readable_fd_fires)
{
	init_loop();
	make_pipe(pipes[0]);
	watches[0] = (struct loop_watch)LOOP_WATCH_INIT;
	ck_assert_int_eq(loop_add(&watches[0], pipes[0][0], EPOLLIN, on_readable), 0);
	ck_assert_int_eq(watches[0].fd, pipes[0][0]);
	ck_assert_uint_eq(watches[0].events, EPOLLIN);
	/* Nothing to read yet: the timer comes first. */
	loop_timer_set(&timers[0], 20, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 1);
	ck_assert_int_eq(fired[0], 0);

	ck_assert_int_eq(write(pipes[0][1], "x", 1), 1);
	loop_timer_set(&timers[1], 5000, on_timer);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 2);
	ck_assert_int_eq(fired[1], 100);
	ck_assert(seen_events & EPOLLIN);
	ck_assert(loop_timer_armed(&timers[1]));
	close(pipes[0][0]);
	close(pipes[0][1]);
}
END_TEST

static void on_writable(struct loop_watch *w, uint32_t events)
{
	record(200 + watch_tag(w));
	seen_events = events;
	loop_stop();
}

START_TEST(mod_changes_events)
{
	init_loop();
	make_pipe(pipes[0]);
	watches[0] = (struct loop_watch)LOOP_WATCH_INIT;
	/* The write end of an empty pipe: writable, never readable. */
	ck_assert_int_eq(loop_add(&watches[0], pipes[0][1], EPOLLIN, on_writable), 0);
	ck_assert_int_eq(loop_mod(&watches[0], EPOLLIN), 0); /* unchanged: a no-op */
	loop_timer_set(&timers[0], 20, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 1);
	ck_assert_int_eq(fired[0], 0);

	ck_assert_int_eq(loop_mod(&watches[0], EPOLLOUT), 0);
	ck_assert_uint_eq(watches[0].events, EPOLLOUT);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 2);
	ck_assert_int_eq(fired[1], 200);
	ck_assert(seen_events & EPOLLOUT);

	/* Once deleted, loop_mod and loop_del do nothing. */
	loop_del(&watches[0]);
	ck_assert_int_eq(loop_mod(&watches[0], EPOLLIN), 0);
	loop_del(&watches[0]);
	ck_assert_int_eq(watches[0].fd, -1);
	close(pipes[0][0]);
	close(pipes[0][1]);
}
END_TEST

START_TEST(add_bad_fd_fails)
{
	init_loop();
	struct loop_watch w = LOOP_WATCH_INIT;
	errno = 0;
	ck_assert_int_eq(loop_add(&w, 12345, EPOLLIN, on_readable), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(w.fd, -1); /* not in the loop */
	loop_del(&w);		    /* and so a no-op */
}
END_TEST

/* Each callback removes and closes the other watch; both fds are readable
 * before the loop runs, so both events arrive in the same batch. */
static void on_readable_del_other(struct loop_watch *w, uint32_t events)
{
	(void)events;
	int tag = watch_tag(w);
	record(100 + tag);
	struct loop_watch *other = &watches[1 - tag];
	int fd = other->fd;
	ck_assert_int_ge(fd, 0);
	loop_del(other);
	close(fd);
	pipes[1 - tag][0] = -1;
	loop_stop();
}

START_TEST(deleted_watch_gets_no_callback)
{
	init_loop();
	for (int i = 0; i < 2; i++) {
		make_pipe(pipes[i]);
		ck_assert_int_eq(write(pipes[i][1], "x", 1), 1);
		watches[i] = (struct loop_watch)LOOP_WATCH_INIT;
		ck_assert_int_eq(loop_add(&watches[i], pipes[i][0], EPOLLIN, on_readable_del_other),
				 0);
	}
	ck_assert_int_eq(loop_run(), 0);
	/* loop_stop ends the loop only after the whole batch: had the deleted
	 * watch's event not been dropped, its callback would have run too. */
	ck_assert_int_eq(nfired, 1);
	int survivor = fired[0] - 100;
	ck_assert(survivor == 0 || survivor == 1);
	ck_assert_int_eq(watches[1 - survivor].fd, -1);
	ck_assert_int_eq(watches[survivor].fd, pipes[survivor][0]);
	loop_del(&watches[survivor]);
	for (int i = 0; i < 2; i++) {
		if (pipes[i][0] >= 0)
			close(pipes[i][0]);
		close(pipes[i][1]);
	}
}
END_TEST

/* The surviving watch's callback of the next test reads and counts. */
static int reads;

static void on_readable_count(struct loop_watch *w, uint32_t events)
{
	(void)events;
	char c;
	record(100 + watch_tag(w));
	while (read(w->fd, &c, 1) == 1)
		reads++;
}

static void on_readable_del_self(struct loop_watch *w, uint32_t events)
{
	(void)events;
	record(100 + watch_tag(w));
	int fd = w->fd;
	loop_del(w);
	close(fd);
}

START_TEST(watch_may_delete_itself)
{
	/* A callback removing its own watch does not disturb the others in
	 * the batch, and the loop goes on with them. */
	init_loop();
	for (int i = 0; i < 3; i++) {
		make_pipe(pipes[i]);
		ck_assert_int_eq(write(pipes[i][1], "x", 1), 1);
		watches[i] = (struct loop_watch)LOOP_WATCH_INIT;
		ck_assert_int_eq(loop_add(&watches[i], pipes[i][0], EPOLLIN,
					  i == 1 ? on_readable_del_self : on_readable_count),
				 0);
	}
	loop_timer_set(&timers[0], 50, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(reads, 2);
	ck_assert_int_eq(nfired, 4); /* three watches once each, then the timer */
	bool seen[3] = {false};
	for (int i = 0; i < 3; i++) {
		int tag = fired[i] - 100;
		ck_assert(tag >= 0 && tag < 3 && !seen[tag]);
		seen[tag] = true;
	}
	ck_assert_int_eq(fired[3], 0);
	ck_assert_int_eq(watches[1].fd, -1);
	for (int i = 0; i < 3; i++) {
		loop_del(&watches[i]);
		if (i != 1)
			close(pipes[i][0]);
		close(pipes[i][1]);
	}
}
END_TEST

/* ---- lazy interest masks: epoll is told only what it must be */

static uint64_t ctls(void)
{
	struct loop_stats st;
	loop_get_stats(&st);
	return st.epoll_ctls;
}

static uint32_t events_seen[8];
static int nseen;

static void on_any(struct loop_watch *w, uint32_t events)
{
	record(100 + watch_tag(w));
	ck_assert_int_lt(nseen, 8);
	events_seen[nseen++] = events;
	loop_stop();
}

/* A timer's callback adds EPOLLOUT to watch 0 and takes it away again, as
 * a connection does around a reply it writes at once. */
static void on_timer_out_and_back(struct loop_timer *t)
{
	record(tag_of(t));
	ck_assert_int_eq(loop_mod(&watches[0], EPOLLIN | EPOLLOUT), 0);
	ck_assert_uint_eq(watches[0].events, EPOLLIN | EPOLLOUT);
	ck_assert_int_eq(loop_mod(&watches[0], EPOLLIN), 0);
}

START_TEST(mod_and_back_costs_nothing)
{
	init_loop();
	make_pipe(pipes[0]);
	watches[0] = (struct loop_watch)LOOP_WATCH_INIT;
	/* The write end of an empty pipe: always writable, never readable. */
	ck_assert_int_eq(loop_add(&watches[0], pipes[0][1], EPOLLIN, on_any), 0);
	uint64_t before = ctls();
	loop_timer_set(&timers[0], 1, on_timer_out_and_back);
	loop_timer_set(&timers[1], 30, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	/* Had EPOLLOUT reached epoll, the writable fd would have woken the
	 * loop before the second timer. */
	ck_assert_int_eq(nfired, 2);
	ck_assert_int_eq(fired[0], 0);
	ck_assert_int_eq(fired[1], 1);
	ck_assert_uint_eq(ctls(), before);
	loop_del(&watches[0]);
	ck_assert_uint_eq(ctls(), before + 1);
	close(pipes[0][0]);
	close(pipes[0][1]);
}
END_TEST

START_TEST(dropped_events_are_not_delivered)
{
	init_loop();
	make_pipe(pipes[0]);
	ck_assert_int_eq(write(pipes[0][1], "x", 1), 1);
	watches[0] = (struct loop_watch)LOOP_WATCH_INIT;
	ck_assert_int_eq(loop_add(&watches[0], pipes[0][0], EPOLLIN, on_any), 0);
	/* Readable, but the callback no longer wants to read: epoll still
	 * has EPOLLIN (no call yet) and reports it once, which takes it out
	 * of epoll and never reaches the callback. */
	uint64_t before = ctls();
	ck_assert_int_eq(loop_mod(&watches[0], 0), 0);
	ck_assert_uint_eq(ctls(), before);
	loop_timer_set(&timers[0], 30, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 1);
	ck_assert_int_eq(fired[0], 0);
	ck_assert_uint_eq(ctls(), before + 1);
	/* Wanted again: told to epoll before the next wait, and delivered. */
	ck_assert_int_eq(loop_mod(&watches[0], EPOLLIN), 0);
	loop_timer_set(&timers[1], 5000, on_timer);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 2);
	ck_assert_int_eq(fired[1], 100);
	ck_assert_uint_eq(events_seen[0], EPOLLIN);
	ck_assert_uint_eq(ctls(), before + 2);
	loop_del(&watches[0]);
	close(pipes[0][0]);
	close(pipes[0][1]);
}
END_TEST

START_TEST(hangup_reaches_a_paused_watch)
{
	/* As when epoll is told no events at all: a hang-up is reported
	 * whatever was asked, and the callback gets it (and nothing else). */
	init_loop();
	make_pipe(pipes[0]);
	ck_assert_int_eq(write(pipes[0][1], "x", 1), 1);
	close(pipes[0][1]);
	watches[0] = (struct loop_watch)LOOP_WATCH_INIT;
	ck_assert_int_eq(loop_add(&watches[0], pipes[0][0], EPOLLIN, on_any), 0);
	ck_assert_int_eq(loop_mod(&watches[0], 0), 0);
	loop_timer_set(&timers[0], 5000, on_timer);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 1);
	ck_assert_int_eq(fired[0], 100);
	ck_assert_uint_eq(events_seen[0], EPOLLHUP);
	loop_del(&watches[0]);
	close(pipes[0][0]);
}
END_TEST

/* Watch 1's callback pauses watch 0, whose event is in the same batch. */
static void on_readable_pause_other(struct loop_watch *w, uint32_t events)
{
	(void)events;
	char c;
	record(100 + watch_tag(w));
	ck_assert_int_eq(read(w->fd, &c, 1), 1);
	loop_mod(&watches[1 - watch_tag(w)], 0);
}

START_TEST(paused_in_batch_gets_no_callback)
{
	/* Paused by a callback of the same batch: the event epoll already
	 * gave for it is not delivered either. */
	init_loop();
	for (int i = 0; i < 2; i++) {
		make_pipe(pipes[i]);
		ck_assert_int_eq(write(pipes[i][1], "x", 1), 1);
		watches[i] = (struct loop_watch)LOOP_WATCH_INIT;
		ck_assert_int_eq(
			loop_add(&watches[i], pipes[i][0], EPOLLIN, on_readable_pause_other), 0);
	}
	loop_timer_set(&timers[0], 30, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 2); /* the first of the batch, then the timer */
	ck_assert_int_eq(fired[1], 0);
	for (int i = 0; i < 2; i++) {
		loop_del(&watches[i]);
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
}
END_TEST

START_TEST(clocks_advance)
{
	init_loop();
	uint64_t now = loop_now_ms(), us = loop_clock_us();
	ck_assert_uint_gt(now, 0);
	ck_assert_uint_gt(loop_wall_ms(), 1500000000000ull); /* after 2017 */
	loop_timer_set(&timers[0], 25, on_timer_stop);
	/* Rounded up: never earlier than 25 ms from the moment it was armed. */
	ck_assert_uint_ge(timers[0].when_ms, now + 26);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_uint_ge(loop_now_ms(), now + 26);
	ck_assert_uint_ge(loop_clock_us() - us, 25000);
}

/* ---- turn latency */

static uint64_t cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void on_slow_timer(struct loop_timer *t)
{
	/* A callback that works for 15 ms of CPU, as a slow request would. */
	uint64_t until = cpu_us() + 15000;
	while (cpu_us() < until)
		;
	on_timer_stop(t);
}

static void on_blocked_timer(struct loop_timer *t)
{
	/* A callback that holds the loop 30 ms without working, as when
	 * the machine runs something else. */
	struct timespec ts = {0, 30 * 1000 * 1000};
	while (nanosleep(&ts, &ts) < 0)
		;
	on_timer_stop(t);
}

START_TEST(slow_turns_are_measured)
{
	init_loop();
	struct loop_stats before;
	loop_get_stats(&before);
	loop_timer_set(&timers[0], 0, on_timer);
	loop_timer_set(&timers[1], 5, on_slow_timer);
	ck_assert_int_eq(loop_run(), 0);
	struct loop_stats st;
	loop_get_stats(&st);
	ck_assert_uint_ge(st.turns - before.turns, 2);
	ck_assert_uint_ge(st.max_turn_us, 15000);
	ck_assert_uint_lt(st.max_turn_us, 5000000);
	ck_assert_uint_eq(st.turns_over_10ms - before.turns_over_10ms, 1);
	ck_assert_uint_ge(st.max_turn_cpu_us, 15000);
	ck_assert_uint_eq(st.turns_over_10ms_cpu - before.turns_over_10ms_cpu, 1);
}
END_TEST

/* Wall time the loop did not work counts as latency, not as CPU. */
START_TEST(blocked_turns_are_not_work)
{
	init_loop();
	struct loop_stats before;
	loop_get_stats(&before);
	loop_timer_set(&timers[0], 0, on_timer);
	loop_timer_set(&timers[1], 5, on_blocked_timer);
	ck_assert_int_eq(loop_run(), 0);
	struct loop_stats st;
	loop_get_stats(&st);
	ck_assert_uint_ge(st.max_turn_us, 30000);
	ck_assert_uint_ge(st.turns_over_10ms - before.turns_over_10ms, 1);
	ck_assert_uint_eq(st.turns_over_10ms_cpu, before.turns_over_10ms_cpu);
}
END_TEST
END_TEST

/* ---- tasks */

static struct loop_task tasks[4];
static uint64_t task_turn[4];

static int task_tag(const struct loop_task *t) { return (int)(t - tasks); }

static void on_task(struct loop_task *t)
{
	record(200 + task_tag(t));
	task_turn[task_tag(t)] = loop_turn();
}

static void init_tasks(void)
{
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++)
		tasks[i] = (struct loop_task)LOOP_TASK_INIT(tasks[i]);
}

/* Light tasks run before heavy ones, each kind in the order queued. */
START_TEST(light_tasks_go_first)
{
	init_loop();
	init_tasks();
	loop_task_heavy(&tasks[0], on_task);
	loop_task_next(&tasks[1], on_task);
	loop_task_heavy(&tasks[2], on_task);
	loop_task_next(&tasks[3], on_task);
	loop_task_next(&tasks[1], on_task); /* queued already: no-op */
	loop_timer_set(&timers[0], 0, on_timer_stop);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(nfired, 5);
	int want[] = {201, 203, 200, 202, 0};
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(fired[i], want[i]);
	ck_assert_uint_eq(task_turn[0], task_turn[1]); /* all in one turn */
}
END_TEST

/* Spends more than the turn's budget, then queues itself again. */
static void on_busy_task(struct loop_task *t)
{
	uint64_t until = loop_clock_us() + LIMIT_TURN_WORK_US + 1000;
	while (loop_clock_us() < until)
		;
	task_turn[task_tag(t)] = loop_turn();
	loop_task_next(t, on_busy_task);
}

static void on_heavy_stop(struct loop_task *t)
{
	task_turn[task_tag(t)] = loop_turn();
	loop_stop();
}

/* Light tasks that fill every turn do not starve a heavy one: a turn
 * that ran no heavy task is followed by one that begins with them. */
START_TEST(heavy_tasks_not_starved)
{
	init_loop();
	init_tasks();
	loop_task_next(&tasks[0], on_busy_task);
	loop_task_next(&tasks[1], on_busy_task);
	loop_task_heavy(&tasks[2], on_heavy_stop);
	uint64_t first = loop_turn();
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_uint_le(task_turn[2], first + 1);
	ck_assert_uint_ge(task_turn[2], first + 1); /* the busy light one went first */
	loop_task_cancel(&tasks[0]);
	loop_task_cancel(&tasks[1]);
}
END_TEST

static Suite *loop_suite(void)
{
	Suite *s = suite_create("loop");
	TCase *tc = tcase_create("timers");
	tcase_add_test(tc, timers_fire_in_deadline_order);
	tcase_add_test(tc, many_timers_in_order);
	tcase_add_test(tc, cancel_removes_one);
	tcase_add_test(tc, rearm_moves);
	tcase_add_test(tc, rearm_from_own_callback);
	tcase_add_test(tc, callback_cancels_another);
	tcase_add_test(tc, stop_ends_run);
	tcase_add_test(tc, clocks_advance);
	tcase_add_test(tc, slow_turns_are_measured);
	tcase_add_test(tc, blocked_turns_are_not_work);
	tcase_add_test(tc, light_tasks_go_first);
	tcase_add_test(tc, heavy_tasks_not_starved);
	suite_add_tcase(s, tc);

	tc = tcase_create("fds");
	tcase_add_test(tc, readable_fd_fires);
	tcase_add_test(tc, mod_changes_events);
	tcase_add_test(tc, add_bad_fd_fails);
	tcase_add_test(tc, deleted_watch_gets_no_callback);
	tcase_add_test(tc, watch_may_delete_itself);
	tcase_add_test(tc, mod_and_back_costs_nothing);
	tcase_add_test(tc, dropped_events_are_not_delivered);
	tcase_add_test(tc, hangup_reaches_a_paused_watch);
	tcase_add_test(tc, paused_in_batch_gets_no_callback);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(loop_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
