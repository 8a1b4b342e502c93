/*
 * buf.h - growable byte buffer with a read cursor.
 *
 * Bytes are appended at the end and consumed from the front; consumed space
 * is reclaimed lazily on the next append, so a stream of small reads and
 * writes does not memmove on every call.
 */
#ifndef SANDBOXD_BUF_H
#define SANDBOXD_BUF_H

#include <stddef.h>

struct buf {
	char *data;
	size_t start; /* first unconsumed byte */
	size_t end;   /* one past the last byte */
	size_t cap;
};

/* clang-format off */
#define BUF_INIT {NULL, 0, 0, 0}
/* clang-format on */

/* Bytes held and not yet consumed. */
static inline size_t buf_len(const struct buf *b) { return b->end - b->start; }
static inline const char *buf_peek(const struct buf *b) { return b->data + b->start; }

/* Makes room for at least n more bytes at the end and returns where they go;
 * commit them with buf_commit. NULL on allocation failure. */
char *buf_reserve(struct buf *b, size_t n);
void buf_commit(struct buf *b, size_t n);
/* 0, or -1 on allocation failure (the buffer is unchanged). */
int buf_append(struct buf *b, const void *p, size_t n);
void buf_consume(struct buf *b, size_t n);
void buf_clear(struct buf *b);
void buf_free(struct buf *b);

#endif
