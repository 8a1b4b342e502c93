/*
 * list.h - intrusive doubly linked lists with a sentinel head.
 *
 * An object embeds a struct list_node per list it can be on; LIST_ITEM
 * gets the object back. A node that is on no list points at itself, so
 * list_del is safe to repeat.
 */
#ifndef SANDBOXD_LIST_H
#define SANDBOXD_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_node {
	struct list_node *prev, *next;
};

/* The object that embeds member at ptr. */
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#define LIST_ITEM(node, type, member) container_of(node, type, member)

static inline void list_init(struct list_node *n) { n->prev = n->next = n; }
static inline bool list_empty(const struct list_node *head) { return head->next == head; }
/* Whether n is on a list (it was list_init'ed or list_del'ed otherwise). */
static inline bool list_linked(const struct list_node *n) { return n->next != n; }

static inline void list_add_tail(struct list_node *head, struct list_node *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void list_del(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

/* The first node, or NULL when the list is empty. */
static inline struct list_node *list_first(const struct list_node *head)
{
	return list_empty(head) ? NULL : head->next;
}

/* Iterates safely against removal of the current node. */
#define LIST_FOREACH_SAFE(pos, tmp, head)                                \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

#endif
