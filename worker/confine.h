/*
 * confine.h - the confinement a worker enters before it touches a script.
 *
 * The steps run in one fixed order (see confine_apply), seccomp last so the
 * filter need not allow anything the earlier steps use. The filter itself is
 * compiled once, in the forkserver, and each worker loads the exported BPF.
 */
#ifndef SANDBOXD_CONFINE_H
#define SANDBOXD_CONFINE_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct confine_params {
	int fds[3];		 /* become the worker's fds 0 (control), 1 and 2 */
	pid_t parent;		 /* who must still be our parent once PDEATHSIG is set */
	uint64_t as_bytes;	 /* RLIMIT_AS: the largest job's (see below) */
	uint64_t cpu_seconds;	 /* RLIMIT_CPU soft limit: SIGXCPU past it */
	uint64_t baseline_bytes; /* the runtime's address space, for the job's */
	bool change_ids;	 /* switch to uid/gid (the daemon runs as root) */
	uid_t uid;
	gid_t gid;
};

/*
 * Compiles the worker's seccomp allowlist and exports it as BPF into *out
 * (out->filter is malloc'd and lives for the process). 0, or -1 with errno.
 */
int confine_filter_build(struct sock_fprog *out);

/*
 * Once per forkserver, before any clone: empties the capability bounding
 * and ambient sets (clones inherit them, so no worker repeats the dozens of
 * calls this takes) and, when workers will change identity, keeps only
 * CAP_SETUID and CAP_SETGID. 0, or -1 with errno.
 */
int confine_prepare(bool change_ids);

/*
 * Confines the calling process, in this order: own session, PDEATHSIG, stdio
 * onto p->fds, every other fd closed, rlimits, uid/gid (PDEATHSIG again: a
 * credential change clears it), capabilities, not dumpable, no_new_privs,
 * seccomp. Returns 0, or -1 with errno set and
 * *step naming the step that failed; the caller must then _exit.
 */
int confine_apply(const struct confine_params *p, const struct sock_fprog *filter,
		  const char **step);

/* The RLIMIT_AS backstop for a script of memory_bytes, over the runtime's
 * baseline_bytes: room for twice the heap cap the engine enforces, malloc's
 * overhead and the job itself. */
uint64_t confine_as_bytes(uint64_t baseline_bytes, uint64_t memory_bytes);
/* The RLIMIT_CPU backstop (soft; the hard one is a second above) for a
 * timeout: the supervisor's timer normally kills first. */
uint64_t confine_cpu_seconds(uint64_t timeout_ms);

/*
 * After the job is read, in the confined worker: lowers RLIMIT_AS to
 * as_bytes and RLIMIT_CPU to cpu_seconds (soft; hard one above), through
 * prlimit64 on itself, the one form the seccomp filter allows. Refuses to
 * raise either (EPERM): the limits confine_apply set are the most a worker
 * ever has. 0, or -1 with errno; the caller must then _exit.
 */
int confine_lower_limits(uint64_t as_bytes, uint64_t cpu_seconds);

/* The seccomp filter only (for tests that probe it in isolation). */
int confine_load_filter(const struct sock_fprog *filter);

#endif
