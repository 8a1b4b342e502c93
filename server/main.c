/* main.c - sandboxd: start-up, the signal-driven shutdown, and nothing else. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "../protocol/ctl.h"
#include "../protocol/limits.h"
#include "cache.h"
#include "config.h"
#include "conn.h"
#include "exec.h"
#include "listen.h"
#include "log.h"
#include "notify.h"
#include "parse.h"
#include "loop.h"
#include "../protocol/msg.h"
#include "ops.h"
#include "registry.h"
#include "spawn.h"
#include "uidpool.h"

#ifndef SANDBOXD_VERSION
#define SANDBOXD_VERSION "0"
#endif

/* After the grace period, how long killed work gets to report. */
#define SHUTDOWN_SETTLE_MS 5000u
#define SHUTDOWN_POLL_MS 10u

static struct config cfg;
static struct listener listener = {-1, false, NULL};
static struct loop_watch listen_watch = LOOP_WATCH_INIT, signal_watch = LOOP_WATCH_INIT;
static struct loop_timer grace_timer = LOOP_TIMER_INIT, poll_timer = LOOP_TIMER_INIT;
static struct loop_timer accept_timer = LOOP_TIMER_INIT;
static struct log_every accept_log;
static int signal_fd = -1;
/* The --uid-lock file, holding this daemon's claim on its worker ids for as
 * long as it lives: never closed (CLOEXEC, so nothing exec'd keeps it). */
static int uid_lock_fd = -1;
static bool stopping, killed_all;
static uint64_t stop_deadline;

static void on_accept_retry(struct loop_timer *t)
{
	(void)t;
	if (!stopping)
		loop_mod(&listen_watch, EPOLLIN);
}

/* A connection closed: if accepting is paused, an fd is free now. */
static void on_fd_freed(void)
{
	if (loop_timer_armed(&accept_timer)) {
		loop_timer_cancel(&accept_timer);
		on_accept_retry(NULL);
	}
}

/* When accept fails for want of an fd (or of memory) the listener stays
 * readable: it is left alone for LIMIT_ACCEPT_RETRY_MS (or until a
 * connection closes) instead of waking the loop again at once, and the
 * failure is logged once a second. */
static void on_accept(struct loop_watch *w, uint32_t events)
{
	(void)events;
	if (conn_accept_ready(w->fd) == 0)
		return;
	int err = errno;
	loop_mod(&listen_watch, 0);
	loop_timer_set(&accept_timer, LIMIT_ACCEPT_RETRY_MS, on_accept_retry);
	unsigned long held;
	if (log_every_pass(&accept_log, &held))
		log_warn("accept: %s: pausing accepting for %u ms (%lu such pauses since the last "
			 "message)",
			 strerror(err), LIMIT_ACCEPT_RETRY_MS, held);
}

static void on_grace_over(struct loop_timer *t)
{
	(void)t;
	if (exec_live() > 0)
		log_warn("grace period over: killing %u running execution(s)", exec_live());
	killed_all = true;
	exec_kill_all();
	stop_deadline = loop_now_ms() + SHUTDOWN_SETTLE_MS;
}

/* Shutdown ends when no execution runs and every reply has been flushed. */
static void on_poll(struct loop_timer *t)
{
	(void)t;
	if ((exec_live() == 0 && conn_count() == 0) ||
	    (killed_all && loop_now_ms() >= stop_deadline)) {
		loop_stop();
		return;
	}
	/* Without a timer nothing would end the wait: stop now. */
	if (loop_timer_set(&poll_timer, SHUTDOWN_POLL_MS, on_poll) < 0) {
		log_err("shutdown: cannot arm a timer (out of memory); stopping now");
		loop_stop();
	}
}

static void begin_shutdown(int sig)
{
	if (stopping) {
		log_info("%s again: killing running work now", strsignal(sig));
		on_grace_over(NULL);
		return;
	}
	stopping = true;
	notify_send("STOPPING=1");
	log_info("%s: stopping (%u running, grace %llu ms)", strsignal(sig), exec_live(),
		 (unsigned long long)cfg.grace_ms);
	loop_del(&listen_watch);
	loop_timer_cancel(&accept_timer);
	listen_close(&listener);
	exec_shutdown();
	conn_shutdown_all();
	/* No grace period can be timed without a timer: kill at once. */
	if (loop_timer_set(&grace_timer, cfg.grace_ms, on_grace_over) < 0)
		on_grace_over(NULL);
	on_poll(NULL);
}

static void on_signal(struct loop_watch *w, uint32_t events)
{
	(void)events;
	struct signalfd_siginfo si;
	while (read(w->fd, &si, sizeof si) == (ssize_t)sizeof si)
		begin_shutdown((int)si.ssi_signo);
}

/* Descriptors 0-2 must be open, or the first socket would become "stderr". */
static void ensure_stdio(void)
{
	int fd;
	while ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0 && fd < 3)
		fcntl(fd, F_SETFD, 0);
	if (fd >= 3)
		close(fd);
}

/* The soft RLIMIT_NOFILE raised to the hard one; returns the limit. */
static rlim_t raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		fatal("getrlimit");
	rlim_t was = rl.rlim_cur;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			fatal("setrlimit RLIMIT_NOFILE %llu", (unsigned long long)rl.rlim_max);
	}
	log_info("open files: at most %llu (soft limit %llu at start)",
		 (unsigned long long)rl.rlim_cur, (unsigned long long)was);
	return rl.rlim_cur;
}

/* The fds open now, or -1 when /proc cannot say. */
static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

/*
 * The fds clients may hold: the limit, less what the daemon holds once set
 * up and what --max-workers running workers need (see LIMIT_FD_PER_WORKER).
 * Call it when every fd of the daemon's own is open. Exits when too little
 * is left for clients.
 */
static unsigned client_fds(rlim_t nofile)
{
	long own = open_fds();
	if (own < 0)
		own = 16; /* stdio, epoll, signalfd, listener, forkserver, cache */
	uint64_t reserve =
		(uint64_t)own + (uint64_t)LIMIT_FD_PER_WORKER * cfg.max_workers + LIMIT_FD_SPARE;
	if (nofile < reserve + LIMIT_FD_MIN_CLIENTS)
		fatalx("RLIMIT_NOFILE %llu is too low: the daemon and --max-workers %u need %llu "
		       "fds, and clients at least %u more (raise LimitNOFILE= or lower "
		       "--max-workers)",
		       (unsigned long long)nofile, cfg.max_workers, (unsigned long long)reserve,
		       LIMIT_FD_MIN_CLIENTS);
	uint64_t left = nofile - reserve;
	log_info("open files: %llu kept for the daemon and %u workers, %llu for clients",
		 (unsigned long long)reserve, cfg.max_workers, (unsigned long long)left);
	return left > UINT32_MAX ? UINT32_MAX : (unsigned)left;
}

/* Exits with EXIT_USAGE: the worker ids of the range cannot be had, for
 * the reason why; advice says what the administrator can do. */
__attribute__((noreturn)) static void no_worker_uids(const char *why, const char *advice)
{
	log_err("--worker-uids %u-%u: %s; %s", (unsigned)cfg.worker_uid_first,
		(unsigned)cfg.worker_uid_last, why, advice);
	exit(EXIT_USAGE);
}

/* Who workers run as: as root, each its own uid and gid from --worker-uids
 * (checked unused now, and --max-workers of them claimed against the other
 * daemons of the machine in --uid-lock) or all of them --worker-user;
 * otherwise our uid. */
static void worker_identity(struct spawn_config *sc)
{
	sc->fs.change_ids = geteuid() == 0;
	if (!sc->fs.change_ids) {
		log_info("not running as root: workers keep uid %u", (unsigned)geteuid());
		return;
	}
	if (!cfg.worker_user) {
		char why[256];
		if (uidpool_check(cfg.worker_uid_first, cfg.worker_uid_last, why, sizeof why) < 0) {
			log_err("--worker-uids %u-%u: the range is in use: %s; choose another "
				"range",
				(unsigned)cfg.worker_uid_first, (unsigned)cfg.worker_uid_last, why);
			exit(EXIT_USAGE);
		}
		/* Other daemons may share the range: ours are the ids we
		 * hold a lock on, and never any other. */
		uid_lock_fd = uidpool_lock_open(cfg.uid_lock, why, sizeof why);
		char full[512];
		if (uid_lock_fd < 0) {
			/* A fault of its directory names the directory: say
			 * whose. */
			snprintf(full, sizeof full,
				 strstr(why, cfg.uid_lock) ? "%s" : "%s, for --uid-lock %s", why,
				 cfg.uid_lock);
			no_worker_uids(full,
				       "give --uid-lock a file that every daemon sharing the "
				       "range uses, in a directory of root's that no group or "
				       "other user may write to, on a writable file system "
				       "(under systemd, one in ReadWritePaths=), or use "
				       "--worker-user");
		}
		uint32_t claimed;
		if (uidpool_claim(uid_lock_fd, cfg.worker_uid_first, cfg.worker_uid_last,
				  cfg.max_workers, &claimed, why, sizeof why) < 0) {
			bool full_range = errno == EBUSY;
			snprintf(full, sizeof full, "%s (lock file %s)", why, cfg.uid_lock);
			no_worker_uids(full,
				       full_range ? "give this daemon another --worker-uids "
						    "range, fewer --max-workers, or --worker-user"
						  : "give --uid-lock a file on a file system with "
						    "working locks, or use --worker-user");
		}
		sc->uid_range = true;
		sc->range_first = cfg.worker_uid_first;
		sc->range_last = cfg.worker_uid_last;
		sc->uid_first = claimed;
		sc->uid_last = claimed + cfg.max_workers - 1;
		log_info("workers run as uids %u-%u, one each (claimed of %u-%u in %s)",
			 (unsigned)sc->uid_first, (unsigned)sc->uid_last, (unsigned)sc->range_first,
			 (unsigned)sc->range_last, cfg.uid_lock);
		return;
	}
	errno = 0;
	struct passwd *pw = getpwnam(cfg.worker_user);
	if (!pw && errno)
		fatal("worker user %s", cfg.worker_user);
	if (!pw)
		fatalx("worker user %s does not exist", cfg.worker_user);
	if (pw->pw_uid == 0 || pw->pw_gid == 0)
		fatalx("worker user %s must not be root", cfg.worker_user);
	sc->uid = pw->pw_uid;
	sc->gid = pw->pw_gid;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--forkserver") == 0)
		spawn_forkserver_main(argc, argv);
	int rc = config_parse(&cfg, argc, argv);
	if (rc >= 0)
		return rc;
	log_init(cfg.log_level);
	msg_alloc_init();
	notify_init();
	ensure_stdio();
	/* A client that vanishes mid-write must not kill the daemon. */
	signal(SIGPIPE, SIG_IGN);
	/* Big buffers (replies, results, frames) come and go: a fixed mmap
	 * threshold gives each back to the system when freed, where glibc's
	 * sliding one would keep them in the heap and the budgets would not be
	 * what the daemon really holds. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	rlim_t nofile = raise_nofile();
	if (loop_init() < 0)
		fatal("epoll");
	/* A job is the request's code (a frame at most), its small members and
	 * the lowered text the cache of lowered code may add. */
	struct spawn_config sc = {
		.fs = {.max_job_bytes = cfg.max_frame_bytes + 65536 + CTL_LOWERED_BYTES}};
	worker_identity(&sc);
	/* Before the socket exists: no client can have reached the forkserver. */
	if (spawn_init(&sc) < 0)
		fatalx("cannot start the forkserver");
	const char *why = NULL;
	if (listen_open(&listener, cfg.socket_path, cfg.socket_mode, &why) < 0)
		fatal("%s: %s", cfg.socket_path, why);

	struct exec_settings es = {
		.max_workers = cfg.max_workers,
		.queue_max = cfg.queue_max,
		.per_owner_running = cfg.max_running_per_owner,
		.per_owner_queued = cfg.max_queued_per_owner,
		.retention_ms = cfg.retention_ms,
		.retain_count = cfg.retain_count,
		.retain_bytes = cfg.retain_bytes,
		.reply_bytes = cfg.reply_bytes,
		.queue_bytes = cfg.queue_bytes,
	};
	exec_init(&es);
	ops_init(&cfg.limits, SANDBOXD_VERSION, cfg.retention_ms);
	struct cache_settings cache = {cfg.cache_dir, cfg.cache_max_entries, cfg.cache_max_bytes};
	cache_init(&cache);
	parse_init();
	signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (signal_fd < 0)
		fatal("signalfd");
	/* Last, once every fd of the daemon's own is open. */
	struct conn_settings cs = {.max_frame_bytes = cfg.max_frame_bytes,
				   .max_connections = cfg.max_connections,
				   .frame_timeout_ms = cfg.frame_timeout_ms,
				   .idle_timeout_ms = cfg.idle_timeout_ms,
				   .max_fds = client_fds(nofile),
				   .fd_freed = on_fd_freed,
				   .reply_bytes = cfg.reply_bytes,
				   .conn_reply_bytes = cfg.conn_reply_bytes,
				   .partial_bytes = cfg.partial_bytes,
				   .frame = ops_frame,
				   .limits = &ops_limits};
	unsigned served = conn_init(&cs);
	if (served < cfg.max_connections)
		log_warn("--max-connections %u lowered to %u: the open-files limit holds no more",
			 cfg.max_connections, served);
	if (loop_add(&signal_watch, signal_fd, EPOLLIN, on_signal) < 0 ||
	    loop_add(&listen_watch, listener.fd, EPOLLIN, on_accept) < 0)
		fatal("event loop set-up");
	log_info("sandboxd %s listening on %s (%u workers, queue %u; per owner %u running, %u "
		 "queued)",
		 SANDBOXD_VERSION,
		 listener.activated ? "the socket systemd passed" : cfg.socket_path,
		 cfg.max_workers, cfg.queue_max, cfg.max_running_per_owner,
		 cfg.max_queued_per_owner);

	notify_send("READY=1");

	if (loop_run() < 0)
		fatal("epoll_wait");

	conn_close_all();
	spawn_stop();
	cache_stop();
	parse_stop();
	registry_clear_finished();
	log_info("stopped");
	return 0;
}
