/* sched.c - slots and a bounded FIFO; see sched.h. */
#include "sched.h"

#include <stddef.h>

static unsigned slots, running, queue_max, queued;
static struct sched_entry *head, *tail;
static sched_start_cb start_cb;

void sched_init(unsigned max_workers, unsigned max_queue, sched_start_cb start)
{
	slots = max_workers;
	queue_max = max_queue;
	start_cb = start;
}

int sched_submit(struct sched_entry *e)
{
	if (running < slots && queued == 0) {
		running++;
		e->queued = false;
		start_cb(e);
		return 0;
	}
	if (queued >= queue_max)
		return -1;
	e->queued = true;
	e->next = NULL;
	e->prev = tail;
	if (tail)
		tail->next = e;
	else
		head = e;
	tail = e;
	queued++;
	return 0;
}

void sched_remove(struct sched_entry *e)
{
	if (!e->queued)
		return;
	if (e->prev)
		e->prev->next = e->next;
	else
		head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		tail = e->prev;
	e->prev = e->next = NULL;
	e->queued = false;
	queued--;
}

void sched_release(void)
{
	running--;
	/* Start as many as there are free slots: a start may finish at once
	 * (a failed spawn) and release its slot again. */
	while (running < slots && head) {
		struct sched_entry *e = head;
		sched_remove(e);
		running++;
		start_cb(e);
	}
}

struct sched_entry *sched_first_queued(void) { return head; }
unsigned sched_running(void) { return running; }
unsigned sched_queued(void) { return queued; }
unsigned sched_max_workers(void) { return slots; }
