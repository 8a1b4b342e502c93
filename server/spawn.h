/*
 * spawn.h - the supervisor's one way to the workers: through the forkserver.
 *
 * spawn_init starts the forkserver (a fresh exec of this binary, so it holds
 * nothing of the supervisor's memory) and waits until it is ready. Workers
 * are then requested asynchronously; each request is answered in order.
 * A forkserver that dies is restarted; requests in flight fail, any worker
 * one of them made before it died is killed, and so is every parked one
 * (the pool is filled again from the new forkserver).
 *
 * The warm pool: --pool workers are cloned and confined ahead of time, each
 * with its fds already made, parked on a read of its control socket. An
 * execution takes one (spawn_acquire) and the pool is refilled once the
 * loop turn that took it is over, so refills never come before the turn's
 * replies. Every worker still runs one job only. A parked worker that dies
 * is reaped and replaced, never handed out.
 *
 * When the daemon runs as root, each request takes a uid of its own from the
 * pool (server/uidpool.h) for the worker, given back by spawn_reaped.
 */
#ifndef SANDBOXD_SPAWN_H
#define SANDBOXD_SPAWN_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "../worker/forkserver.h"

/* Called from the loop with the worker's pid, or pid -1 and an errno. */
typedef void (*spawn_done_cb)(void *arg, pid_t pid, int err);

/* Who workers run as (see main.c's worker_identity), and the pool. */
struct spawn_config {
	struct forkserver_config fs;
	/* When fs.change_ids: every worker its own id of [uid_first,
	 * uid_last] (uid_range set), the ids this daemon claimed of the
	 * --worker-uids range [range_first, range_last]; else all of them
	 * uid/gid. The claimed run holds --max-workers + --pool ids: parked
	 * workers hold theirs too. */
	bool uid_range;
	uint32_t uid_first, uid_last;
	uint32_t range_first, range_last;
	uid_t uid;
	gid_t gid;
	/* Workers kept parked (--pool; 0: each is cloned on demand). */
	unsigned pool;
	/* The largest limits a request may ask for (--max-memory-bytes,
	 * --max-timeout-ms): every worker is confined with the backstops
	 * these need and lowers them itself to its job's (worker.c). */
	uint64_t max_memory_bytes, max_timeout_ms;
};

/* Starts the forkserver and begins filling the pool; on failure logs why
 * and returns -1. */
int spawn_init(const struct spawn_config *cfg);

/* The supervisor's ends of a worker's fds: its control socket and the read
 * ends of its stdout and stderr pipes, all CLOEXEC and non-blocking. */
struct spawn_ends {
	int ctl, out, err;
};

/*
 * Takes a worker for one execution. The worker is fully confined, waiting
 * for its job on the control socket: the caller writes the job there at
 * once, whether or not the pid is known yet.
 *   1: a parked worker, *pid set; done is never called.
 *   0: none was parked; one is being cloned and done is called exactly
 *      once, later, from the loop (pid -1 and an errno when it failed:
 *      the ends then lead nowhere and read EOF).
 *  -1: errno set (ENOMEM, ESHUTDOWN once spawning stopped, EMFILE...);
 *      *ends untouched, done never called.
 * On 1 and 0, *ends are the caller's to close. The worker's pid is the
 * supervisor's unreaped child, so it cannot be recycled before the caller
 * reaps it (then spawn_reaped). A refill is queued behind the replies of
 * this loop turn, never made before this returns.
 */
int spawn_acquire(struct spawn_ends *ends, pid_t *pid, spawn_done_cb done, void *arg);

/*
 * The worker pid (one spawn_acquire gave, at once or through done) has
 * been reaped: its uid goes back to the pool, since a worker cannot fork
 * and so no process holds it now. Called exactly once per such pid; other
 * pids are ignored.
 */
void spawn_reaped(pid_t pid);

/* What health reports of the pool. */
struct spawn_stats {
	unsigned target;    /* --pool */
	unsigned parked;    /* confined, waiting for a job */
	unsigned starting;  /* asked of the forkserver, not yet answered */
	unsigned in_flight; /* handed to executions, not yet reaped */
	uint64_t refills;   /* parked workers made since start */
	uint64_t hits;	    /* executions that found a parked worker */
	uint64_t misses;    /* executions that had one cloned on demand */
	uint64_t died;	    /* parked workers that died while parked */
	unsigned restarts;  /* forkserver restarts */
	/* Pages of the forkserver's a trivial job copied on write, when its
	 * probe ran, and how many of them every worker writes to while it is
	 * parked (worker_probe_pages). */
	unsigned probe_copied_pages, pretouch_pages;
};
void spawn_stats(struct spawn_stats *out);
/* The same as a new JSON object (NULL without memory), for health. */
json_t *spawn_stats_json(void);

/* Kills and reaps the forkserver; spawns still pending fail. */
void spawn_stop(void);

/* Fills obj with the confinement layers workers enter (for health). */
void spawn_describe_sandbox(json_t *obj);

/* The hidden entry point of the forkserver's exec: `sandboxd --forkserver
 * ...`. Never returns. */
__attribute__((noreturn)) void spawn_forkserver_main(int argc, char **argv);

#endif
