/*
 * loop.h - the supervisor's event loop: epoll for fds, a min-heap of timers.
 *
 * Single-threaded and never blocking: every fd it watches is non-blocking.
 * A watch removed while a batch of events is being dispatched gets no
 * further callbacks from that batch, so a callback may free any object,
 * its own included, right after loop_del.
 */
#ifndef SANDBOXD_LOOP_H
#define SANDBOXD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

struct loop_watch;
typedef void (*loop_fd_cb)(struct loop_watch *w, uint32_t events);

/*
 * events is what the callback wants; epoll is told lazily (see loop_mod),
 * so armed, what epoll was last told, may differ from it for a while.
 * The fields after cb are the loop's own.
 */
struct loop_watch {
	int fd; /* -1 when not in the loop */
	uint32_t events;
	loop_fd_cb cb;
	uint32_t armed;
	/* On the list of watches whose events epoll must be told before
	 * it is next waited on; pend_pprev is NULL when not on it. */
	struct loop_watch *pend_next, **pend_pprev;
};

struct loop_timer;
typedef void (*loop_timer_cb)(struct loop_timer *t);

struct loop_timer {
	uint64_t when_ms;
	size_t slot; /* index in the heap, or (size_t)-1 when not armed */
	loop_timer_cb cb;
};

/* clang-format off */
#define LOOP_WATCH_INIT {-1, 0, NULL, 0, NULL, NULL}
#define LOOP_TIMER_INIT {0, (size_t)-1, NULL}
/* clang-format on */

/* Creates the epoll instance; -1 with errno. */
int loop_init(void);
/* Starts watching fd for events (EPOLLIN/EPOLLOUT...). 0, or -1 with errno. */
int loop_add(struct loop_watch *w, int fd, uint32_t events, loop_fd_cb cb);
/*
 * Changes the events watched; a no-op when they are the same. The kernel
 * is told once per turn at most, and only when it must be: events added
 * are given to epoll just before the loop next waits (so adding EPOLLOUT,
 * writing, and taking it away again in one turn costs no system call),
 * and events taken away stay in epoll until one of them is reported, which
 * the callback never sees (it gets only what it asked for, and EPOLLHUP
 * and EPOLLERR, which epoll reports whatever it is asked). Always 0: an
 * epoll_ctl that fails for want of kernel memory is tried again before
 * each wait (the loop then waits 10 ms at most) until it succeeds.
 */
int loop_mod(struct loop_watch *w, uint32_t events);
/* Stops watching (call before closing the fd; it tells epoll at once).
 * A no-op when not watched. */
void loop_del(struct loop_watch *w);

/* Monotonic milliseconds, sampled once per loop iteration. */
uint64_t loop_now_ms(void);
/* Monotonic microseconds, read now. */
uint64_t loop_clock_us(void);
/* CPU time the loop's thread has used, in microseconds: what work cost
 * the loop, without the time the machine ran something else. */
uint64_t loop_cpu_us(void);
/* Wall-clock milliseconds since the epoch, read now. */
uint64_t loop_wall_ms(void);

/* Arms t to fire once, no sooner than ms from now (0: at the end of this
 * iteration); re-arming moves it. 0, or -1 (ENOMEM) when the timer heap
 * cannot grow: t is then not armed, and the caller must do without it.
 * Re-arming a timer that is armed never fails. */
int loop_timer_set(struct loop_timer *t, uint64_t ms, loop_timer_cb cb);
void loop_timer_cancel(struct loop_timer *t);
static inline bool loop_timer_armed(const struct loop_timer *t) { return t->slot != (size_t)-1; }

/* Work that goes on at the next turn: a task runs once, at the start of
 * the loop's next iteration (after the fds that are ready have been
 * polled), never in the turn that queued it. A long job (frames buffered
 * on a connection, replies waiting for room) does a bounded share each
 * turn and queues the rest this way, so other clients get a turn between
 * the shares. */
struct loop_task;
typedef void (*loop_task_cb)(struct loop_task *t);
struct loop_task {
	struct list_node link; /* on the queue while queued */
	loop_task_cb cb;
};
#define LOOP_TASK_INIT(t)                    \
	{                                    \
		{&(t).link, &(t).link}, NULL \
	}
/* Queues t for the next turn; a no-op when it is already queued. */
void loop_task_next(struct loop_task *t, loop_task_cb cb);
/* The same for the task of work that has been taking much of the loop
 * (a connection whose requests cost milliseconds each): light tasks run
 * before heavy ones, and heavy ones at least every other turn, so that
 * cheap work is not queued behind a crowd of expensive work and neither
 * starves. */
void loop_task_heavy(struct loop_task *t, loop_task_cb cb);
void loop_task_cancel(struct loop_task *t);
/* Microseconds since the current turn began: what the work done in it
 * so far has made every other client wait. */
uint64_t loop_turn_us(void);
/* A number that grows by one each turn. */
uint64_t loop_turn(void);

/* How long the loop's turns take: a turn runs from epoll_wait's return to
 * the end of that iteration's callbacks and timers, so its length is how
 * long every other client waited. */
struct loop_stats {
	uint64_t turns;
	uint64_t max_turn_us;
	uint64_t turns_over_10ms;
	/* The same in CPU time of the loop's thread: what the daemon's own
	 * work took, without the time the machine ran something else. */
	uint64_t max_turn_cpu_us;
	uint64_t turns_over_10ms_cpu;
	/* epoll_ctl calls made (adds, changes, removals): what watching
	 * costs in system calls, which loop_mod keeps to what is needed. */
	uint64_t epoll_ctls;
};
#define LOOP_SLOW_TURN_US 10000u

void loop_get_stats(struct loop_stats *st);

/* Runs until loop_stop; 0, or -1 when epoll fails. */
int loop_run(void);
void loop_stop(void);

#endif
