/*
 * check_ploop.c - the bridge's poll loop (client/ploop.c): fd watches on
 * real pipes, one-shot timers on the monotonic clock, deletion and
 * cancellation inside callbacks, stop, and run ending when nothing is
 * left to wait for.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../client/ploop.h"

static int order[16];
static int norder;

static void note(struct ploop_timer *t) { order[norder++] = (int)(intptr_t)t->arg; }

START_TEST(timers_fire_in_order)
{
	struct ploop *p = ploop_new();
	struct ploop_timer a = PLOOP_TIMER_INIT, b = PLOOP_TIMER_INIT, c = PLOOP_TIMER_INIT;
	norder = 0;
	uint64_t t0 = ploop_now_ms();
	ck_assert_int_eq(ploop_timer_set(p, &a, 60, note, (void *)1), 0);
	ck_assert_int_eq(ploop_timer_set(p, &b, 20, note, (void *)2), 0);
	ck_assert_int_eq(ploop_timer_set(p, &c, 40, note, (void *)3), 0);
	ck_assert(ploop_timer_armed(&a));
	/* Re-arming moves it. */
	ck_assert_int_eq(ploop_timer_set(p, &c, 80, note, (void *)3), 0);
	ck_assert_int_eq(ploop_run(p), 0);
	ck_assert_int_eq(norder, 3);
	ck_assert_int_eq(order[0], 2);
	ck_assert_int_eq(order[1], 1);
	ck_assert_int_eq(order[2], 3);
	ck_assert(ploop_now_ms() - t0 >= 80);
	ck_assert(!ploop_timer_armed(&a) && !ploop_timer_armed(&c));
	ploop_free(p);
}
END_TEST

static struct ploop_timer *victim;
static struct ploop *loop_of;
static int rearms;

static void cancel_other(struct ploop_timer *t)
{
	note(t);
	ploop_timer_cancel(victim);
}

static void rearm_zero(struct ploop_timer *t)
{
	note(t);
	if (++rearms < 3)
		ploop_timer_set(loop_of, t, 0, rearm_zero, t->arg);
}

START_TEST(timer_callbacks_cancel_and_rearm)
{
	struct ploop *p = ploop_new();
	struct ploop_timer a = PLOOP_TIMER_INIT, b = PLOOP_TIMER_INIT;
	norder = 0;
	/* Both due in the same pass; the first cancels the second, which
	 * then does not fire. */
	ploop_timer_set(p, &a, 0, cancel_other, (void *)1);
	ploop_timer_set(p, &b, 0, note, (void *)2);
	victim = &b;
	ck_assert_int_eq(ploop_once(p, 0), 0);
	ck_assert_int_eq(norder, 1);
	ck_assert_int_eq(order[0], 1);
	/* A timer re-armed at 0 ms in its callback fires on the next pass,
	 * not in the same one. */
	loop_of = p;
	rearms = 0;
	norder = 0;
	ploop_timer_set(p, &a, 0, rearm_zero, (void *)7);
	ck_assert_int_eq(ploop_once(p, 0), 0);
	ck_assert_int_eq(norder, 1);
	ck_assert_int_eq(ploop_run(p), 0);
	ck_assert_int_eq(norder, 3);
	ploop_free(p);
}
END_TEST

struct pipe_watch {
	struct ploop_watch w;
	int fds[2];
	unsigned seen;
	int calls;
	char got[64];
	struct ploop_watch *other; /* deleted by this one's callback */
};

static void on_ready(struct ploop_watch *w, unsigned events)
{
	struct pipe_watch *pw = w->arg;
	pw->seen |= events;
	pw->calls++;
	if (events & PLOOP_READ) {
		ssize_t n = read(w->fd, pw->got, sizeof pw->got - 1);
		if (n > 0)
			pw->got[n] = '\0';
		if (n == 0)
			ploop_watch_del(w); /* EOF */
	}
	if (pw->other)
		ploop_watch_del(pw->other);
}

static void pipe_watch_init(struct pipe_watch *pw)
{
	memset(pw, 0, sizeof *pw);
	pw->w = (struct ploop_watch)PLOOP_WATCH_INIT;
	ck_assert_int_eq(pipe2(pw->fds, O_CLOEXEC | O_NONBLOCK), 0);
}

START_TEST(watches_read_write_hup)
{
	struct ploop *p = ploop_new();
	struct pipe_watch r, wr;
	pipe_watch_init(&r);
	pipe_watch_init(&wr);
	ck_assert_int_eq(ploop_watch_add(p, &r.w, r.fds[0], PLOOP_READ, on_ready, &r), 0);
	ck_assert(ploop_watched(&r.w));
	/* Nothing to read: a turn with a timeout passes with no callback. */
	ck_assert_int_eq(ploop_once(p, 10), 0);
	ck_assert_int_eq(r.calls, 0);
	ck_assert_int_eq(write(r.fds[1], "hello", 5), 5);
	ck_assert_int_eq(ploop_once(p, 1000), 0);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_str_eq(r.got, "hello");
	/* A writable end is told so only while write is asked for. */
	ck_assert_int_eq(ploop_watch_add(p, &wr.w, wr.fds[1], 0, on_ready, &wr), 0);
	ck_assert_int_eq(ploop_once(p, 10), 0);
	ck_assert_int_eq(wr.calls, 0);
	ploop_watch_set(&wr.w, PLOOP_WRITE);
	ck_assert_int_eq(ploop_once(p, 1000), 0);
	ck_assert_int_eq(wr.calls, 1);
	ck_assert(wr.seen & PLOOP_WRITE);
	ploop_watch_del(&wr.w);
	ck_assert(!ploop_watched(&wr.w));
	ploop_watch_del(&wr.w); /* a no-op */
	/* The writer closes: the reader is told HUP with READ and reads EOF,
	 * deletes itself, and run ends with nothing left. */
	close(r.fds[1]);
	ck_assert_int_eq(ploop_run(p), 0);
	ck_assert(r.seen & PLOOP_HUP);
	ck_assert(!ploop_watched(&r.w));
	close(r.fds[0]);
	close(wr.fds[0]);
	close(wr.fds[1]);
	ploop_free(p);
}
END_TEST

START_TEST(watch_deleted_in_same_turn)
{
	struct ploop *p = ploop_new();
	struct pipe_watch a, b;
	pipe_watch_init(&a);
	pipe_watch_init(&b);
	ck_assert_int_eq(ploop_watch_add(p, &a.w, a.fds[0], PLOOP_READ, on_ready, &a), 0);
	ck_assert_int_eq(ploop_watch_add(p, &b.w, b.fds[0], PLOOP_READ, on_ready, &b), 0);
	/* Both ready in one turn; the first deletes the second, which gets
	 * no callback from that turn. */
	a.other = &b.w;
	ck_assert_int_eq(write(a.fds[1], "x", 1), 1);
	ck_assert_int_eq(write(b.fds[1], "y", 1), 1);
	ck_assert_int_eq(ploop_once(p, 1000), 0);
	ck_assert_int_eq(a.calls, 1);
	ck_assert_int_eq(b.calls, 0);
	ck_assert(!ploop_watched(&b.w));
	/* The deleted watch can be added again and works. */
	a.other = NULL;
	ck_assert_int_eq(ploop_watch_add(p, &b.w, b.fds[0], PLOOP_READ, on_ready, &b), 0);
	ck_assert_int_eq(ploop_once(p, 1000), 0);
	ck_assert_int_eq(b.calls, 1);
	ck_assert_str_eq(b.got, "y");
	for (int i = 0; i < 2; i++) {
		close(a.fds[i]);
		close(b.fds[i]);
	}
	ploop_free(p);
}
END_TEST

static void stop_loop(struct ploop_timer *t) { ploop_stop(t->arg); }

START_TEST(stop_and_free)
{
	struct ploop *p = ploop_new();
	struct pipe_watch r;
	pipe_watch_init(&r);
	/* A watch that never fires keeps run going until stop. */
	ck_assert_int_eq(ploop_watch_add(p, &r.w, r.fds[0], PLOOP_READ, on_ready, &r), 0);
	struct ploop_timer t = PLOOP_TIMER_INIT, later = PLOOP_TIMER_INIT;
	uint64_t t0 = ploop_now_ms();
	ploop_timer_set(p, &t, 20, stop_loop, p);
	ploop_timer_set(p, &later, 100000, note, NULL);
	ck_assert_int_eq(ploop_run(p), 0);
	ck_assert(ploop_now_ms() - t0 >= 20);
	ck_assert(ploop_now_ms() - t0 < 100000);
	ck_assert(ploop_timer_armed(&later));
	/* Freeing the loop detaches what is still in it. */
	ploop_free(p);
	ck_assert(!ploop_watched(&r.w));
	ck_assert(!ploop_timer_armed(&later));
	close(r.fds[0]);
	close(r.fds[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ploop");
	TCase *tc = tcase_create("loop");
	tcase_add_test(tc, timers_fire_in_order);
	tcase_add_test(tc, timer_callbacks_cancel_and_rearm);
	tcase_add_test(tc, watches_read_write_hup);
	tcase_add_test(tc, watch_deleted_in_same_turn);
	tcase_add_test(tc, stop_and_free);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
