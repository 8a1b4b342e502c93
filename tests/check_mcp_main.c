/*
 * check_mcp_main.c - bin/sandboxd-mcp as a host runs it: a child on pipes,
 * talking to the real daemon. What the bridge's main owns: its options,
 * a line over the size bound (answered, skipped, the bridge's memory
 * measured), a host that does not read stdout (answers queued, stdin no
 * longer read past the queue's bound, the bridge's RSS measured, every
 * answer then delivered in order), the end of the session (stdin closed:
 * the execution it started is cancelled in the daemon, exit 0), a host
 * that went away (stdout closed) and SIGTERM, and --config handed to code
 * mode (a bad file refused, the upstream server's tools there for the
 * host's first tools/list, the server stopped with the bridge).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "testlib.h"

static struct daemon d;
static void up(void) { daemon_start(&d, NULL); }
static void down(void) { daemon_stop(&d); }

static const char *bridge_bin(void)
{
	const char *bin = getenv("SANDBOXD_MCP_BIN");
	ck_assert_msg(bin != NULL, "SANDBOXD_MCP_BIN is not set (run through make check)");
	return bin;
}

struct bridge {
	pid_t pid;
	int in, out, err; /* our ends: its stdin, stdout, stderr */
	char *buf;	  /* stdout read but not yet taken as lines */
	size_t len, cap;
};

static void bridge_start(struct bridge *b, const char *const *extra)
{
	int in[2], out[2], err[2];
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	const char *argv[16] = {bridge_bin(), "--socket", d.sock};
	int n = 3;
	for (; extra && *extra && n < 15; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	b->pid = fork();
	ck_assert_int_ge(b->pid, 0);
	if (b->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	b->in = in[1];
	b->out = out[0];
	b->err = err[0];
	b->buf = NULL;
	b->len = b->cap = 0;
}

static void bridge_send(struct bridge *b, const char *line)
{
	size_t n = strlen(line), off = 0;
	while (off < n) {
		ssize_t w = write(b->in, line + off, n - off);
		ck_assert_msg(w > 0, "write to the bridge: %s", strerror(errno));
		off += (size_t)w;
	}
	ck_assert_int_eq(write(b->in, "\n", 1), 1);
}

/* The next line of stdout (malloc'd, without its newline), or NULL on EOF
 * or after timeout_ms. */
static char *bridge_line(struct bridge *b, int timeout_ms)
{
	for (;;) {
		char *nl = b->len ? memchr(b->buf, '\n', b->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - b->buf);
			char *line = strndup(b->buf, n);
			memmove(b->buf, nl + 1, b->len - n - 1);
			b->len -= n + 1;
			return line;
		}
		struct pollfd p = {b->out, POLLIN, 0};
		if (poll(&p, 1, timeout_ms) <= 0)
			return NULL;
		if (b->cap - b->len < 65536) {
			b->cap = b->cap ? b->cap * 2 : 131072;
			b->buf = realloc(b->buf, b->cap);
			ck_assert_ptr_nonnull(b->buf);
		}
		ssize_t r = read(b->out, b->buf + b->len, 65536);
		if (r <= 0)
			return NULL;
		b->len += (size_t)r;
	}
}

/* The next message, parsed (INT_AS_REAL for the ids we check). */
static json_t *bridge_msg(struct bridge *b, int timeout_ms)
{
	char *line = bridge_line(b, timeout_ms);
	ck_assert_msg(line != NULL, "no message from the bridge in %d ms", timeout_ms);
	json_error_t e;
	json_t *j = json_loads(line, 0, &e);
	ck_assert_msg(j != NULL, "not JSON from the bridge: %.200s", line);
	free(line);
	return j;
}

/* Waits for the bridge to exit; its wait status, or -1 after timeout_ms. */
static int bridge_wait(struct bridge *b, int timeout_ms)
{
	int pfd = pidfd_open(b->pid, 0);
	ck_assert_int_ge(pfd, 0);
	struct pollfd p = {pfd, POLLIN, 0};
	int ready = poll(&p, 1, timeout_ms);
	close(pfd);
	int st;
	if (ready <= 0 || waitpid(b->pid, &st, 0) != b->pid)
		return -1;
	b->pid = -1;
	return st;
}

static void bridge_close(struct bridge *b)
{
	if (b->in >= 0)
		close(b->in);
	if (b->pid > 0) {
		if (bridge_wait(b, 5000) < 0) {
			kill(b->pid, SIGKILL);
			waitpid(b->pid, NULL, 0);
		}
	}
	close(b->out);
	close(b->err);
	free(b->buf);
}

/* The bridge's resident set, in KiB, from /proc/PID/status. */
static long bridge_rss_kib(const struct bridge *b)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)b->pid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	long kib = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void initialize(struct bridge *b)
{
	bridge_send(b, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
		       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
		       "\"name\":\"check\",\"version\":\"1\"}}}");
	json_t *r = bridge_msg(b, 10000);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(r, "result"), "protocolVersion")),
		"2025-11-25");
	json_decref(r);
	bridge_send(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* Runs the bridge with args only and collects its exit status, stdout and
 * stderr. */
static int run_bridge(const char *const *args, char *out, size_t outlen, char *err, size_t errlen)
{
	struct bridge b;
	bridge_start(&b, args);
	close(b.in);
	b.in = -1;
	int st = bridge_wait(&b, 10000);
	ck_assert_int_ge(st, 0);
	ssize_t n = read(b.out, out, outlen - 1);
	out[n > 0 ? n : 0] = '\0';
	n = read(b.err, err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	bridge_close(&b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(options)
{
	char out[8192], err[8192];
	const char *version[] = {"--version", NULL};
	ck_assert_int_eq(run_bridge(version, out, sizeof out, err, sizeof err), 0);
	ck_assert_str_eq(out, "sandboxd-mcp " SANDBOXD_VERSION "\n");
	const char *help[] = {"-h", NULL};
	ck_assert_int_eq(run_bridge(help, out, sizeof out, err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(out, "--timeout-ms"));
	ck_assert_ptr_nonnull(strstr(out, "--store-file"));
	/* A usage error is one line and a hint, on stderr; stdout stays MCP's. */
	const char *bad[] = {"--timeout-ms", "12x", NULL};
	ck_assert_int_eq(run_bridge(bad, out, sizeof out, err, sizeof err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, "--timeout-ms: '12x'"));
	/* One line, ending in the hint, as sandboxctl's and sandboxd's. */
	ck_assert_str_eq(err, "sandboxd-mcp: --timeout-ms: '12x' is not a positive number "
			      "(a K, M or G suffix may follow) (try 'sandboxd-mcp --help')\n");
	const char *unknown[] = {"--nope", NULL};
	ck_assert_int_eq(run_bridge(unknown, out, sizeof out, err, sizeof err), 2);
	ck_assert_ptr_nonnull(strstr(err, "unknown option '--nope'"));
	const char *operand[] = {"extra", NULL};
	ck_assert_int_eq(run_bridge(operand, out, sizeof out, err, sizeof err), 2);
	/* Sizes take the daemon's suffixes; stdin closed at once ends the
	 * session with 0. */
	const char *sizes[] = {"--memory-bytes",
			       "64M",
			       "--output-bytes",
			       "1k",
			       "--timeout-ms",
			       "2K",
			       "--max-cpu-ms",
			       "1000",
			       NULL};
	ck_assert_int_eq(run_bridge(sizes, out, sizeof out, err, sizeof err), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(long_line_skipped)
{
	struct bridge b;
	bridge_start(&b, NULL);
	initialize(&b);
	long rss0 = bridge_rss_kib(&b);
	/* A line of four times the bound, written in pieces, then a ping on
	 * the same stream. */
	size_t chunk = 1u << 20;
	char *junk = malloc(chunk);
	memset(junk, 'x', chunk);
	for (size_t sent = 0; sent < 4u * LIMIT_MCP_LINE_BYTES; sent += chunk) {
		size_t off = 0;
		while (off < chunk) {
			ssize_t w = write(b.in, junk + off, chunk - off);
			ck_assert_int_gt(w, 0);
			off += (size_t)w;
		}
	}
	free(junk);
	long rss1 = bridge_rss_kib(&b);
	bridge_send(&b, "");
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}");
	json_t *e = bridge_msg(&b, 10000);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(e, "error"), "code")),
			 -32700);
	ck_assert(json_is_null(json_object_get(e, "id")));
	json_decref(e);
	json_t *r = bridge_msg(&b, 10000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "after");
	ck_assert(json_is_object(json_object_get(r, "result")));
	json_decref(r);
	/* What it held for the line is bounded by the line bound (plus a
	 * read's worth), not by the line. */
	fprintf(stderr, "long line: bridge RSS %ld KiB before, %ld KiB after %u MiB\n", rss0, rss1,
		(unsigned)(4u * LIMIT_MCP_LINE_BYTES >> 20));
	ck_assert_int_lt(rss1 - rss0, (long)(2u * LIMIT_MCP_LINE_BYTES / 1024u + 1024u));
	bridge_close(&b);
}
END_TEST

START_TEST(slow_host_queued)
{
	struct bridge b;
	bridge_start(&b, NULL);
	initialize(&b);
	/* tools/list answers are some 10 KiB each: ask for far more than the
	 * queue's bound without reading any, writing as long as the bridge
	 * takes requests. */
	int flags = fcntl(b.in, F_GETFL);
	fcntl(b.in, F_SETFL, flags | O_NONBLOCK);
	int sent = 0;
	size_t pending_off = 0;
	char line[128];
	int n = 0;
	long rss_max = 0;
	for (int idle = 0; idle < 50;) {
		if (pending_off == 0)
			n = snprintf(line, sizeof line,
				     "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n",
				     sent + 1);
		ssize_t w = write(b.in, line + pending_off, (size_t)n - pending_off);
		if (w > 0) {
			pending_off += (size_t)w;
			if (pending_off == (size_t)n) {
				pending_off = 0;
				sent++;
			}
			if (sent >= 20000)
				break;
			continue;
		}
		ck_assert_msg(errno == EAGAIN, "write: %s", strerror(errno));
		/* The bridge stopped reading: wait for it to stay stopped. */
		struct pollfd p = {b.in, POLLOUT, 0};
		if (poll(&p, 1, 20) == 0)
			idle++;
		long rss = bridge_rss_kib(&b);
		if (rss > rss_max)
			rss_max = rss;
	}
	fcntl(b.in, F_SETFL, flags);
	/* It stopped taking requests before the end, and its memory is the
	 * queue's bound plus what it holds anyway, not 20000 answers. */
	fprintf(stderr,
		"slow host: %d requests taken before the bridge stopped reading, RSS %ld KiB\n",
		sent, rss_max);
	ck_assert_int_lt(sent, 20000);
	ck_assert_int_lt(rss_max, (long)(3u * LIMIT_MCP_OUT_QUEUE_BYTES / 1024u + 16384u));
	ck_assert_int_eq(kill(b.pid, 0), 0);
	if (pending_off) {
		ck_assert_int_eq(write(b.in, line + pending_off, (size_t)n - pending_off),
				 (ssize_t)((size_t)n - pending_off));
		sent++;
	}
	/* Now read: every answer comes, whole and in order, and the bridge
	 * takes the rest of the requests as the queue drains. */
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
	for (int i = 1; i <= sent; i++) {
		json_t *r = bridge_msg(&b, 30000);
		ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), i);
		ck_assert_int_eq(
			json_array_size(json_object_get(json_object_get(r, "result"), "tools")), 6);
		json_decref(r);
	}
	json_t *r = bridge_msg(&b, 30000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "last");
	json_decref(r);
	bridge_close(&b);
}
END_TEST

/* The state of the daemon's newest execution whose code starts with
 * marker, or "" when there is none. */
static const char *exec_state(const char *marker, char *state, size_t n)
{
	json_t *r = call_once(d.sock, json_pack("{s:s,s:i}", "op", "list", "limit", 100));
	*state = '\0';
	size_t i;
	json_t *e;
	json_array_foreach (json_object_get(r, "executions"), i, e) {
		const char *p = json_string_value(json_object_get(e, "code_preview"));
		if (p && strncmp(p, marker, strlen(marker)) == 0) {
			snprintf(state, n, "%s", json_string_value(json_object_get(e, "state")));
			break;
		}
	}
	json_decref(r);
	return state;
}

START_TEST(stdin_close_cancels)
{
	struct bridge b;
	bridge_start(&b, NULL);
	initialize(&b);
	char marker[64], code[160], line[512], state[32];
	snprintf(marker, sizeof marker, "/*close-%d*/", (int)getpid());
	snprintf(code, sizeof code, "%s while (true) {}", marker);
	snprintf(line, sizeof line,
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
		 "\"execute\",\"arguments\":{\"code\":\"%s\",\"timeout_ms\":60000}}}",
		 code);
	bridge_send(&b, line);
	/* Wait for the daemon to run it. */
	for (int i = 0; i < 1000 && strcmp(exec_state(marker, state, sizeof state), "running");
	     i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	ck_assert_str_eq(state, "running");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	close(b.in);
	b.in = -1;
	int st = bridge_wait(&b, 10000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	fprintf(stderr, "stdin closed: the bridge exited in %ld ms\n", ms);
	/* The execution it started ended as cancelled, not by its timeout. */
	ck_assert_str_eq(exec_state(marker, state, sizeof state), "cancelled");
	/* The host still reading its stdout is told why the call ended:
	 * the session, not a daemon failure. */
	json_t *r = bridge_msg(&b, 1000);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 1);
	json_t *res = json_object_get(r, "result");
	ck_assert(json_is_true(json_object_get(res, "isError")));
	const char *text = json_string_value(
		json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
	ck_assert_msg(text && strstr(text, "the session ended before execution ") &&
			      strstr(text, "finished: the bridge cancelled it") &&
			      !strstr(text, "connection"),
		      "%s", text);
	json_decref(r);
	ck_assert_ptr_null(bridge_line(&b, 1000)); /* then EOF */
	bridge_close(&b);
}
END_TEST

/* stdout gone with an execution running: the bridge cancels it and ends,
 * writing nothing more (no SIGPIPE, status 0), and says so on stderr. */
START_TEST(stdout_gone_cancels)
{
	struct bridge b;
	bridge_start(&b, NULL);
	initialize(&b);
	char marker[64], code[160], line[512], state[32];
	snprintf(marker, sizeof marker, "/*gone-%d*/", (int)getpid());
	snprintf(code, sizeof code, "%s while (true) {}", marker);
	snprintf(line, sizeof line,
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
		 "\"execute\",\"arguments\":{\"code\":\"%s\",\"timeout_ms\":60000}}}",
		 code);
	bridge_send(&b, line);
	for (int i = 0; i < 1000 && strcmp(exec_state(marker, state, sizeof state), "running");
	     i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	ck_assert_str_eq(state, "running");
	close(b.out);
	b.out = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* The next answer finds stdout gone. */
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
	int st = bridge_wait(&b, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ck_assert_str_eq(exec_state(marker, state, sizeof state), "cancelled");
	char err[8192];
	ssize_t n = read(b.err, err, sizeof err - 1);
	err[n > 0 ? n : 0] = '\0';
	ck_assert_msg(strstr(err, "the host is gone"), "%s", err);
	/* One complaint about stdout: nothing was written to it after. */
	char *first = strstr(err, "stdout:");
	ck_assert_msg(first && !strstr(first + 1, "stdout:"), "%s", err);
	bridge_close(&b);
}
END_TEST

START_TEST(host_gone_and_sigterm)
{
	/* stdout closed under it: the bridge notices on its next answer and
	 * ends. */
	struct bridge b;
	bridge_start(&b, NULL);
	initialize(&b);
	close(b.out);
	b.out = open("/dev/null", O_RDONLY | O_CLOEXEC);
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	int st = bridge_wait(&b, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st), "the bridge did not end when stdout closed");
	bridge_close(&b);
	/* SIGTERM ends the session as stdin closing does. */
	bridge_start(&b, NULL);
	initialize(&b);
	kill(b.pid, SIGTERM);
	st = bridge_wait(&b, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	bridge_close(&b);
}
END_TEST

/* The upstream test server (tests/mcp_stub.c), by its absolute path. */
static const char *stub_path(void)
{
	static char path[4096];
	ck_assert_msg(realpath("build/tests/mcp_stub", path) != NULL,
		      "build/tests/mcp_stub is missing (run through make check)");
	return path;
}

/* The first child of pid, or -1 (/proc/PID/task/PID/children). */
static pid_t first_child(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	int child = -1;
	if (f) {
		if (fscanf(f, "%d", &child) != 1)
			child = -1;
		fclose(f);
	}
	return child;
}

/* A line from an upstream server that is not JSON is logged by itself: the
 * log quoted up to 80 bytes from where the line began, past its end into
 * the lines read after it (and past the buffer, at its end). */
START_TEST(upstream_garbage_logged_alone)
{
	char dir[] = "/tmp/sandboxd-mcp-XXXXXX", cfg[128];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cfg, sizeof cfg, "%s/mcp.json", dir);
	FILE *f = fopen(cfg, "w");
	fprintf(f, "{\"mcpServers\": {\"s\": {\"command\": \"%s\", \"args\": [\"--garbage\"]}}}",
		stub_path());
	fclose(f);
	const char *args[] = {"--config", cfg, NULL};
	struct bridge b;
	bridge_start(&b, args);
	initialize(&b);
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
			"\"name\":\"execute\",\"arguments\":{\"code\":"
			"\"return tools.s.echo({a: 1})\"}}}");
	json_t *r = bridge_msg(&b, 30000);
	char *v = json_dumps(
		json_object_get(json_object_get(json_object_get(r, "result"), "structuredContent"),
				"value"),
		JSON_COMPACT | JSON_ENCODE_ANY);
	ck_assert_str_eq(v, "{\"a\":1}");
	free(v);
	json_decref(r);
	close(b.in);
	b.in = -1;
	ck_assert_int_ge(bridge_wait(&b, 10000), 0);
	char err[16384];
	size_t n = 0;
	ssize_t k;
	while (n < sizeof err - 1 && (k = read(b.err, err + n, sizeof err - 1 - n)) > 0)
		n += (size_t)k;
	err[n] = '\0';
	const char *at = strstr(err, "not a JSON-RPC message");
	ck_assert_msg(at != NULL, "%s", err);
	const char *eol = strchr(at, '\n');
	ck_assert_ptr_nonnull(eol);
	ck_assert_msg(eol - at > 8 && memcmp(eol - 8, "not json", 8) == 0, "%s", err);
	ck_assert_msg(strncmp(eol + 1, "{\"jsonrpc\"", 10) != 0, "%s", err);
	bridge_close(&b);
	unlink(cfg);
	rmdir(dir);
}
END_TEST

START_TEST(config_handed_to_code_mode)
{
	char dir[] = "/tmp/sandboxd-mcp-XXXXXX", cfg[128], bad[128], out[8192], err[8192];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(bad, sizeof bad, "%s/bad.json", dir);
	FILE *f = fopen(bad, "w");
	fputs("{\"mcpServers\": {\"s\": {\"args\": []}}}", f);
	fclose(f);
	/* A config that cannot be used: said on stderr, exit 2, nothing on
	 * stdout. */
	const char *badargs[] = {"--config", bad, NULL};
	ck_assert_int_eq(run_bridge(badargs, out, sizeof out, err, sizeof err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "--config") && strstr(err, "command"), "%s", err);
	/* The option and the file, each said once. */
	ck_assert_msg(strstr(err, "--config: ") && !strstr(strstr(err, "--config") + 1, "--config"),
		      "%s", err);
	ck_assert_msg(strstr(err, bad) && !strstr(strstr(err, bad) + 1, bad), "%s", err);
	snprintf(cfg, sizeof cfg, "%s/mcp.json", dir);
	f = fopen(cfg, "w");
	fprintf(f, "{\"mcpServers\": {\"s\": {\"command\": \"%s\", \"args\": []}}}", stub_path());
	fclose(f);
	const char *args[] = {"--config", cfg, NULL};
	struct bridge b;
	bridge_start(&b, args);
	initialize(&b);
	/* The host's first tools/list already sees the upstream tools. */
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	json_t *r = bridge_msg(&b, 30000);
	json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
	bool search = false;
	const char *desc = NULL;
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		if (strcmp(name, "search_tools") == 0)
			search = true;
		if (strcmp(name, "execute") == 0)
			desc = json_string_value(json_object_get(t, "description"));
	}
	ck_assert(search);
	ck_assert_msg(desc && strstr(desc, "echo"), "execute: %s", desc ? desc : "(none)");
	json_decref(r);
	pid_t stub = first_child(b.pid);
	ck_assert_int_gt(stub, 0);
	bridge_send(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
			"\"name\":\"execute\",\"arguments\":{\"code\":"
			"\"return tools.s.echo({a: 1})\"}}}");
	r = bridge_msg(&b, 30000);
	json_t *res = json_object_get(r, "result");
	ck_assert(!json_is_true(json_object_get(res, "isError")));
	char *v = json_dumps(json_object_get(json_object_get(res, "structuredContent"), "value"),
			     JSON_COMPACT);
	ck_assert_str_eq(v, "{\"a\":1}");
	free(v);
	json_decref(r);
	/* stdin closed: the upstream server is stopped and reaped with the
	 * bridge. */
	close(b.in);
	b.in = -1;
	int st = bridge_wait(&b, 10000);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	ck_assert_int_eq(kill(stub, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	bridge_close(&b);
	unlink(cfg);
	unlink(bad);
	rmdir(dir);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("mcp_main");
	TCase *tc = tcase_create("bridge");
	tcase_add_unchecked_fixture(tc, up, down);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, options);
	tcase_add_test(tc, long_line_skipped);
	tcase_add_test(tc, slow_host_queued);
	tcase_add_test(tc, stdin_close_cancels);
	tcase_add_test(tc, stdout_gone_cancels);
	tcase_add_test(tc, host_gone_and_sigterm);
	tcase_add_test(tc, config_handed_to_code_mode);
	tcase_add_test(tc, upstream_garbage_logged_alone);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
