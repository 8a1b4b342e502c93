/*
 * exec.h - executions: one script in one worker, from request to record.
 *
 * An execution is created by an execute, stream, async or test request,
 * waits for a worker slot (sched), runs in a worker (run.h), and ends in a
 * final record. exec.c alone changes an execution's state, through one
 * transition table (state x event), and knows no connection: whoever asked
 * for it is an exec_client, a set of callbacks (ops.c's requesters), told
 * of the start, the output (stream mode), tool calls and the end, and who
 * sends every frame. Every execution is registered by id (registry) so
 * status, cancel and list reach it from any connection of its owner (ops.c
 * checks who may see it), and stays queryable after it ends for the
 * retention period.
 */
#ifndef SANDBOXD_EXEC_H
#define SANDBOXD_EXEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../protocol/buf.h"
#include "../protocol/request.h"
#include "list.h"
#include "owner.h"

struct exec;
struct exec_client;

enum exec_mode {
	EXEC_EXECUTE,
	EXEC_STREAM,
	EXEC_ASYNC,
	EXEC_TEST,
};

struct exec_settings {
	unsigned max_workers;
	unsigned queue_max;
	unsigned per_owner_running, per_owner_queued;
	uint64_t retention_ms;
	unsigned retain_count;
	uint64_t retain_bytes;
	size_t reply_bytes; /* --reply-bytes: see exec.c's unsent_bytes */
	size_t queue_bytes; /* --queue-bytes: code and tests held, in all */
};

void exec_init(const struct exec_settings *s);

/*
 * Who asked for an execution. Every callback is called from the loop,
 * maybe from inside exec_submit, and is given the execution.
 */
struct exec_client_ops {
	/* The first news of an execute, stream or test request, once: it
	 * runs now (STATE_RUNNING) or waits (STATE_PENDING, at position
	 * queue_position, 0 when held back for the reply budget). */
	void (*started)(struct exec_client *c, struct exec *e, enum exec_state state,
			unsigned queue_position);
	/* Stream mode: stream (0 stdout, 1 stderr) has new output from
	 * offset from to the end of exec_output. True when the client is
	 * backlogged: output then waits until exec_client_drained. */
	bool (*output)(struct exec_client *c, struct exec *e, int stream, size_t from);
	/* The worker calls a tool: relay the call (args: compact JSON text,
	 * malloc'd, taken) and return 0; or return -1 with *refusal (static
	 * text), and the call fails inside the script with it. */
	int (*tool_call)(struct exec_client *c, struct exec *e, int64_t call_id, const char *name,
			 char *args, size_t args_len, const char **refusal);
	/* The record is final: send the final reply (about size_hint bytes;
	 * none for async), then call exec_replied once it is out or can no
	 * longer go. */
	void (*done)(struct exec_client *c, struct exec *e, size_t size_hint);
	/* Whether the client owes more than its budget: its executions wait
	 * to start while it does (see exec.c's must_hold). */
	bool (*owes_too_much)(const struct exec_client *c);
	/* Whether its output events should wait (asked at submit). */
	bool (*backlogged)(const struct exec_client *c);
};

struct exec_client {
	const struct exec_client_ops *ops;
};

/*
 * Accepts an execution of code (copied) for req, submitted by owner
 * (copied), answering to client (NULL: no one; an async execution outlives
 * its client). The first options_len bytes are the options line, which
 * the worker gets blanked. Returns it, or NULL with *code and *message
 * saying why it was refused (queue full, shutting down, out of memory):
 * then no callback of client was called.
 */
struct exec *exec_submit(struct exec_client *client, const struct owner *owner,
			 const struct request *req, const char *code, size_t code_len,
			 size_t options_len, const char *cached_name, enum status *code_out,
			 const char **message);

/* The client has gone: an execution with a final reply to come is
 * cancelled; an async one goes on, its tools out of reach. No callback of
 * the client is called any more. */
void exec_client_gone(struct exec *e);
/* The client's backlog drained: output flows again, held executions may
 * start. */
void exec_client_drained(struct exec *e);
/* The final reply (see done) is out, or cannot go: the record ages out
 * from now on. */
void exec_replied(struct exec *e);
/* Who asked for it: NULL once gone or answered. */
struct exec_client *exec_client(const struct exec *e);

struct exec *exec_find(const char *id);
const char *exec_id(const struct exec *e);
/* Who submitted it (the connection's owner, copied at submit). */
const struct owner *exec_owner(const struct exec *e);
enum exec_state exec_state(const struct exec *e);
/* 1 for the next to start, and so on; 0 when not queued. */
unsigned exec_queue_position(const struct exec *e);
/* What the execution wrote to stdout (0) or stderr (1) so far, as UTF-8. */
const struct buf *exec_output(const struct exec *e, int stream);
/* Its length escaped as a JSON string (jstr_escaped_len), kept up to date
 * as output arrives. */
size_t exec_output_escaped(const struct exec *e, int stream);
/* A reply streaming from e's output or kept text holds e's record while
 * it does: should it age out meanwhile, it is freed at the last unpin. */
void exec_pin(struct exec *e);
void exec_unpin(struct exec *e);
/* The execution fields once it is done (borrowed), else NULL; the big
 * ones (value, store_writes, tests, calls) are not among them but kept as
 * compact JSON members, ,"value":..., for conn_send_raw (*len 0: none). */
json_t *exec_fields(const struct exec *e);
const char *exec_kept(const struct exec *e, size_t *len);
/* The buffer that holds that text (borrowed; for msg_stream_members). */
const struct buf *exec_kept_buf(const struct exec *e);
/* {execution_id, state, started_at_ms, finished_at_ms?, code_preview,
 * cached_name?, mode} for list. */
json_t *exec_summary(const struct exec *e);

/* Answers a pending tool call of e, for from (the client the caller
 * speaks for, or NULL: only e's own client may answer), with value
 * (borrowed; value_json is its compact text when rendered already, else
 * NULL) or error. -1 with *code and *message when it cannot be. */
int exec_tool_result(struct exec *e, const struct exec_client *from, uint64_t call_id,
		     json_t *value, const char *value_json, size_t value_json_len,
		     const char *error, enum status *code, const char **message);

/* Kills a pending or running execution; its final state is cancelled.
 * -1 when it has already ended. */
int exec_cancel(struct exec *e);

/* Tells w once e is done (now, if it already is). */
struct exec_watch {
	struct list_node link;
	void (*done)(struct exec_watch *w, struct exec *e);
};
void exec_watch(struct exec *e, struct exec_watch *w);
void exec_unwatch(struct exec_watch *w);

/* Iteration for list, newest first. */
struct exec *exec_newest(void);
struct exec *exec_older(struct exec *e);
uint64_t exec_finished_ms(const struct exec *e); /* wall clock; 0 while not done */

/* The counts health reports. */
struct exec_stats {
	unsigned long total;  /* accepted since start */
	unsigned live;	      /* not done, or their workers not reaped */
	unsigned running;     /* holding a worker slot */
	unsigned max_workers; /* --max-workers */
	unsigned queued;      /* waiting for a slot */
	unsigned held;	      /* waiting to start until replies drain (see must_hold) */
	unsigned retained;    /* records kept, done or not */
	size_t reply_bytes;   /* --reply-bytes: the budget of replies queued */
};
void exec_stats(struct exec_stats *s);
/* Executions not done, or whose workers are not reaped yet. */
unsigned exec_live(void);

/* Shutdown, first step: queued executions end cancelled; running ones go
 * on. */
void exec_shutdown(void);
/* Shutdown, grace period over: kill whatever still runs. */
void exec_kill_all(void);

#endif
