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

#endif
