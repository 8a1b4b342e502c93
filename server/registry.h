/*
 * registry.h - every execution by id, and how long finished ones stay.
 *
 * Executions embed a registry_entry. Live ones stay until they finish;
 * finished ones stay for the retention period, and while there are at most
 * max_count of them holding at most max_bytes of output among them (oldest
 * dropped first). Dropping calls the evict callback, which frees the
 * execution.
 */
#ifndef SANDBOXD_REGISTRY_H
#define SANDBOXD_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

#define REGISTRY_ID_SIZE 24

struct registry_entry {
	char id[REGISTRY_ID_SIZE];
	struct registry_entry *hash_next;
	struct list_node all;  /* every execution, in order of creation */
	struct list_node done; /* finished ones, in order of finishing */
	uint64_t created_ms;   /* wall clock */
	uint64_t finished_ms;  /* wall clock; 0 while running */
	uint64_t expires_ms;   /* monotonic */
	size_t bytes;          /* output it holds once finished */
};

struct registry_config {
	uint64_t retention_ms;
	unsigned max_count;
	uint64_t max_bytes;
	void (*evict)(struct registry_entry *e);
};

void registry_init(const struct registry_config *cfg);

/* Gives e a fresh unique id and registers it. 0, or -1 when out of memory. */
int registry_add(struct registry_entry *e);
/* The entry with this id, or NULL. */
struct registry_entry *registry_find(const char *id);
/* e finished holding bytes of output: it now ages out. Older finished
 * entries may be evicted at once to make room; e itself, when it alone
 * exceeds the caps, is evicted on the next turn of the loop, and no other
 * entry goes for it. */
void registry_finished(struct registry_entry *e, size_t bytes);
/* Forgets e (without calling evict). */
void registry_remove(struct registry_entry *e);

/* Newest first: registry_newest, then registry_older until NULL (NULL
 * too for an entry the registry no longer holds). */
struct registry_entry *registry_newest(void);
struct registry_entry *registry_older(struct registry_entry *e);

/* Drops every finished entry (shutdown). */
void registry_clear_finished(void);

unsigned registry_count(void);

#endif
