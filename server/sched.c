/* sched.c - slots and a bounded FIFO; see sched.h. */
#include "sched.h"

static unsigned slots, running, queue_max, queued;
static struct list_node queue = {&queue, &queue};
static sched_start_cb start_cb;

void sched_init(unsigned max_workers, unsigned max_queue, sched_start_cb start)
{
	slots = max_workers;
	queue_max = max_queue;
	start_cb = start;
}

int sched_submit(struct sched_entry *e)
{
	list_init(&e->node);
	if (running < slots && queued == 0) {
		running++;
		start_cb(e);
		return 0;
	}
	if (queued >= queue_max)
		return -1;
	list_add_tail(&queue, &e->node);
	queued++;
	return 0;
}

void sched_remove(struct sched_entry *e)
{
	if (!list_linked(&e->node))
		return;
	list_del(&e->node);
	queued--;
}

void sched_release(void)
{
	running--;
	/* Start as many as there are free slots: a start may finish at once
	 * (a failed spawn) and release its slot again. */
	struct list_node *n;
	while (running < slots && (n = list_first(&queue)) != NULL) {
		struct sched_entry *e = LIST_ITEM(n, struct sched_entry, node);
		sched_remove(e);
		running++;
		start_cb(e);
	}
}

unsigned sched_position(const struct sched_entry *e)
{
	if (!list_linked(&e->node))
		return 0;
	unsigned pos = 1;
	for (const struct list_node *n = queue.next; n != &e->node; n = n->next)
		pos++;
	return pos;
}

struct sched_entry *sched_first_queued(void)
{
	struct list_node *n = list_first(&queue);
	return n ? LIST_ITEM(n, struct sched_entry, node) : NULL;
}

unsigned sched_running(void) { return running; }
unsigned sched_queued(void) { return queued; }
unsigned sched_max_workers(void) { return slots; }
