/*
 * jsonv.h - validate JSON text and write it compactly, without building a
 * tree.
 *
 * What a worker returns (and what the supervisor keeps of it) stays JSON
 * text: a tree costs tens of times the text's size, text costs its size.
 * The validator is a push parser: bytes may be fed as they arrive, in any
 * split, so a large frame is checked a read at a time and never holds the
 * event loop for long. It checks the grammar of RFC 8259, that strings are
 * valid UTF-8 (surrogate escapes paired, no overlongs), nesting depth and
 * the number of values, and appends the same value without insignificant
 * whitespace. Strings are copied as they are, escapes included, so "\u0000"
 * inside a string is fine.
 *
 * It also records where the members of a top-level object lie in the
 * compact text (for a frame like {"type": ..., "value": ...}), so that a
 * caller can cut a member out without parsing it again. jsonv_next then
 * walks the members or elements of compact text it produced.
 */
#ifndef SANDBOXD_JSONV_H
#define SANDBOXD_JSONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* The deepest nesting any jsonv accepts (its stack is this big). */
#define JSONV_DEPTH_MAX 1024u
/* Members of a top-level object whose place is recorded. */
#define JSONV_MEMBERS 16u

/* A stretch of the compact output: [off, off + len). */
struct jsonv_span {
	size_t off, len;
};

/* A member of the top-level object: its key (with its quotes) and value,
 * and how many values the member's value holds (1 for a scalar). */
struct jsonv_member {
	struct jsonv_span key, value;
	size_t key_in; /* where the key starts in the input (its text is the same) */
	uint64_t nodes;
};

struct jsonv_limits {
	unsigned max_depth; /* at most JSONV_DEPTH_MAX */
	uint64_t max_nodes; /* values (scalars, arrays, objects) in all */
	size_t max_bytes;   /* of input; 0: no bound */
};

struct jsonv {
	struct jsonv_limits lim;
	struct buf *out; /* compact text goes here; NULL: validate only */
	const char *why; /* the first error (static), or NULL */
	uint64_t nodes;
	size_t in_bytes; /* fed so far */
	size_t err_at;	 /* input offset of the error */
	unsigned depth;
	uint8_t state, sub;
	uint32_t cp;	 /* a \u escape or UTF-8 sequence being read */
	uint8_t need;	 /* UTF-8 continuation bytes still expected */
	uint8_t lo, hi;	 /* bounds for the next continuation byte */
	bool key;	 /* the string being read is a member's key */
	size_t in_at;	 /* input offset of the byte being read */
	const char *lit; /* the literal being matched, and where in it */
	uint8_t lit_at;
	size_t out_base; /* buf_len(out) at init: spans count from here */
	size_t olen;	 /* compact bytes produced so far */
	int cur;	 /* the top-level member being read, or -1 */
	/* the top-level object's members */
	unsigned n_members;
	bool members_overflow;
	struct jsonv_member members[JSONV_MEMBERS];
	uint8_t stack[JSONV_DEPTH_MAX]; /* '[' or '{' per open container */
};

/* Starts validating one JSON value; compact text is appended to out when it
 * is not NULL. */
void jsonv_init(struct jsonv *v, const struct jsonv_limits *lim, struct buf *out);
/* Feeds the next n bytes. 0, or -1 once the text is invalid or over a limit
 * (v->why says which; later calls keep failing). Out of memory is an error
 * too ("out of memory"). */
int jsonv_feed(struct jsonv *v, const char *p, size_t n);
/* The input is over: 0 when it held exactly one whole value (surrounding
 * whitespace allowed), else -1 with v->why. */
int jsonv_finish(struct jsonv *v);

/* One call: validates in[0..len) and appends its compact form to out (when
 * not NULL). 0, or -1 with *why (static) set. nodes, when not NULL, gets
 * the count of values. */
int jsonv_compact(const char *in, size_t len, const struct jsonv_limits *lim, struct buf *out,
		  uint64_t *nodes, const char **why);

/* The member of v's top-level object whose key is exactly "name" (no
 * escapes), or NULL. A key that appears twice is reported through dup. */
const struct jsonv_member *jsonv_member(const struct jsonv *v, const char *name, bool *dup);

/*
 * Walks compact JSON text that jsonv produced: s[0..len) is an array or an
 * object. *pos starts at 0; each call yields the next element (key->len is
 * 0) or member and returns true, or false at the end. Spans are offsets
 * into s.
 */
bool jsonv_next(const char *s, size_t len, size_t *pos, struct jsonv_span *key,
		struct jsonv_span *val);

/* Does the compact key text at s (with its quotes) spell name exactly? */
bool jsonv_key_is(const char *s, const struct jsonv_span *key, const char *name);

#endif
