/*
 * bench.c - `make bench`: what an execution costs, beside the floors it
 * cannot beat, all measured in the same run on the same machine.
 *
 *   floor: fork + _exit + waitpid of a tiny process; a Unix socket round trip
 *   engine: preparing a Duktape heap (what the forkserver saves each worker)
 *           against running a trivial script in a prepared one
 *   daemon: a trivial execute back to back (p50/p99, and the CPU all of
 *           sandboxd's processes spend on each, from /proc), open loop at
 *           200/s and 1000/s (latency from the scheduled send), 16
 *           concurrent clients' throughput, a unique script beside a
 *           repeated one, a modern script's first run beside its repeats,
 *           console.log to the output event, cancel to the final reply
 *           under load, the USS of a parked worker, and the supervisor's
 *           RSS with 100 executions running and 1000 queued
 *   bridge: what bin/sandboxd-mcp adds to a trivial execute: `tools/call
 *           execute` through the bridge (a child on pipes, as a host runs
 *           it) against the same execute sent to the daemon directly,
 *           interleaved, p50/p99 of each and the difference
 *   hostile: the daemon's longest event-loop turn and its RSS under each
 *           class of the hostile corpus (tests/data/hostile), then under all
 *           of it at once while normal executions run beside it
 *
 * Side by side (`make bench BASELINE=<rev>`, which builds that revision
 * under build/baseline/ and names it in BENCH_BASELINE): the daemon's
 * figures are measured in BENCH_ROUNDS rounds (default 3), each with a
 * daemon of both builds running each phase on one and then the other, the
 * baseline first in odd rounds, all driven by this client; then printed
 * side by side: the median of each build's rounds, their range and the
 * ratio. Only options both builds know are given; a figure a build cannot
 * give is n/a, with why.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "hostile.h"
#include "testlib.h"

#define SEQ_RUNS 10000 /* the CPU figure is over 10,000 executions */
#define CLIENTS 16
#define THROUGHPUT_SECONDS 3

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The wall clock in ms since the epoch, as the worker's
 * performance.timeOrigin + performance.now() gives it. */
static double wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i];
}

static void row(const char *what, double *samples, size_t n)
{
	double p50 = pct(samples, n, 50), p99 = pct(samples, n, 99);
	printf("  %-44s p50 %8.1f us   p99 %8.1f us   (n=%zu)\n", what, p50, p99, n);
}

/* ---- the figures a round gives, kept for the side-by-side table */

enum fig {
	F_SEQ_P50,
	F_SEQ_P99,
	F_CPU,
	F_USS,
	F_OL200_P50,
	F_OL200_P99,
	F_OL1000_P50,
	F_OL1000_P99,
	F_TP,
	F_UNIQUE,
	F_REPEAT,
	F_MOD_FIRST,
	F_MOD_REPEAT,
	F_MOD_SPEEDUP,
	F_ASYNC60,
	F_LOG_P50,
	F_LOG_P99,
	F_CANCEL_P50,
	F_CANCEL_P99,
	F_BRIDGE,
	F_RSS,
	F_COUNT
};

static const struct {
	const char *name, *unit, *target;
} figs[F_COUNT] = {
	[F_SEQ_P50] = {"execute back to back, p50", "us", "<= 0.6x baseline"},
	[F_SEQ_P99] = {"execute back to back, p99", "us", ""},
	[F_CPU] = {"CPU per execute, all processes", "us", "<= 450"},
	[F_USS] = {"USS per parked worker", "KiB", "<= 160"},
	[F_OL200_P50] = {"open loop 200/s, p50", "us", ""},
	[F_OL200_P99] = {"open loop 200/s, p99", "us", ""},
	[F_OL1000_P50] = {"open loop 1000/s, p50", "us", "<= 250 (moonshot)"},
	[F_OL1000_P99] = {"open loop 1000/s, p99", "us", ""},
	[F_TP] = {"16 clients", "exec/s", ">= baseline, 4000"},
	[F_UNIQUE] = {"unique script, p50", "us", "<= 1.1x repeated"},
	[F_REPEAT] = {"repeated script, p50", "us", ""},
	[F_MOD_FIRST] = {"modern-10.js first run, p50", "us", ""},
	[F_MOD_REPEAT] = {"modern-10.js repeated, p50", "us", ""},
	[F_MOD_SPEEDUP] = {"modern-10.js first / repeated", "x", ">= 5"},
	[F_ASYNC60] = {"async-60.js repeated, p50", "us", ""},
	[F_LOG_P50] = {"console.log -> output event, p50", "us", ""},
	[F_LOG_P99] = {"console.log -> output event, p99", "us", "<= 1000"},
	[F_CANCEL_P50] = {"cancel -> final reply (load), p50", "us", ""},
	[F_CANCEL_P99] = {"cancel -> final reply (load), p99", "us", "<= 2000"},
	[F_BRIDGE] = {"added by sandboxd-mcp, p50", "us", "<= 300"},
	[F_RSS] = {"supervisor RSS, 100 run + 1000 queued", "KiB", "<= 16384"},
};

/* One round's figures: NAN is n/a, with why[] saying why. */
struct figures {
	double v[F_COUNT];
	char why[F_COUNT][96];
};

static void fig_na(struct figures *f, enum fig i, const char *why)
{
	f->v[i] = NAN;
	snprintf(f->why[i], sizeof f->why[i], "%s", why);
}

static void floor_fork(void)
{
	enum { N = 2000 };
	static double s[N];
	for (int i = 0; i < N; i++) {
		double t = now_us();
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
		s[i] = now_us() - t;
	}
	row("fork + _exit + waitpid (floor)", s, N);
}

static void floor_socket(void)
{
	enum { N = 20000 };
	static double s[N];
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char b[64];
		close(sv[0]);
		ssize_t n;
		while ((n = read(sv[1], b, sizeof b)) > 0)
			if (write(sv[1], b, (size_t)n) != n)
				break;
		_exit(0);
	}
	close(sv[1]);
	char b[64] = "ping";
	for (int i = 0; i < N; i++) {
		double t = now_us();
		if (write(sv[0], b, 48) != 48 || read(sv[0], b, sizeof b) <= 0)
			break;
		s[i] = now_us() - t;
	}
	close(sv[0]);
	waitpid(pid, NULL, 0);
	row("Unix socket round trip, 48 bytes (floor)", s, N);
}

/* In a child, since the engine keeps one heap per process. */
static void engine_costs(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		enum { N = 50 };
		static double prep[N], run[N];
		int null = dup(1);
		for (int i = 0; i < N; i++) {
			double t = now_us();
			engine_prepare();
			prep[i] = now_us() - t;
			t = now_us();
			json_t *r = engine_run("return 1", 8, ENGINE_ANY);
			run[i] = now_us() - t;
			json_decref(r);
		}
		close(null);
		row("engine: create + prepare a heap", prep, N);
		row("engine: run `return 1` in a prepared heap", run, N);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void send_exec(struct client *c, int id)
{
	char frame[128];
	int n = snprintf(frame + 4, sizeof frame - 4,
			 "{\"op\":\"execute\",\"id\":%d,\"code\":\"return 1+1\"}", id);
	frame_put_header((unsigned char *)frame, (uint32_t)n);
	client_send_raw(c, frame, (size_t)n + 4);
}

/* The final reply of a request, kept by its handler. */
static void keep_reply(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	json_t **out = arg;
	if (frame && sdc_is_final(frame))
		*out = json_incref(frame);
}

static struct sdc *bench_connect(const char *sock)
{
	struct sdc *c = sdc_connect(sock, FRAME_MODE_BINARY, 0);
	if (!c) {
		fprintf(stderr, "bench: cannot connect: %s\n", strerror(errno));
		exit(1);
	}
	return c;
}

/* An execute of code (a JSON string's contents, escaped by the caller)
 * on an sdc connection, as text; its frames go to fn. Its id. */
static long long code_send(struct sdc *c, const char *op, const char *code, sdc_handler *fn,
			   void *arg)
{
	char text[512];
	long long id = sdc_next_id(c);
	int n = snprintf(text, sizeof text, "{\"op\":\"%s\",\"id\":%lld,\"code\":\"%s\"}", op, id,
			 code);
	if (n < 0 || (size_t)n >= sizeof text ||
	    sdc_request_text(c, id, text, (size_t)n, fn, arg) != SDC_OK) {
		fprintf(stderr, "bench: cannot send: %s\n", sdc_error(c));
		exit(1);
	}
	return id;
}

/* A trivial execute, as text; its frames go to fn. Its id. */
static long long exec_send(struct sdc *c, sdc_handler *fn, void *arg)
{
	return code_send(c, "execute", "return 1+1", fn, arg);
}

/* One execute of code round trip: its final reply (NULL on failure). */
static json_t *code_round_trip(struct sdc *c, const char *code, int timeout_ms)
{
	json_t *r = NULL;
	long long id = code_send(c, "execute", code, keep_reply, &r);
	if (sdc_wait(c, id, timeout_ms) != SDC_OK)
		sdc_forget(c, id);
	return r;
}

/* One trivial execute round trip: its final reply (NULL on failure). */
static json_t *exec_round_trip(struct sdc *c, int timeout_ms)
{
	return code_round_trip(c, "return 1+1", timeout_ms);
}

static bool succeeded(json_t *r) { return r && json_is_true(json_object_get(r, "success")); }

/* One health reply; the caller decrefs. */
static json_t *health(struct sdc *c)
{
	json_t *req = json_pack("{s:s}", "op", "health");
	json_t *r = sdc_call(c, req, NULL, NULL, 30000, NULL);
	json_decref(req);
	if (!r || !json_is_true(json_object_get(r, "ok"))) {
		fprintf(stderr, "bench: health failed\n");
		exit(1);
	}
	return r;
}

/* ---- The MCP bridge's overhead. */

struct mcp_child {
	pid_t pid;
	int in, out;
	char buf[1 << 16];
	size_t len;
};

static void mcp_start(struct mcp_child *m, const char *sock)
{
	const char *bin = getenv("SANDBOXD_MCP_BIN");
	int in[2], out[2];
	if (!bin || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
		fprintf(stderr, "bench: SANDBOXD_MCP_BIN is not set or no pipes\n");
		exit(1);
	}
	m->pid = fork();
	if (m->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(bin, bin, "--socket", sock, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	m->in = in[1];
	m->out = out[0];
	m->len = 0;
}

/* Sends one line and returns the next line of the answer, parsed. */
static json_t *mcp_roundtrip(struct mcp_child *m, const char *line, size_t n)
{
	if (write(m->in, line, n) != (ssize_t)n) {
		fprintf(stderr, "bench: write to the bridge: %s\n", strerror(errno));
		exit(1);
	}
	for (;;) {
		char *nl = memchr(m->buf, '\n', m->len);
		if (nl) {
			size_t l = (size_t)(nl - m->buf);
			json_t *j = json_loadb(m->buf, l, 0, NULL);
			memmove(m->buf, nl + 1, m->len - l - 1);
			m->len -= l + 1;
			return j;
		}
		ssize_t r = read(m->out, m->buf + m->len, sizeof m->buf - m->len);
		if (r <= 0) {
			fprintf(stderr, "bench: the bridge closed stdout\n");
			exit(1);
		}
		m->len += (size_t)r;
	}
}

static json_t *mcp_execute(struct mcp_child *m, int id)
{
	char line[256];
	int n = snprintf(line, sizeof line,
			 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
			 "{\"name\":\"execute\",\"arguments\":{\"code\":\"return 1+1\"}}}\n",
			 id);
	json_t *r = mcp_roundtrip(m, line, (size_t)n);
	json_t *res = json_object_get(r, "result");
	if (!res || json_is_true(json_object_get(res, "isError"))) {
		fprintf(stderr, "bench: tools/call execute %d failed\n", id);
		exit(1);
	}
	return r;
}

/* The bridge's added latency (the difference of the p50s, returned): the same trivial execute
 * through the bridge and straight to the daemon, one after the other, so both see the same machine.
 */
static double bridge_overhead(const char *sock)
{
	enum { N = 500 };
	static double direct[N], bridged[N];
	struct mcp_child m;
	mcp_start(&m, sock);
	static const char init[] =
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
		"\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
		"\"name\":\"bench\",\"version\":\"1\"}}}\n";
	json_decref(mcp_roundtrip(&m, init, sizeof init - 1));
	static const char inited[] =
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
	if (write(m.in, inited, sizeof inited - 1) != (ssize_t)(sizeof inited - 1))
		exit(1);
	struct sdc *c = bench_connect(sock);
	for (int i = -100; i < N; i++) {
		double t = now_us();
		json_t *r = exec_round_trip(c, 10000);
		double t1 = now_us();
		if (!r || !json_is_true(json_object_get(r, "success"))) {
			fprintf(stderr, "bench: execution %d failed\n", i);
			exit(1);
		}
		json_decref(r);
		json_decref(mcp_execute(&m, i + 1000));
		double t2 = now_us();
		if (i >= 0) {
			direct[i] = t1 - t;
			bridged[i] = t2 - t1;
		}
	}
	sdc_close(c);
	close(m.in);
	close(m.out);
	waitpid(m.pid, NULL, 0);
	/* Each pair's difference, taken before pct() sorts the samples: a
	 * difference of two p99s mixes unrelated runs and may even be
	 * negative. */
	static double added[N];
	for (int i = 0; i < N; i++)
		added[i] = bridged[i] - direct[i];
	double d50 = pct(direct, N, 50), b50 = pct(bridged, N, 50);
	row("execute `return 1+1`, straight to the daemon", direct, N);
	row("tools/call execute, through sandboxd-mcp", bridged, N);
	printf("  %-44s p50 %8.1f us   (pairs: p50 %.1f us, p90 %.1f us; target p50 <= 300 us)\n",
	       "added by the bridge", b50 - d50, pct(added, N, 50), pct(added, N, 90));
	return b50 - d50;
}

/* ---- the hostile corpus */

/* The longest turn the loop may take with anything a client sends. */
#define TURN_TARGET_US 10000

static void hostile_row(const char *what, const struct daemon *d, json_t *health, const char *note)
{
	printf("  %-22s max turn %8.2f ms (CPU %6.2f)  RSS %6.1f MiB (peak %6.1f)%s%s\n", what,
	       (double)hostile_max_turn_us(health) / 1000,
	       (double)hostile_max_turn_cpu_us(health) / 1000,
	       (double)proc_status_kib(d->pid, "VmRSS") / 1024,
	       (double)proc_status_kib(d->pid, "VmHWM") / 1024, note ? "  " : "", note ? note : "");
}

/* Each class alone on a fresh daemon: which holds the loop, and how long. */
static void hostile_each(struct hostile_case *cases, int n)
{
	for (int i = 0; i < n; i++) {
		struct daemon d;
		const char *args[] = {"--log-level", "error", "--max-output-bytes", "64M", NULL};
		daemon_start(&d, args);
		static struct hostile_run r;
		hostile_start(&r, d.sock, &cases[i]);
		if (cases[i].mode == HOSTILE_READ)
			hostile_finish(&r, 120000);
		bool idle = hostile_wait_idle(d.sock, 120000);
		json_t *h = hostile_health(d.sock);
		long long turn = hostile_max_turn_us(h);
		char note[256] = "";
		if (turn > TURN_TARGET_US)
			snprintf(note, sizeof note, "OVER by %.2f ms",
				 (double)(turn - TURN_TARGET_US) / 1000);
		if (!idle)
			snprintf(note + strlen(note), sizeof note - strlen(note), " (still busy)");
		if (r.errors)
			snprintf(note + strlen(note), sizeof note - strlen(note),
				 " [%d error(s): %s]", r.errors, r.first_error);
		hostile_row(cases[i].name, &d, h, note[0] ? note : NULL);
		json_decref(h);
		fflush(stdout);
		hostile_finish(&r, 1000);
		daemon_stop(&d);
	}
}

struct normal_tally {
	long ok, failed;
	double max_us;
	char first_error[96];
};

static volatile sig_atomic_t normal_stop;
static void on_normal_stop(int sig)
{
	(void)sig;
	normal_stop = 1;
}

/* A client running plain executions one after another until SIGTERM,
 * then writing its tally to fd. Runs in a child process. */
static void normal_client(const char *sock, int fd)
{
	signal(SIGTERM, on_normal_stop);
	struct normal_tally t = {0, 0, 0, ""};
	struct client c;
	if (client_open(&c, sock, FRAME_MODE_BINARY) < 0)
		_exit(1);
	for (int i = 0; !normal_stop; i++) {
		double t0 = now_us();
		send_exec(&c, i);
		json_t *r = client_reply(&c, NULL, 60000);
		double took = now_us() - t0;
		if (r && jtrue(r, "success") && jint(r, "value") == 2) {
			t.ok++;
		} else if (!t.failed++) {
			snprintf(t.first_error, sizeof t.first_error, "%s: %.80s",
				 r ? err_code(r) : "no reply", r ? err_msg(r) : "");
		}
		if (took > t.max_us)
			t.max_us = took;
		json_decref(r);
	}
	client_close(&c);
	(void)!write(fd, &t, sizeof t);
	_exit(0);
}

/* All of the corpus at once on one fresh daemon, beside normal clients. */
static void hostile_all(struct hostile_case *cases, int n)
{
	enum { NORMAL = 4 };
	struct daemon d;
	const char *args[] = {"--log-level", "error", "--max-output-bytes", "64M", NULL};
	daemon_start(&d, args);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t kids[NORMAL];
	for (int i = 0; i < NORMAL; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			close(p[0]);
			normal_client(d.sock, p[1]);
		}
	}
	close(p[1]);
	double t0 = now_us();
	static struct hostile_run runs[HOSTILE_MAX_CASES];
	for (int i = 0; i < n; i++)
		hostile_start(&runs[i], d.sock, &cases[i]);
	int errors = 0;
	for (int i = 0; i < n; i++)
		if (cases[i].mode == HOSTILE_READ) {
			hostile_finish(&runs[i], 120000);
			errors += runs[i].errors;
		}
	hostile_wait_idle(d.sock, 120000);
	json_t *h = hostile_health(d.sock);
	long long turn = hostile_max_turn_us(h),
		  slow = jint(json_object_get(h, "loop"), "turns_over_10ms");
	long long turns = jint(json_object_get(h, "loop"), "turns");
	double secs = (now_us() - t0) / 1e6;
	struct normal_tally all = {0, 0, 0, ""};
	for (int i = 0; i < NORMAL; i++) {
		kill(kids[i], SIGTERM);
		struct normal_tally t;
		if (read(p[0], &t, sizeof t) == (ssize_t)sizeof t) {
			all.ok += t.ok;
			if (t.failed && !all.failed)
				memcpy(all.first_error, t.first_error, sizeof all.first_error);
			all.failed += t.failed;
			if (t.max_us > all.max_us)
				all.max_us = t.max_us;
		}
	}
	for (int i = 0; i < NORMAL; i++)
		waitpid(kids[i], NULL, 0);
	close(p[0]);
	char note[128];
	snprintf(note, sizeof note, "%s (target %d ms; %lld of %lld turns over 10 ms)",
		 turn > TURN_TARGET_US ? "OVER" : "ok", TURN_TARGET_US / 1000, slow, turns);
	hostile_row("all at once", &d, h, note);
	json_decref(h);
	printf("  %-22s %ld executions beside it in %.1f s, %ld failed, slowest %.1f ms\n", "",
	       all.ok + all.failed, secs, all.failed, all.max_us / 1000);
	if (all.failed)
		printf("  %-22s the first failure: %s\n", "", all.first_error);
	for (int i = 0; i < n; i++)
		hostile_finish(&runs[i], 1000);
	daemon_stop(&d);
	(void)errors;
}

static void hostile_phase(void)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	printf("hostile corpus (%s: each class on a fresh daemon, then all at once)\n",
	       HOSTILE_DIR);
	fflush(stdout);
	hostile_each(cases, n);
	hostile_all(cases, n);
	hostile_free(cases, n);
}

/* The lock file every daemon a round runs at once claims its worker ids in
 * (as root), so that they claim different ones: in a directory of the
 * bench's own, made at start. */
static char uid_lock_dir[64], uid_lock[96];

static void uid_lock_make(void)
{
	strcpy(uid_lock_dir, "/tmp/sandboxd-bench-XXXXXX");
	if (!mkdtemp(uid_lock_dir)) {
		fprintf(stderr, "bench: mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(uid_lock, sizeof uid_lock, "%s/uids.lock", uid_lock_dir);
}

static void uid_lock_remove(void)
{
	unlink(uid_lock);
	rmdir(uid_lock_dir);
}

/* ---- what /proc says of the daemon's processes */

struct pstat {
	pid_t pid, ppid;
	char state;
	unsigned long long ticks; /* utime + stime + cutime + cstime */
	unsigned long long self;  /* utime + stime */
	unsigned long long start; /* starttime: a pid and this name one process */
};

/* /proc/PID/stat of pid into s; false when it is gone or unreadable. */
static bool proc_stat(pid_t pid, struct pstat *s)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	/* pid (comm) state ppid ...: comm may hold spaces and parentheses. */
	char *rp = ok ? strrchr(line, ')') : NULL;
	if (!rp || rp[1] != ' ')
		return false;
	unsigned long long ut, st, cut, cst;
	int ppid;
	if (sscanf(rp + 2,
		   "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu %*d %*d %*d %*d "
		   "%llu",
		   &s->state, &ppid, &ut, &st, &cut, &cst, &s->start) != 7)
		return false;
	s->pid = pid;
	s->ppid = (pid_t)ppid;
	s->self = ut + st;
	s->ticks = ut + st + cut + cst;
	return true;
}

#define MAX_PROCS 8192

/* Every descendant of root (children, their children, ...) into out (at
 * most max); returns how many. */
static int descendants(pid_t root, struct pstat *out, int max)
{
	static struct pstat all[MAX_PROCS];
	int n = 0;
	DIR *proc = opendir("/proc");
	if (!proc)
		return 0;
	struct dirent *de;
	while ((de = readdir(proc)) && n < MAX_PROCS)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
		    proc_stat((pid_t)atoi(de->d_name), &all[n]))
			n++;
	closedir(proc);
	int k = 0;
	for (bool grew = true; grew;) {
		grew = false;
		for (int i = 0; i < n; i++) {
			if (all[i].pid == 0)
				continue;
			bool mine = all[i].ppid == root;
			for (int j = 0; j < k && !mine; j++)
				mine = out[j].pid == all[i].ppid;
			if (mine && k < max) {
				out[k++] = all[i];
				all[i].pid = 0;
				grew = true;
			}
		}
	}
	return k;
}

/* True when pid is a confined worker (Seccomp: 2 in /proc/PID/status):
 * parked and running workers, not the forkserver they are cloned from
 * (whose command line they share). */
static bool is_confined(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	int mode = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode == 2;
}

/* USS of pid in KiB (Private_Clean + Private_Dirty of smaps_rollup); -1
 * with errno when it cannot be read. */
static long uss_kib(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long sum = 0, v;
	bool any = false;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Private_Clean: %ld kB", &v) == 1 ||
		    sscanf(line, "Private_Dirty: %ld kB", &v) == 1) {
			sum += v;
			any = true;
		}
	fclose(f);
	if (!any)
		errno = EACCES;
	return any ? sum : -1;
}

/* ---- the daemon's figures */

/*
 * SEQ_RUNS trivial executes back to back on one connection: latency p50
 * and p99, and the CPU every sandboxd process spent on them, from /proc
 * before and after: the supervisor's utime+stime+cutime+cstime (workers
 * are its children, reaped by it) plus the same of every descendant alive
 * at both ends (the forkserver, any helper). A worker parked before the run
 * and used in it is counted whole when it is reaped; one parked for the
 * next run is not: the same number either way in a steady state.
 */
static void sequential_cpu(const struct daemon *d, struct figures *f)
{
	static double s[SEQ_RUNS];
	static struct pstat before[256], after[256];
	struct sdc *c = bench_connect(d->sock);
	for (int i = 0; i < 100; i++) /* warm-up */
		json_decref(exec_round_trip(c, 10000));
	struct pstat sup0, sup1;
	int nb = descendants(d->pid, before, 256);
	bool ok = proc_stat(d->pid, &sup0);
	for (int i = 0; i < SEQ_RUNS; i++) {
		double t = now_us();
		json_t *r = exec_round_trip(c, 10000);
		s[i] = now_us() - t;
		if (!succeeded(r)) {
			fprintf(stderr, "bench: execution %d failed\n", i);
			exit(1);
		}
		json_decref(r);
	}
	ok = proc_stat(d->pid, &sup1) && ok;
	int na = descendants(d->pid, after, 256);
	sdc_close(c);
	row("execute `return 1+1`, back to back", s, SEQ_RUNS);
	f->v[F_SEQ_P50] = pct(s, SEQ_RUNS, 50);
	f->v[F_SEQ_P99] = pct(s, SEQ_RUNS, 99);
	if (!ok) {
		fig_na(f, F_CPU, "/proc/PID/stat of the daemon unreadable");
		return;
	}
	unsigned long long others = 0;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (after[i].pid == before[j].pid && after[i].start == before[j].start)
				others += after[i].ticks - before[j].ticks;
	double tick_us = 1e6 / (double)sysconf(_SC_CLK_TCK);
	double self = (double)(sup1.self - sup0.self) * tick_us,
	       reaped = (double)((sup1.ticks - sup1.self) - (sup0.ticks - sup0.self)) * tick_us,
	       rest = (double)others * tick_us;
	f->v[F_CPU] = (self + reaped + rest) / SEQ_RUNS;
	printf("  %-44s %8.1f us   (supervisor %.1f, workers reaped %.1f, forkserver and "
	       "others %.1f; over %d)\n",
	       "CPU per execution, all sandboxd processes", f->v[F_CPU], self / SEQ_RUNS,
	       reaped / SEQ_RUNS, rest / SEQ_RUNS, SEQ_RUNS);
}

/* The USS of each worker parked while the daemon is idle: the confined
 * processes under the supervisor, once health's pool (when it has one)
 * says the pool is full. n/a without any. */
static void parked_uss(const struct daemon *d, struct figures *f)
{
	static struct pstat kids[1024];
	if (!hostile_wait_idle(d->sock, 30000)) {
		fig_na(f, F_USS, "the daemon did not become idle");
		return;
	}
	struct sdc *c = bench_connect(d->sock);
	json_t *h = health(c);
	json_t *pool = json_object_get(h, "pool");
	long long target = pool ? jint(pool, "target") : 0;
	for (double end = now_us() + 10e6;
	     pool && jint(pool, "parked") < target && now_us() < end;) {
		struct timespec ts = {0, 20 * 1000000};
		nanosleep(&ts, NULL);
		json_decref(h);
		h = health(c);
		pool = json_object_get(h, "pool");
	}
	long long parked = pool ? jint(pool, "parked") : -1;
	json_decref(h);
	sdc_close(c);
	int n = descendants(d->pid, kids, 1024), workers = 0;
	long sum = 0, max = 0;
	int err = 0;
	for (int i = 0; i < n; i++) {
		if (kids[i].state == 'Z' || !is_confined(kids[i].pid))
			continue;
		long kib = uss_kib(kids[i].pid);
		if (kib < 0) {
			err = errno;
			continue;
		}
		workers++;
		sum += kib;
		max = kib > max ? kib : max;
	}
	char why[96];
	if (workers == 0) {
		if (err)
			snprintf(why, sizeof why, "smaps_rollup of a worker unreadable: %s%s",
				 strerror(err), geteuid() ? " (run as root)" : "");
		else
			snprintf(why, sizeof why, "no worker parked when idle%s",
				 pool ? "" : " (health has no pool)");
		fig_na(f, F_USS, why);
		printf("  %-44s n/a: %s\n", "USS per parked worker", why);
		return;
	}
	f->v[F_USS] = (double)sum / workers;
	printf("  %-44s %8.0f KiB mean, %ld KiB max   (%d workers; health: %lld parked of %lld)\n",
	       "USS per parked worker", f->v[F_USS], max, workers, parked, target);
}

/* Open loop: requests are sent on a schedule, one every 1/rate s, whatever
 * the replies do, and each latency runs from its scheduled send (so a
 * stall delays every request behind it, as it would a real load). */
struct ol_req {
	double sched, lat;
	int *done, *failed;
	char *first_error;
};

static void ol_reply(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct ol_req *q = arg;
	if (!sdc_is_final(frame))
		return;
	(*q->done)++;
	if (succeeded(frame)) {
		q->lat = now_us() - q->sched;
		return;
	}
	if (!(*q->failed)++)
		snprintf(q->first_error, 96, "%s", frame ? err_code(frame) : "no reply");
}

static void open_loop(const char *sock, int rate, double seconds, struct figures *f, enum fig p50,
		      enum fig p99)
{
	enum { MAX = 8000 };
	static struct ol_req q[MAX];
	static double lat[MAX];
	int n = (int)(rate * seconds), done = 0, failed = 0;
	char first_error[96] = "";
	if (n > MAX)
		n = MAX;
	struct sdc *c = bench_connect(sock);
	for (int i = 0; i < 20; i++) /* warm-up */
		json_decref(exec_round_trip(c, 10000));
	struct pollfd p = {sdc_fd(c), POLLIN, 0};
	double interval = 1e6 / rate, start = now_us() + 1000,
	       give_up = start + seconds * 1e6 + 30e6;
	int sent = 0;
	while (done < n) {
		double t = now_us();
		if (sent < n && t >= start + sent * interval) {
			q[sent] = (struct ol_req){start + sent * interval, -1, &done, &failed,
						  first_error};
			exec_send(c, ol_reply, &q[sent]);
			sent++;
			continue;
		}
		if (t > give_up)
			break;
		double wait = sent < n ? start + sent * interval - t : 100000;
		struct timespec ts = {(time_t)(wait / 1e6), (long)fmod(wait, 1e6) * 1000};
		if (ppoll(&p, 1, &ts, NULL) > 0 && sdc_on_readable(c) != SDC_OK) {
			fprintf(stderr, "bench: open loop: %s\n", sdc_error(c));
			exit(1);
		}
	}
	sdc_close(c);
	size_t k = 0;
	for (int i = 0; i < sent; i++)
		if (q[i].lat >= 0)
			lat[k++] = q[i].lat;
	char what[64];
	snprintf(what, sizeof what, "open loop, %d/s for %.0f s (from the schedule)", rate,
		 seconds);
	row(what, lat, k);
	if (failed || done < n)
		printf("  %-44s %d failed (first: %s), %d unanswered\n", "", failed, first_error,
		       n - done);
	f->v[p50] = pct(lat, k, 50);
	f->v[p99] = pct(lat, k, 99);
}

/* A throughput client: each final reply is counted and the next execute
 * sent from its handler. */
struct tp_client {
	struct sdc *c;
	long *done;
	long long id; /* the execute in flight */
	bool failed, stop;
};

static void tp_reply(struct sdc *c, json_t *frame, void *arg)
{
	struct tp_client *t = arg;
	if (!sdc_is_final(frame))
		return;
	if (!succeeded(frame)) {
		t->failed = true;
		return;
	}
	if (t->stop)
		return;
	(*t->done)++;
	t->id = exec_send(c, tp_reply, t);
}

static double throughput(const char *sock)
{
	static struct tp_client t[CLIENTS];
	struct pollfd p[CLIENTS];
	long done = 0;
	for (int i = 0; i < CLIENTS; i++) {
		t[i] = (struct tp_client){bench_connect(sock), &done, 0, false, false};
		p[i] = (struct pollfd){sdc_fd(t[i].c), POLLIN, 0};
		t[i].id = exec_send(t[i].c, tp_reply, &t[i]);
	}
	double start = now_us(), end = start + THROUGHPUT_SECONDS * 1e6;
	while (now_us() < end) {
		if (poll(p, CLIENTS, 1000) <= 0)
			continue;
		for (int i = 0; i < CLIENTS; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			int st = sdc_on_readable(t[i].c);
			if (st != SDC_OK || t[i].failed) {
				fprintf(stderr, "bench: concurrent execution failed: %s\n",
					sdc_error(t[i].c));
				exit(1);
			}
		}
	}
	double secs = (now_us() - start) / 1e6;
	for (int i = 0; i < CLIENTS; i++) {
		/* The one in flight is answered, not counted. */
		t[i].stop = true;
		sdc_wait(t[i].c, t[i].id, 10000);
		sdc_close(t[i].c);
	}
	printf("  %-44s %8.0f executions/s   (%ld in %.1f s)\n",
	       "execute `return 1+1`, 16 concurrent clients", (double)done / secs, done, secs);
	return (double)done / secs;
}

/* Unique across the whole run, so no daemon has seen a "unique" script. */
static unsigned long long unique_seq;

/* A script never seen before (so the cache stores it) against one run
 * before (cached already), interleaved on one connection. */
static void unique_repeat(const char *sock, struct figures *f)
{
	enum { N = 200 };
	static double u[N], r[N];
	static const char repeated[] = "return 1+1 // the same every time";
	struct sdc *c = bench_connect(sock);
	json_decref(code_round_trip(c, repeated, 10000));
	for (int i = -10; i < N; i++) {
		char code[128];
		snprintf(code, sizeof code, "return 1+1 // unique %d-%llu", (int)getpid(),
			 unique_seq++);
		double t0 = now_us();
		json_t *a = code_round_trip(c, code, 10000);
		double t1 = now_us();
		json_t *b = code_round_trip(c, repeated, 10000);
		double t2 = now_us();
		if (!succeeded(a) || !succeeded(b)) {
			fprintf(stderr, "bench: a unique or repeated script failed\n");
			exit(1);
		}
		json_decref(a);
		json_decref(b);
		if (i >= 0) {
			u[i] = t1 - t0;
			r[i] = t2 - t1;
		}
	}
	sdc_close(c);
	row("`return 1+1 // unique N`, new each time", u, N);
	row("`return 1+1 // ...`, the same each time", r, N);
	f->v[F_UNIQUE] = pct(u, N, 50);
	f->v[F_REPEAT] = pct(r, N, 50);
	printf("  %-44s %8.2f   (target <= 1.10)\n", "unique p50 / repeated p50",
	       f->v[F_UNIQUE] / f->v[F_REPEAT]);
}

/* The round trip of one script of tests/data/bench (with suffix appended
 * when not NULL, the first `warm` runs not counted) n times; samples into s.
 * The heap and RSS peak of the last run go to *heap and *rss. */
static void script_runs(struct sdc *c, const char *file, const char *suffix, int warm, int n,
			double *s, json_int_t *heap, json_int_t *rss)
{
	char path[256];
	snprintf(path, sizeof path, "tests/data/bench/%s", file);
	size_t len;
	char *code = test_read_file(path, &len);
	for (int i = -warm; i < n; i++) {
		char *text = code;
		if (suffix) {
			/* A trailing comment: new source, the same program. */
			if (asprintf(&text, "%s\n// %s %d-%llu\n", code, suffix, (int)getpid(),
				     unique_seq++) < 0)
				exit(1);
		}
		json_t *req = json_pack("{s:s, s:s}", "op", "execute", "code", text);
		if (!req) {
			fprintf(stderr, "bench: %s is not UTF-8\n", path);
			exit(1);
		}
		double t = now_us();
		json_t *r = sdc_call(c, req, NULL, NULL, 30000, NULL);
		if (i >= 0)
			s[i] = now_us() - t;
		json_decref(req);
		if (text != code)
			free(text);
		if (!succeeded(r)) {
			fprintf(stderr, "bench: %s failed\n", file);
			exit(1);
		}
		*heap = json_integer_value(json_object_get(r, "heap_peak_bytes"));
		*rss = json_integer_value(json_object_get(r, "memory_peak_bytes"));
		json_decref(r);
	}
	free(code);
}

/* Modern code pays for its lowering in the worker: modern-10.js run new
 * each time (a trailing comment changes its source) beside the same
 * source repeated, and the repeated 60-line async script. */
static void modern(const char *sock, struct figures *f)
{
	enum { FIRST = 20, N = 60 };
	static double first[FIRST], rep[N], a60[N];
	json_int_t heap = 0, rss = 0;
	struct sdc *c = bench_connect(sock);
	script_runs(c, "modern-10.js", "first run", 2, FIRST, first, &heap, &rss);
	script_runs(c, "modern-10.js", NULL, 3, N, rep, &heap, &rss);
	row("10-line ES2020 script, first run", first, FIRST);
	row("10-line ES2020 script (modern-10.js), repeated", rep, N);
	f->v[F_MOD_FIRST] = pct(first, FIRST, 50);
	f->v[F_MOD_REPEAT] = pct(rep, N, 50);
	f->v[F_MOD_SPEEDUP] = f->v[F_MOD_FIRST] / f->v[F_MOD_REPEAT];
	printf("  %-44s %8.1fx   (target >= 5)\n", "first run p50 / repeated p50",
	       f->v[F_MOD_SPEEDUP]);
	script_runs(c, "async-60.js", NULL, 3, N, a60, &heap, &rss);
	row("60-line async script (async-60.js), repeated", a60, N);
	printf("  %-44s %8lld KiB heap peak, %lld KiB RSS peak\n", "", (long long)heap / 1024,
	       (long long)rss / 1024);
	f->v[F_ASYNC60] = pct(a60, N, 50);
	sdc_close(c);
	printf("  added p50 against `return 1+1`: %.1f ms (10 lines, first run), %.1f ms (10 "
	       "lines, repeated), %.1f ms (60 lines)\n",
	       (f->v[F_MOD_FIRST] - f->v[F_SEQ_P50]) / 1000,
	       (f->v[F_MOD_REPEAT] - f->v[F_SEQ_P50]) / 1000,
	       (f->v[F_ASYNC60] - f->v[F_SEQ_P50]) / 1000);
}

/* console.log to the output event at the client: the script logs the wall
 * clock (performance.timeOrigin + performance.now(), to the microsecond)
 * every 2 ms, the client subtracts it from its own when the event comes. */
struct log_run {
	double *lat;
	int n, max;
	char line[64];
	size_t len;
	bool ok;
	char error[96]; /* of a run that failed: a build without performance */
};

static void log_frame(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct log_run *l = arg;
	if (sdc_is_final(frame)) {
		l->ok = succeeded(frame);
		if (!l->ok)
			snprintf(l->error, sizeof l->error, "the script failed: %.70s",
				 frame ? jstr(json_object_get(frame, "error"), "message")
				       : "no reply");
		return;
	}
	if (strcmp(jstr(frame, "event"), "output") != 0)
		return;
	double now = wall_ms();
	for (const char *p = jstr(frame, "data"); *p; p++) {
		if (*p != '\n') {
			if (l->len < sizeof l->line - 1)
				l->line[l->len++] = *p;
			continue;
		}
		l->line[l->len] = 0;
		l->len = 0;
		double t = strtod(l->line, NULL);
		if (t > 0 && l->n < l->max)
			l->lat[l->n++] = (now - t) * 1000;
	}
}

static void log_latency(const char *sock, struct figures *f)
{
	enum { RUNS = 10, LOGS = 50 };
	static double lat[RUNS * LOGS];
	static const char code[] =
		"for (var i = 0; i < 50; i++) {"
		" console.log(String(performance.timeOrigin + performance.now()));"
		" var e = performance.now() + 2; while (performance.now() < e) {} }";
	struct log_run l = {lat, 0, RUNS * LOGS, "", 0, false, ""};
	struct sdc *c = bench_connect(sock);
	for (int i = 0; i < RUNS; i++) {
		l.ok = false;
		long long id = code_send(c, "stream", code, log_frame, &l);
		if (sdc_wait(c, id, 30000) != SDC_OK && !l.error[0])
			snprintf(l.error, sizeof l.error, "no reply: %s", sdc_error(c));
		if (!l.ok) {
			sdc_close(c);
			fig_na(f, F_LOG_P50, l.error);
			fig_na(f, F_LOG_P99, l.error);
			printf("  %-44s n/a: %s\n", "console.log -> output event at the client",
			       l.error);
			return;
		}
	}
	sdc_close(c);
	row("console.log -> output event at the client", lat, (size_t)l.n);
	f->v[F_LOG_P50] = pct(lat, (size_t)l.n, 50);
	f->v[F_LOG_P99] = pct(lat, (size_t)l.n, 99);
}

/* An execution to cancel: it logs once it runs, then waits on a timer. */
struct victim {
	char eid[64];
	bool running, ended;
	double ended_at;
	char state[32];
};

static void victim_frame(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct victim *v = arg;
	if (sdc_is_final(frame)) {
		v->ended = true;
		v->ended_at = now_us();
		snprintf(v->state, sizeof v->state, "%s",
			 frame ? jstr(frame, "state") : "no reply");
		return;
	}
	const char *ev = jstr(frame, "event");
	if (strcmp(ev, "started") == 0)
		snprintf(v->eid, sizeof v->eid, "%s", jstr(frame, "execution_id"));
	else if (strcmp(ev, "output") == 0)
		v->running = true;
}

/* Cancel to the cancelled execution's final reply, while four clients run
 * trivial executes back to back (normal_client, in children). */
static void cancel_latency(const char *sock, struct figures *f)
{
	enum { N = 200, LOAD = 4 };
	static double lat[N];
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(1);
	pid_t kids[LOAD];
	for (int i = 0; i < LOAD; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(p[0]);
			normal_client(sock, p[1]);
		}
	}
	close(p[1]);
	struct sdc *c = bench_connect(sock);
	int bad = 0;
	size_t k = 0;
	for (int i = 0; i < N; i++) {
		struct victim v = {"", false, false, 0, ""};
		long long id = code_send(
			c, "stream", "console.log('running'); setTimeout(function () {}, 60000)",
			victim_frame, &v);
		while (!v.running && !v.ended)
			if (sdc_pump(c, 30000) != SDC_OK)
				break;
		if (v.ended || !v.running) {
			/* v is reused: its late frames must not reach the next. */
			bad++;
			if (sdc_wait(c, id, 10000) != SDC_OK)
				sdc_forget(c, id);
			continue;
		}
		char text[160];
		long long cid = sdc_next_id(c);
		int n = snprintf(text, sizeof text,
				 "{\"op\":\"cancel\",\"id\":%lld,\"execution_id\":\"%s\"}", cid,
				 v.eid);
		json_t *cr = NULL;
		double t0 = now_us();
		if (sdc_request_text(c, cid, text, (size_t)n, keep_reply, &cr) != SDC_OK ||
		    sdc_wait(c, id, 10000) != SDC_OK || sdc_wait(c, cid, 10000) != SDC_OK) {
			fprintf(stderr, "bench: cancel: %s\n", sdc_error(c));
			exit(1);
		}
		if (strcmp(v.state, "cancelled") == 0 && cr && jtrue(cr, "ok"))
			lat[k++] = v.ended_at - t0;
		else
			bad++;
		json_decref(cr);
	}
	sdc_close(c);
	for (int i = 0; i < LOAD; i++)
		kill(kids[i], SIGTERM);
	long load = 0;
	struct normal_tally t;
	while (read(p[0], &t, sizeof t) == (ssize_t)sizeof t)
		load += t.ok;
	for (int i = 0; i < LOAD; i++)
		waitpid(kids[i], NULL, 0);
	close(p[0]);
	row("cancel -> final reply, 4 clients' load beside", lat, k);
	printf("  %-44s %ld executions of the load beside%s\n", "", load,
	       bad ? ", and some victims not cancelled" : "");
	f->v[F_CANCEL_P50] = pct(lat, k, 50);
	f->v[F_CANCEL_P99] = pct(lat, k, 99);
}

/* The supervisor's RSS with 100 executions running (each waiting on a
 * timer) and 1000 queued behind them, on a daemon of its own sized for
 * it, all submitted with `async`. */
static void rss_phase(struct figures *f)
{
	enum { RUN = 100, QUEUED = 1000 };
	struct daemon d;
	const char *args[] = {"--log-level",
			      "warn",
			      "--uid-lock",
			      uid_lock,
			      "--max-workers",
			      "101",
			      "--max-running-per-owner",
			      "100",
			      "--queue",
			      "1000",
			      "--max-queued-per-owner",
			      "1000",
			      "--grace-ms",
			      "0",
			      NULL};
	daemon_start(&d, args);
	struct sdc *c = bench_connect(d.sock);
	int refused = 0;
	char first_error[96] = "";
	for (int i = 0; i < RUN + QUEUED; i++) {
		char text[160];
		long long id = sdc_next_id(c);
		int n = snprintf(text, sizeof text,
				 "{\"op\":\"async\",\"id\":%lld,\"timeout_ms\":100000,\"code\":"
				 "\"setTimeout(function () {}, 90000)\"}",
				 id);
		json_t *r = NULL;
		if (sdc_request_text(c, id, text, (size_t)n, keep_reply, &r) != SDC_OK ||
		    sdc_wait(c, id, 30000) != SDC_OK) {
			fprintf(stderr, "bench: async: %s\n", sdc_error(c));
			exit(1);
		}
		if (!r || !jtrue(r, "ok")) {
			if (!refused++)
				snprintf(first_error, sizeof first_error, "%s: %.60s",
					 r ? err_code(r) : "no reply", r ? err_msg(r) : "");
		}
		json_decref(r);
	}
	long long running = 0, queued = 0;
	for (double end = now_us() + 60e6; now_us() < end;) {
		json_t *h = health(c);
		running = jint(h, "workers_running");
		queued = jint(h, "queued");
		json_decref(h);
		if (running >= RUN && queued >= QUEUED)
			break;
		struct timespec ts = {0, 20 * 1000000};
		nanosleep(&ts, NULL);
	}
	long rss = proc_status_kib(d.pid, "VmRSS"), hwm = proc_status_kib(d.pid, "VmHWM");
	sdc_close(c);
	if (running >= RUN && queued >= QUEUED) {
		f->v[F_RSS] = (double)rss;
		printf("  %-44s %8ld KiB   (peak %ld KiB)\n",
		       "supervisor RSS, 100 running + 1000 queued", rss, hwm);
	} else {
		char why[96];
		snprintf(why, sizeof why, "reached only %lld running, %lld queued (%d refused%s%s)",
			 running, queued, refused, refused ? ": " : "", first_error);
		fig_na(f, F_RSS, why);
		printf("  %-44s n/a: %s\n", "supervisor RSS, 100 running + 1000 queued", why);
	}
	daemon_stop(&d);
}

/* ---- rounds, and the two builds side by side */

/* A build whose daemon is measured: its label and binaries. */
struct side {
	char label[64];
	char bin[512], mcp[512];
};

/* The phases of a round, each giving some of the figures. */
enum phase {
	P_SEQ,
	P_USS,
	P_OL200,
	P_OL1000,
	P_TP,
	P_UNIQUE,
	P_MODERN,
	P_LOG,
	P_CANCEL,
	P_BRIDGE,
	P_RSS,
	P_COUNT
};

static const char *const phase_names[P_COUNT] = {
	[P_SEQ] = "back to back, and CPU from /proc",
	[P_USS] = "parked workers",
	[P_OL200] = "open loop",
	[P_OL1000] = "open loop",
	[P_TP] = "concurrent clients",
	[P_UNIQUE] = "unique and repeated scripts",
	[P_MODERN] = "modern code, lowered in the worker",
	[P_LOG] = "console.log to the client",
	[P_CANCEL] = "cancel under load",
	[P_BRIDGE] = "MCP bridge (bin/sandboxd-mcp on pipes)",
	[P_RSS] = "memory (a daemon of its own: --max-workers 101, --queue 1000)",
};

/* One phase on s's daemon d (started with options every build knows);
 * figures into f. */
static void run_phase(enum phase p, const struct side *s, const struct daemon *d, struct figures *f)
{
	setenv("SANDBOXD_BIN", s->bin, 1);
	setenv("SANDBOXD_MCP_BIN", s->mcp, 1);
	switch (p) {
	case P_SEQ: sequential_cpu(d, f); break;
	case P_USS: parked_uss(d, f); break;
	case P_OL200: open_loop(d->sock, 200, 3, f, F_OL200_P50, F_OL200_P99); break;
	case P_OL1000: open_loop(d->sock, 1000, 2, f, F_OL1000_P50, F_OL1000_P99); break;
	case P_TP: f->v[F_TP] = throughput(d->sock); break;
	case P_UNIQUE: unique_repeat(d->sock, f); break;
	case P_MODERN: modern(d->sock, f); break;
	case P_LOG: log_latency(d->sock, f); break;
	case P_CANCEL: cancel_latency(d->sock, f); break;
	case P_BRIDGE: f->v[F_BRIDGE] = bridge_overhead(d->sock); break;
	case P_RSS: rss_phase(f); break;
	case P_COUNT: break;
	}
	fflush(stdout);
}

/* One round: a daemon of each side, then each phase on each in turn (the
 * order of the sides given by first), so the builds meet the machine in
 * the same state, phase by phase. */
static void round_of(const struct side *sides, int nsides, int first, struct figures *f)
{
	struct daemon d[2];
	const char *args[] = {"--log-level", "warn", "--uid-lock", uid_lock, NULL};
	for (int k = 0; k < nsides; k++) {
		for (int i = 0; i < F_COUNT; i++)
			fig_na(&f[k], (enum fig)i, "not measured");
		setenv("SANDBOXD_BIN", sides[k].bin, 1);
		daemon_start(&d[k], args);
	}
	double took[P_COUNT], t0 = now_us();
	for (int p = 0; p < P_COUNT; p++) {
		if (p == 0 || strcmp(phase_names[p], phase_names[p - 1]) != 0)
			printf("%s\n", phase_names[p]);
		double t = now_us();
		for (int k = 0; k < nsides; k++) {
			int s = (first + k) % nsides;
			if (nsides > 1)
				printf(" %s:\n", sides[s].label);
			run_phase((enum phase)p, &sides[s], &d[s], &f[s]);
		}
		took[p] = (now_us() - t) / 1e6;
	}
	for (int k = 0; k < nsides; k++)
		daemon_stop(&d[k]);
	/* What the run's length is made of. */
	printf("the round took %.0f s:", (now_us() - t0) / 1e6);
	for (int p = 0; p < P_COUNT; p++)
		printf(" %.1f", took[p]);
	printf(" s by phase\n");
}

static void print_value(char *out, size_t n, enum fig i, double v)
{
	snprintf(out, n, strcmp(figs[i].unit, "x") == 0 ? "%.1f" : "%.0f", v);
}

/* One side's cell: the median of its rounds and their range, or n/a. */
static double cell(char *out, size_t n, enum fig i, const struct figures *f, int rounds)
{
	double v[16];
	int k = 0;
	for (int r = 0; r < rounds; r++)
		if (!isnan(f[r].v[i]))
			v[k++] = f[r].v[i];
	if (k == 0) {
		snprintf(out, n, "n/a");
		return NAN;
	}
	double med = pct(v, (size_t)k, 50);
	char a[20], lo[20], hi[20];
	print_value(a, sizeof a, i, med);
	if (k == 1) {
		snprintf(out, n, "%s", a);
		return med;
	}
	print_value(lo, sizeof lo, i, v[0]);
	print_value(hi, sizeof hi, i, v[k - 1]);
	snprintf(out, n, "%s (%s-%s)", a, lo, hi);
	return med;
}

/* The table of every figure: one column per side, the ratio of the last
 * to the first when there are two; then why each n/a is one. */
static void print_table(const struct side *sides, int nsides, struct figures (*f)[16], int rounds)
{
	printf("\n%-40s %-7s", "figure", "unit");
	for (int s = 0; s < nsides; s++)
		printf(" %-24.24s", sides[s].label);
	printf("%s  target\n", nsides == 2 ? " ratio" : "");
	for (int i = 0; i < F_COUNT; i++) {
		printf("%-40s %-7s", figs[i].name, figs[i].unit);
		double med[2] = {NAN, NAN};
		for (int s = 0; s < nsides; s++) {
			char c[80];
			med[s] = cell(c, sizeof c, (enum fig)i, f[s], rounds);
			printf(" %-24s", c);
		}
		if (nsides == 2) {
			if (isnan(med[0]) || isnan(med[1]) || med[0] == 0)
				printf(" %5s", "n/a");
			else
				printf(" %4.2fx", med[1] / med[0]);
		}
		printf("  %s\n", figs[i].target);
	}
	for (int s = 0; s < nsides; s++)
		for (int i = 0; i < F_COUNT; i++)
			for (int r = 0; r < rounds; r++)
				if (isnan(f[s][r].v[i])) {
					printf("  n/a: %s, %s: %s\n", sides[s].label, figs[i].name,
					       f[s][r].why[i]);
					break;
				}
}

static struct figures results[2][16];

/* BENCH_BASELINE names a built tree of another revision (bin/sandboxd
 * and bin/sandboxd-mcp in it): rounds of its daemon and the working
 * tree's, alternating which goes first, then the table. */
static void side_by_side(const char *base)
{
	struct side sides[2];
	const char *rev = getenv("BENCH_BASELINE_REV");
	snprintf(sides[0].label, sizeof sides[0].label, "baseline %s", rev && *rev ? rev : base);
	snprintf(sides[0].bin, sizeof sides[0].bin, "%s/bin/sandboxd", base);
	snprintf(sides[0].mcp, sizeof sides[0].mcp, "%s/bin/sandboxd-mcp", base);
	snprintf(sides[1].label, sizeof sides[1].label, "working tree");
	snprintf(sides[1].bin, sizeof sides[1].bin, "%s", getenv("SANDBOXD_BIN"));
	snprintf(sides[1].mcp, sizeof sides[1].mcp, "%s", getenv("SANDBOXD_MCP_BIN"));
	if (access(sides[0].bin, X_OK) != 0 || access(sides[0].mcp, X_OK) != 0) {
		fprintf(stderr, "bench: %s has no bin/sandboxd and bin/sandboxd-mcp\n", base);
		exit(1);
	}
	const char *r = getenv("BENCH_ROUNDS");
	int rounds = r && *r ? atoi(r) : 3;
	if (rounds < 1 || rounds > 16) {
		fprintf(stderr, "bench: BENCH_ROUNDS is 1 to 16\n");
		exit(1);
	}
	printf("sandboxd bench, side by side (%ld CPUs): %s against the working tree, %d round%s "
	       "each, alternating\n",
	       sysconf(_SC_NPROCESSORS_ONLN), sides[0].label, rounds, rounds == 1 ? "" : "s");
	printf("floors\n");
	floor_fork();
	floor_socket();
	for (int i = 0; i < rounds; i++) {
		/* The baseline first, then the tree first, ... */
		printf("\nround %d of %d: %s first\n", i + 1, rounds, sides[i % 2].label);
		struct figures f[2];
		round_of(sides, 2, i % 2, f);
		results[0][i] = f[0];
		results[1][i] = f[1];
	}
	printf("\nside by side: the median of %d round%s each (their range), and the working "
	       "tree's over the baseline's\n",
	       rounds, rounds == 1 ? "" : "s");
	print_table(sides, 2, results, rounds);
	printf("(not side by side: the engine in-process and the hostile corpus; `make bench` "
	       "and `make bench BENCH=hostile` give them)\n");
}

/* The helpers of testlib report through Check, so the bench runs as one
 * Check test, in-process. */
START_TEST(bench)
{
	/* BENCH=hostile runs only the hostile phase, BENCH=mcp only the
	 * bridge's, BENCH=daemon one round of the daemon's figures. */
	const char *only = getenv("BENCH");
	const char *base = getenv("BENCH_BASELINE");
	if (base && *base) {
		uid_lock_make();
		side_by_side(base);
		uid_lock_remove();
		return;
	}
	if (only && strcmp(only, "hostile") == 0) {
		hostile_phase();
		return;
	}
	if (only && strcmp(only, "mcp") == 0) {
		struct daemon d;
		const char *args[] = {"--log-level", "warn", NULL};
		daemon_start(&d, args);
		printf("MCP bridge (bin/sandboxd-mcp on pipes)\n");
		bridge_overhead(d.sock);
		daemon_stop(&d);
		return;
	}
	struct side tree;
	snprintf(tree.label, sizeof tree.label, "working tree");
	snprintf(tree.bin, sizeof tree.bin, "%s", getenv("SANDBOXD_BIN"));
	snprintf(tree.mcp, sizeof tree.mcp, "%s", getenv("SANDBOXD_MCP_BIN"));
	printf("sandboxd bench (%ld CPUs)\n", sysconf(_SC_NPROCESSORS_ONLN));
	if (!only || strcmp(only, "daemon") != 0) {
		printf("floors\n");
		floor_fork();
		floor_socket();
		printf("engine (in-process)\n");
		fflush(stdout);
		engine_costs();
	}
	printf("daemon (default limits, log level warn)\n");
	uid_lock_make();
	round_of(&tree, 1, 0, &results[1][0]);
	uid_lock_remove();
	print_table(&tree, 1, &results[1], 1);
	if (!only || strcmp(only, "daemon") != 0)
		hostile_phase();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("bench");
	tcase_add_test(tc, bench);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	int failed = srunner_ntests_failed(sr);
	if (failed)
		srunner_print(sr, CK_NORMAL);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
