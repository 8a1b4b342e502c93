/* spawn.c - forkserver lifecycle and spawn requests; see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

/* A spawn request, from spawn_worker until its reply. */
struct pending {
	struct pending *next;
	struct forkserver_spawn msg;
	int fds[FORKSERVER_FDS]; /* -1 once sent */
	spawn_done_cb done;
	void *arg;
};

static struct forkserver_config config;
static pid_t fs_pid = -1;
static int fs_pidfd = -1, fs_sock = -1;
static struct loop_watch sock_watch = LOOP_WATCH_INIT, pid_watch = LOOP_WATCH_INIT;
static uint64_t baseline_bytes;
/* outbox: not yet sent (the socket was full); sent: awaiting replies. */
static struct pending *outbox, **outbox_tail = &outbox;
static struct pending *sent, **sent_tail = &sent;
static unsigned restarts;
static bool stopped;

static void close_fds(struct pending *p)
{
	for (int i = 0; i < FORKSERVER_FDS; i++) {
		if (p->fds[i] >= 0)
			close(p->fds[i]);
		p->fds[i] = -1;
	}
}

/* Fails every request not yet answered, in order. */
static void fail_all(int err)
{
	struct pending *lists[2] = {sent, outbox};
	sent = outbox = NULL;
	sent_tail = &sent;
	outbox_tail = &outbox;
	for (int l = 0; l < 2; l++) {
		for (struct pending *p = lists[l], *next; p; p = next) {
			next = p->next;
			close_fds(p);
			p->done(p->arg, -1, err);
			free(p);
		}
	}
}

/* Sends what the outbox holds; 0, or -1 when the forkserver is gone. */
static int flush_outbox(void)
{
	while (outbox) {
		struct pending *p = outbox;
		union {
			char buf[CMSG_SPACE(sizeof(int) * FORKSERVER_FDS)];
			struct cmsghdr align;
		} cmsg;
		memset(&cmsg, 0, sizeof cmsg);
		struct iovec iov = {&p->msg, sizeof p->msg};
		struct msghdr msg = {0};
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cmsg.buf;
		msg.msg_controllen = sizeof cmsg.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * FORKSERVER_FDS);
		memcpy(CMSG_DATA(c), p->fds, sizeof(int) * FORKSERVER_FDS);
		if (sendmsg(fs_sock, &msg, MSG_NOSIGNAL) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -1;
		}
		/* The forkserver has its copies now; ours would only keep the
		 * worker's pipes from reaching EOF. */
		close_fds(p);
		outbox = p->next;
		if (!outbox)
			outbox_tail = &outbox;
		p->next = NULL;
		*sent_tail = p;
		sent_tail = &p->next;
	}
	loop_mod(&sock_watch, EPOLLIN | (outbox ? EPOLLOUT : 0));
	return 0;
}

static void restart(const char *why);

static void on_sock(struct loop_watch *w, uint32_t events)
{
	(void)w;
	if (events & EPOLLIN) {
		for (;;) {
			struct forkserver_reply r;
			ssize_t n = recv(fs_sock, &r, sizeof r, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n != (ssize_t)sizeof r || !sent) {
				restart(n == 0 ? "forkserver closed its socket"
					       : "forkserver sent an unexpected reply");
				return;
			}
			struct pending *p = sent;
			sent = p->next;
			if (!sent)
				sent_tail = &sent;
			if (r.pid > 0)
				p->done(p->arg, r.pid, 0);
			else
				p->done(p->arg, -1, r.err ? r.err : EIO);
			free(p);
		}
	}
	if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
		if (flush_outbox() < 0 || (events & (EPOLLERR | EPOLLHUP)))
			restart("forkserver socket failed");
	}
}

static void on_pidfd(struct loop_watch *w, uint32_t events)
{
	(void)w;
	(void)events;
	restart("forkserver exited");
}

static void reap(void)
{
	if (fs_pidfd < 0)
		return;
	siginfo_t si;
	pidfd_send_signal(fs_pidfd, SIGKILL, NULL, 0);
	while (waitid(P_PIDFD, (id_t)fs_pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	loop_del(&pid_watch);
	close(fs_pidfd);
	fs_pidfd = -1;
	fs_pid = -1;
}

static void teardown(void)
{
	loop_del(&sock_watch);
	if (fs_sock >= 0)
		close(fs_sock);
	fs_sock = -1;
	reap();
}

/* Forks and execs the forkserver, then waits for its ready message. */
static int start(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_err("forkserver: socketpair: %s", strerror(errno));
		return -1;
	}
	/* Everything the child needs is built before fork: the daemon has
	 * threads (the cache writer), so the child may only exec. */
	char uid[32], gid[32], job[32];
	snprintf(uid, sizeof uid, "%u", (unsigned)config.uid);
	snprintf(gid, sizeof gid, "%u", (unsigned)config.gid);
	snprintf(job, sizeof job, "%zu", config.max_job_bytes);
	char *argv[] = {"sandboxd-forkserver", "--forkserver", uid, gid, job,
			config.change_ids ? "1" : "0", NULL};
	/* Bind every library symbol now, once, rather than lazily in each
	 * worker (each would also copy the GOT page it writes). */
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 2, sizeof *envp);
	if (!envp) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	memcpy(envp, environ, n * sizeof *envp);
	envp[n] = "LD_BIND_NOW=1";
	pid_t pid = fork();
	if (pid < 0) {
		log_err("forkserver: fork: %s", strerror(errno));
		free(envp);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* fd 3 is the socket; exec drops everything else (CLOEXEC). */
		if (dup2(sv[1], 3) < 0)
			_exit(127);
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	free(envp);
	close(sv[1]);
	fs_sock = sv[0];
	fs_pid = pid;
	fs_pidfd = pidfd_open(pid, 0);
	if (fs_pidfd < 0) {
		log_err("forkserver: pidfd_open: %s", strerror(errno));
		teardown();
		return -1;
	}
	/* Start-up only: block (bounded) until the engine is prepared. */
	struct pollfd pfd = {fs_sock, POLLIN, 0};
	struct forkserver_reply ready;
	if (poll(&pfd, 1, 10000) != 1 || recv(fs_sock, &ready, sizeof ready, 0) != sizeof ready ||
	    ready.pid != 0) {
		log_err("forkserver did not become ready");
		teardown();
		return -1;
	}
	baseline_bytes = ready.baseline_bytes;
	if (fcntl(fs_sock, F_SETFL, O_NONBLOCK) < 0 ||
	    loop_add(&sock_watch, fs_sock, EPOLLIN, on_sock) < 0 ||
	    loop_add(&pid_watch, fs_pidfd, EPOLLIN, on_pidfd) < 0) {
		log_err("forkserver: cannot watch it: %s", strerror(errno));
		teardown();
		return -1;
	}
	log_info("forkserver ready (pid %d, runtime %" PRIu64 " KiB mapped)", (int)fs_pid,
		 baseline_bytes / 1024);
	return 0;
}

static void restart(const char *why)
{
	log_err("%s; restarting it", why);
	teardown();
	/* A forkserver that cannot stay up is a broken installation, not a
	 * passing fault: leave it to the service manager. */
	if (++restarts > 100 || start() < 0)
		fatalx("forkserver cannot be restarted");
	/* After the restart, so that work started by these callbacks goes
	 * to the new forkserver. */
	fail_all(EPIPE);
}

int spawn_init(const struct forkserver_config *cfg)
{
	config = *cfg;
	return start();
}

int spawn_worker(uint64_t memory_bytes, uint64_t timeout_ms, int fds[FORKSERVER_FDS],
		 spawn_done_cb done, void *arg)
{
	struct pending *p = stopped ? NULL : calloc(1, sizeof *p);
	if (!p) {
		for (int i = 0; i < FORKSERVER_FDS; i++)
			close(fds[i]);
		return -1;
	}
	p->msg.memory_bytes = memory_bytes;
	p->msg.timeout_ms = timeout_ms;
	memcpy(p->fds, fds, sizeof p->fds);
	p->done = done;
	p->arg = arg;
	*outbox_tail = p;
	outbox_tail = &p->next;
	if (flush_outbox() < 0)
		restart("forkserver socket failed");
	return 0;
}

void spawn_stop(void)
{
	stopped = true;
	teardown();
	fail_all(ESHUTDOWN);
}

void spawn_describe_sandbox(json_t *obj)
{
	json_object_set_new(obj, "forkserver", json_boolean(fs_pid > 0));
	json_object_set_new(obj, "seccomp", json_string("allowlist, kill process"));
	json_object_set_new(obj, "no_new_privs", json_true());
	json_object_set_new(obj, "capabilities", json_string("none"));
	json_object_set_new(obj, "rlimits", json_true());
	json_object_set_new(obj, "not_dumpable", json_true());
	json_object_set_new(obj, "fds", json_string("0-2 only"));
	if (config.change_ids)
		json_object_set_new(obj, "worker_uid", json_integer(config.uid));
	else
		json_object_set_new(obj, "worker_uid", json_null());
	json_object_set_new(obj, "runtime_bytes", json_integer((json_int_t)baseline_bytes));
}

void spawn_forkserver_main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "sandboxd: --forkserver is internal\n");
		_exit(EXIT_FAILURE);
	}
	struct forkserver_config cfg = {
		.uid = (uid_t)strtoul(argv[2], NULL, 10),
		.gid = (gid_t)strtoul(argv[3], NULL, 10),
		.max_job_bytes = (size_t)strtoull(argv[4], NULL, 10),
		.change_ids = strcmp(argv[5], "1") == 0,
	};
	forkserver_run(3, &cfg);
}
