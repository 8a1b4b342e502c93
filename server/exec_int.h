/*
 * exec_int.h - what exec.c (the record and its clients) and run.c (the
 * worker process) share about an execution. Nothing else includes this.
 */
#ifndef SANDBOXD_EXEC_INT_H
#define SANDBOXD_EXEC_INT_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/frame.h"
#include "../protocol/msg.h"
#include "conn.h"
#include "exec.h"
#include "lcache.h"
#include "list.h"
#include "loop.h"
#include "registry.h"
#include "sched.h"

enum phase {
	PHASE_QUEUED,	/* waiting for a worker slot */
	PHASE_SPAWNING, /* slot taken, worker requested from the forkserver */
	PHASE_RUNNING,	/* the worker exists (until reaped) */
	PHASE_STORING,	/* ended; the script is being written to the cache */
	PHASE_DONE,	/* final: fields are set, the record is retained */
};

enum kill_reason {
	KILL_NONE = 0,
	KILL_TIMEOUT,
	KILL_OUTPUT,
	KILL_CANCEL,   /* cancel, or the requesting client went away */
	KILL_SHUTDOWN, /* the daemon is stopping */
	KILL_PROTOCOL, /* the worker broke the control protocol */
	KILL_NOMEM,    /* the supervisor could not keep its output or messages */
};

enum { OUT = 0, ERR = 1 };

struct exec {
	struct registry_entry reg; /* the id, and retention */
	struct list_node link;	   /* live executions */
	struct sched_entry sched;
	struct conn_sub sub;
	struct list_node watches;
	struct owner owner; /* who submitted it, and so who may see it */
	enum exec_mode mode;
	struct conn *conn; /* who gets the final reply; NULL for async or once gone */
	json_t *req_id;	   /* the requester's id (a reference) */
	char *code;	   /* the script (NULL once done) */
	size_t code_len;
	size_t options_len;   /* the options line, blanked for the worker */
	const char *language; /* "javascript", "typescript" or NULL: tell by the code */
	char *tests;	      /* test mode */
	size_t tests_len;
	char *cached_name; /* ran from the cache under this name */
	char preview[4 * 100 + 1];
	bool cache;	    /* store the code if it succeeds */
	json_t *tool_names; /* the declared tools' names (strings), or NULL */
	char *store;	    /* the starting store as compact JSON, until sent */
	size_t store_len;
	bool had_store;	     /* the request gave a store */
	size_t source_bytes; /* code and tests counted against --queue-bytes */
	bool held;	     /* has a slot, waits for the reply budget to start */
	bool announced;	     /* its started event went out (or is not due) */
	struct list_node held_link;
	bool reply_waits; /* ended; its final reply waits for room */
	size_t unsent;	  /* the size it waits with */
	struct conn_pending room;
	/* The final reply, produced as its client reads it (see on_room). */
	struct conn_stream reply;
	struct msg_stream reply_msg;
	bool streaming;
	unsigned pins;		     /* replies streaming from the record (exec_pin) */
	size_t evicted_bytes;	     /* aged out while pinned: what it still holds */
	bool evicted;		     /* aged out while pinned: freed at the last unpin */
	json_t *calls;		     /* [{call_id, name, status, duration_ms}] so far */
	unsigned long calls_dropped; /* calls past LIMIT_TOOL_CALLS */
	json_int_t pending_call;     /* the call the worker waits on, or 0 */
	json_int_t last_call;
	uint64_t call_start_us;
	uint64_t timeout_ms, max_cpu_ms, memory_bytes, output_bytes;
	struct lcache_slot lowered; /* the cache of lowered code: its key and hit */

	enum phase phase;
	enum exec_state state; /* meaningful from PHASE_STORING on */
	enum kill_reason killed;
	json_t *fields;	 /* the execution fields, from PHASE_STORING on, but for: */
	struct buf kept; /* the big ones as compact JSON members: ,"value":...
			  * (value, store_writes, tests, calls) */

	/* The worker (run.c). */
	pid_t pid;
	int pidfd, ctl_fd, pipe_fd[2];
	struct loop_watch w_pid, w_ctl, w_pipe[2];
	struct loop_timer timer; /* the timeout, then the settle bound */
	struct buf ctl_out;
	/* The job frame, produced into ctl_out as the worker reads it (a big
	 * script is never escaped in one turn), from views of code, tests and
	 * store, which stay until it is all out. */
	struct msg_stream job;
	bool job_streaming;
	struct buf job_src[3];
	/* The frame arriving: its header, the payload bytes still to come, and
	 * its validation into compact text as they come. */
	unsigned char ctl_hdr[4];
	size_t ctl_hdr_got, ctl_left;
	bool ctl_skip; /* drain the rest of an invalid frame */
	struct jsonv *ctl_v;
	struct buf ctl_text;
	/* A big result frame being checked off the loop (parse.h): the
	 * channel is not read, nor the execution ended, until it is back. */
	struct parse_job *ctl_job;
	struct ctl_msg ctl_m; /* what the thread made of it */
	const char *ctl_why;
	int ctl_rc;
	bool ctl_after;		 /* bytes came after it */
	bool ctl_held;		 /* not read while its client owes too much (exec.c) */
	const char *kill_why;	 /* what broke the protocol (static) */
	char value_problem[160]; /* the returned value was over its limits */
	struct ctl_msg result;
	struct buf result_text; /* the result frame, when its value is borrowed */
	bool have_result;
	json_int_t heap_peak; /* reported by the worker; -1 when unknown */
	int spawn_err;
	bool paused;
	struct buf out[2]; /* stdout and stderr as UTF-8 */
	size_t out_esc[2]; /* their lengths escaped as JSON strings */
	char carry[2][4];  /* a character split across two reads */
	size_t carry_len[2];
	uint64_t output_total;
	uint64_t t_start_us, t_end_us;
	bool reaped;
	siginfo_t status;
	struct rusage ru;
};

/* run.c: start the worker for e (its slot is taken). */
void run_start(struct exec *e);
/* run.c: kill e's worker (or mark it for killing as soon as it exists). */
void run_kill(struct exec *e, enum kill_reason why);
/* run.c: the state and error object (new reference, or NULL) of an ended
 * execution. */
enum exec_state run_verdict(struct exec *e, json_t **error);
/* run.c: frees the worker's resources (fds, watches, buffers of the
 * control channel). */
void run_release(struct exec *e);
/* run.c: output relaying waits for (false) or resumes with the client. */
void run_pause(struct exec *e, bool paused);
/* run.c: sends msg to the worker on its control channel. */
void run_send(struct exec *e, json_t *msg);
/* run.c: the same with members (,"key":value... compact JSON text) spliced
 * in, see msg_encode_raw. */
void run_send_raw(struct exec *e, json_t *msg, const char *members, size_t len);
/* exec.c: the worker has the job: the request's copies of the tests and
 * the store go, and the code unless keep_code (it is to be cached). */
void exec_drop_source(struct exec *e, bool keep_code);
/* exec.c: the worker calls a tool (args: compact JSON text, malloc'd; taken). */
void exec_tool_call(struct exec *e, json_int_t call_id, const char *name, char *args,
		    size_t args_len);

/* exec.c: the worker has ended and every byte of its output is in. */
void exec_ended(struct exec *e);
/* exec.c: output arrived on stream i (bytes appended to e->out[i] from
 * offset from). */
void exec_output_added(struct exec *e, int i, size_t from);

#endif
