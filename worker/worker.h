/*
 * worker.h - the life of one worker process: confine, read one job from the
 * control channel, run it, send the result, exit. A worker never runs a
 * second script.
 */
#ifndef SANDBOXD_WORKER_H
#define SANDBOXD_WORKER_H

#include <stddef.h>

#include "confine.h"

/* Runs in the freshly cloned child; never returns. */
__attribute__((noreturn)) void worker_main(const struct confine_params *p,
					   const struct sock_fprog *filter, size_t max_job_bytes);

#endif
