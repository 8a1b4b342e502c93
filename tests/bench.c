/*
 * bench.c - `make bench`: what an execution costs, beside the floors it
 * cannot beat, all measured in the same run on the same machine.
 *
 *   floor: fork + _exit + waitpid of a tiny process; a Unix socket round trip
 *   engine: preparing a Duktape heap (what the forkserver saves each worker)
 *           against running a trivial script in a prepared one
 *   daemon: round-trip latency of a trivial execute, sequential (p50/p99),
 *           and throughput with 16 concurrent clients
 *   bridge: what bin/sandboxd-mcp adds to a trivial execute: `tools/call
 *           execute` through the bridge (a child on pipes, as a host runs
 *           it) against the same execute sent to the daemon directly,
 *           interleaved, p50/p99 of each and the difference
 *   hostile: the daemon's longest event-loop turn and its RSS under each
 *           class of the hostile corpus (tests/data/hostile), then under all
 *           of it at once while normal executions run beside it
 */
#include <check.h>
#include <errno.h>
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

#define SEQ_RUNS 2000
#define CLIENTS 16
#define THROUGHPUT_SECONDS 3

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, cmp_double);
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i];
}

static void row(const char *what, double *samples, size_t n)
{
	double p50 = pct(samples, n, 50), p99 = pct(samples, n, 99);
	printf("  %-44s p50 %8.1f us   p99 %8.1f us   (n=%zu)\n", what, p50, p99, n);
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
		enum { N = 200 };
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

/* A trivial execute on an sdc connection, as text; its frames go to fn. Its id. */
static long long exec_send(struct sdc *c, sdc_handler *fn, void *arg)
{
	char text[128];
	long long id = sdc_next_id(c);
	int n = snprintf(text, sizeof text,
			 "{\"op\":\"execute\",\"id\":%lld,\"code\":\"return 1+1\"}", id);
	if (sdc_request_text(c, id, text, (size_t)n, fn, arg) != SDC_OK) {
		fprintf(stderr, "bench: cannot send: %s\n", sdc_error(c));
		exit(1);
	}
	return id;
}

/* One trivial execute round trip: its final reply (NULL on failure). */
static json_t *exec_round_trip(struct sdc *c, int timeout_ms)
{
	json_t *r = NULL;
	long long id = exec_send(c, keep_reply, &r);
	if (sdc_wait(c, id, timeout_ms) != SDC_OK)
		sdc_forget(c, id);
	return r;
}

static double sequential(const char *sock)
{
	static double s[SEQ_RUNS];
	struct sdc *c = bench_connect(sock);
	for (int i = 0; i < 100; i++) /* warm-up */
		json_decref(exec_round_trip(c, 10000));
	for (int i = 0; i < SEQ_RUNS; i++) {
		double t = now_us();
		json_t *r = exec_round_trip(c, 10000);
		s[i] = now_us() - t;
		if (!r || !json_is_true(json_object_get(r, "success"))) {
			fprintf(stderr, "bench: execution %d failed\n", i);
			exit(1);
		}
		json_decref(r);
	}
	sdc_close(c);
	row("execute `return 1+1`, sequential round trip", s, SEQ_RUNS);
	return pct(s, SEQ_RUNS, 50);
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
	if (!frame || !json_is_true(json_object_get(frame, "success"))) {
		t->failed = true;
		return;
	}
	if (t->stop)
		return;
	(*t->done)++;
	t->id = exec_send(c, tp_reply, t);
}

/* Modern scripts pay for their lowering in the worker: the round trip of
 * one from tests/data/bench, beside the ES5 one's. */
static double script_latency(const char *sock, const char *label, const char *file)
{
	enum { N = 200 };
	static double s[N];
	char path[256];
	snprintf(path, sizeof path, "tests/data/bench/%s", file);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench: cannot open %s (run from the source tree)\n", path);
		exit(1);
	}
	char code[8192];
	size_t len = fread(code, 1, sizeof code - 1, f);
	fclose(f);
	code[len] = 0;
	json_t *req = json_pack("{s:s, s:s%}", "op", "execute", "code", code, len);
	if (!req) {
		fprintf(stderr, "bench: %s is not UTF-8\n", path);
		exit(1);
	}
	struct sdc *c = bench_connect(sock);
	json_int_t heap = 0, rss = 0;
	for (int i = -10; i < N; i++) {
		double t = now_us();
		json_t *r = sdc_call(c, req, NULL, NULL, 10000, NULL);
		if (i >= 0)
			s[i] = now_us() - t;
		if (!r || !json_is_true(json_object_get(r, "success"))) {
			fprintf(stderr, "bench: %s failed\n", file);
			exit(1);
		}
		heap = json_integer_value(json_object_get(r, "heap_peak_bytes"));
		rss = json_integer_value(json_object_get(r, "memory_peak_bytes"));
		json_decref(r);
	}
	sdc_close(c);
	json_decref(req);
	row(label, s, N);
	printf("  %-44s %8lld KiB heap peak, %lld KiB RSS peak\n", "", (long long)heap / 1024,
	       (long long)rss / 1024);
	return pct(s, N, 50);
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

/* The bridge's added latency: the same trivial execute through the bridge
 * and straight to the daemon, one after the other, so both see the same
 * machine. */
static void bridge_overhead(const char *sock)
{
	enum { N = 2000 };
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
}

static void throughput(const char *sock)
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

/* The helpers of testlib report through Check, so the bench runs as one
 * Check test, in-process. */
START_TEST(bench)
{
	/* BENCH=hostile runs only the hostile phase, BENCH=mcp only the
	 * bridge's. */
	const char *only = getenv("BENCH");
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
	printf("sandboxd bench (%ld CPUs)\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("floors\n");
	floor_fork();
	floor_socket();
	printf("engine (in-process)\n");
	fflush(stdout);
	engine_costs();
	struct daemon d;
	const char *args[] = {"--log-level", "warn", NULL};
	daemon_start(&d, args);
	printf("daemon (default limits, %s)\n", "log level warn");
	double es5 = sequential(d.sock);
	throughput(d.sock);
	printf("modern code, lowered in the worker\n");
	double m10 = script_latency(d.sock, "10-line ES2020 script (modern-10.js)", "modern-10.js");
	double m60 = script_latency(d.sock, "60-line async script (async-60.js)", "async-60.js");
	printf("  added p50: %.1f ms (10 lines), %.1f ms (60 lines)\n", (m10 - es5) / 1000,
	       (m60 - es5) / 1000);
	printf("MCP bridge (bin/sandboxd-mcp on pipes)\n");
	fflush(stdout);
	bridge_overhead(d.sock);
	daemon_stop(&d);
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
