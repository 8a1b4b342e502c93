/*
 * run.h - the worker process of one execution.
 *
 * A run starts a worker through spawn.c, sends it its job, relays its
 * stdout and stderr, reads its control channel (tool calls, then one
 * result), enforces the timeout and the output cap (SIGKILL through a
 * pidfd), reaps it, and judges how it ended. It knows nothing of the
 * execution it serves: what happens is told upward through struct
 * run_ops, which the owner (exec.c) gives at run_init.
 *
 * The end comes in two steps. ended: the verdict is in (r->state and
 * r->error), either because a valid result frame arrived and the pipes
 * were drained of what the worker wrote before it (the early end: the
 * worker is killed and reaped afterwards, and output it writes after its
 * result is discarded), or because the worker is gone without one. Then
 * reaped: the process is gone, its uid given back; the run holds no fd
 * any more. A worker that exits other than by the supervisor's SIGKILL
 * or with status 0 after its result was accepted is logged, never
 * judged again: nothing the reap finds contradicts the verdict.
 */
#ifndef SANDBOXD_RUN_H
#define SANDBOXD_RUN_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/jsonv.h"
#include "../protocol/msg.h"
#include "../protocol/request.h"
#include "loop.h"

enum run_kill {
	RUN_KILL_NONE = 0,
	RUN_KILL_TIMEOUT,
	RUN_KILL_OUTPUT,
	RUN_KILL_CANCEL,   /* cancel, or the requesting client went away */
	RUN_KILL_SHUTDOWN, /* the daemon is stopping */
	RUN_KILL_PROTOCOL, /* the worker broke the control protocol */
	RUN_KILL_NOMEM,	   /* the supervisor could not keep its output or messages */
};

enum { RUN_OUT = 0, RUN_ERR = 1 };

struct run;

/* What a run tells its owner; every callback is called from the loop. */
struct run_ops {
	/* Bytes were appended to r->out[stream] from offset from. */
	void (*output)(struct run *r, int stream, size_t from);
	/* The worker calls a tool: answer with run_send or run_send_raw.
	 * args (compact JSON text, malloc'd) is the callee's. */
	void (*tool_call)(struct run *r, int64_t call_id, const char *name, char *args,
			  size_t args_len);
	/* The whole job is out: the views given in r->job may go. */
	void (*job_sent)(struct run *r);
	/* The verdict is in (see above); called once. */
	void (*ended)(struct run *r);
	/* The process is reaped (or never was one); called once, after
	 * ended. The run may be cleared from here on. */
	void (*reaped)(struct run *r);
};

/* What the worker is to run: views the owner keeps until job_sent (or
 * ended, whichever comes first). */
struct run_job {
	const char *code; /* NULL only in test mode */
	size_t code_len;
	const char *tests; /* test mode only */
	size_t tests_len;
	const char *store; /* compact JSON text, or NULL */
	size_t store_len;
	const char *language; /* "javascript", "typescript" or NULL */
	json_t *tool_names;   /* the declared tools' names, or NULL; borrowed for the run */
	/* caches: the text an earlier run of this code was lowered to, a
	 * compact JSON string (lcache.h), or NULL; never in test mode. */
	const char *lowered;
	size_t lowered_len;
};

struct run {
	const struct run_ops *ops;
	const char *id;		   /* names it in logs (borrowed) */
	struct exec_limits limits; /* set by the owner before run_start */
	struct run_job job;
	bool paused; /* output relaying waits for the client (run_pause) */

	pid_t pid;
	int pidfd, ctl_fd, pipe_fd[2];
	struct loop_watch w_pid, w_ctl, w_pipe[2];
	struct loop_timer timer; /* the timeout, then the settle bound */
	bool spawning;		 /* asked spawn.c, not answered yet */
	bool started;		 /* run_start was called */
	/* The control channel out: answers, and the job produced as the
	 * worker reads it (a big script is never escaped in one turn) from
	 * views of code, tests and store. */
	struct buf ctl_out;
	struct msg_stream job_msg;
	bool job_streaming;
	struct buf job_src[4];
	/* The frame arriving: its header, the payload bytes still to come,
	 * and its validation into compact text as they come. */
	unsigned char ctl_hdr[4];
	size_t ctl_hdr_got, ctl_left;
	bool ctl_skip; /* drain the rest of an invalid frame */
	struct jsonv *ctl_v;
	struct buf ctl_text;
	/* A big result frame being checked off the loop (parse.h): the
	 * channel is not read, nor the run ended, until it is back. */
	struct parse_job *ctl_job;
	struct ctl_msg ctl_m;
	const char *ctl_why;
	int ctl_rc;
	bool ctl_after; /* bytes came after it */
	int64_t pending_call, last_call;

	/* What happened. */
	enum run_kill killed;
	const char *kill_why;	 /* what broke the protocol (static) */
	char value_problem[160]; /* the returned value was over its limits */
	struct ctl_msg result;
	struct buf result_text; /* the result frame, when its value is borrowed */
	bool have_result;
	int spawn_err;
	struct buf out[2]; /* stdout and stderr as UTF-8 */
	char carry[2][4];  /* a character split across two reads */
	size_t carry_len[2];
	uint64_t output_total;
	uint64_t t_start_us, t_end_us;
	bool reaped;
	siginfo_t status;
	struct rusage ru;

	/* The verdict, from ended on. */
	bool ended;
	bool early;	       /* ended on the result, before the reap */
	enum exec_state state; /* completed, failed, timeout or cancelled */
	json_t *error;	       /* {kind, message, ...} or NULL; the run's reference */
	uint64_t cpu_ms;       /* the worker's CPU time: rusage, or its own report */
	bool cpu_reported;     /* cpu_ms is the worker's claim (early end) */
	uint64_t rss_peak;     /* bytes, from the rusage; 0 when not known */
};

/* Readies r (zeroed by the caller or not) for run_start; id and limits are
 * set by the caller after. */
void run_init(struct run *r, const struct run_ops *ops, const char *id);

/* Starts the worker: the timeout counts from here. Every path ends in
 * ended then reaped, maybe before this returns (no worker could be had). */
void run_start(struct run *r);

/* Kills the worker (or marks it for killing as soon as it exists). The
 * first reason is the one the verdict gives; after ended, nothing
 * changes but the worker's end. */
void run_kill(struct run *r, enum run_kill why);

/* Output relaying waits for (true) or resumes with the client. */
void run_pause(struct run *r, bool paused);

/* Sends msg to the worker on its control channel; NULL msg (one that
 * could not be built) kills the worker. */
void run_send(struct run *r, json_t *msg);
/* The same with members (,"key":value... compact JSON text) spliced in,
 * see msg_encode_raw. */
void run_send_raw(struct run *r, json_t *msg, const char *members, size_t len);

/* Frees the result (after the owner took what it keeps of it). */
void run_drop_result(struct run *r);

/* Frees everything r holds: its output, result and verdict. Only once
 * reaped (or never started). */
void run_clear(struct run *r);

#endif
