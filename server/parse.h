/*
 * parse.h - big request frames parsed off the event loop.
 *
 * jansson builds a request's tree at some 100 MB/s: a 4 MiB frame would
 * hold the loop, and every client, for 40 ms, and freeing its tree for a
 * few more. Frames of LIMIT_PARSE_INLINE_BYTES or more are parsed here
 * instead, by a thread of their own (request_parse on a copy of the frame,
 * and the store rendered to text), and their trees are freed there too.
 * The thread also makes the copy of the code an execution keeps. The
 * connection hands a frame over and reads nothing more until its
 * result is back, so requests keep their order; frames smaller than that
 * stay in the loop and pay nothing for it.
 *
 * The thread holds one request at a time, from its frame to its tree and
 * until it is released (see LIMIT_PARSE_INLINE_BYTES in limits.h); another
 * big frame waits in its connection's buffer until then.
 */
#ifndef SANDBOXD_PARSE_H
#define SANDBOXD_PARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../protocol/request.h"

struct parse_job {
	/* Once done is called: what request_parse gave (see request.h). */
	json_t *root;
	struct request req; /* req.store_json is set when there is a store */
	struct request_error err;
	json_t *bad_root;
	void *arg; /* the submitter's */
	/* private */
	void (*done)(struct parse_job *j);
	char *owned; /* the block payload lies in, freed once parsed */
	const char *payload;
	size_t len;
	char *store_json; /* the store or a tool's value, rendered */
	char *code_copy;
	bool cancelled, release;
	void (*work)(struct parse_job *j); /* parse_submit_work's */
	struct parse_job *next;
};

/* Starts the thread. -1 when it cannot be started (logged): frames are
 * then parsed in the loop as any other. */
int parse_init(void);
/* room is called (in the loop) whenever jobs give back budget. */
void parse_set_room(void (*room)(void));
/* Stops the thread once the jobs queued are done. */
void parse_stop(void);

/* Whether frames of len bytes go to the thread, and whether the budget has
 * room for one now. */
bool parse_wanted(size_t len);
bool parse_has_room(size_t len);

/* Parses payload[0..len), which lies in owned (a malloc'd block the job
 * takes, freed on the thread once parsed: the connection hands over its
 * read buffer rather than copying it), against limits (borrowed, read by
 * the thread: it must not change); done(j) is called in the loop later,
 * never from inside this call. NULL when out of memory (owned is still
 * the caller's). */
struct parse_job *parse_submit(char *owned, const char *payload, size_t len,
			       const struct request_limits *limits,
			       void (*done)(struct parse_job *j), void *arg);
/* Runs work(j) on the thread, then done(j) in the loop (never from inside
 * this call); j is freed once done returns. For other parsing than
 * requests' (a worker's big result frame): work must touch only what the
 * loop leaves alone until done. It holds none of the request budget (what
 * it reads is the submitter's, held already). NULL when out of memory. */
struct parse_job *parse_submit_work(void (*work)(struct parse_job *j),
				    void (*done)(struct parse_job *j), void *arg);
/* The submitter is done with j's results: j, its tree and its error are
 * freed on the thread. */
void parse_release(struct parse_job *j);
/* The submitter goes away before done: done is never called, and j is
 * released when its result is back. */
void parse_cancel(struct parse_job *j);

#endif
