/* buf.c - growable byte buffer; see buf.h. */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

char *buf_reserve(struct buf *b, size_t n)
{
	if (b->data && b->cap - b->end >= n)
		return b->data + b->end;
	/* Slide the unconsumed bytes down before growing. */
	if (b->start > 0) {
		size_t len = b->end - b->start;
		memmove(b->data, b->data + b->start, len);
		b->start = 0;
		b->end = len;
		if (b->cap - b->end >= n)
			return b->data + b->end;
	}
	size_t want = b->end + n;
	if (want < b->end)
		return NULL;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < want) {
		if (cap > ((size_t)-1) / 2)
			return NULL;
		cap *= 2;
	}
	char *p = realloc(b->data, cap);
	if (!p)
		return NULL;
	b->data = p;
	b->cap = cap;
	return b->data + b->end;
}

void buf_commit(struct buf *b, size_t n) { b->end += n; }

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	char *dst = buf_reserve(b, n);
	if (!dst)
		return -1;
	if (n)
		memcpy(dst, p, n);
	b->end += n;
	return 0;
}

void buf_consume(struct buf *b, size_t n)
{
	b->start += n;
	if (b->start >= b->end)
		b->start = b->end = 0;
}

void buf_clear(struct buf *b) { b->start = b->end = 0; }

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->start = b->end = b->cap = 0;
}
