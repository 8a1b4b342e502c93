/* spawn.c - forkserver lifecycle and spawn requests; see spawn.h. */
#include "spawn.h"

#include <dirent.h>
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
#include "uidpool.h"

/* A spawn request, from spawn_worker until its reply. */
struct pending {
	struct pending *next;
	struct forkserver_spawn msg;
	int fds[FORKSERVER_FDS]; /* -1 once sent */
	bool pooled;		 /* msg.uid came from the pool */
	spawn_done_cb done;
	void *arg;
};

/* A worker not yet reaped whose uid is the pool's. */
struct live {
	pid_t pid;
	uint32_t uid;
};

static struct spawn_config config;
static struct live *live;
static size_t n_live, live_cap;
/* Requests that found no free uid, failed from a timer (never from
 * within spawn_worker). */
static struct pending *starved;
static struct loop_timer starved_timer = LOOP_TIMER_INIT;
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

/* Remembers which uid the worker pid holds, for spawn_reaped. False when
 * there is no memory to: the uid is then never given back. */
static bool live_add(pid_t pid, uint32_t uid)
{
	if (n_live == live_cap) {
		size_t cap = live_cap ? 2 * live_cap : 16;
		struct live *grown = realloc(live, cap * sizeof *live);
		if (!grown)
			return false;
		live = grown;
		live_cap = cap;
	}
	live[n_live++] = (struct live){pid, uid};
	return true;
}

void spawn_reaped(pid_t pid)
{
	for (size_t i = 0; i < n_live; i++) {
		if (live[i].pid == pid) {
			uidpool_put(live[i].uid);
			live[i] = live[--n_live];
			return;
		}
	}
}

static bool is_live(pid_t pid)
{
	for (size_t i = 0; i < n_live; i++)
		if (live[i].pid == pid)
			return true;
	return false;
}

/*
 * Call with the forkserver reaped and none started since: every child of
 * ours is then a worker we know (in live) or one whose pid never reached us
 * (its spawn was in flight when the forkserver died; workers are our
 * children, see forkserver.h). Kills and reaps the latter, so that no
 * process holds the uids of the spawns in flight. True when that is known
 * done; false when our children could not be listed (no /proc, a kernel
 * without /proc/PID/task/TID/children). Blocks only while SIGKILLed
 * processes exit.
 */
static bool sweep_unknown_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return false;
	bool listed = true;
	unsigned killed = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[300]; /* a d_name is at most 255 bytes */
		snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
		FILE *f = fopen(path, "re");
		if (!f) {
			listed = false;
			continue;
		}
		long pid;
		while (fscanf(f, "%ld", &pid) == 1) {
			if (pid <= 0 || is_live((pid_t)pid))
				continue;
			/* Our unreaped child: its pid cannot have been reused. */
			kill((pid_t)pid, SIGKILL);
			while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
				;
			killed++;
		}
		fclose(f);
	}
	closedir(d);
	if (killed)
		log_warn("forkserver: killed %u worker(s) whose spawn was never answered", killed);
	return listed;
}

/* Fails every request not yet answered, in order. A request already sent
 * may have become a worker whose pid never reached us: unless swept (see
 * sweep_unknown_workers) says no such worker is left, its uid is never
 * given back, and the daemon runs that many fewer workers at once until it
 * is restarted (its pool is the --max-workers ids it claimed). */
static void fail_all(int err, bool swept)
{
	struct pending *lists[2] = {sent, outbox};
	sent = outbox = NULL;
	sent_tail = &sent;
	outbox_tail = &outbox;
	unsigned retired = 0;
	for (int l = 0; l < 2; l++) {
		for (struct pending *p = lists[l], *next; p; p = next) {
			next = p->next;
			close_fds(p);
			if (p->pooled && (l == 1 || swept))
				uidpool_put(p->msg.uid);
			else if (p->pooled)
				retired++;
			p->done(p->arg, -1, err);
			free(p);
		}
	}
	if (retired)
		log_warn("forkserver: %u worker uid(s) retired (their spawns' outcome is "
			 "unknown); %u left",
			 retired, uidpool_free_count());
}

static void on_starved(struct loop_timer *t)
{
	(void)t;
	while (starved) {
		struct pending *p = starved;
		starved = p->next;
		p->done(p->arg, -1, EAGAIN);
		free(p);
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
			if (r.pid > 0 && p->pooled && !live_add(r.pid, p->msg.uid))
				log_err("worker %d: uid %u not tracked (out of memory); retired",
					(int)r.pid, (unsigned)p->msg.uid);
			else if (r.pid <= 0 && p->pooled)
				uidpool_put(p->msg.uid); /* no process ever had it */
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
	char job[32];
	snprintf(job, sizeof job, "%zu", config.fs.max_job_bytes);
	char *argv[] = {"sandboxd-forkserver", "--forkserver", job,
			config.fs.change_ids ? "1" : "0", NULL};
	/* Nothing of the daemon's environment (secrets, PATH, a preloaded
	 * library): only what the forkserver itself needs. LD_BIND_NOW binds
	 * every library symbol now, once, rather than lazily in each worker
	 * (each would also copy the GOT page it writes); TZ=UTC is the time
	 * zone scripts see, read here so no worker reads a zone file. */
	char *envp[] = {"LD_BIND_NOW=1", "TZ=UTC", NULL};
	pid_t pid = fork();
	if (pid < 0) {
		log_err("forkserver: fork: %s", strerror(errno));
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
	bool swept = !sent || sweep_unknown_workers();
	/* A forkserver that cannot stay up is a broken installation, not a
	 * passing fault: leave it to the service manager. */
	if (++restarts > 100 || start() < 0)
		fatalx("forkserver cannot be restarted");
	/* After the restart, so that work started by these callbacks goes
	 * to the new forkserver. */
	fail_all(EPIPE, swept);
}

int spawn_init(const struct spawn_config *cfg)
{
	config = *cfg;
	if (config.fs.change_ids && config.uid_range &&
	    uidpool_init(config.uid_first, config.uid_last) < 0) {
		log_err("worker uids: out of memory");
		return -1;
	}
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
	p->msg.uid = (uint32_t)config.uid;
	p->msg.gid = (uint32_t)config.gid;
	memcpy(p->fds, fds, sizeof p->fds);
	p->done = done;
	p->arg = arg;
	if (config.fs.change_ids && config.uid_range) {
		/* The pool holds at least --max-workers ids, and an id comes
		 * back when its worker is reaped, before its slot frees: only
		 * retired ids can leave none. */
		if (uidpool_take(&p->msg.uid) < 0) {
			close_fds(p);
			p->next = starved;
			starved = p;
			loop_timer_set(&starved_timer, 0, on_starved);
			return 0;
		}
		p->msg.gid = p->msg.uid;
		p->pooled = true;
	}
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
	fail_all(ESHUTDOWN, false);
	loop_timer_cancel(&starved_timer);
	on_starved(NULL);
	free(live);
	live = NULL;
	n_live = live_cap = 0;
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
	if (config.fs.change_ids && config.uid_range) {
		json_object_set_new(obj, "worker_uid", json_null());
		json_object_set_new(obj, "worker_uids",
				    json_pack("{s:I, s:I, s:{s:I, s:I}, s:I}", "first",
					      (json_int_t)config.range_first, "last",
					      (json_int_t)config.range_last, "claimed", "first",
					      (json_int_t)config.uid_first, "last",
					      (json_int_t)config.uid_last, "free",
					      (json_int_t)uidpool_free_count()));
	} else {
		json_object_set_new(obj, "worker_uid",
				    config.fs.change_ids ? json_integer(config.uid) : json_null());
		json_object_set_new(obj, "worker_uids", json_null());
	}
	json_object_set_new(obj, "runtime_bytes", json_integer((json_int_t)baseline_bytes));
}

void spawn_forkserver_main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "sandboxd: --forkserver is internal\n");
		_exit(EXIT_FAILURE);
	}
	struct forkserver_config cfg = {
		.max_job_bytes = (size_t)strtoull(argv[2], NULL, 10),
		.change_ids = strcmp(argv[3], "1") == 0,
	};
	forkserver_run(3, &cfg);
}
