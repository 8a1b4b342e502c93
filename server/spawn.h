/*
 * spawn.h - the supervisor's one way to the workers: through the forkserver.
 *
 * spawn_init starts the forkserver (a fresh exec of this binary, so it holds
 * nothing of the supervisor's memory) and waits until it is ready. Workers
 * are then requested asynchronously; each request is answered in order.
 * A forkserver that dies is restarted; requests in flight fail, and any
 * worker one of them made before it died is killed.
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

/* Who workers run as (see main.c's worker_identity). */
struct spawn_config {
	struct forkserver_config fs;
	/* When fs.change_ids: every worker its own id of [uid_first,
	 * uid_last] (uid_range set), the ids this daemon claimed of the
	 * --worker-uids range [range_first, range_last]; else all of them
	 * uid/gid. */
	bool uid_range;
	uint32_t uid_first, uid_last;
	uint32_t range_first, range_last;
	uid_t uid;
	gid_t gid;
};

/* Starts the forkserver; on failure logs why and returns -1. */
int spawn_init(const struct spawn_config *cfg);

/*
 * Asks for a worker with these limits whose fds 0, 1 and 2 are fds[0..2]
 * (the worker's ends; spawn_worker always closes them). done is called
 * exactly once, later, unless this returns -1 (out of memory, or spawning
 * has stopped).
 */
int spawn_worker(uint64_t memory_bytes, uint64_t timeout_ms, int fds[FORKSERVER_FDS],
		 spawn_done_cb done, void *arg);

/*
 * The worker pid (one a done callback was given) has been reaped: its uid
 * goes back to the pool, since a worker cannot fork and so no process holds
 * it now. Called exactly once per such pid; other pids are ignored.
 */
void spawn_reaped(pid_t pid);

/* Kills and reaps the forkserver; spawns still pending fail. */
void spawn_stop(void);

/* Fills obj with the confinement layers workers enter (for health). */
void spawn_describe_sandbox(json_t *obj);

/* The hidden entry point of the forkserver's exec: `sandboxd --forkserver
 * ...`. Never returns. */
__attribute__((noreturn)) void spawn_forkserver_main(int argc, char **argv);

#endif
