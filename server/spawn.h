/*
 * spawn.h - the supervisor's one way to the workers: through the forkserver.
 *
 * spawn_init starts the forkserver (a fresh exec of this binary, so it holds
 * nothing of the supervisor's memory) and waits until it is ready. Workers
 * are then requested asynchronously; each request is answered in order.
 * A forkserver that dies is restarted; requests in flight fail.
 */
#ifndef SANDBOXD_SPAWN_H
#define SANDBOXD_SPAWN_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "../worker/forkserver.h"

/* Called from the loop with the worker's pid, or pid -1 and an errno. */
typedef void (*spawn_done_cb)(void *arg, pid_t pid, int err);

/* Starts the forkserver; on failure logs why and returns -1. */
int spawn_init(const struct forkserver_config *cfg);

/*
 * Asks for a worker with these limits whose fds 0, 1 and 2 are fds[0..2]
 * (the worker's ends; spawn_worker always closes them). done is called
 * exactly once, later, unless this returns -1 (out of memory, or spawning
 * has stopped).
 */
int spawn_worker(uint64_t memory_bytes, uint64_t timeout_ms, int fds[FORKSERVER_FDS],
		 spawn_done_cb done, void *arg);

/* Kills and reaps the forkserver; spawns still pending fail. */
void spawn_stop(void);

/* Fills obj with the confinement layers workers enter (for health). */
void spawn_describe_sandbox(json_t *obj);

/* The hidden entry point of the forkserver's exec: `sandboxd --forkserver
 * ...`. Never returns. */
__attribute__((noreturn)) void spawn_forkserver_main(int argc, char **argv);

#endif
