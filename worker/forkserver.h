/*
 * forkserver.h - the process every worker is cloned from.
 *
 * The supervisor forks the forkserver at start-up, before it accepts any
 * client, so the forkserver holds no client's data. It prepares the engine
 * and compiles the seccomp filter once; each worker then starts as a clone
 * of that prepared state and pays only for the clone.
 *
 * Workers are cloned with CLONE_PARENT: they are the supervisor's children,
 * so the supervisor reaps them itself through pidfds and gets their rusage.
 * A worker confines itself at once and then waits for its job on its
 * control socket; the supervisor asks for some ahead of time (its warm
 * pool, server/spawn.h), so a spawn request carries no job's limits, only
 * the daemon's largest: the worker lowers them to its job's.
 *
 * Messages on the SOCK_SEQPACKET socketpair between the two:
 *   supervisor -> forkserver: struct forkserver_spawn, with SCM_RIGHTS
 *     carrying the worker's control socket, stdout pipe and stderr pipe
 *   forkserver -> supervisor: struct forkserver_reply, one per spawn in
 *     order, after one first reply (pid 0) that says the forkserver is ready
 */
#ifndef SANDBOXD_FORKSERVER_H
#define SANDBOXD_FORKSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct forkserver_config {
	bool change_ids;      /* workers switch to the uid/gid of their request */
	size_t max_job_bytes; /* largest job frame a worker accepts */
};

struct forkserver_spawn {
	uint64_t memory_bytes; /* the largest a job may give (--max-memory-bytes) */
	uint64_t timeout_ms;   /* and its timeout's (--max-timeout-ms): the
				* backstops the worker is confined with and
				* lowers to its job's own */
	uint32_t uid;	       /* the worker's identity, when change_ids; */
	uint32_t gid;	       /* never 0 (the forkserver refuses it) */
};

struct forkserver_reply {
	int32_t pid;		 /* the worker, or 0 for the ready message */
	int32_t err;		 /* errno of a failed clone, else 0 */
	uint64_t baseline_bytes; /* ready message: address space before any script */
	uint32_t copied_pages;	 /* ready message: pages a trivial job copied */
	uint32_t touched_pages;	 /* and how many of them each worker pre-touches */
};

/* Number of fds sent with each spawn request. */
#define FORKSERVER_FDS 3

/* The forkserver's main: prepares, then serves spawn requests on sock until
 * the supervisor goes away. Never returns. */
__attribute__((noreturn)) void forkserver_run(int sock, const struct forkserver_config *cfg);

#endif
