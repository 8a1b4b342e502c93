/*
 * msg.h - build and encode the frames the daemon sends (protocol v1).
 *
 * Every frame answering a request starts with that request's "id" when it
 * had one. Constructors return a new reference the caller owns.
 */
#ifndef SANDBOXD_MSG_H
#define SANDBOXD_MSG_H

#include <jansson.h>

#include "buf.h"
#include "frame.h"
#include "status.h"

/*
 * jansson drops what it cannot allocate without a word (a json_object_set
 * that fails leaves the object without the member), so a message built
 * while memory ran out may be missing parts. msg_alloc_init routes
 * jansson's allocations through a counter of failures (call it once, at
 * start-up); code that builds a message compares msg_alloc_failures()
 * before and after, and answers RESOURCE_EXHAUSTED rather than send a
 * reply with holes.
 */
void msg_alloc_init(void);
unsigned long msg_alloc_failures(void);

/* {"id"?, "ok": true} */
json_t *msg_reply_ok(json_t *id);
/* {"id"?, "ok": false, "error": {"code", "message"}} */
json_t *msg_reply_error(json_t *id, enum status code, const char *message);
/* {"id"?, "event": name} */
json_t *msg_event(json_t *id, const char *name);

/*
 * Appends msg to out as one compact JSON frame in mode. 0, or -1 when out
 * of memory or msg holds something JSON cannot encode (out is unchanged).
 */
int msg_encode(struct buf *out, enum frame_mode mode, const json_t *msg);

/*
 * The same with members spliced in before the object's closing brace:
 * members[0..len) is compact JSON text of the form ,"key":value,... (each
 * member led by a comma; empty for none), kept as text so that a big value
 * is never rebuilt as a tree. msg must be an object, and members must be
 * compact (no newline, as line mode needs). 0, or -1 as for msg_encode.
 */
int msg_encode_raw(struct buf *out, enum frame_mode mode, const json_t *msg, const char *members,
		   size_t len);

/*
 * A message produced piecewise, for replies too big to encode in one go:
 * a sequence of pieces (JSON text it owns, and JSON strings and members
 * borrowed from buffers the caller keeps alive and only appends to until
 * msg_stream_free), whose exact length is known before the first byte is
 * produced. The bytes are those msg_encode gives for the same message.
 */
#define MSG_STREAM_PIECES 16
struct msg_piece {
	int kind;	       /* see msg.c */
	const struct buf *src; /* borrowed pieces: the buffer, read at each fill */
	size_t off, len;       /* in text (owned) or in src (borrowed) */
};
struct msg_stream {
	struct buf text; /* the owned pieces' bytes */
	struct msg_piece piece[MSG_STREAM_PIECES];
	unsigned n;
	size_t total;	 /* payload bytes in all, once ended */
	size_t produced; /* payload bytes produced so far */
	unsigned cur;	 /* where production is */
	size_t done;	 /* of piece cur: bytes of its source consumed */
	int err;	 /* a piece could not be added (out of memory, too many) */
};

void msg_stream_init(struct msg_stream *m);
/* The first call opens the message with o's members ({"k":v,... without
 * its closing brace; o must not be empty); later ones add o's members. */
void msg_stream_object(struct msg_stream *m, const json_t *o);
/* ,"key":"…" with src[off..off+len) escaped as a JSON string (src holds
 * valid UTF-8); esc_len is jstr_escaped_len of those bytes. */
void msg_stream_string(struct msg_stream *m, const char *key, const struct buf *src, size_t off,
		       size_t len, size_t esc_len);
/* Members text (,"key":value,... compact, as msg_encode_raw takes),
 * src[off..off+len), copied as it is. */
void msg_stream_members(struct msg_stream *m, const struct buf *src, size_t off, size_t len);
/* ,"key":value with the value src[off..off+len), compact JSON text,
 * copied as it is. */
void msg_stream_json(struct msg_stream *m, const char *key, const struct buf *src, size_t off,
		     size_t len);
/* Every byte produced. */
static inline int msg_stream_finished(const struct msg_stream *m) { return m->cur >= m->n; }
/* Closes the message: m->total is final. 0, or -1 when a piece could not
 * be added (then free it). */
int msg_stream_end(struct msg_stream *m);
/* Appends the next bytes to out, at most max (and at least one when any
 * are left); 0 once all total bytes are produced, -1 out of memory. */
long msg_stream_fill(struct msg_stream *m, struct buf *out, size_t max);
void msg_stream_free(struct msg_stream *m);

#endif
