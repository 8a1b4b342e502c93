/*
 * ploop.c - the bridge's poll(2) loop. See ploop.h.
 *
 * Watches and timers sit in arrays of pointers. A deleted entry leaves a
 * NULL hole while a turn is dispatching (so the indices of the turn's
 * pollfd array still name the right watches) and the holes are closed at
 * the end of the turn. Timers armed during a turn's timer pass carry a
 * sequence number at or above the pass's and wait for the next pass, so a
 * timer that re-arms itself at 0 ms cannot hold the loop.
 */
#include "ploop.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ploop {
	struct ploop_watch **watches;
	size_t nwatches, capwatches;
	struct ploop_timer **timers;
	size_t ntimers, captimers;
	struct pollfd *pfds;
	size_t cappfds;
	uint64_t seq;
	bool holes;
	bool stop;
};

struct ploop *ploop_new(void) { return calloc(1, sizeof(struct ploop)); }

void ploop_free(struct ploop *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nwatches; i++)
		if (p->watches[i]) {
			p->watches[i]->loop = NULL;
			p->watches[i]->fd = -1;
			p->watches[i]->slot = (size_t)-1;
		}
	for (size_t i = 0; i < p->ntimers; i++)
		if (p->timers[i]) {
			p->timers[i]->loop = NULL;
			p->timers[i]->slot = (size_t)-1;
		}
	free(p->watches);
	free(p->timers);
	free(p->pfds);
	free(p);
}

/* Makes room for one more pointer in *arr; 0, or -1 (ENOMEM). */
static int grow(void ***arr, size_t n, size_t *cap)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	void **na = realloc(*arr, ncap * sizeof *na);
	if (!na) {
		errno = ENOMEM;
		return -1;
	}
	*arr = na;
	*cap = ncap;
	return 0;
}

int ploop_watch_add(struct ploop *p, struct ploop_watch *w, int fd, unsigned events, ploop_fd_cb cb,
		    void *arg)
{
	if (grow((void ***)&p->watches, p->nwatches, &p->capwatches) < 0)
		return -1;
	w->loop = p;
	w->fd = fd;
	w->events = events;
	w->cb = cb;
	w->arg = arg;
	w->slot = p->nwatches;
	p->watches[p->nwatches++] = w;
	return 0;
}

void ploop_watch_set(struct ploop_watch *w, unsigned events)
{
	if (w->loop)
		w->events = events;
}

void ploop_watch_del(struct ploop_watch *w)
{
	struct ploop *p = w->loop;
	if (!p)
		return;
	p->watches[w->slot] = NULL;
	p->holes = true;
	w->loop = NULL;
	w->fd = -1;
	w->slot = (size_t)-1;
}

uint64_t ploop_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int ploop_timer_set(struct ploop *p, struct ploop_timer *t, uint64_t ms, ploop_timer_cb cb,
		    void *arg)
{
	if (t->loop && t->loop != p)
		ploop_timer_cancel(t);
	if (!t->loop) {
		if (grow((void ***)&p->timers, p->ntimers, &p->captimers) < 0)
			return -1;
		t->loop = p;
		t->slot = p->ntimers;
		p->timers[p->ntimers++] = t;
	}
	/* The clock is read in whole milliseconds: one more keeps "no sooner
	 * than ms" true when now is late in its millisecond. */
	t->when_ms = ploop_now_ms() + ms + (ms ? 1 : 0);
	t->seq = p->seq;
	t->cb = cb;
	t->arg = arg;
	return 0;
}

void ploop_timer_cancel(struct ploop_timer *t)
{
	struct ploop *p = t->loop;
	if (!p)
		return;
	p->timers[t->slot] = NULL;
	p->holes = true;
	t->loop = NULL;
	t->slot = (size_t)-1;
}

void ploop_stop(struct ploop *p) { p->stop = true; }

/* Closes the NULL holes that deletions left, keeping the order. */
static void compact(struct ploop *p)
{
	size_t j = 0;
	for (size_t i = 0; i < p->nwatches; i++)
		if (p->watches[i]) {
			p->watches[i]->slot = j;
			p->watches[j++] = p->watches[i];
		}
	p->nwatches = j;
	j = 0;
	for (size_t i = 0; i < p->ntimers; i++)
		if (p->timers[i]) {
			p->timers[i]->slot = j;
			p->timers[j++] = p->timers[i];
		}
	p->ntimers = j;
	p->holes = false;
}

/* Milliseconds until the earliest timer (0 when one is due), or -1. */
static int next_timeout(const struct ploop *p, uint64_t now)
{
	int64_t best = -1;
	for (size_t i = 0; i < p->ntimers; i++) {
		const struct ploop_timer *t = p->timers[i];
		if (!t)
			continue;
		int64_t d = t->when_ms > now ? (int64_t)(t->when_ms - now) : 0;
		if (best < 0 || d < best)
			best = d;
	}
	if (best > 60000)
		best = 60000;
	return (int)best;
}

/* Fires the timers due now that were armed before this pass began. */
static void run_timers(struct ploop *p)
{
	uint64_t pass = ++p->seq;
	uint64_t now = ploop_now_ms();
	for (size_t i = 0; i < p->ntimers && !p->stop; i++) {
		struct ploop_timer *t = p->timers[i];
		if (!t || t->seq >= pass || t->when_ms > now)
			continue;
		ploop_timer_cancel(t);
		t->cb(t);
	}
}

int ploop_once(struct ploop *p, int timeout_ms)
{
	if (p->holes)
		compact(p);
	size_t n = p->nwatches;
	if (n > p->cappfds) {
		struct pollfd *np = realloc(p->pfds, n * sizeof *np);
		if (!np) {
			errno = ENOMEM;
			return -1;
		}
		p->pfds = np;
		p->cappfds = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ploop_watch *w = p->watches[i];
		p->pfds[i].fd = w->events ? w->fd : -1;
		p->pfds[i].events = (short)(((w->events & PLOOP_READ) ? POLLIN : 0) |
					    ((w->events & PLOOP_WRITE) ? POLLOUT : 0));
		p->pfds[i].revents = 0;
	}
	int tmo = next_timeout(p, ploop_now_ms());
	if (timeout_ms >= 0 && (tmo < 0 || timeout_ms < tmo))
		tmo = timeout_ms;
	int r = poll(p->pfds, (nfds_t)n, tmo);
	if (r < 0 && errno != EINTR)
		return -1;
	for (size_t i = 0; r > 0 && i < n && !p->stop; i++) {
		short re = p->pfds[i].revents;
		struct ploop_watch *w = p->watches[i];
		if (!re || !w || p->pfds[i].fd < 0)
			continue;
		unsigned ev = 0;
		if (re & POLLIN)
			ev |= PLOOP_READ;
		if (re & POLLOUT)
			ev |= PLOOP_WRITE;
		if (re & (POLLHUP | POLLERR | POLLNVAL))
			/* With what was asked for, so that a reader reads its
			 * EOF and a writer gets its error. */
			ev |= PLOOP_HUP | (w->events & (PLOOP_READ | PLOOP_WRITE));
		ev &= w->events | PLOOP_HUP;
		if (ev)
			w->cb(w, ev);
	}
	run_timers(p);
	if (p->holes)
		compact(p);
	return 0;
}

/* True while something can still happen: a watch asking for events, or an
 * armed timer. */
static bool live(const struct ploop *p)
{
	for (size_t i = 0; i < p->ntimers; i++)
		if (p->timers[i])
			return true;
	for (size_t i = 0; i < p->nwatches; i++)
		if (p->watches[i] && p->watches[i]->events)
			return true;
	return false;
}

int ploop_run(struct ploop *p)
{
	p->stop = false;
	while (!p->stop && live(p))
		if (ploop_once(p, -1) < 0)
			return -1;
	p->stop = false;
	return 0;
}
