/*
 * sched.h - worker slots, and a queue served fairly between owners.
 *
 * At most max_workers executions hold a slot; the rest wait. Each entry is
 * submitted under an owner key (an opaque number: same key, same owner).
 * Each owner has its own FIFO, and a free slot goes to the owner served
 * least recently that is under its running cap (an owner never served yet
 * comes first): round-robin between owners, first come first served within
 * one. So an owner's burst of hundreds cannot make another owner's single
 * execution wait behind it: that one starts at the next free slot.
 *
 * Caps: max_workers running in all, per_owner_running running per owner,
 * queue_max waiting in all and per_owner_queued waiting per owner.
 *
 * The scheduler knows executions only through their embedded entry and the
 * start callback it was given.
 */
#ifndef SANDBOXD_SCHED_H
#define SANDBOXD_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"

struct sched_owner;

struct sched_entry {
	struct list_node node;	   /* on its owner's queue while waiting */
	struct sched_owner *owner; /* set by sched_submit, until released */
};

typedef void (*sched_start_cb)(struct sched_entry *e);

struct sched_settings {
	unsigned max_workers;
	unsigned queue_max;
	unsigned per_owner_running;
	unsigned per_owner_queued;
};

/* Sets the caps (again at runtime: entries waiting start at once as far
 * as raised caps allow, through start). */
void sched_init(const struct sched_settings *s, sched_start_cb start);

enum sched_result {
	SCHED_OK = 0,	  /* started, or queued */
	SCHED_QUEUE_FULL, /* queue_max are waiting */
	SCHED_OWNER_FULL, /* this owner has per_owner_queued waiting */
	SCHED_NO_MEMORY,  /* no room for the owner's bookkeeping */
};

/* Starts e now when a slot is free (and its owner is under its running
 * cap and has nothing queued), else queues it. On an error e is left on
 * no queue (sched_position gives 0, sched_remove does nothing). */
enum sched_result sched_submit(struct sched_entry *e, uint64_t owner_key);
/* Takes e out of the queue (it never got a slot); a no-op when it is not
 * queued. */
void sched_remove(struct sched_entry *e);
/* e, which was started, gave its slot back: queued ones start. Called
 * from inside a start callback (a start that failed at once), it only
 * gives the slot back: the starts go on when that callback returns. */
void sched_release(struct sched_entry *e);
/* e's place in the order queued entries start in, 1 for the next; 0 when
 * not queued. The order is the round-robin one: one entry of each waiting
 * owner per round, owners in the order they will be served. An owner held
 * back by its running cap is counted as if it were not. */
unsigned sched_position(const struct sched_entry *e);
/* A queued entry (the next to start), to drain the queue at shutdown. */
struct sched_entry *sched_first_queued(void);

unsigned sched_running(void);
unsigned sched_queued(void);
/* Entries of one owner waiting (linear in the owners). */
unsigned sched_owner_queued(uint64_t key);
unsigned sched_max_workers(void);
/* The caps, for messages. */
unsigned sched_per_owner_running(void);
unsigned sched_per_owner_queued(void);
/* Owners with something running or queued. */
unsigned sched_owners(void);

#endif
