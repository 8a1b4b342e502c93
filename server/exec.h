/*
 * exec.h - executions: one script in one worker, from request to reply.
 *
 * An execution is created by a request, waits for a worker slot (sched),
 * gets a worker (spawn), feeds it the job over the control channel, relays
 * its stdout/stderr, enforces its timeout and output cap with SIGKILL
 * through a pidfd, reaps it with its rusage, and answers with one final
 * reply. A worker runs exactly one execution.
 */
#ifndef SANDBOXD_EXEC_H
#define SANDBOXD_EXEC_H

#include <jansson.h>
#include <stdbool.h>

#include "../protocol/request.h"

struct conn;

/* Sizes the worker slots and the queue; call once before anything else. */
void exec_init(unsigned max_workers, unsigned queue_max);

/*
 * Accepts an execute or stream request from c (root is the parsed request,
 * which the execution keeps a reference to). Replies with an error itself
 * when the request cannot be taken (queue full, shutting down).
 */
void exec_submit(struct conn *c, json_t *root, const struct request *req);

/* Executions accepted since start, and those not yet finished. */
unsigned long exec_total(void);
unsigned exec_live(void);

/* Shutdown, first step: queued executions are refused with UNAVAILABLE,
 * running ones go on. */
void exec_shutdown(void);
/* Shutdown, grace period over: kill whatever still runs. */
void exec_kill_all(void);

#endif
