/* main.c - sandboxd: start-up, the signal-driven shutdown, and nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cache.h"
#include "config.h"
#include "conn.h"
#include "exec.h"
#include "listen.h"
#include "log.h"
#include "notify.h"
#include "loop.h"
#include "../protocol/msg.h"
#include "ops.h"
#include "registry.h"
#include "spawn.h"

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
static int signal_fd = -1;
static bool stopping, killed_all;
static uint64_t stop_deadline;

static void on_accept(struct loop_watch *w, uint32_t events)
{
	(void)events;
	conn_accept_ready(w->fd);
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

static void worker_identity(struct forkserver_config *fs)
{
	fs->change_ids = geteuid() == 0;
	if (!fs->change_ids) {
		log_info("not running as root: workers keep uid %u", (unsigned)geteuid());
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
	fs->uid = pw->pw_uid;
	fs->gid = pw->pw_gid;
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
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	if (loop_init() < 0)
		fatal("epoll");
	struct forkserver_config fs = {.max_job_bytes = cfg.max_frame_bytes + 65536};
	worker_identity(&fs);
	/* Before the socket exists: no client can have reached the forkserver. */
	if (spawn_init(&fs) < 0)
		fatalx("cannot start the forkserver");
	const char *why = NULL;
	if (listen_open(&listener, cfg.socket_path, cfg.socket_mode, &why) < 0)
		fatal("%s: %s", cfg.socket_path, why);

	struct conn_settings cs = {cfg.max_frame_bytes, cfg.max_connections, cfg.frame_timeout_ms,
				   cfg.idle_timeout_ms};
	conn_init(&cs);
	struct exec_settings es = {cfg.max_workers, cfg.queue_max, cfg.retention_ms,
				   cfg.retain_count, cfg.retain_bytes};
	exec_init(&es);
	ops_init(&cfg.limits, SANDBOXD_VERSION, cfg.retention_ms);
	struct cache_settings cache = {cfg.cache_dir, cfg.cache_max_entries, cfg.cache_max_bytes};
	cache_init(&cache);
	signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (signal_fd < 0 || loop_add(&signal_watch, signal_fd, EPOLLIN, on_signal) < 0 ||
	    loop_add(&listen_watch, listener.fd, EPOLLIN, on_accept) < 0)
		fatal("event loop set-up");
	log_info("sandboxd %s listening on %s (%u workers, queue %u)", SANDBOXD_VERSION,
		 listener.activated ? "the socket systemd passed" : cfg.socket_path,
		 cfg.max_workers, cfg.queue_max);

	notify_send("READY=1");

	if (loop_run() < 0)
		fatal("epoll_wait");

	conn_close_all();
	spawn_stop();
	cache_stop();
	registry_clear_finished();
	log_info("stopped");
	return 0;
}
