/* forkserver.c - clone prepared workers on request; see forkserver.h. */
#include "forkserver.h"

#include <errno.h>
#include <jansson.h>
#include <linux/sched.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "confine.h"
#include "engine.h"
#include "worker.h"

static void die(const char *what)
{
	fprintf(stderr, "sandboxd forkserver: %s: %s\n", what, strerror(errno));
	_exit(1);
}

/* Address space mapped now, from /proc/self/statm (in pages). */
static uint64_t mapped_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long pages = 0;
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A fork whose child becomes the supervisor's child (see forkserver.h). */
static pid_t clone_sibling(void)
{
	struct clone_args args;
	memset(&args, 0, sizeof args);
	args.flags = CLONE_PARENT;
	return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

/* Receives one spawn request; returns 1, 0 when the supervisor is gone. */
static int receive(int sock, struct forkserver_spawn *req, int fds[FORKSERVER_FDS])
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FORKSERVER_FDS)];
		struct cmsghdr align;
	} cmsg;
	struct iovec iov = {req, sizeof *req};
	struct msghdr msg = {0};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cmsg.buf;
	msg.msg_controllen = sizeof cmsg.buf;
	for (;;) {
		ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recvmsg");
		if (n == 0)
			return 0;
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		if (n != (ssize_t)sizeof *req || !c || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len != CMSG_LEN(sizeof(int) * FORKSERVER_FDS)) {
			errno = EPROTO;
			die("malformed spawn request");
		}
		memcpy(fds, CMSG_DATA(c), sizeof(int) * FORKSERVER_FDS);
		return 1;
	}
}

static void reply(int sock, const struct forkserver_reply *r)
{
	while (send(sock, r, sizeof *r, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			die("send");
	}
}
static void *prepare_thread(void *rc)
{
	*(int *)rc = engine_prepare();
	return NULL;
}

/* Prepares the engine on a thread of its own, so that its heap lives in a
 * malloc arena of its own. The main arena then holds only what workers
 * allocate themselves: with the prepared engine's free chunks in it, every
 * worker's first allocations walked and split them, writing to (and so
 * copying) about 80 pages of the inherited heap. */
static int prepare_apart(void)
{
	/* Shrinking an arena of a thread reads /proc/sys/vm/overcommit_memory,
	 * a file a confined worker may not open: workers never give memory
	 * back to the system (they live for one script). */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	pthread_t t;
	int rc = -1;
	if (pthread_create(&t, NULL, prepare_thread, &rc) != 0 || pthread_join(t, NULL) != 0)
		return -1;
	return rc;
}

void forkserver_run(int sock, const struct forkserver_config *cfg)
{
	pid_t supervisor = getppid();
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	/* Out of the daemon's process group: a terminal's ^C reaches the
	 * supervisor, which then shuts the forkserver down in order. */
	if (setsid() < 0)
		die("setsid");
	prctl(PR_SET_NAME, "sandboxd-fork");
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != supervisor)
		die("PR_SET_PDEATHSIG");
	/* Keep stdio (stderr is the daemon's log) and the socket, as fd 3. */
	if (sock != 3) {
		if (dup2(sock, 3) < 0)
			die("dup2");
		sock = 3;
	}
	if (close_range(4, ~0U, 0) < 0)
		die("close_range");

	/* Everything a worker would otherwise fetch with a syscall its filter
	 * forbids is fetched here, once: the time zone (scripts see UTC) and
	 * jansson's hash seed. */
	setenv("TZ", "UTC", 1);
	tzset();
	time_t t0 = 0;
	struct tm tm;
	localtime_r(&t0, &tm);
	json_object_seed(0x5a5a5a5a);

	if (prepare_apart() < 0) {
		errno = ENOMEM;
		die("engine_prepare");
	}
	struct sock_fprog filter;
	if (confine_filter_build(&filter) < 0)
		die("building the seccomp filter");
	if (confine_prepare(cfg->change_ids) < 0)
		die("dropping capabilities");
	/* Preparing freed many small chunks; left in malloc's fastbins, every
	 * worker's first large allocation would consolidate them, writing to
	 * (and so copying) page after page of the inherited heap. */
	malloc_trim(0);
	uint64_t baseline = mapped_bytes();
	/* Last before the clones, so that the pages the probe finds are the
	 * ones every clone starts from. */
	struct confine_params probe = {.baseline_bytes = baseline};
	size_t copied = worker_probe_pages(&probe, cfg->max_job_bytes);

	struct forkserver_reply ready = {
		.baseline_bytes = baseline,
		.copied_pages = (uint32_t)copied,
		.touched_pages =
			(uint32_t)(copied < LIMIT_POOL_PRETOUCH_PAGES ? copied
								      : LIMIT_POOL_PRETOUCH_PAGES),
	};
	reply(sock, &ready);

	for (;;) {
		struct forkserver_spawn req = {0, 0, 0, 0};
		int fds[FORKSERVER_FDS];
		if (!receive(sock, &req, fds))
			_exit(0);
		/* Root is never a worker's identity, whatever the request says. */
		if (cfg->change_ids && (req.uid == 0 || req.gid == 0)) {
			struct forkserver_reply refused = {.err = EPERM};
			for (int i = 0; i < FORKSERVER_FDS; i++)
				close(fds[i]);
			reply(sock, &refused);
			continue;
		}
		pid_t pid = clone_sibling();
		if (pid == 0) {
			prctl(PR_SET_NAME, "sandboxd-work");
			struct confine_params p = {
				.fds = {fds[0], fds[1], fds[2]},
				.parent = supervisor,
				/* Backstops well above the heap cap the engine
				 * enforces, for the largest job a request may
				 * ask for (the request's limits); the worker
				 * lowers them to its own job's once read. */
				.as_bytes = confine_as_bytes(baseline, req.memory_bytes),
				.cpu_seconds = confine_cpu_seconds(req.timeout_ms),
				.baseline_bytes = baseline,
				.change_ids = cfg->change_ids,
				.uid = (uid_t)req.uid,
				.gid = (gid_t)req.gid,
			};
			worker_main(&p, &filter, cfg->max_job_bytes);
		}
		struct forkserver_reply r = {.pid = pid > 0 ? pid : 0, .err = pid < 0 ? errno : 0};
		for (int i = 0; i < FORKSERVER_FDS; i++)
			close(fds[i]);
		reply(sock, &r);
	}
}
