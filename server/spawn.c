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

#include "../protocol/limits.h"
#include "list.h"
#include "log.h"
#include "loop.h"
#include "uidpool.h"

/* A spawn request, from spawn_acquire (or a refill) until its reply. */
struct pending {
	struct pending *next;
	struct forkserver_spawn msg;
	int fds[FORKSERVER_FDS]; /* the worker's ends; -1 once sent */
	struct spawn_ends ends;	 /* a refill's: ours, kept while it is parked */
	bool pooled;		 /* msg.uid came from the uid pool */
	bool park;		 /* a refill: parked once cloned, no callback */
	spawn_done_cb done;
	void *arg;
};

/* A worker handed out and not yet reaped (its uid, when pooled). */
struct live {
	pid_t pid;
	uint32_t uid;
	bool pooled;
};

/* A worker cloned and confined, waiting for its job on ctl. Its control
 * socket is watched: a parked worker never writes or closes it, so any
 * event means it died (or broke), and it is replaced. */
struct parked {
	bool used;
	pid_t pid;
	uint32_t uid;
	bool pooled;
	struct spawn_ends ends;
	struct loop_watch w;
};

static struct spawn_config config;
static struct live *live;
static size_t n_live, live_cap;
/* The pool: config.pool slots, n_parked of them used. */
static struct parked *slots;
static unsigned n_parked, n_refilling;
static struct loop_timer refill_timer = LOOP_TIMER_INIT;
static struct spawn_stats stats;
/* Requests that found no free uid, failed from a timer (never from
 * within spawn_acquire). */
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

static void close_ends(struct spawn_ends *e)
{
	int *fd[] = {&e->ctl, &e->out, &e->err};
	for (size_t i = 0; i < 3; i++) {
		if (*fd[i] >= 0)
			close(*fd[i]);
		*fd[i] = -1;
	}
}

/*
 * Makes a worker's fds: a control socketpair and two pipes. The worker's
 * ends go to fds (for the forkserver), ours to *ends (non-blocking). All
 * CLOEXEC. 0, or -1 with errno and nothing left open.
 */
static int make_fds(int fds[FORKSERVER_FDS], struct spawn_ends *ends)
{
	int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
	/* Only our ends are non-blocking: the worker blocks on its own,
	 * waiting for its job and writing its output. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0 || fcntl(po[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(pe[0], F_SETFL, O_NONBLOCK) < 0) {
		int err = errno;
		int all[] = {sv[0], sv[1], po[0], po[1], pe[0], pe[1]};
		for (size_t i = 0; i < 6; i++)
			if (all[i] >= 0)
				close(all[i]);
		errno = err;
		return -1;
	}
	fds[0] = sv[1];
	fds[1] = po[1];
	fds[2] = pe[1];
	*ends = (struct spawn_ends){sv[0], po[0], pe[0]};
	return 0;
}

static void refill_later(uint64_t ms);

/* Remembers a worker handed out, for spawn_reaped and in_flight. False
 * when there is no memory to: its uid (if pooled) is then never given
 * back. */
static bool live_add(pid_t pid, uint32_t uid, bool pooled)
{
	if (n_live == live_cap) {
		size_t cap = live_cap ? 2 * live_cap : 16;
		struct live *grown = realloc(live, cap * sizeof *live);
		if (!grown)
			return false;
		live = grown;
		live_cap = cap;
	}
	live[n_live++] = (struct live){pid, uid, pooled};
	return true;
}

void spawn_reaped(pid_t pid)
{
	for (size_t i = 0; i < n_live; i++) {
		if (live[i].pid == pid) {
			if (live[i].pooled)
				uidpool_put(live[i].uid);
			live[i] = live[--n_live];
			/* A refill may have waited for this uid. */
			if (n_parked + n_refilling < config.pool)
				refill_later(0);
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

/* ---- the pool */

static void on_refill(struct loop_timer *t);

/* Tops the pool up once this loop turn is over: after the replies it
 * made, so a refill's clone never comes before them. */
static void refill_later(uint64_t ms)
{
	if (stopped || config.pool == 0)
		return;
	if (!loop_timer_armed(&refill_timer) || ms == 0)
		loop_timer_set(&refill_timer, ms, on_refill);
}

/* Kills and reaps a parked worker (our child: its pid cannot have been
 * recycled) and frees its slot; its uid goes back, no process holds it.
 * Blocks only while the SIGKILLed process exits. */
static void bury(struct parked *k)
{
	loop_del(&k->w);
	close_ends(&k->ends);
	kill(k->pid, SIGKILL);
	while (waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (k->pooled)
		uidpool_put(k->uid);
	k->used = false;
	n_parked--;
}

static void on_parked_event(struct loop_watch *w, uint32_t events)
{
	(void)events;
	struct parked *k = container_of(w, struct parked, w);
	log_warn("parked worker %d died or broke its channel; replaced", (int)k->pid);
	stats.died++;
	bury(k);
	refill_later(0);
}

/* A refill's reply: the worker is parked, or the clone failed. */
static void parked_arrived(struct pending *p, pid_t pid, int err)
{
	n_refilling--;
	if (pid <= 0 || stopped) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		if (p->pooled)
			uidpool_put(p->msg.uid);
		close_ends(&p->ends);
		if (!stopped)
			log_warn("pool: a refill failed: %s", strerror(err ? err : EIO));
		refill_later(LIMIT_POOL_RETRY_MS);
		return;
	}
	struct parked *k = NULL;
	for (unsigned i = 0; i < config.pool && !k; i++)
		if (!slots[i].used)
			k = &slots[i];
	/* parked + refilling never passes the pool's size: a slot is free. */
	*k = (struct parked){true, pid, p->msg.uid, p->pooled, p->ends, LOOP_WATCH_INIT};
	p->ends = (struct spawn_ends){-1, -1, -1};
	n_parked++;
	stats.refills++;
	if (loop_add(&k->w, k->ends.ctl, EPOLLIN | EPOLLRDHUP, on_parked_event) < 0) {
		log_err("pool: cannot watch parked worker %d: %s", (int)pid, strerror(errno));
		bury(k);
		refill_later(LIMIT_POOL_RETRY_MS);
		return;
	}
	refill_later(0);
}

/* Hands a parked worker out: the oldest slot first. False when none is
 * (alive). */
static bool take_parked(struct spawn_ends *ends, pid_t *pid)
{
	for (unsigned i = 0; i < config.pool && n_parked; i++) {
		struct parked *k = &slots[i];
		if (!k->used)
			continue;
		/* Dead, but its event not yet dispatched: never handed out. */
		struct pollfd pfd = {k->ends.ctl, POLLIN | POLLRDHUP, 0};
		if (poll(&pfd, 1, 0) != 0) {
			stats.died++;
			bury(k);
			continue;
		}
		if (!live_add(k->pid, k->uid, k->pooled))
			log_err("worker %d: not tracked (out of memory); its uid is retired",
				(int)k->pid);
		loop_del(&k->w);
		*ends = k->ends;
		*pid = k->pid;
		k->used = false;
		n_parked--;
		return true;
	}
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
			if (p->park) {
				n_refilling--;
				close_ends(&p->ends);
			} else {
				p->done(p->arg, -1, err);
			}
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
			if (p->park) {
				parked_arrived(p, r.pid, r.err);
				free(p);
				continue;
			}
			if (r.pid > 0 && !live_add(r.pid, p->msg.uid, p->pooled))
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
	stats.probe_copied_pages = ready.copied_pages;
	stats.pretouch_pages = ready.touched_pages;
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

/* Kills and reaps every parked worker. */
static void bury_all_parked(void)
{
	for (unsigned i = 0; i < config.pool; i++)
		if (slots[i].used)
			bury(&slots[i]);
}

static void restart(const char *why)
{
	log_err("%s; restarting it", why);
	teardown();
	/* Parked workers are the old forkserver's clones: replaced by the
	 * new one's, so that no worker outlives the image it came from. */
	bury_all_parked();
	bool swept = !sent || sweep_unknown_workers();
	/* A forkserver that cannot stay up is a broken installation, not a
	 * passing fault: leave it to the service manager. */
	if (++restarts > 100 || start() < 0)
		fatalx("forkserver cannot be restarted");
	/* After the restart, so that work started by these callbacks goes
	 * to the new forkserver. */
	fail_all(EPIPE, swept);
	refill_later(0);
}

int spawn_init(const struct spawn_config *cfg)
{
	config = *cfg;
	if (config.fs.change_ids && config.uid_range &&
	    uidpool_init(config.uid_first, config.uid_last) < 0) {
		log_err("worker uids: out of memory");
		return -1;
	}
	stats.target = config.pool;
	if (config.pool && !(slots = calloc(config.pool, sizeof *slots))) {
		log_err("pool: out of memory");
		return -1;
	}
	if (start() < 0)
		return -1;
	refill_later(0);
	return 0;
}

/*
 * A spawn request with fresh fds and, as root with a range, a uid of the
 * pool. NULL with errno (no memory, no fds); with *no_uid set when
 * only the uid was missing (the request is then made, its fds closed).
 */
static struct pending *new_request(bool park, bool *no_uid)
{
	*no_uid = false;
	struct pending *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (make_fds(p->fds, &p->ends) < 0) {
		int err = errno;
		free(p);
		errno = err;
		return NULL;
	}
	p->park = park;
	/* The backstops every worker is confined with; it lowers them to
	 * its own job's (confine_lower_limits). */
	p->msg.memory_bytes = config.max_memory_bytes;
	p->msg.timeout_ms = config.max_timeout_ms;
	p->msg.uid = (uint32_t)config.uid;
	p->msg.gid = (uint32_t)config.gid;
	if (config.fs.change_ids && config.uid_range) {
		/* The pool holds --max-workers + --pool ids, and an id comes
		 * back when its worker is reaped: only retired ids, or
		 * workers reaped after their slot freed, can leave none. */
		if (uidpool_take(&p->msg.uid) < 0) {
			close_fds(p);
			*no_uid = true;
			return p;
		}
		p->msg.gid = p->msg.uid;
		p->pooled = true;
	}
	return p;
}

static void send_request(struct pending *p)
{
	*outbox_tail = p;
	outbox_tail = &p->next;
	if (flush_outbox() < 0)
		restart("forkserver socket failed");
}

static void on_refill(struct loop_timer *t)
{
	(void)t;
	while (!stopped && n_parked + n_refilling < config.pool &&
	       n_refilling < LIMIT_POOL_REFILLS_AT_ONCE) {
		bool no_uid;
		struct pending *p = new_request(true, &no_uid);
		if (!p || no_uid) {
			/* No uid: one comes back when a worker is reaped
			 * (spawn_reaped tops up then); no fds or memory:
			 * later. */
			if (p)
				close_ends(&p->ends);
			free(p);
			if (!no_uid)
				refill_later(LIMIT_POOL_RETRY_MS);
			return;
		}
		n_refilling++;
		send_request(p);
	}
}

int spawn_acquire(struct spawn_ends *ends, pid_t *pid, spawn_done_cb done, void *arg)
{
	if (stopped) {
		errno = ESHUTDOWN;
		return -1;
	}
	if (take_parked(ends, pid)) {
		stats.hits++;
		refill_later(0);
		return 1;
	}
	bool no_uid;
	struct pending *p = new_request(false, &no_uid);
	if (!p)
		return -1;
	stats.misses++;
	p->done = done;
	p->arg = arg;
	*ends = p->ends;
	p->ends = (struct spawn_ends){-1, -1, -1};
	if (no_uid) {
		p->next = starved;
		starved = p;
		loop_timer_set(&starved_timer, 0, on_starved);
		return 0;
	}
	send_request(p);
	/* The pool was empty: top it up too, behind this worker. */
	refill_later(0);
	return 0;
}

void spawn_stop(void)
{
	stopped = true;
	loop_timer_cancel(&refill_timer);
	for (unsigned i = 0; i < config.pool; i++)
		if (slots[i].used)
			bury(&slots[i]);
	teardown();
	fail_all(ESHUTDOWN, false);
	loop_timer_cancel(&starved_timer);
	on_starved(NULL);
	free(live);
	live = NULL;
	n_live = live_cap = 0;
	free(slots);
	slots = NULL;
	config.pool = 0;
}

void spawn_stats(struct spawn_stats *out)
{
	*out = stats;
	out->parked = n_parked;
	out->starting = n_refilling;
	out->in_flight = (unsigned)n_live;
	out->restarts = restarts;
}

json_t *spawn_stats_json(void)
{
	struct spawn_stats s;
	spawn_stats(&s);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "target",
			 (json_int_t)s.target, "parked", (json_int_t)s.parked, "starting",
			 (json_int_t)s.starting, "in_flight", (json_int_t)s.in_flight, "refills",
			 (json_int_t)s.refills, "hits", (json_int_t)s.hits, "misses",
			 (json_int_t)s.misses, "died", (json_int_t)s.died, "forkserver_restarts",
			 (json_int_t)s.restarts, "pretouch_pages", (json_int_t)s.pretouch_pages,
			 "probe_copied_pages", (json_int_t)s.probe_copied_pages);
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
