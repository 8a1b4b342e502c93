/* loop.c - epoll and a timer heap; see loop.h. */
#include "loop.h"

#include "../protocol/limits.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static int epfd = -1;
static bool running;
static uint64_t now_ms;

/* The batch being dispatched, so loop_del can blank later events of it. */
static struct epoll_event batch[BATCH];
static int batch_len, batch_pos;

static struct loop_stats stats;
static uint64_t turn_start_us;

/* Tasks for the next turn: those of work that takes little of the loop,
 * and those of work that has been taking much of it (loop_task_heavy). */
static struct list_node tasks = {&tasks, &tasks};
static struct list_node heavy_tasks = {&heavy_tasks, &heavy_tasks};
/* Heavy tasks were queued and the last turn ran none of them. */
static bool heavy_skipped;

static struct loop_timer **heap;
static size_t heap_len, heap_cap;

static uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t loop_now_ms(void) { return now_ms; }
uint64_t loop_wall_ms(void) { return clock_ms(CLOCK_REALTIME); }

/* CPU time the calling thread has used, in microseconds. */
static uint64_t thread_cpu_us(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t loop_cpu_us(void) { return thread_cpu_us(); }

uint64_t loop_clock_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int loop_init(void)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	now_ms = clock_ms(CLOCK_MONOTONIC);
	return epfd < 0 ? -1 : 0;
}

/* ---- watches: epoll is told what they want lazily (see loop_mod)
 *
 * Per execution the supervisor's watches change often and back again
 * within a turn or two: a connection stops reading while its request is
 * handled and reads again, adds EPOLLOUT for its reply and drops it once
 * the reply is written. Telling epoll each time took four epoll_ctl calls
 * per execution on the client's connection alone. */

/* Watches whose wanted events epoll has not been told yet. */
static struct loop_watch *pending;
/* An epoll_ctl of the pending ones failed: they are tried again soon. */
static bool pending_failed;

static void pend_add(struct loop_watch *w)
{
	if (w->pend_pprev)
		return;
	w->pend_next = pending;
	if (pending)
		pending->pend_pprev = &w->pend_next;
	pending = w;
	w->pend_pprev = &pending;
}

static void pend_del(struct loop_watch *w)
{
	if (!w->pend_pprev)
		return;
	*w->pend_pprev = w->pend_next;
	if (w->pend_next)
		w->pend_next->pend_pprev = w->pend_pprev;
	w->pend_next = NULL;
	w->pend_pprev = NULL;
}

/* Tells epoll w's wanted events: 0, or -1 with errno. */
static int arm(struct loop_watch *w)
{
	struct epoll_event ev = {.events = w->events, .data.ptr = w};
	stats.epoll_ctls++;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
		return -1;
	w->armed = w->events;
	return 0;
}

/* Before waiting: epoll gets the events the pending watches added (and,
 * with the same call, loses those they dropped). Those it could not be
 * told stay pending. */
static void flush_pending(void)
{
	struct loop_watch *retry = NULL, *w;
	pending_failed = false;
	while ((w = pending) != NULL) {
		pend_del(w);
		/* Only a want of kernel memory is worth trying again; any
		 * other failure is a watch whose fd was closed before its
		 * loop_del, which epoll has forgotten already. */
		if (w->fd >= 0 && (w->events & ~w->armed) && arm(w) < 0 && errno == ENOMEM) {
			w->pend_next = retry;
			retry = w;
		}
	}
	while ((w = retry) != NULL) {
		retry = w->pend_next;
		w->pend_next = NULL;
		pend_add(w);
		pending_failed = true;
	}
}

int loop_add(struct loop_watch *w, int fd, uint32_t events, loop_fd_cb cb)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	stats.epoll_ctls++;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -1;
	w->fd = fd;
	w->events = w->armed = events;
	w->cb = cb;
	w->pend_next = NULL;
	w->pend_pprev = NULL;
	return 0;
}

int loop_mod(struct loop_watch *w, uint32_t events)
{
	if (w->fd < 0 || w->events == events)
		return 0;
	w->events = events;
	if (events & ~w->armed)
		pend_add(w);
	return 0;
}

void loop_del(struct loop_watch *w)
{
	if (w->fd < 0)
		return;
	pend_del(w);
	stats.epoll_ctls++;
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->fd = -1;
	for (int i = batch_pos; i < batch_len; i++)
		if (batch[i].data.ptr == w)
			batch[i].data.ptr = NULL;
}

/* The events of ev that w's callback asked for, after telling epoll to
 * stop reporting those it no longer wants (0: nothing to call it for). */
static uint32_t wanted(struct loop_watch *w, uint32_t got)
{
	if (got & ~(w->events | EPOLLHUP | EPOLLERR) && arm(w) < 0 && errno == ENOMEM)
		pend_add(w); /* told again before the next wait */
	return got & (w->events | EPOLLHUP | EPOLLERR);
}

/* ---- timers: a binary min-heap on when_ms */

static void heap_place(size_t i, struct loop_timer *t)
{
	heap[i] = t;
	t->slot = i;
}

static void sift_up(size_t i)
{
	struct loop_timer *t = heap[i];
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (heap[parent]->when_ms <= t->when_ms)
			break;
		heap_place(i, heap[parent]);
		i = parent;
	}
	heap_place(i, t);
}

static void sift_down(size_t i)
{
	struct loop_timer *t = heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= heap_len)
			break;
		if (c + 1 < heap_len && heap[c + 1]->when_ms < heap[c]->when_ms)
			c++;
		if (t->when_ms <= heap[c]->when_ms)
			break;
		heap_place(i, heap[c]);
		i = c;
	}
	heap_place(i, t);
}

void loop_timer_cancel(struct loop_timer *t)
{
	if (!loop_timer_armed(t))
		return;
	size_t i = t->slot;
	t->slot = (size_t)-1;
	struct loop_timer *last = heap[--heap_len];
	if (i == heap_len)
		return;
	heap_place(i, last);
	sift_up(i);
	sift_down(last->slot);
}

int loop_timer_set(struct loop_timer *t, uint64_t ms, loop_timer_cb cb)
{
	loop_timer_cancel(t);
	if (heap_len == heap_cap) {
		size_t cap = heap_cap ? heap_cap * 2 : 64;
		struct loop_timer **h = realloc(heap, cap * sizeof *h);
		if (!h) {
			errno = ENOMEM;
			return -1;
		}
		heap = h;
		heap_cap = cap;
	}
	/* From a fresh clock, rounded up: the timer never fires before ms
	 * have passed, however long the current iteration has run. */
	t->when_ms = clock_ms(CLOCK_MONOTONIC) + (ms ? ms + 1 : 0);
	t->cb = cb;
	heap_place(heap_len++, t);
	sift_up(t->slot);
	return 0;
}

static void run_timers(void)
{
	while (heap_len > 0 && heap[0]->when_ms <= now_ms) {
		struct loop_timer *t = heap[0];
		loop_timer_cancel(t);
		t->cb(t);
	}
}

static int next_timeout(void)
{
	/* Until epoll has what a watch wants, check again at least this
	 * often (a failed epoll_ctl is for want of kernel memory). */
	int cap = pending_failed ? 10 : 60000;
	if (heap_len == 0)
		return pending_failed ? cap : -1;
	uint64_t when = heap[0]->when_ms;
	if (when <= now_ms)
		return 0;
	uint64_t d = when - now_ms;
	return d > (uint64_t)cap ? cap : (int)d;
}

void loop_task_next(struct loop_task *t, loop_task_cb cb)
{
	t->cb = cb;
	if (!list_linked(&t->link))
		list_add_tail(&tasks, &t->link);
}

void loop_task_heavy(struct loop_task *t, loop_task_cb cb)
{
	t->cb = cb;
	if (!list_linked(&t->link))
		list_add_tail(&heavy_tasks, &t->link);
}

void loop_task_cancel(struct loop_task *t) { list_del(&t->link); }

uint64_t loop_turn_us(void) { return loop_clock_us() - turn_start_us; }
uint64_t loop_turn(void) { return stats.turns; }

/* Moves q's tasks to now, leaving q empty. */
static void take_all(struct list_node *q, struct list_node *now)
{
	list_init(now);
	if (list_empty(q))
		return;
	*now = *q;
	now->next->prev = now;
	now->prev->next = now;
	list_init(q);
}

/* Puts what is left of now back at the front of q: ahead of the tasks
 * queued meanwhile, so that none starves. */
static void give_back(struct list_node *now, struct list_node *q)
{
	if (list_empty(now))
		return;
	now->prev->next = q->next;
	q->next->prev = now->prev;
	now->next->prev = q;
	q->next = now->next;
}

/* Runs now's tasks in order while the turn has room (the turn's first
 * task always runs: *ran tells); how many ran. */
static unsigned run_queue(struct list_node *now, bool *ran)
{
	unsigned k = 0;
	struct list_node *n;
	while ((n = list_first(now)) != NULL && (!*ran || loop_turn_us() <= LIMIT_TURN_WORK_US)) {
		struct loop_task *t = LIST_ITEM(n, struct loop_task, link);
		list_del(n);
		*ran = true;
		k++;
		t->cb(t);
	}
	return k;
}

/*
 * Runs the tasks queued before this turn until the turn has run
 * LIMIT_TURN_WORK_US (the first always runs); those not run keep their
 * place ahead of the ones queued meanwhile. Light tasks go before heavy
 * ones, so that a client whose requests cost little is not made to wait
 * behind hundreds of connections' expensive ones; but a turn after one
 * that ran no heavy task begins with them, so neither kind starves and
 * each gets at least one task every other turn.
 */
static void run_tasks(void)
{
	struct list_node light, heavy;
	take_all(&tasks, &light);
	take_all(&heavy_tasks, &heavy);
	bool ran = false, had_heavy = !list_empty(&heavy);
	unsigned heavy_ran = 0;
	if (heavy_skipped)
		heavy_ran += run_queue(&heavy, &ran);
	run_queue(&light, &ran);
	heavy_ran += run_queue(&heavy, &ran);
	heavy_skipped = had_heavy && heavy_ran == 0;
	give_back(&light, &tasks);
	give_back(&heavy, &heavy_tasks);
}

void loop_stop(void) { running = false; }

void loop_get_stats(struct loop_stats *st) { *st = stats; }

/* The loop thread's CPU time when the last turn ended: the next turn's
 * starts there (waiting in epoll_wait takes next to none), so a turn
 * costs one reading of the CPU clock, a system call, not two. */
static uint64_t last_cpu_us;

static void count_turn(uint64_t start_us)
{
	uint64_t took = loop_clock_us() - start_us;
	uint64_t now_cpu = thread_cpu_us();
	uint64_t cpu = now_cpu - last_cpu_us;
	last_cpu_us = now_cpu;
	stats.turns++;
	if (took > stats.max_turn_us)
		stats.max_turn_us = took;
	if (took > LOOP_SLOW_TURN_US)
		stats.turns_over_10ms++;
	if (cpu > stats.max_turn_cpu_us)
		stats.max_turn_cpu_us = cpu;
	if (cpu > LOOP_SLOW_TURN_US)
		stats.turns_over_10ms_cpu++;
}

int loop_run(void)
{
	last_cpu_us = thread_cpu_us();
	running = true;
	while (running) {
		flush_pending();
		int n = epoll_wait(epfd, batch, BATCH,
				   list_empty(&tasks) && list_empty(&heavy_tasks) ? next_timeout()
										  : 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		uint64_t start_us = loop_clock_us();
		turn_start_us = start_us;
		now_ms = start_us / 1000u;
		/* Tasks run with the batch in place, so that a watch they
		 * remove gets none of its events. */
		batch_len = n;
		batch_pos = 0;
		run_tasks();
		for (batch_pos = 0; batch_pos < batch_len;) {
			struct epoll_event *ev = &batch[batch_pos++];
			struct loop_watch *w = ev->data.ptr;
			uint32_t got = w ? wanted(w, ev->events) : 0;
			if (got)
				w->cb(w, got);
		}
		batch_len = batch_pos = 0;
		now_ms = clock_ms(CLOCK_MONOTONIC);
		run_timers();
		count_turn(start_us);
	}
	return 0;
}
