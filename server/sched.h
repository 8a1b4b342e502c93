/*
 * sched.h - worker slots and the FIFO of executions waiting for one.
 *
 * At most max_workers executions hold a slot; the rest wait, in order of
 * arrival, in a queue of at most queue_max. The scheduler knows executions
 * only through their queue link and the start callback it was given.
 */
#ifndef SANDBOXD_SCHED_H
#define SANDBOXD_SCHED_H

#include <stdbool.h>

#include "list.h"

struct sched_entry {
	struct list_node node; /* on the queue while waiting */
};

typedef void (*sched_start_cb)(struct sched_entry *e);

void sched_init(unsigned max_workers, unsigned queue_max, sched_start_cb start);

/* Starts e now when a slot is free, else queues it. 0, or -1 when the queue
 * is full (e is untouched). */
int sched_submit(struct sched_entry *e);
/* Takes e out of the queue (it never got a slot); a no-op when it is not
 * queued. */
void sched_remove(struct sched_entry *e);
/* A running execution gave its slot back: the next queued one starts. */
void sched_release(void);
/* e's place in the queue: 1 for the next to start; 0 when not queued. */
unsigned sched_position(const struct sched_entry *e);
/* The oldest queued entry, to drain the queue at shutdown. */
struct sched_entry *sched_first_queued(void);

unsigned sched_running(void);
unsigned sched_queued(void);
unsigned sched_max_workers(void);

#endif
