/* confine.c - worker confinement, in one documented order; see confine.h. */
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* What a rule checks besides the syscall number. */
enum cond {
	ANY,	  /* any arguments */
	FD_0,	  /* argument 0 is fd 0 (the control channel) */
	FD_STD,	  /* argument 0 is fd 0, 1 or 2 */
	NO_EXEC,  /* argument 2 (prot) lacks PROT_EXEC */
	CLOCK,	  /* argument 0 is one of the standard clocks (see below) */
	SLEEP,	  /* argument 0 is CLOCK_MONOTONIC (the low 32 bits) */
	SELF_AS,  /* argument 0 is pid 0 (this process), argument 1 RLIMIT_AS */
	SELF_CPU, /* the same, RLIMIT_CPU */
};

/* The clocks a worker may read: CLOCK_REALTIME (0) to CLOCK_BOOTTIME (7),
 * every clock of its own process and thread and of the system as a whole.
 * The engine reads REALTIME (Date), MONOTONIC (its monotonic time) and
 * PROCESS_CPUTIME_ID (the CPU budget); libc's and the vDSO's fallbacks use
 * the others of the range. Not the alarm clocks (8, 9), the obsolete 10 or
 * TAI (11), which nothing here needs, and above all no negative id: those
 * name the CPU clock of another process or thread by its pid, or a dynamic
 * clock by fd, and would let a worker watch how busy other processes are.
 * clockid_t is an int, so the kernel reads the low 32 bits of the register
 * only (the upper ones are whatever the caller left there): the filter
 * looks at the low 32 bits only, where every negative id has high bits set. */
#define CLOCK_IDS_MASK (0xffffffffull & ~(uint64_t)CLOCK_BOOTTIME)
_Static_assert(CLOCK_REALTIME == 0 && CLOCK_BOOTTIME == 7, "the clock ids 0-7 are one mask");

/* The allowlist: everything else kills the whole worker. */
static const struct rule {
	int nr;
	enum cond cond;
} allow[] = {
	/* The job and later answers arrive on the control channel. */
	{SCMP_SYS(read), FD_0},
	/* Results go out on the control channel, console output on 1 and 2. */
	{SCMP_SYS(write), FD_STD},
	/* malloc: the heap grows by brk and mmap, shrinks by munmap/madvise,
	 * realloc moves big blocks with mremap. Never executable memory, so a
	 * corrupted engine cannot map code of its own. */
	{SCMP_SYS(brk), ANY},
	{SCMP_SYS(mmap), NO_EXEC},
	{SCMP_SYS(mprotect), NO_EXEC},
	{SCMP_SYS(munmap), ANY},
	{SCMP_SYS(mremap), ANY},
	{SCMP_SYS(madvise), ANY},
	/* Date and timing; normally answered by the vDSO without a syscall. */
	{SCMP_SYS(clock_gettime), CLOCK},
	{SCMP_SYS(clock_getres), CLOCK},
	{SCMP_SYS(gettimeofday), ANY},
	{SCMP_SYS(time), ANY},
	/* Timers: the event loop sleeps until the next one is due, on the
	 * monotonic clock only (timers.js). Any other clock, a process's CPU
	 * clock above all (a negative id), is refused like the reads above. */
	{SCMP_SYS(clock_nanosleep), SLEEP},
	/* Seeds Math.random. */
	{SCMP_SYS(getrandom), ANY},
	/* The worker lowers its own address-space and CPU-time backstops
	 * to its job's once it has read it (it was confined, parked, with
	 * the daemon's largest): pid 0 only, those two resources only. A
	 * worker holds no CAP_SYS_RESOURCE, so the kernel refuses to raise
	 * a hard limit; a soft one rises no higher than its hard one. */
	{SCMP_SYS(prlimit64), SELF_AS},
	{SCMP_SYS(prlimit64), SELF_CPU},
	/* Leaving. */
	{SCMP_SYS(exit), ANY},
	{SCMP_SYS(exit_group), ANY},
};

static int add_rule(scmp_filter_ctx ctx, const struct rule *r)
{
	switch (r->cond) {
	case ANY: return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r->nr, 0);
	case FD_0: return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r->nr, 1, SCMP_A0(SCMP_CMP_EQ, 0));
	case FD_STD:
		/* 64-bit compare: fd 0x100000001 does not pass for fd 1. */
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r->nr, 1, SCMP_A0(SCMP_CMP_LE, 2));
	case NO_EXEC:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r->nr, 1,
					SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	case CLOCK:
		/* Not SCMP_A0_32: libseccomp 2.5 still tests the upper half
		 * there. A mask of the low 32 bits' high 29 leaves 0-7. */
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, r->nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, CLOCK_IDS_MASK, 0));
	case SLEEP:
		return seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, r->nr, 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffull, CLOCK_MONOTONIC));
	case SELF_AS:
	case SELF_CPU:
		/* 64-bit compares: a pid or resource with high bits set (which
		 * the kernel would cut to 0 or to the resource) is refused. */
		return seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, r->nr, 2, SCMP_A0(SCMP_CMP_EQ, 0),
			SCMP_A1(SCMP_CMP_EQ, r->cond == SELF_AS ? RLIMIT_AS : RLIMIT_CPU));
	}
	return -EINVAL;
}

int confine_filter_build(struct sock_fprog *out)
{
	int rc, fd = -1;
	/* KILL_PROCESS, not KILL_THREAD: nothing of the worker survives. */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx) {
		errno = ENOMEM;
		return -1;
	}
	/* A call made through another ABI (i386 int 0x80, x32) kills too. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* confine_apply sets no_new_privs itself, in its place in the order. */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	/* A binary tree of the syscall numbers rather than a list compared
	 * one by one: every call the worker makes passes O(log n) compares. */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; rc == 0 && i < sizeof allow / sizeof allow[0]; i++)
		rc = add_rule(ctx, &allow[i]);
	if (rc == 0) {
		fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
		rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	if (rc == 0) {
		off_t size = lseek(fd, 0, SEEK_END);
		out->filter = malloc(size > 0 ? (size_t)size : 1);
		if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 || !out->filter ||
		    pread(fd, out->filter, (size_t)size, 0) != size)
			rc = -EIO;
		out->len = (unsigned short)((size_t)size / sizeof(struct sock_filter));
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int confine_load_filter(const struct sock_fprog *filter)
{
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, filter);
}

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = {soft, hard};
	return setrlimit(resource, &rl);
}

/* Address space beyond twice the script's memory: room for the job frame
 * (up to the frame limit) and the copies made of it. */
#define AS_SLACK_BYTES (64ull * 1024 * 1024)

uint64_t confine_as_bytes(uint64_t baseline_bytes, uint64_t memory_bytes)
{
	return baseline_bytes + 2 * memory_bytes + AS_SLACK_BYTES;
}

uint64_t confine_cpu_seconds(uint64_t timeout_ms) { return timeout_ms / 1000 + 1; }

/* Lowers one limit of ours to soft/hard through prlimit64 on pid 0, the
 * only form the filter allows; never raises either. */
static int lower_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit old, rl = {soft, hard};
	if (syscall(SYS_prlimit64, 0, resource, NULL, &old) < 0)
		return -1;
	if (soft > old.rlim_cur || hard > old.rlim_max || soft > hard) {
		errno = EPERM;
		return -1;
	}
	return (int)syscall(SYS_prlimit64, 0, resource, &rl, NULL);
}

int confine_lower_limits(uint64_t as_bytes, uint64_t cpu_seconds)
{
	if (lower_limit(RLIMIT_AS, as_bytes, as_bytes) < 0 ||
	    lower_limit(RLIMIT_CPU, cpu_seconds, cpu_seconds + 1) < 0)
		return -1;
	return 0;
}

/* Set once the bounding and ambient sets are empty in this process image;
 * clones inherit both the sets and the flag. */
static bool bounding_dropped;

/* Empties the bounding and ambient sets. This needs CAP_SETPCAP, so it runs
 * before the uid change; a process without it cannot have given workers
 * any capability to begin with. */
static int drop_bounding_caps(void)
{
	if (bounding_dropped)
		return 0;
	if (CAP_IS_SUPPORTED(CAP_SETPCAP)) {
		cap_t cur = cap_get_proc();
		cap_flag_value_t has = CAP_CLEAR;
		if (cur)
			cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &has);
		cap_free(cur);
		if (has == CAP_SET) {
			for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
				if (CAP_IS_SUPPORTED(c) && cap_drop_bound(c) < 0)
					return -1;
		}
	}
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() < 0)
		return -1;
	bounding_dropped = true;
	return 0;
}

int confine_prepare(bool change_ids)
{
	if (drop_bounding_caps() < 0)
		return -1;
	if (!change_ids)
		return 0;
	/* What the forkserver itself keeps: only what switching a worker's
	 * identity takes. */
	static const cap_value_t keep[] = {CAP_SETUID, CAP_SETGID};
	cap_t caps = cap_init();
	if (!caps || cap_set_flag(caps, CAP_PERMITTED, 2, keep, CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, 2, keep, CAP_SET) < 0 || cap_set_proc(caps) < 0) {
		cap_free(caps);
		return -1;
	}
	cap_free(caps);
	return 0;
}

static int clear_caps(void)
{
	cap_t none = cap_init();
	if (!none)
		return -1;
	int rc = cap_set_proc(none);
	cap_free(none);
	return rc;
}

/* SIGKILL when the parent dies; fails (ESRCH) when it already has. */
static int die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	if (getppid() != parent) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

int confine_apply(const struct confine_params *p, const struct sock_fprog *filter,
		  const char **step)
{
	/* 1. Own session: no controlling terminal, no signals aimed at the
	 * daemon's process group. */
	*step = "setsid";
	if (setsid() < 0)
		return -1;
	/* 2. Die with the supervisor; if it is already gone, do not start. */
	*step = "PR_SET_PDEATHSIG";
	if (die_with_parent(p->parent) < 0)
		return -1;
	/* 3. stdio onto the pipes; dup2 clears close-on-exec on the copies. */
	*step = "dup2";
	for (int i = 0; i < 3; i++)
		if (p->fds[i] != i && dup2(p->fds[i], i) < 0)
			return -1;
	/* 4. Nothing else: fork without exec inherits every descriptor. */
	*step = "close_range";
	if (close_range(3, ~0U, 0) < 0)
		return -1;
	/* 5. rlimits. NOFILE 3 keeps exactly fds 0-2 usable; NPROC 0 backs up
	 * the filter's ban on fork; FSIZE 0 forbids growing any file. AS and
	 * CPU are the backstops of the largest job a request may ask for:
	 * the worker lowers them to its own job's (confine_lower_limits). */
	*step = "setrlimit";
	if (set_limit(RLIMIT_AS, p->as_bytes, p->as_bytes) < 0 ||
	    set_limit(RLIMIT_CPU, p->cpu_seconds, p->cpu_seconds + 1) < 0 ||
	    set_limit(RLIMIT_NOFILE, 3, 3) < 0 || set_limit(RLIMIT_NPROC, 0, 0) < 0 ||
	    set_limit(RLIMIT_FSIZE, 0, 0) < 0 || set_limit(RLIMIT_CORE, 0, 0) < 0 ||
	    set_limit(RLIMIT_MEMLOCK, 0, 0) < 0 || set_limit(RLIMIT_MSGQUEUE, 0, 0) < 0)
		return -1;
	/* 6. An unprivileged uid/gid, supplementary groups first. */
	*step = "capability bounding set";
	if (drop_bounding_caps() < 0)
		return -1;
	if (p->change_ids) {
		*step = "setgroups/setgid/setuid";
		if (setgroups(0, NULL) < 0 || setresgid(p->gid, p->gid, p->gid) < 0 ||
		    setresuid(p->uid, p->uid, p->uid) < 0)
			return -1;
		/* The kernel clears the parent-death signal on any change of
		 * credentials: arm it again, and look again for a parent that
		 * died in between. */
		*step = "PR_SET_PDEATHSIG after the uid change";
		if (die_with_parent(p->parent) < 0)
			return -1;
	}
	/* 7. No capabilities left in any set. */
	*step = "capabilities";
	if (clear_caps() < 0)
		return -1;
	/* 8. Not dumpable: no core, no ptrace attach by the same uid, and
	 * /proc/<pid> files stay root's. */
	*step = "PR_SET_DUMPABLE";
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		return -1;
	/* 9. no_new_privs: required for an unprivileged seccomp filter, and
	 * no exec could ever regain privileges. */
	*step = "PR_SET_NO_NEW_PRIVS";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	/* 10. Last, so nothing above needs to be allowed by it. */
	*step = "seccomp";
	if (confine_load_filter(filter) < 0)
		return -1;
	return 0;
}
