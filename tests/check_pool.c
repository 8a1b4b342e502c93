/*
 * check_pool.c - the warm pool of parked workers (server/spawn.c), through
 * the real daemon: workers cloned and confined ahead of time, each taken by
 * one execution, refilled, replaced when they die or when the forkserver
 * does, gone with the daemon; their per-request limits lowered by the
 * worker itself from the daemon's largest backstops, and biting.
 *
 * Measured here: a parked worker's USS (/proc/PID/smaps_rollup), the p50 of
 * a trivial execute with the pool on and off (alternating rounds), and a
 * burst of twice --pool executions all answered while the pool refills.
 *
 * Nothing sleeps to hide a race: every wait is for a reply or a state (a
 * process gone, the pool full), with a deadline.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define REPLY_MS 15000
#define MIB (1024ll * 1024)

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static json_t *health(const struct daemon *d)
{
	json_t *h = call_once(d->sock, json_pack("{s:s}", "op", "health"));
	ck_assert(jtrue(h, "ok"));
	return h;
}

/* Reads /proc/pid/name into buf (NUL-terminated); false when it cannot. */
static bool proc_text(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t n = 0;
	ssize_t r;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return n > 0;
}

/* The daemon's children named sandboxd-work (parked and running). */
static int workers(const struct daemon *d, pid_t *out, int max)
{
	pid_t kids[256];
	int n = daemon_children(d, kids, 256), found = 0;
	for (int i = 0; i < n && found < max; i++) {
		char comm[32];
		if (proc_text(kids[i], "comm", comm, sizeof comm) &&
		    strncmp(comm, "sandboxd-work", 13) == 0)
			out[found++] = kids[i];
	}
	return found;
}

static pid_t forkserver(const struct daemon *d) { return daemon_forkserver(d); }

/* A line "Key: N kB" of a /proc file's text, in bytes (-1 when absent). */
static long long kb_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	if (!p)
		return -1;
	return strtoll(p + strlen(key), NULL, 10) * 1024;
}

/* The soft and hard limits of one "Max ..." line of /proc/pid/limits. */
static void limit_of(pid_t pid, const char *what, long long *soft, long long *hard)
{
	char text[4096];
	ck_assert(proc_text(pid, "limits", text, sizeof text));
	const char *p = strstr(text, what);
	ck_assert_msg(p != NULL, "no %s in /proc/%d/limits", what, (int)pid);
	p += strlen(what);
	char *end;
	*soft = strtoll(p, &end, 10);
	*hard = strtoll(end, NULL, 10);
}

/* Whether pid has died: gone, or a zombie nobody reaped yet. */
static bool dead(pid_t pid)
{
	char st[512];
	if (!proc_text(pid, "stat", st, sizeof st))
		return true;
	const char *close_paren = strrchr(st, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

static void wait_dead(pid_t pid, int timeout_ms)
{
	long long deadline = now_us() + timeout_ms * 1000ll;
	while (!dead(pid)) {
		/* Ours to reap, should the daemon's death have made it so. */
		waitpid(pid, NULL, WNOHANG);
		ck_assert_msg(now_us() < deadline, "process %d still alive", (int)pid);
		pause_ms(5);
	}
}

static json_t *run(const char *sock, const char *code)
{
	return call_once(sock, json_pack("{s:s, s:s}", "op", "execute", "code", code));
}

/* ---- parked workers */

/* --pool 3: three workers parked, confined with the daemon's largest
 * backstops, each small; health says so. */
START_TEST(test_parked)
{
	struct daemon d;
	const char *args[] = {"--pool", "3", "--max-workers", "2", NULL};
	daemon_start(&d, args);
	ck_assert_int_eq(daemon_pool_full(&d, REPLY_MS), 3);
	json_t *h = health(&d);
	json_t *pool = json_object_get(h, "pool");
	ck_assert_int_eq(jint(pool, "target"), 3);
	ck_assert_int_eq(jint(pool, "parked"), 3);
	ck_assert_int_eq(jint(pool, "in_flight"), 0);
	long long runtime = jint(json_object_get(h, "sandbox"), "runtime_bytes");
	json_t *limits = json_object_get(h, "limits");
	long long max_mem = jint(limits, "memory_bytes_max"),
		  max_timeout = jint(limits, "timeout_ms_max");
	long long touched = jint(pool, "pretouch_pages"), copied = jint(pool, "probe_copied_pages");
	ck_assert_int_le(touched, copied);
	json_decref(h);
	pid_t w[8];
	ck_assert_int_eq(workers(&d, w, 8), 3);
	long long uss_max = 0, uss_sum = 0;
	for (int i = 0; i < 3; i++) {
		long long soft, hard;
		limit_of(w[i], "Max cpu time", &soft, &hard);
		ck_assert_int_eq(soft, max_timeout / 1000 + 1);
		ck_assert_int_eq(hard, soft + 1);
		limit_of(w[i], "Max address space", &soft, &hard);
		ck_assert_int_eq(soft, runtime + 2 * max_mem + 64 * MIB);
		char text[4096];
		/* A non-dumpable process's smaps_rollup is root's. */
		if (!proc_text(w[i], "smaps_rollup", text, sizeof text)) {
			ck_assert_msg(geteuid() != 0, "cannot read /proc/%d/smaps_rollup",
				      (int)w[i]);
			continue;
		}
		long long uss = kb_field(text, "Private_Clean:") + kb_field(text, "Private_Dirty:");
		uss_sum += uss;
		if (uss > uss_max)
			uss_max = uss;
	}
	if (uss_sum == 0)
		printf("check_pool: not run: a parked worker's USS: needs root (a non-dumpable "
		       "worker's /proc/PID/smaps_rollup is root's)\n");
	else
		printf("check_pool: a parked worker's USS: %lld KiB at most, %lld KiB on average "
		       "(3 parked), %lld of the %lld pages a trivial job copies pre-touched\n",
		       uss_max / 1024, uss_sum / 3 / 1024, touched, copied);
	/* The target is 160 KiB. */
	ck_assert_int_le(uss_max, 160 * 1024);
	json_t *r = run(d.sock, "return 6 * 7");
	ck_assert_int_eq(jint(r, "value"), 42);
	json_decref(r);
	ck_assert_int_eq(daemon_pool_full(&d, REPLY_MS), 3);
	ck_assert_int_ge(daemon_pool_stat(&d, "hits"), 1);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* --pool 0: nothing parked, workers cloned on demand, as before. */
START_TEST(test_pool_off)
{
	struct daemon d;
	const char *args[] = {"--pool", "0", NULL};
	daemon_start(&d, args);
	for (int i = 0; i < 3; i++) {
		json_t *r = run(d.sock, "return 1 + 1");
		ck_assert_int_eq(jint(r, "value"), 2);
		json_decref(r);
	}
	ck_assert_int_eq(daemon_pool_stat(&d, "target"), 0);
	ck_assert_int_eq(daemon_pool_stat(&d, "parked"), 0);
	ck_assert_int_eq(daemon_pool_stat(&d, "hits"), 0);
	ck_assert_int_eq(daemon_pool_stat(&d, "misses"), 3);
	/* The reply comes before the worker is reaped: none is left once
	 * they are, and none is parked. */
	pid_t w[4];
	long long deadline = now_us() + REPLY_MS * 1000ll;
	while (workers(&d, w, 4) != 0) {
		ck_assert_msg(now_us() < deadline, "a worker is left with --pool 0");
		pause_ms(5);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- per-request limits through the backstops */

/* The worker of a job lowers RLIMIT_CPU and RLIMIT_AS to that job's, from
 * the parked ones' backstops; health counts it in flight. */
START_TEST(test_limits_lowered)
{
	struct daemon d;
	const char *args[] = {"--pool", "2", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"id\":\"spin\",\"code\":\"console.log('up'); "
			 "for(;;){}\",\"timeout_ms\":5000,\"memory_bytes\":16777216}");
	json_t *started = client_started(&c, "spin", REPLY_MS);
	json_t *ev = client_recv(&c, REPLY_MS);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	json_decref(ev);
	pid_t w = daemon_worker_by_timeout(&d, 5000);
	ck_assert_int_gt(w, 0);
	json_t *h = health(&d);
	long long runtime = jint(json_object_get(h, "sandbox"), "runtime_bytes");
	ck_assert_int_eq(jint(json_object_get(h, "pool"), "in_flight"), 1);
	json_decref(h);
	long long soft, hard;
	limit_of(w, "Max cpu time", &soft, &hard);
	ck_assert_int_eq(soft, 6);
	ck_assert_int_eq(hard, 7);
	limit_of(w, "Max address space", &soft, &hard);
	ck_assert_int_eq(soft, runtime + 2 * 16 * MIB + 64 * MIB);
	ck_assert_int_eq(hard, soft);
	printf("check_pool: a job of 5000 ms and 16 MiB: RLIMIT_CPU %lld s, RLIMIT_AS %lld MiB "
	       "(lowered by the worker)\n",
	       6ll, soft / MIB);
	client_sendf(&c, "{\"op\":\"cancel\",\"execution_id\":\"%s\"}",
		     jstr(started, "execution_id"));
	json_decref(started);
	for (int finals = 0; finals < 2;) {
		json_t *m = client_recv(&c, REPLY_MS);
		ck_assert_ptr_nonnull(m);
		if (json_object_get(m, "ok"))
			finals++;
		json_decref(m);
	}
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A small memory_bytes and a short timeout still bite with every worker
 * parked under the largest backstops. */
START_TEST(test_limits_bite)
{
	struct daemon d;
	const char *args[] = {"--pool", "2", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	json_t *r = exec_once(d.sock, "{\"code\":\"var a = []; for (;;) a.push({k: a.length, "
				      "s: 'v' + a.length});\",\"memory_bytes\":8388608}");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "memory");
	json_decref(r);
	long long t0 = now_us();
	r = exec_once(d.sock, "{\"code\":\"for(;;){}\",\"timeout_ms\":300}");
	long long took = now_us() - t0;
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	json_decref(r);
	ck_assert_int_lt(took, 5000000);
	ck_assert_int_ge(daemon_pool_stat(&d, "hits"), 1);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* The CPU backstop itself, with the supervisor's timer out of the way: the
 * supervisor is stopped while its worker spins in the regular expression
 * engine (which the engine's own CPU budget does not interrupt), and the
 * worker, parked with the largest backstop (121 s), dies of the 3 s it
 * lowered it to for its 2000 ms job. */
START_TEST(test_cpu_backstop_bites)
{
	struct daemon d;
	const char *args[] = {"--pool", "1", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c,
		     "{\"op\":\"stream\",\"id\":\"spin\",\"code\":\"console.log('up'); "
		     "return /(a+)+$/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')\","
		     "\"timeout_ms\":2000}");
	json_decref(client_started(&c, "spin", REPLY_MS));
	json_t *ev = client_recv(&c, REPLY_MS);
	ck_assert_ptr_nonnull(ev);
	json_decref(ev);
	pid_t w = daemon_worker_by_timeout(&d, 2000);
	ck_assert_int_gt(w, 0);
	ck_assert_int_eq(kill(d.pid, SIGSTOP), 0);
	wait_dead(w, 20000);
	char st[512];
	double cpu = -1;
	if (proc_text(w, "stat", st, sizeof st)) {
		unsigned long long ut, stm;
		const char *p = strrchr(st, ')');
		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&stm) == 2)
			cpu = (double)(ut + stm) / (double)sysconf(_SC_CLK_TCK);
	}
	ck_assert_int_eq(kill(d.pid, SIGCONT), 0);
	printf("check_pool: supervisor stopped: the worker of a 2000 ms job died of its own "
	       "RLIMIT_CPU after %.2f s of CPU\n",
	       cpu);
	/* At its 3 s soft limit (SIGXCPU), before its 4 s hard one. */
	ck_assert_msg(cpu >= 2.5 && cpu < 4.5, "the worker ran %.2f s of CPU", cpu);
	json_t *r = client_reply(&c, NULL, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert(!jtrue(r, "success"));
	printf("check_pool: its reply: state %s, %s\n", jstr(r, "state"), err_msg(r));
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- replacement */

static bool among(pid_t p, const pid_t *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == p)
			return true;
	return false;
}

/* A forkserver that dies takes its parked clones with it: killed, reaped,
 * and the pool filled again from the new forkserver. */
START_TEST(test_forkserver_restart)
{
	struct daemon d;
	const char *args[] = {"--pool", "3", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	pid_t old[8];
	ck_assert_int_eq(workers(&d, old, 8), 3);
	pid_t fs = forkserver(&d);
	ck_assert_int_gt(fs, 0);
	ck_assert_int_eq(kill(fs, SIGKILL), 0);
	long long deadline = now_us() + REPLY_MS * 1000ll;
	while (daemon_pool_stat(&d, "forkserver_restarts") < 1) {
		ck_assert(now_us() < deadline);
		pause_ms(5);
	}
	daemon_pool_full(&d, REPLY_MS);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(kill(old[i], 0) < 0 && errno == ESRCH,
			      "parked worker %d of the old forkserver survived", (int)old[i]);
	pid_t now[8];
	ck_assert_int_eq(workers(&d, now, 8), 3);
	for (int i = 0; i < 3; i++)
		ck_assert(!among(now[i], old, 3));
	ck_assert_int_ne(forkserver(&d), fs);
	json_t *r = run(d.sock, "return 'after'");
	ck_assert_str_eq(jstr(r, "value"), "after");
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Parked workers that die are reaped and replaced, and never handed out:
 * with every parked one killed (and dead), the executions sent at once
 * all succeed. */
START_TEST(test_parked_death)
{
	struct daemon d;
	const char *args[] = {"--pool", "2", "--max-workers", "4", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	pid_t w[8];
	ck_assert_int_eq(workers(&d, w, 8), 2);
	ck_assert_int_eq(kill(w[0], SIGKILL), 0);
	long long deadline = now_us() + REPLY_MS * 1000ll;
	while (daemon_pool_stat(&d, "died") < 1) {
		ck_assert(now_us() < deadline);
		pause_ms(5);
	}
	daemon_pool_full(&d, REPLY_MS);
	ck_assert_msg(kill(w[0], 0) < 0 && errno == ESRCH, "the dead parked worker is unreaped");

	ck_assert_int_eq(workers(&d, w, 8), 2);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(kill(w[i], SIGKILL), 0);
	for (int i = 0; i < 2; i++)
		wait_dead(w[i], REPLY_MS);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	for (int i = 0; i < 4; i++)
		client_sendf(&c, "{\"op\":\"execute\",\"code\":\"return %d\"}", i);
	for (int i = 0; i < 4; i++) {
		json_t *r = client_reply(&c, NULL, REPLY_MS);
		ck_assert_ptr_nonnull(r);
		ck_assert_msg(jtrue(r, "success"), "an execution got a dead worker: %s",
			      err_msg(r));
		json_decref(r);
	}
	client_close(&c);
	daemon_pool_full(&d, REPLY_MS);
	ck_assert_int_ge(daemon_pool_stat(&d, "died"), 3);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* SIGKILL the supervisor: no parked worker, running worker or forkserver
 * is left. */
START_TEST(test_none_survives_the_daemon)
{
	struct daemon d;
	const char *args[] = {"--pool", "3", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"id\":\"spin\",\"code\":\"console.log('up'); "
			 "for(;;){}\",\"timeout_ms\":60000}");
	json_decref(client_started(&c, "spin", REPLY_MS));
	json_t *ev = client_recv(&c, REPLY_MS);
	ck_assert_ptr_nonnull(ev);
	json_decref(ev);
	daemon_pool_full(&d, REPLY_MS);
	pid_t kids[64];
	int n = daemon_children(&d, kids, 64);
	ck_assert_int_eq(n, 1 + 3 + 1); /* forkserver, parked, running */
	ck_assert_int_eq(kill(d.pid, SIGKILL), 0);
	int st = daemon_wait(&d, REPLY_MS);
	ck_assert(WIFSIGNALED(st));
	for (int i = 0; i < n; i++)
		wait_dead(kids[i], REPLY_MS);
	printf("check_pool: SIGKILL of the supervisor: its %d children (forkserver, 3 parked, "
	       "1 running) all died\n",
	       n);
	client_close(&c);
	daemon_stop(&d);
}
END_TEST

/* ---- load */

/* Twice --pool executions at once: all answered, the pool emptied and
 * refilled meanwhile. */
START_TEST(test_burst)
{
	struct daemon d;
	const char *args[] = {"--pool", "4", "--max-workers", "4", "--max-running-per-owner",
			      "4",	NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	enum { ROUNDS = 5, BURST = 8 };
	long long worst = 0;
	for (int round = 0; round < ROUNDS; round++) {
		struct client c;
		ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
		long long t0 = now_us();
		for (int i = 0; i < BURST; i++)
			client_sendf(&c, "{\"op\":\"execute\",\"code\":\"return %d * 2\"}", i);
		long long seen = 0;
		for (int i = 0; i < BURST; i++) {
			json_t *r = client_reply(&c, NULL, REPLY_MS);
			ck_assert_ptr_nonnull(r);
			ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
			seen += jint(r, "value");
			json_decref(r);
		}
		long long took = now_us() - t0;
		if (took > worst)
			worst = took;
		ck_assert_int_eq(seen, 2 * (BURST * (BURST - 1) / 2));
		client_close(&c);
		daemon_pool_full(&d, REPLY_MS);
	}
	long long hits = daemon_pool_stat(&d, "hits"), misses = daemon_pool_stat(&d, "misses");
	printf("check_pool: %d bursts of %d executions on --pool 4: all answered (slowest burst "
	       "%.1f ms); %lld found a parked worker, %lld had one cloned\n",
	       ROUNDS, BURST, (double)worst / 1000, hits, misses);
	ck_assert_int_eq(hits + misses, ROUNDS * BURST);
	ck_assert_int_ge(hits, ROUNDS * 4 / 2);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

/* One trivial execute's round trip, in microseconds, on an open client. */
static long long one_exec(struct client *c)
{
	long long t0 = now_us();
	client_sendf(c, "{\"op\":\"execute\",\"code\":\"return 1\"}");
	json_t *r = client_reply(c, NULL, REPLY_MS);
	long long took = now_us() - t0;
	ck_assert_ptr_nonnull(r);
	ck_assert(jtrue(r, "success"));
	json_decref(r);
	return took;
}

/* The p50 of a trivial execute, back to back and paced (5 ms apart, so a
 * refill is over before the next request), pool on and off, in
 * alternating rounds of the same run. */
START_TEST(test_latency)
{
	struct daemon on, off;
	const char *a_on[] = {"--log-level", "warn", NULL};
	const char *a_off[] = {"--log-level", "warn", "--pool", "0", NULL};
	daemon_start(&on, a_on);
	daemon_start(&off, a_off);
	daemon_pool_full(&on, REPLY_MS);
	enum { ROUNDS = 6, PER = 50 };
	static long long t[2][2][ROUNDS * PER];
	struct daemon *ds[2] = {&on, &off};
	for (int round = 0; round < ROUNDS; round++) {
		for (int k = 0; k < 2; k++) {
			struct client c;
			ck_assert_int_eq(client_open(&c, ds[k]->sock, FRAME_MODE_BINARY), 0);
			for (int i = 0; i < PER; i++)
				t[k][0][round * PER + i] = one_exec(&c);
			for (int i = 0; i < PER; i++) {
				pause_ms(5);
				t[k][1][round * PER + i] = one_exec(&c);
			}
			client_close(&c);
		}
	}
	double p50[2][2];
	for (int k = 0; k < 2; k++)
		for (int m = 0; m < 2; m++) {
			qsort(t[k][m], ROUNDS * PER, sizeof t[k][m][0], cmp_ll);
			p50[k][m] = (double)t[k][m][ROUNDS * PER / 2] / 1000;
		}
	printf("check_pool: trivial execute p50, back to back: pool on %.3f ms, off %.3f ms "
	       "(%.2fx); paced 5 ms apart: on %.3f ms, off %.3f ms (%.2fx)\n",
	       p50[0][0], p50[1][0], p50[0][0] / p50[1][0], p50[0][1], p50[1][1],
	       p50[0][1] / p50[1][1]);
	/* Paced, each refill is over before the next request comes: every
	 * execute found a parked worker, so no clone and no confinement was
	 * on its path. The times themselves are printed, not held to: on a
	 * shared machine they vary more than the pool saves, and back to back
	 * on a busy one the refill competes for the CPU with the next request
	 * (the pool saves latency, not CPU). */
	long long hits = daemon_pool_stat(&on, "hits");
	ck_assert_int_ge(hits, ROUNDS * PER);
	ck_assert_int_eq(daemon_pool_stat(&off, "hits"), 0);
	ck_assert_int_eq(daemon_stop(&on), 0);
	ck_assert_int_eq(daemon_stop(&off), 0);
}
END_TEST

/* Refills are never on a reply's path: with the forkserver stopped, so
 * that no refill can finish, each parked worker still serves one execute,
 * answered as fast as with the forkserver running; once it runs again the
 * pool fills. */
START_TEST(test_refill_off_the_path)
{
	struct daemon d;
	const char *args[] = {"--pool", "4", "--max-workers", "4", NULL};
	daemon_start(&d, args);
	daemon_pool_full(&d, REPLY_MS);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	long long running[2] = {one_exec(&c), one_exec(&c)};
	daemon_pool_full(&d, REPLY_MS);
	pid_t fs = forkserver(&d);
	ck_assert_int_gt(fs, 0);
	ck_assert_int_eq(kill(fs, SIGSTOP), 0);
	long long stopped[4];
	for (int i = 0; i < 4; i++)
		stopped[i] = one_exec(&c);
	ck_assert_int_eq(daemon_pool_stat(&d, "parked"), 0);
	ck_assert_int_ge(daemon_pool_stat(&d, "starting"), 1);
	ck_assert_int_eq(kill(fs, SIGCONT), 0);
	daemon_pool_full(&d, REPLY_MS);
	printf("check_pool: with the forkserver stopped (no refill can finish), 4 executes on "
	       "the 4 parked workers took %.2f %.2f %.2f %.2f ms (%.2f %.2f with it running)\n",
	       (double)stopped[0] / 1000, (double)stopped[1] / 1000, (double)stopped[2] / 1000,
	       (double)stopped[3] / 1000, (double)running[0] / 1000, (double)running[1] / 1000);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pool");
	TCase *parked = tcase_create("parked");
	tcase_add_test(parked, test_parked);
	tcase_add_test(parked, test_pool_off);
	tcase_set_timeout(parked, 60);
	suite_add_tcase(s, parked);
	TCase *limits = tcase_create("limits");
	tcase_add_test(limits, test_limits_lowered);
	tcase_add_test(limits, test_limits_bite);
	tcase_add_test(limits, test_cpu_backstop_bites);
	tcase_set_timeout(limits, 60);
	suite_add_tcase(s, limits);
	TCase *replace = tcase_create("replacement");
	tcase_add_test(replace, test_forkserver_restart);
	tcase_add_test(replace, test_parked_death);
	tcase_add_test(replace, test_none_survives_the_daemon);
	tcase_set_timeout(replace, 60);
	suite_add_tcase(s, replace);
	TCase *load = tcase_create("load");
	tcase_add_test(load, test_burst);
	tcase_add_test(load, test_refill_off_the_path);
	tcase_add_test(load, test_latency);
	tcase_set_timeout(load, 180);
	suite_add_tcase(s, load);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
