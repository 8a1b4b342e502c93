/*
 * check_fds.c - the daemon's file descriptors: the open-files limit, the
 * fds kept for workers out of clients' reach, accepting paused on EMFILE
 * without spinning, and the socket file made without following links.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The CPU the process has used (user + system), in ms, from /proc. */
static long long cpu_ms(pid_t pid)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	fclose(f);
	/* Fields after the command, which may hold spaces: state is 3rd. */
	const char *p = strrchr(line, ')');
	ck_assert_ptr_nonnull(p);
	unsigned long long utime = 0, stime = 0;
	ck_assert_int_eq(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&utime, &stime),
			 2);
	return (long long)((utime + stime) * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
}

/* Lines of the daemon's log holding needle. */
static int log_lines(const struct daemon *d, const char *needle)
{
	char *log = daemon_log(d);
	int n = 0;
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
		n += strstr(line, needle) != NULL;
	free(log);
	return n;
}

/* A health round trip: 1 answered, 0 refused (UNAVAILABLE or closed). */
static int health(struct client *c)
{
	client_sendf(c, "{\"op\":\"health\"}");
	json_t *r = client_reply(c, NULL, 10000);
	if (!r)
		return 0;
	int ok = jtrue(r, "ok");
	if (!ok)
		ck_assert_str_eq(err_code(r), "UNAVAILABLE");
	json_decref(r);
	return ok;
}

static void check_runs(const char *sock, const char *tag)
{
	json_t *r = exec_once(
		sock, "{\"op\":\"execute\",\"code\":\"console.log('%s'); return 6 * 7\"}", tag);
	ck_assert_msg(jtrue(r, "ok") && jtrue(r, "success"), "execution failed: %s",
		      json_dumps(r, 0));
	ck_assert_int_eq(jint(r, "value"), 42);
	json_decref(r);
}

#define MAX_CLIENTS 400

/*
 * Under a low open-files limit, clients take every connection the daemon
 * serves; the rest are refused, the daemon stays idle while they wait, and
 * executions (several at once, each needing its pipes) still run: the fds
 * they need were kept back. Once clients leave, new ones are served.
 */
START_TEST(test_reserve_holds_under_flood)
{
	/* The daemon inherits this; the test holds fewer fds than it. */
	struct rlimit rl = {200, 200};
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	struct daemon d;
	const char *args[] = {"--max-workers", "3", "--max-connections", "1024", NULL};
	daemon_start(&d, args);
	ck_assert_int_eq(log_lines(&d, "open files: at most 200"), 1);
	ck_assert_int_eq(log_lines(&d, "--max-connections 1024 lowered to"), 1);

	static struct client c[MAX_CLIENTS];
	int served = 0, refused = 0, n = 0;
	/* Open until refused, then as many again, all held open. */
	while (n < MAX_CLIENTS - 10 && refused < 20) {
		ck_assert_int_eq(client_open(&c[n], d.sock, FRAME_MODE_LINE), 0);
		if (health(&c[n])) {
			ck_assert_int_eq(refused, 0); /* no one is served after a refusal */
			served++;
			n++;
		} else {
			refused++;
			client_close(&c[n]);
		}
	}
	ck_assert_int_gt(served, 50);
	ck_assert_int_eq(refused, 20);
	int fds = daemon_fd_count(&d);
	printf("fds: %d clients served, %d refused; the daemon holds %d fds of 200\n", served,
	       refused, fds);
	ck_assert_int_lt(fds, 200 - 3 * 4);

	/* While every connection is taken: three executions at once, each
	 * with its pidfd, control socket and pipes. */
	struct client x[3];
	for (int i = 0; i < 3; i++) {
		x[i] = c[i];
		client_sendf(
			&x[i],
			"{\"op\":\"stream\",\"id\":%d,\"code\":\"console.log('run %d'); var t = "
			"Date.now(); while (Date.now() - t < 100) {} return %d\"}",
			i, i, i);
	}
	for (int i = 0; i < 3; i++) {
		json_t *events = json_array();
		json_t *r = client_reply(&x[i], events, 20000);
		ck_assert_msg(r && jtrue(r, "success"), "execution %d failed: %s", i,
			      r ? json_dumps(r, 0) : "no reply");
		ck_assert_int_eq(jint(r, "value"), i);
		ck_assert_uint_ge(json_array_size(events), 1);
		json_decref(r);
		json_decref(events);
	}

	/* Flooded by clients that connect and say nothing: the first few are
	 * kept to be told why once they speak, the rest closed at once. The
	 * daemon stays idle, and says so once. */
	enum { SILENT = 30 };
	static struct client q[SILENT];
	for (int i = 0; i < SILENT; i++)
		ck_assert_int_eq(client_open(&q[i], d.sock, FRAME_MODE_LINE), 0);
	int closed = 0;
	for (int i = 0; i < SILENT; i++)
		closed += client_eof(&q[i], i == SILENT - 1 ? 5000 : 200);
	ck_assert_int_gt(closed, 0);
	long long cpu0 = cpu_ms(d.pid), t0 = now_ms();
	struct timespec second = {1, 0};
	nanosleep(&second, NULL); /* the wall interval the CPU is measured over */
	long long idle_cpu = cpu_ms(d.pid) - cpu0;
	printf("fds: %d silent clients over the limit (%d closed at once): the daemon used %lld "
	       "ms of CPU in %lld ms\n",
	       SILENT, closed, idle_cpu, now_ms() - t0);
	ck_assert_int_lt(idle_cpu, 100);
	for (int i = 0; i < SILENT; i++)
		client_close(&q[i]);

	/* Refused clients keep knocking: each costs a reply or an accept. */
	cpu0 = cpu_ms(d.pid);
	t0 = now_ms();
	int knocks = 0;
	while (now_ms() - t0 < 1000) {
		struct client k;
		ck_assert_int_eq(client_open(&k, d.sock, FRAME_MODE_LINE), 0);
		ck_assert_int_eq(health(&k), 0);
		client_close(&k);
		knocks++;
	}
	long long used = cpu_ms(d.pid) - cpu0, wall = now_ms() - t0;
	printf("fds: %d refused connections in %lld ms cost the daemon %lld ms of CPU\n", knocks,
	       wall, used);
	ck_assert_int_gt(knocks, 10);
	/* Each knock is an accept and a close, or one UNAVAILABLE reply. */
	ck_assert_int_lt(used, wall / 2);
	int lines = log_lines(&d, "connection refused");
	printf("fds: %d 'connection refused' log lines\n", lines);
	ck_assert_int_ge(lines, 1);
	ck_assert_int_le(lines, 6);

	/* Clients leave: a new one is served. */
	for (int i = 0; i < n; i++)
		client_close(&c[i]);
	struct client late;
	bool ok = false;
	for (long long until = now_ms() + 10000; !ok && now_ms() < until;) {
		ck_assert_int_eq(client_open(&late, d.sock, FRAME_MODE_LINE), 0);
		ok = health(&late);
		client_close(&late);
	}
	ck_assert(ok);
	check_runs(d.sock, "after");
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/*
 * The daemon runs out of fds for real (its limit lowered under it): the
 * listener is paused, not polled in a loop, the failure is logged once a
 * second at most, and accepting resumes when fds are there again.
 */
START_TEST(test_emfile_pauses_accepting)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct rlimit old;
	ck_assert_int_eq(prlimit(d.pid, RLIMIT_NOFILE, NULL, &old), 0);
	int have = daemon_fd_count(&d);
	struct rlimit low = {(rlim_t)have + 5, old.rlim_max};
	ck_assert_int_eq(prlimit(d.pid, RLIMIT_NOFILE, &low, NULL), 0);

	enum { N = 40 };
	static struct client c[N];
	long long start = now_ms();
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(client_open(&c[i], d.sock, FRAME_MODE_LINE), 0);
		client_sendf(&c[i], "{\"op\":\"health\"}");
	}
	/* The first few are served; the rest wait in the listen queue. */
	int answered = 0;
	for (int i = 0; i < N; i++) {
		json_t *r = client_reply(&c[i], NULL, i < 5 ? 10000 : 50);
		answered += r && jtrue(r, "ok");
		json_decref(r);
	}
	ck_assert_int_ge(answered, 3);
	ck_assert_int_le(answered, 8);

	long long cpu0 = cpu_ms(d.pid), t0 = now_ms();
	/* Wait on the daemon's log, not on a clock: the pause message. */
	while (log_lines(&d, "pausing accepting") == 0 && now_ms() - t0 < 10000)
		usleep(20000);
	struct timespec pause = {1, 500000000};
	nanosleep(&pause, NULL); /* a wall interval to measure the CPU over */
	long long used = cpu_ms(d.pid) - cpu0, wall = now_ms() - t0;
	int lines = log_lines(&d, "pausing accepting");
	printf("fds: EMFILE for %lld ms cost the daemon %lld ms of CPU and %d log lines\n", wall,
	       used, lines);
	ck_assert_int_ge(lines, 1);
	ck_assert_int_le(lines, (int)((now_ms() - start) / 1000) + 1);
	ck_assert_int_lt(used, 200);

	/* fds again: every waiting client is answered. */
	ck_assert_int_eq(prlimit(d.pid, RLIMIT_NOFILE, &old, NULL), 0);
	for (int i = 0; i < N; i++) {
		json_t *r = client_reply(&c[i], NULL, 200);
		if (r) {
			ck_assert(jtrue(r, "ok"));
			answered++;
		}
		json_decref(r);
	}
	ck_assert_int_eq(answered, N);
	for (int i = 0; i < N; i++)
		client_close(&c[i]);
	check_runs(d.sock, "resumed");
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Runs the daemon on sock until it is ready (it says it is listening) or
 * exits; returns its pid, or -1 when it exited (its status in *st). */
static pid_t start_raw(const char *sock, const char *mode, const char *dir, int *st)
{
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	char cache[100], log[100], lock[100];
	snprintf(cache, sizeof cache, "%.80s/cache", dir);
	snprintf(lock, sizeof lock, "%.80s/uids.lock", dir);
	snprintf(log, sizeof log, "%.80s/log", dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(fd, 2) < 0)
			_exit(126);
		execl(bin, bin, "--socket", sock, "--socket-mode", mode, "--cache-dir", cache,
		      "--uid-lock", lock, (char *)NULL);
		_exit(127);
	}
	close(fd);
	struct daemon d = {.pid = pid};
	snprintf(d.log, sizeof d.log, "%s", log);
	for (long long until = now_ms() + 10000; now_ms() < until;) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return -1;
		if (log_lines(&d, "listening on") > 0)
			return pid;
		usleep(10000);
	}
	ck_abort_msg("the daemon neither started nor exited");
	return -1;
}

static void stop_raw(pid_t pid)
{
	int st;
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* The socket file gets exactly --socket-mode, whatever the umask. */
START_TEST(test_socket_mode_exact)
{
	char dir[] = "/tmp/sandboxd-fds-XXXXXX", sock[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof sock, "%s/s.sock", dir);
	const char *modes[] = {"0600", "0660", "0666", "0604"};
	const mode_t want[] = {0600, 0660, 0666, 0604};
	umask(0077);
	for (int i = 0; i < 4; i++) {
		int st;
		pid_t pid = start_raw(sock, modes[i], dir, &st);
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(mode_of(sock), want[i]);
		stop_raw(pid);
	}
	char cmd[100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	(void)!system(cmd);
}
END_TEST

/*
 * A symlink at the socket path, planted before start or swapped in while
 * the daemon binds, never gets the file it points at re-moded.
 */
START_TEST(test_symlink_not_followed)
{
	char dir[] = "/tmp/sandboxd-fds-XXXXXX", sock[64], victim[64], link[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof sock, "%s/s.sock", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	int fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(chmod(victim, 0600), 0);

	/* Planted before: the daemon refuses the path. */
	ck_assert_int_eq(symlink(victim, sock), 0);
	int st;
	ck_assert_int_eq(start_raw(sock, "0666", dir, &st), -1);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_int_eq(mode_of(victim), 0600);
	ck_assert_int_eq(unlink(sock), 0);

	/* Swapped in: a child replaces the socket file with the link as soon
	 * as it appears, again and again, while daemons start. */
	pid_t racer = fork();
	ck_assert_int_ge(racer, 0);
	if (racer == 0) {
		for (;;) {
			struct stat s;
			if (lstat(sock, &s) == 0 && S_ISSOCK(s.st_mode)) {
				(void)!symlink(victim, link);
				(void)!rename(link, sock);
			}
		}
	}
	for (int i = 0; i < 20; i++) {
		pid_t pid = start_raw(sock, "0666", dir, &st);
		if (pid > 0) {
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
		}
		unlink(sock);
		ck_assert_int_eq(mode_of(victim), 0600);
	}
	kill(racer, SIGKILL);
	waitpid(racer, &st, 0);
	ck_assert_int_eq(mode_of(victim), 0600);
	char cmd[100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	(void)!system(cmd);
}
END_TEST

/* One health round trip on a fresh connection: 1 answered, 0 refused
 * (UNAVAILABLE, reset or closed unanswered). */
static int probe(const char *sock)
{
	struct client c;
	if (client_open(&c, sock, FRAME_MODE_LINE) < 0)
		return 0;
	static const char req[] = "{\"op\":\"health\"}\n";
	int ok = 0;
	if (send(c.fd, req, sizeof req - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof req - 1)) {
		json_t *r = client_reply(&c, NULL, 10000);
		ok = r && jtrue(r, "ok");
		json_decref(r);
	}
	client_close(&c);
	return ok;
}

/*
 * A connect-and-close flood from two processes of one uid, against a table
 * of 64 connections: accepting takes a bounded number a turn, and peers
 * that hung up are reaped before a newcomer is refused, so another client
 * is still served (it was refused 31 times in 78 before, with turns of
 * 126 ms to 2.7 s), and no loop turn is long.
 */
START_TEST(test_connect_close_flood)
{
	const char *args[] = {"--max-connections", "64", NULL};
	struct daemon d;
	daemon_start(&d, args);
	enum { FLOODERS = 2, FLOOD_MS = 3000 };
	pid_t kids[FLOODERS];
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	for (int k = 0; k < FLOODERS; k++) {
		kids[k] = fork();
		ck_assert_int_ge(kids[k], 0);
		if (kids[k] == 0) {
			long long end = now_ms() + FLOOD_MS;
			unsigned long n = 0;
			while (now_ms() < end) {
				struct client c;
				if (client_open(&c, d.sock, FRAME_MODE_LINE) == 0) {
					client_close(&c);
					n++;
				}
			}
			(void)!write(pfd[1], &n, sizeof n);
			_exit(0);
		}
	}
	close(pfd[1]);
	int served = 0, refused = 0;
	long long end = now_ms() + FLOOD_MS - 200;
	while (now_ms() < end) {
		if (probe(d.sock))
			served++;
		else
			refused++;
		struct timespec ts = {0, 20 * 1000000};
		nanosleep(&ts, NULL);
	}
	unsigned long flood = 0, n;
	while (read(pfd[0], &n, sizeof n) == (ssize_t)sizeof n)
		flood += n;
	close(pfd[0]);
	for (int k = 0; k < FLOODERS; k++)
		waitpid(kids[k], NULL, 0);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_sendf(&c, "{\"op\":\"health\"}");
	json_t *h = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(h);
	long long turn = jint(json_object_get(h, "loop"), "max_turn_us");
	json_decref(h);
	client_close(&c);
	printf("fds: %lu connect-and-close in %d ms: another client served %d, refused %d; "
	       "longest loop turn %.2f ms\n",
	       flood, FLOOD_MS, served, refused, (double)turn / 1000);
	ck_assert_int_gt(flood, 1000);
	ck_assert_int_gt(served, 10);
	ck_assert_msg(refused * 10 <= served, "%d of %d health probes refused", refused,
		      served + refused);
	ck_assert_msg(turn < 50000, "a loop turn of %lld us", turn);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fds");
	TCase *tc = tcase_create("limits");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_reserve_holds_under_flood);
	tcase_add_test(tc, test_emfile_pauses_accepting);
	tcase_add_test(tc, test_connect_close_flood);
	suite_add_tcase(s, tc);
	tc = tcase_create("socket file");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_socket_mode_exact);
	tcase_add_test(tc, test_symlink_not_followed);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
