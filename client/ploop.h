/*
 * ploop.h - a small poll(2) loop for the MCP bridge: fd watches with a
 * callback, one-shot timers on the monotonic clock, run until stopped.
 *
 * Single-threaded; the bridge has a handful of fds (stdin, stdout, the
 * daemon's socket, each upstream server's pipes), so poll and an unsorted
 * timer array are all it needs. Every fd it watches should be non-blocking.
 *
 * Watches and timers are embedded in the caller's objects (no allocation
 * per watch once the loop's arrays have grown). The loop never frees them.
 * A watch deleted or a timer cancelled inside any callback gets no further
 * callback, even one already due in the same turn, so a callback may free
 * any object, its own included, right after ploop_watch_del /
 * ploop_timer_cancel.
 */
#ifndef SANDBOXD_PLOOP_H
#define SANDBOXD_PLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ploop;

/* Events a watch asks for and is told of. PLOOP_HUP (POLLHUP, POLLERR or
 * POLLNVAL: the other end closed or the fd broke) is always reported,
 * whether asked for or not, together with the events the watch asks for:
 * a reader sees READ|HUP and reads its EOF, a writer WRITE|HUP and gets
 * its error from write. */
#define PLOOP_READ 0x1u
#define PLOOP_WRITE 0x2u
#define PLOOP_HUP 0x4u

struct ploop_watch;
/* Called with the events that are ready (a subset of those asked for, plus
 * PLOOP_HUP). */
typedef void (*ploop_fd_cb)(struct ploop_watch *w, unsigned events);

struct ploop_watch {
	struct ploop *loop; /* NULL when not in a loop */
	int fd;		    /* -1 when not in a loop */
	unsigned events;
	ploop_fd_cb cb;
	void *arg; /* the caller's, untouched by the loop */
	size_t slot;
};

struct ploop_timer;
typedef void (*ploop_timer_cb)(struct ploop_timer *t);

struct ploop_timer {
	struct ploop *loop; /* NULL when not armed */
	uint64_t when_ms;
	uint64_t seq;
	ploop_timer_cb cb;
	void *arg; /* the caller's, untouched by the loop */
	size_t slot;
};

/* clang-format off */
#define PLOOP_WATCH_INIT {NULL, -1, 0, NULL, NULL, (size_t)-1}
#define PLOOP_TIMER_INIT {NULL, 0, 0, NULL, NULL, (size_t)-1}
/* clang-format on */

/* A new loop; NULL with errno (ENOMEM). */
struct ploop *ploop_new(void);
/* Frees the loop. Watches and timers still in it are detached (their loop
 * becomes NULL) and get no callback. NULL is a no-op. */
void ploop_free(struct ploop *p);

/* Starts watching fd for events (PLOOP_READ|PLOOP_WRITE, either, or 0 to
 * keep the watch but ask for nothing). w must not be in a loop. 0, or -1
 * (ENOMEM; w is then not watched). */
int ploop_watch_add(struct ploop *p, struct ploop_watch *w, int fd, unsigned events, ploop_fd_cb cb,
		    void *arg);
/* Changes the events asked for; never fails. A no-op when w is not watched. */
void ploop_watch_set(struct ploop_watch *w, unsigned events);
/* Stops watching (call before closing the fd). A no-op when not watched. */
void ploop_watch_del(struct ploop_watch *w);
static inline bool ploop_watched(const struct ploop_watch *w) { return w->loop != NULL; }

/* Monotonic milliseconds, read now. */
uint64_t ploop_now_ms(void);

/* Arms t to fire once, no sooner than ms from now (0: in this turn's or
 * the next turn's timer pass, never inside the call). Re-arming an armed
 * timer moves it (and never fails). 0, or -1 (ENOMEM; t is then not
 * armed). A timer is disarmed (loop NULL) before its callback runs, so
 * the callback may re-arm it. */
int ploop_timer_set(struct ploop *p, struct ploop_timer *t, uint64_t ms, ploop_timer_cb cb,
		    void *arg);
/* Disarms t; a no-op when not armed. */
void ploop_timer_cancel(struct ploop_timer *t);
static inline bool ploop_timer_armed(const struct ploop_timer *t) { return t->loop != NULL; }

/* Runs turns (poll, fd callbacks, due timers) until ploop_stop, or until
 * nothing is watched (with any events asked for) and no timer is armed.
 * 0, or -1 with errno when poll fails other than by EINTR. */
int ploop_run(struct ploop *p);
/* Makes ploop_run return after the current turn. Safe in any callback. */
void ploop_stop(struct ploop *p);
/* One turn: waits at most timeout_ms (-1: until something happens, or the
 * next timer) then dispatches. For tests and for callers with their own
 * outer loop. 0, or -1 with errno. */
int ploop_once(struct ploop *p, int timeout_ms);

#endif
