/*
 * worker.h - the life of one worker process: confine, read one job from the
 * control channel, run it, send the result, exit. A worker never runs a
 * second script.
 */
#ifndef SANDBOXD_WORKER_H
#define SANDBOXD_WORKER_H

#include <stddef.h>

#include "confine.h"

/* Runs in the freshly cloned child; never returns. Once confined it first
 * writes to the pages worker_probe_pages found (the pool's workers wait
 * there for their job, so the copies are made before it comes). */
__attribute__((noreturn)) void worker_main(const struct confine_params *p,
					   const struct sock_fprog *filter, size_t max_job_bytes);

/*
 * In the forkserver, once prepared and before any clone: forks a probe
 * that runs a trivial job as a worker would (unconfined: it reads no
 * client's code) and, once its result is sent, reads which of the
 * forkserver's private writable pages the probe made its own (its
 * /proc/PID/pagemap: present and exclusively mapped). Up to
 * LIMIT_POOL_PRETOUCH_PAGES of them are remembered for every later clone
 * to touch. Returns how many pages the probe copied (0 when it could not
 * tell: no /proc, a kernel without the exclusive bit).
 */
size_t worker_probe_pages(const struct confine_params *p, size_t max_job_bytes);

#endif
