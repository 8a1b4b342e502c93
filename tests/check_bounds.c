/*
 * check_bounds.c - hostile clients against the real daemon, with its
 * memory measured (VmRSS and VmHWM from /proc/PID/status) while they run:
 * results kept as text and counted by retention, tool-call loops, schema
 * bombs, unread status replies and long-polls, pipelined executes never
 * read, and half-sent frames. Each test states its bound, and checks that
 * other clients are still served and that nothing promised is dropped.
 *
 * Each test has a daemon of its own, so that VmHWM is that test's peak.
 */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define MIB (1024L * 1024L)

static struct daemon d;

/* Small budgets, so that the bounds are tight and quickly reached. */
static void up(void)
{
	const char *args[] = {"--max-workers",
			      "4",
			      "--retain-bytes",
			      "8M",
			      "--reply-bytes",
			      "16M",
			      "--conn-reply-bytes",
			      "2M",
			      "--partial-bytes",
			      "16M",
			      "--max-frame-bytes",
			      "4M",
			      "--queue-bytes",
			      "16M",
			      NULL};
	daemon_start(&d, args);
}
static void down(void) { daemon_stop(&d); }

/* A field of /proc/PID/status in bytes (kB there). */
static long proc_status(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	long v = -1;
	size_t n = strlen(field);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10) * 1024;
	fclose(f);
	ck_assert_int_ge(v, 0);
	return v;
}
static long rss(void) { return proc_status(d.pid, "VmRSS"); }
static long hwm(void) { return proc_status(d.pid, "VmHWM"); }

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Another client is served: health answers, and quickly. Returns the
 * round trip in ms. */
static long long health_rtt(void)
{
	long long t0 = now_ms();
	json_t *r = call_once(d.sock, json_pack("{s:s}", "op", "health"));
	long long ms = now_ms() - t0;
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	ck_assert_msg(ms < 3000, "health took %lld ms under load", ms);
	return ms;
}

/* Starts code as async and returns its id (caller frees). */
static char *start_async(json_t *req)
{
	json_object_set_new(req, "op", json_string("async"));
	json_t *r = call_once(d.sock, req);
	ck_assert_msg(jtrue(r, "ok"), "async refused: %s", err_msg(r));
	char *id = strdup(jstr(r, "execution_id"));
	json_decref(r);
	return id;
}

/* Waits for an execution to end; returns its final status (first chunk). */
static json_t *wait_done(const char *id)
{
	for (int i = 0; i < 20; i++) {
		json_t *r = call_once(d.sock,
				      json_pack("{s:s, s:s, s:b, s:i}", "op", "status",
						"execution_id", id, "wait", 1, "wait_ms", 5000));
		ck_assert_msg(jtrue(r, "ok"), "status: %s", err_msg(r));
		if (json_object_get(r, "success"))
			return r;
		json_decref(r);
	}
	ck_abort_msg("%s did not end", id);
	return NULL;
}

/* ---- results */

/* A plain script returning 2e6 references to one object: its 6 MB of
 * JSON is checked as text and refused by count, never built into a tree
 * (which cost 465 MB). */
START_TEST(result_of_many_references)
{
	long base = hwm();
	json_t *req = json_pack("{s:s, s:s, s:i, s:i}", "op", "execute", "code",
				"var o = {}, a = []; for (var i = 0; i < 2000000; i++) a.push(o); "
				"return a",
				"memory_bytes", 1024 * 1024 * 1024, "timeout_ms", 60000);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_request(&c, req);
	json_t *r = client_reply(&c, NULL, 90000);
	ck_assert_ptr_nonnull(r);
	client_close(&c);
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_msg(strstr(err_msg(r), "too large") != NULL, "%s", err_msg(r));
	json_decref(r);
	long grew = hwm() - base;
	printf("bounds: 2e6 references: daemon peak grew %ld KiB (bound 48 MiB)\n", grew / 1024);
	ck_assert_int_lt(grew, 48 * MIB);
	health_rtt();
}
END_TEST

/* Big values are kept as text and count against --retain-bytes (8M):
 * of ten 6 MB results one stays, and memory stays flat. */
START_TEST(kept_values_counted)
{
	long base = rss();
	char *ids[10];
	for (int i = 0; i < 10; i++) {
		json_t *r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "execute", "code",
							"return 'v'.repeat(6000000)"));
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		ck_assert_uint_eq(strlen(jstr(r, "value")), 6000000);
		ids[i] = strdup(jstr(r, "execution_id"));
		json_decref(r);
	}
	json_t *h = call_once(d.sock, json_pack("{s:s}", "op", "health"));
	long long kept = jint(h, "executions_retained");
	json_decref(h);
	long grew = rss() - base;
	printf("bounds: ten 6 MB values: %lld retained, RSS grew %ld KiB (bound 8M + 16 MiB)\n",
	       kept, grew / 1024);
	ck_assert_int_le(kept, 1);
	ck_assert_int_lt(grew, 24 * MIB);
	/* the oldest went, the newest is whole */
	json_t *r =
		call_once(d.sock, json_pack("{s:s, s:s}", "op", "status", "execution_id", ids[0]));
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);
	r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "status", "execution_id", ids[9]));
	ck_assert_uint_eq(strlen(jstr(r, "value")), 6000000);
	json_decref(r);
	for (int i = 0; i < 10; i++)
		free(ids[i]);
}
END_TEST

/* A returned string with a NUL in it is a value like any other. */
/* The declared tools' names an ended execution keeps count against
 * --retain-bytes (8M): 256 names of 128 bytes are about 48 KiB a record,
 * so 300 such executions cannot all stay. */
START_TEST(tool_names_counted)
{
	json_t *tools = json_array();
	for (int i = 0; i < 256; i++) {
		char name[129];
		snprintf(name, sizeof name, "t%03d_", i);
		memset(name + 5, 'n', 123);
		name[128] = '\0';
		json_array_append_new(tools, json_pack("{s:s}", "name", name));
	}
	long base = rss();
	for (int i = 0; i < 300; i++) {
		json_t *r = call_once(d.sock, json_pack("{s:s, s:s, s:O}", "op", "execute", "code",
							"return 1", "tools", tools));
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		json_decref(r);
	}
	json_decref(tools);
	json_t *h = call_once(d.sock, json_pack("{s:s}", "op", "health"));
	long long kept = jint(h, "executions_retained");
	json_decref(h);
	long grew = rss() - base;
	printf("bounds: 300 executions declaring 256 tools of 128-byte names: %lld retained, RSS "
	       "grew %ld KiB (retain-bytes 8M)\n",
	       kept, grew / 1024);
	ck_assert_int_lt(kept, 200);
	ck_assert_int_lt(grew, 16 * MIB);
}
END_TEST

START_TEST(value_with_nul)
{
	json_t *r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "execute", "code",
						"return ['a\\u0000b', {k: '\\u0000'}]"));
	ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
	json_t *v = json_object_get(r, "value");
	ck_assert_uint_eq(json_string_length(json_array_get(v, 0)), 3);
	ck_assert_int_eq(json_string_value(json_array_get(v, 0))[1], '\0');
	json_decref(r);
}
END_TEST

/* ---- tool calls */

/* An async script whose client left, looping on a failing tool: the calls
 * record stops at LIMIT_TOOL_CALLS and counts the rest (316 MB in 8 s
 * before). */
START_TEST(tool_loop_client_gone)
{
	long base = hwm();
	json_t *req = json_pack("{s:s, s:[{s:s}], s:i}", "code",
				"for (;;) { try { tools.t() } catch (e) {} }", "tools", "name", "t",
				"timeout_ms", 4000);
	char *id = start_async(req); /* its connection is closed at once */
	json_t *r = wait_done(id);
	ck_assert_str_eq(err_kind(r), "timeout");
	json_t *calls = json_object_get(r, "calls");
	ck_assert_uint_eq(json_array_size(calls), 1000);
	ck_assert_int_gt(jint(r, "calls_dropped"), 0);
	long grew = hwm() - base;
	printf("bounds: tool loop: %zu calls kept, %lld dropped; peak grew %ld KiB (bound 16 "
	       "MiB)\n",
	       json_array_size(calls), jint(r, "calls_dropped"), grew / 1024);
	ck_assert_int_lt(grew, 16 * MIB);
	json_decref(r);
	free(id);
	health_rtt();
}
END_TEST

/* ---- requests */

/* A 3 MB input_schema of {}s is refused on its text, naming the field,
 * before any tree (230 MB a retained execution before). */
START_TEST(schema_bomb)
{
	long base = hwm();
	size_t n = 1000000;
	const char *head = "{\"op\":\"execute\",\"code\":\"1\",\"tools\":[{\"name\":\"t\","
			   "\"input_schema\":{\"a\":[";
	size_t hl = strlen(head);
	char *s = malloc(hl + 3 * n + 16);
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + 3 * i, "{},", 3);
	strcpy(s + hl + 3 * n - 1, "]}}]}");
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_send_raw(&c, s, strlen(s));
	client_send_raw(&c, "\n", 1);
	json_t *r = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(r);
	assert_error(r, "INVALID_ARGUMENT", "tools");
	json_decref(r);
	client_close(&c);
	free(s);
	long grew = hwm() - base;
	printf("bounds: 3 MB schema of {}s: peak grew %ld KiB (bound 16 MiB)\n", grew / 1024);
	ck_assert_int_lt(grew, 16 * MIB);
}
END_TEST

/* ---- replies */

/* An execution with 6 MB of stdout. */
static char *big_output_exec(const char *tail)
{
	char code[256];
	snprintf(code, sizeof code,
		 "var s = 'x'.repeat(1048575); for (var i = 0; i < 6; i++) console.log(s); %s",
		 tail);
	return start_async(json_pack("{s:s}", "code", code));
}

/* Thirty clients ask for that output and never read: each is served a
 * bounded chunk, built only when there is room, not a copy of it all. */
START_TEST(status_never_read)
{
	char *id = big_output_exec("");
	json_decref(wait_done(id));
	long base = rss();
	enum { N = 30 };
	struct client cs[N];
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(client_open(&cs[i], d.sock, FRAME_MODE_BINARY), 0);
		client_request(&cs[i], json_pack("{s:s, s:s}", "op", "status", "execution_id", id));
	}
	long long rtt = health_rtt(); /* also: all thirty were read by now */
	long grew = rss() - base;
	printf("bounds: 30 unread status replies of 6 MB output: RSS grew %ld KiB (bound 16M + "
	       "4 MiB), health %lld ms\n",
	       grew / 1024, rtt);
	ck_assert_int_lt(grew, 20 * MIB);
	/* Nothing promised is dropped: every reader gets its chunk, and
	 * polling on gets the rest. */
	for (int i = 0; i < N; i++) {
		json_t *r = client_reply(&cs[i], NULL, 20000);
		ck_assert_ptr_nonnull(r);
		ck_assert(jtrue(r, "ok"));
		ck_assert_uint_eq(strlen(jstr(r, "stdout")), 1024 * 1024);
		ck_assert(jtrue(r, "output_more"));
		json_decref(r);
	}
	long long off = 0, got = 0;
	for (;;) {
		json_t *r =
			client_call(&cs[0], json_pack("{s:s, s:s, s:I}", "op", "status",
						      "execution_id", id, "stdout_offset", off));
		got += (long long)strlen(jstr(r, "stdout"));
		off = jint(r, "stdout_next");
		bool more = jtrue(r, "output_more");
		json_decref(r);
		if (!more)
			break;
	}
	ck_assert_int_eq(got, 6 * 1048576);
	for (int i = 0; i < N; i++)
		client_close(&cs[i]);
	free(id);
}
END_TEST

/* A hundred long-polls on one connection that reads nothing: their
 * answers wait for room instead of piling up; all come once it reads. */
START_TEST(long_polls_unread)
{
	char *id = big_output_exec("var t = Date.now(); while (Date.now() - t < 1500);");
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	long base = rss();
	for (int i = 0; i < 100; i++)
		client_request(&c, json_pack("{s:s, s:s, s:b, s:i}", "op", "status", "execution_id",
					     id, "wait", 1, "id", i));
	json_decref(wait_done(id));
	long long rtt = health_rtt();
	long grew = rss() - base;
	printf("bounds: 100 unread long-polls: RSS grew %ld KiB (bound 2M + 16 MiB), health %lld "
	       "ms\n",
	       grew / 1024, rtt);
	ck_assert_int_lt(grew, 18 * MIB);
	for (int i = 0; i < 100; i++) {
		json_t *r = client_reply(&c, NULL, 20000);
		ck_assert_msg(r != NULL, "long-poll reply %d missing", i);
		ck_assert_str_eq(jstr(r, "state"), "completed");
		json_decref(r);
	}
	client_close(&c);
	free(id);
}
END_TEST

/* The daemon's longest loop turn so far, from health, in us of CPU time
 * (a loaded machine stretches wall time, not the daemon's work). */
static long long max_turn_us(void)
{
	json_t *h = call_once(d.sock, json_pack("{s:s}", "op", "health"));
	long long t = jint(json_object_get(h, "loop"), "max_turn_cpu_us");
	json_decref(h);
	return t;
}

/* Writes len bytes of p on c from a child process (the daemon may stop
 * reading the connection part way); returns the child. */
static pid_t send_from_child(struct client *c, const char *p, size_t len)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		while (len > 0) {
			ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
			if (n <= 0)
				_exit(1);
			p += n;
			len -= (size_t)n;
		}
		_exit(0);
	}
	return pid;
}

/* Status replies left unread keep the records they stream from alive,
 * even once retention (8M) lets those go: each small reply may pin 6 MB.
 * Once such records take --reply-bytes (16M), new executions wait (health's
 * held) instead of ageing more records out; reading one of the replies
 * frees its record and lets them go on. */
START_TEST(pinned_records_bounded)
{
	enum { N = 10 };
	struct client cs[N];
	long base = rss();
	int pins = 0;
	char *held_id = NULL;
	for (int k = 0; k < N && !held_id; k++) {
		char *id = big_output_exec("");
		long long deadline = now_ms() + 60000;
		for (;;) {
			json_t *h = call_once(d.sock, json_pack("{s:s}", "op", "health"));
			long long held = jint(h, "held");
			json_decref(h);
			json_t *st = call_once(d.sock, json_pack("{s:s, s:s}", "op", "status",
								 "execution_id", id));
			bool done = json_object_get(st, "success") != NULL;
			json_decref(st);
			if (done)
				break;
			if (held) {
				held_id = id;
				break;
			}
			ck_assert_msg(now_ms() < deadline, "execution %d neither ended nor held",
				      k);
			struct timespec gap = {0, 5 * 1000 * 1000}; /* polling interval */
			nanosleep(&gap, NULL);
		}
		if (held_id)
			break;
		ck_assert_int_eq(client_open(&cs[pins], d.sock, FRAME_MODE_BINARY), 0);
		client_request(&cs[pins],
			       json_pack("{s:s, s:s}", "op", "status", "execution_id", id));
		pins++;
		free(id);
	}
	long grew = hwm() - base;
	printf("bounds: %d unread status replies pinning 6 MB records: the next execution held "
	       "after %d; peak grew %ld KiB (bound 8M retained + 16M pinned + 6 MiB + 8 MiB)\n",
	       N, pins, grew / 1024);
	ck_assert_msg(held_id != NULL, "%d records pinned and nothing held", pins);
	ck_assert_int_lt(grew, 38 * MIB);
	/* One reader reads: its record goes, the held execution runs. */
	json_t *r = client_reply(&cs[0], NULL, 30000);
	ck_assert_msg(r && jtrue(r, "ok"), "pinned status: %s", r ? err_msg(r) : "none");
	json_decref(r);
	client_close(&cs[0]);
	json_decref(wait_done(held_id));
	free(held_id);
	for (int i = 1; i < pins; i++) {
		r = client_reply(&cs[i], NULL, 30000);
		ck_assert_msg(r && jtrue(r, "ok"), "status %d: %s", i, r ? err_msg(r) : "none");
		json_decref(r);
		client_close(&cs[i]);
	}
}
END_TEST

/* 20000 pipelined long-polls on one connection: it is not read past
 * LIMIT_CONN_OUTSTANDING (64) unanswered, so the waiters stay few (two
 * connections grew the daemon to 869 MB in 16 s before); once the
 * execution ends all 20000 are answered in order, O(1) each (30000 took
 * a loop turn of 2.56 s before). */
START_TEST(long_poll_flood)
{
	enum { N = 20000 };
	char *id = start_async(json_pack("{s:s, s:i}", "code", "for (;;) {}", "timeout_ms", 60000));
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	struct buf reqs = BUF_INIT;
	for (int i = 0; i < N; i++) {
		char line[160];
		int n = snprintf(line, sizeof line,
				 "{\"op\":\"status\",\"id\":%d,\"execution_id\":\"%s\","
				 "\"wait\":true,\"wait_ms\":120000}\n",
				 i, id);
		buf_append(&reqs, line, (size_t)n);
	}
	long base = rss();
	pid_t writer = send_from_child(&c, buf_peek(&reqs), buf_len(&reqs));
	struct timespec ts = {1, 0};
	nanosleep(&ts, NULL); /* what the daemon would read, it has read */
	long long rtt = health_rtt();
	long grew = rss() - base;
	json_t *r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "cancel", "execution_id", id));
	ck_assert_msg(jtrue(r, "ok"), "cancel: %s", err_msg(r));
	json_decref(r);
	for (int i = 0; i < N; i++) {
		r = client_reply(&c, NULL, 30000);
		ck_assert_msg(r != NULL, "long-poll reply %d missing", i);
		ck_assert_int_eq(jint(r, "id"), i);
		ck_assert_str_eq(jstr(r, "state"), "cancelled");
		json_decref(r);
	}
	int st;
	ck_assert_int_eq(waitpid(writer, &st, 0), writer);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	long long turn = max_turn_us();
	printf("bounds: %d pipelined long-polls: RSS grew %ld KiB while they waited (bound 4 "
	       "MiB), health %lld ms; all answered; longest loop turn %.2f ms of CPU\n",
	       N, grew / 1024, rtt, (double)turn / 1000);
	ck_assert_int_lt(grew, 4 * MIB);
	ck_assert_msg(turn < 50000, "a loop turn of %lld us", turn);
	client_close(&c);
	buf_free(&reqs);
	free(id);
}
END_TEST

/* A declarations request (no newline; caller frees) for a schema whose 20
 * properties each expand 40 described ones: 800 KiB of TypeScript from 40
 * KB of request. */
static char *decl_line(void)
{
	json_t *props = json_object();
	char desc[1001];
	memset(desc, 'D', 1000);
	desc[1000] = '\0';
	for (int i = 0; i < 40; i++) {
		char k[8];
		snprintf(k, sizeof k, "p%d", i);
		json_object_set_new(props, k,
				    json_pack("{s:s, s:s}", "type", "string", "description", desc));
	}
	json_t *q = json_object();
	for (int i = 0; i < 20; i++) {
		char k[8];
		snprintf(k, sizeof k, "q%d", i);
		json_object_set_new(q, k, json_pack("{s:s}", "$ref", "#/$defs/A"));
	}
	json_t *req =
		json_pack("{s:s, s:[{s:s, s:{s:s, s:{s:{s:s, s:o}}, s:o}}]}", "op", "declarations",
			  "tools", "name", "t", "input_schema", "type", "object", "$defs", "A",
			  "type", "object", "properties", props, "properties", q);
	char *line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	ck_assert_ptr_nonnull(line);
	return line;
}

/* Connections that ask for big declarations and never read: a big reply
 * is built only when the global budget (16M here) has room for it, and a
 * connection is not read while it owes more than its own, so forty of
 * them pin about the global budget, not 40 x 4 replies (250 such
 * connections grew the daemon by 1169 MB before). A client that reads is
 * still served. */
START_TEST(declarations_unread)
{
	enum { CONNS = 40, EACH = 4 };
	char *line = decl_line();
	struct buf each = BUF_INIT;
	for (int k = 0; k < EACH; k++) {
		buf_append(&each, line, strlen(line));
		buf_append(&each, "\n", 1);
	}
	long base = rss();
	static struct client cs[CONNS];
	pid_t writers[CONNS];
	for (int i = 0; i < CONNS; i++) {
		ck_assert_int_eq(client_open(&cs[i], d.sock, FRAME_MODE_LINE), 0);
		writers[i] = send_from_child(&cs[i], buf_peek(&each), buf_len(&each));
	}
	struct timespec ts = {2, 0};
	nanosleep(&ts, NULL);
	long long rtt = health_rtt(); /* small replies go to a client that reads */
	long grew = rss() - base;
	long long turn = max_turn_us();
	/* A reader's big reply waits for global room: it comes once the
	 * connections that do not read are gone (cut off by the write stall
	 * timeout, or closed as here). Nothing is lost: the first of them
	 * starts reading and gets all four. */
	struct client rd;
	ck_assert_int_eq(client_open(&rd, d.sock, FRAME_MODE_LINE), 0);
	client_send_raw(&rd, line, strlen(line));
	client_send_raw(&rd, "\n", 1);
	for (int i = 1; i < CONNS; i++) {
		client_close(&cs[i]);
		waitpid(writers[i], NULL, 0);
	}
	json_t *r = client_reply(&rd, NULL, 20000);
	ck_assert_msg(r && jtrue(r, "ok"), "a reader's declarations: %s", r ? err_msg(r) : "none");
	size_t one = strlen(jstr(r, "typescript"));
	json_decref(r);
	client_close(&rd);
	for (int k = 0; k < EACH; k++) {
		r = client_reply(&cs[0], NULL, 20000);
		ck_assert_msg(r && jtrue(r, "ok"), "reply %d: %s", k, r ? err_msg(r) : "none");
		json_decref(r);
	}
	client_close(&cs[0]);
	waitpid(writers[0], NULL, 0);
	printf("bounds: %d connections x %d unread declarations of %zu KiB: RSS grew %ld KiB "
	       "(bound 16M + 16 MiB), health %lld ms, longest loop turn %.2f ms of CPU\n",
	       CONNS, EACH, one / 1024, grew / 1024, rtt, (double)turn / 1000);
	ck_assert_uint_gt(one, 700 * 1024);
	ck_assert_int_lt(grew, 32 * MIB);
	ck_assert_msg(turn < 50000, "a loop turn of %lld us", turn);
	buf_free(&each);
	free(line);
}
END_TEST

/* Reads n whole line-mode replies from each of the n_fds sockets at once,
 * as fast as they come; whether all came within timeout_ms. Counts the
 * bytes read into *bytes, and writes a byte to tell_fd once every socket
 * has had its first reply. */
static bool drain_all(const int *fds, int n_fds, int n, int timeout_ms, long *bytes, int tell_fd)
{
	struct pollfd *pfd = calloc((size_t)n_fds, sizeof *pfd);
	int *got = calloc((size_t)n_fds, sizeof *got);
	static char chunk[1 << 20];
	int left = n_fds, first = n_fds;
	long long end = now_ms() + timeout_ms;
	*bytes = 0;
	for (int i = 0; i < n_fds; i++)
		pfd[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	while (left > 0 && now_ms() < end) {
		if (poll(pfd, (nfds_t)n_fds, 1000) < 0)
			break;
		for (int i = 0; i < n_fds; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t k = recv(pfd[i].fd, chunk, sizeof chunk, MSG_DONTWAIT);
			if (k <= 0) {
				pfd[i].fd = -1; /* cut off: its replies are missing */
				continue;
			}
			*bytes += k;
			int had = got[i];
			for (ssize_t j = 0; j < k; j++)
				got[i] += chunk[j] == '\n';
			if (!had && got[i] && --first == 0 && write(tell_fd, "1", 1) != 1)
				break;
			if (got[i] >= n) {
				pfd[i].fd = -1;
				left--;
			}
		}
	}
	free(pfd);
	free(got);
	return left == 0;
}

/* 250 connections each ask for five big declarations and all read at
 * once: the loop is saturated by the renders (5-7 ms each), yet no turn
 * takes more than about 10 ms of the loop's CPU time, and a client whose
 * requests are cheap is answered within a turn or two, not behind every
 * draining connection's next render (a client's execute waited 1.4-2.4 s
 * before: one render for each of them). */
START_TEST(draining_crowd_leaves_readers_served)
{
	enum { CONNS = 250, EACH = 5 };
	char *line = decl_line();
	struct buf each = BUF_INIT;
	for (int k = 0; k < EACH; k++) {
		buf_append(&each, line, strlen(line));
		buf_append(&each, "\n", 1);
	}
	static struct client cs[CONNS];
	static pid_t writers[CONNS];
	int fds[CONNS];
	for (int i = 0; i < CONNS; i++) {
		ck_assert_int_eq(client_open(&cs[i], d.sock, FRAME_MODE_LINE), 0);
		writers[i] = send_from_child(&cs[i], buf_peek(&each), buf_len(&each));
		fds[i] = cs[i].fd;
	}
	long long t0 = now_ms();
	int tell[2];
	ck_assert_int_eq(pipe(tell), 0);
	pid_t reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		long bytes;
		close(tell[0]);
		bool all = drain_all(fds, CONNS, EACH, 120000, &bytes, tell[1]);
		/* Each reply is some 800 KiB of TypeScript. */
		_exit(all && bytes > (long)CONNS * EACH * 700 * 1024 ? 0 : 1);
	}
	/* Once every connection has had its first reply (each has shown the
	 * daemon what its requests cost), and while they drain the rest, a
	 * client sends one cheap request at a time. */
	close(tell[1]);
	char one;
	ck_assert_int_eq(read(tell[0], &one, 1), 1);
	close(tell[0]);
	long long first_all = now_ms() - t0;
	struct client pr;
	ck_assert_int_eq(client_open(&pr, d.sock, FRAME_MODE_LINE), 0);
	enum { MAX_PROBES = 4096 };
	static long long lat[MAX_PROBES];
	int probes = 0, st = 0;
	pid_t done = 0;
	while ((done = waitpid(reader, &st, WNOHANG)) == 0 && probes < MAX_PROBES) {
		long long t = now_ms();
		json_t *r = client_call(&pr, json_pack("{s:s, s:i}", "op", "health", "id", probes));
		ck_assert_msg(r && jtrue(r, "ok"), "health while draining: %s",
			      r ? err_msg(r) : "none");
		json_decref(r);
		lat[probes++] = now_ms() - t;
		struct timespec gap = {0, 20 * 1000 * 1000};
		nanosleep(&gap, NULL); /* a request every 20 ms or so, not a flood */
	}
	if (done == 0)
		ck_assert_int_eq(waitpid(reader, &st, 0), reader);
	long long drained = now_ms() - t0;
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "not every draining connection got its %d replies whole", EACH);
	json_t *h = client_call(&pr, json_pack("{s:s}", "op", "health"));
	json_t *loop = json_object_get(h, "loop");
	long long cpu = jint(loop, "max_turn_cpu_us"), wall = jint(loop, "max_turn_us");
	long long over_cpu = jint(loop, "turns_over_10ms_cpu"), turns = jint(loop, "turns");
	json_decref(h);
	client_close(&pr);
	long long worst = 0, sum = 0;
	for (int i = 0; i < probes; i++) {
		worst = lat[i] > worst ? lat[i] : worst;
		sum += lat[i];
	}
	printf("bounds: %d connections draining %d declarations of ~800 KiB each in %lld ms "
	       "(all had their first after %lld ms): "
	       "a reading client's %d requests took %lld ms on average, %lld ms at most; "
	       "longest loop turn %.2f ms of CPU (%.2f ms of wall time), %lld of %lld turns "
	       "over 10 ms of CPU\n",
	       CONNS, EACH, drained, first_all, probes, probes ? sum / probes : 0, worst,
	       (double)cpu / 1000, (double)wall / 1000, over_cpu, turns);
	ck_assert_int_gt(probes, 0);
	ck_assert_msg(worst < 1000, "a cheap request waited %lld ms behind the drain", worst);
	ck_assert_msg(cpu < 15000, "a loop turn of %lld us of CPU", cpu);
	for (int i = 0; i < CONNS; i++) {
		client_close(&cs[i]);
		waitpid(writers[i], NULL, 0);
	}
	buf_free(&each);
	free(line);
}
END_TEST

/* Executions are not among the 64 unanswered requests that stop a
 * connection being read: 100 pipelined executes that each call a tool get
 * their tool_results read and all end (those past the owner's queue cap
 * are refused at once). */
START_TEST(pipelined_tool_calls)
{
	enum { N = 100 };
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	for (int i = 0; i < N; i++)
		client_request(&c, json_pack("{s:s, s:i, s:s, s:[{s:s}]}", "op", "execute", "id", i,
					     "code", "return tools.t() + 1", "tools", "name", "t"));
	int done = 0, ok = 0, refused = 0, started = 0;
	while (done < N) {
		json_t *m = client_recv(&c, 30000);
		ck_assert_msg(m != NULL, "silent with %d of %d replies", done, N);
		if (strcmp(jstr(m, "event"), "started") == 0) {
			started++;
		} else if (strcmp(jstr(m, "event"), "tool_call") == 0) {
			client_request(&c, json_pack("{s:s, s:s, s:s, s:I, s:i}", "op",
						     "tool_result", "id", "answer", "execution_id",
						     jstr(m, "execution_id"), "call_id",
						     jint(m, "call_id"), "value", 41));
		} else if (json_object_get(m, "ok") && json_is_integer(json_object_get(m, "id"))) {
			done++;
			if (jtrue(m, "success")) {
				ck_assert_int_eq(jint(m, "value"), 42);
				ok++;
			} else {
				assert_error(m, "RESOURCE_EXHAUSTED", "queue");
				refused++;
			}
		} else {
			ck_assert_msg(jtrue(m, "ok"), "tool_result: %s", err_msg(m));
		}
		json_decref(m);
	}
	printf("bounds: %d pipelined executes with a tool call each: %d succeeded, %d refused "
	       "(queue caps)\n",
	       N, ok, refused);
	ck_assert_int_ge(ok, 64);
	ck_assert_int_eq(started, N - refused); /* one each, none for the refused */
	client_close(&c);
}
END_TEST

/* Pipelined executes whose replies are never read: the client's later
 * executions wait (holding no worker) while it owes too much, others run
 * meanwhile, and every reply arrives once it reads. */
START_TEST(pipelined_unread)
{
	enum { N = 48 };
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	long base = rss();
	for (int i = 0; i < N; i++)
		client_request(&c, json_pack("{s:s, s:s, s:i}", "op", "execute", "code",
					     "console.log('p'.repeat(1048575))", "id", i));
	/* Others are served, executions included, while it does not read. */
	long peak = 0;
	for (int i = 0; i < 6; i++) {
		json_t *r = call_once(
			d.sock, json_pack("{s:s, s:s}", "op", "execute", "code", "return 42"));
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		json_decref(r);
		long g = rss() - base;
		peak = g > peak ? g : peak;
	}
	health_rtt();
	printf("bounds: %d pipelined 1 MB executes unread: RSS grew at most %ld KiB (bound 8M + "
	       "24 MiB)\n",
	       N, peak / 1024);
	ck_assert_int_lt(peak, 32 * MIB);
	for (int i = 0; i < N; i++) {
		json_t *r = client_reply(&c, NULL, 60000);
		ck_assert_msg(r != NULL, "reply %d of %d missing", i, N);
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		ck_assert_uint_eq(strlen(jstr(r, "stdout")), 1048576);
		json_decref(r);
		long g = rss() - base;
		ck_assert_int_lt(g, 32 * MIB);
	}
	client_close(&c);
}
END_TEST

/* Health's count of running and waiting executions, and of all so far. */
static void health_counts(long long *running, long long *queued, long long *total)
{
	json_t *h = call_once(d.sock, json_pack("{s:s}", "op", "health"));
	*running = jint(h, "workers_running");
	*queued = jint(h, "queued");
	*total = jint(h, "executions_total");
	json_decref(h);
}

/* Many connections of one owner, each with a few 1 MB executes whose
 * replies it never reads: each connection alone stays within its budget
 * (2M), but together they would hold 15 x 3 MiB. Once the owner's waiting
 * replies take half of --reply-bytes (8M of 16M) its next executions wait
 * to start, so the daemon holds at most that plus the four running when
 * it filled; another owner's execution still runs at once; every reply
 * arrives once the clients read. */
START_TEST(many_unread_connections)
{
	enum { CONNS = 15, EACH = 4 };
	static struct client cs[CONNS];
	long long running, queued, total, before;
	health_counts(&running, &queued, &before);
	long base = rss();
	for (int i = 0; i < CONNS; i++) {
		ck_assert_int_eq(client_open(&cs[i], d.sock, FRAME_MODE_BINARY), 0);
		for (int k = 0; k < EACH; k++)
			client_request(&cs[i],
				       json_pack("{s:s, s:s, s:i}", "op", "execute", "code",
						 "console.log('p'.repeat(1048575))", "id", k));
	}
	/* Steady: all submitted, none running or queued (the rest wait for
	 * their owner's clients to read, which they do not). */
	long long deadline = now_ms() + 60000;
	for (;;) {
		health_counts(&running, &queued, &total);
		if (total >= before + CONNS * EACH && !running && !queued)
			break;
		ck_assert_msg(now_ms() < deadline,
			      "%lld of %d submitted, %lld running, %lld queued", total - before,
			      CONNS * EACH, running, queued);
		struct timespec gap = {0, 5 * 1000 * 1000}; /* polling interval */
		nanosleep(&gap, NULL);
	}
	long grew = hwm() - base;
	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(d.dir, 0711), 0);
		ck_assert_int_eq(chmod(d.sock, 0666), 0);
		unsigned other = testlib_unused_id(0);
		struct client o;
		client_open_as(&o, d.sock, other, other);
		long long t0 = now_ms();
		client_request(&o, json_pack("{s:s, s:s}", "op", "execute", "code", "return 42"));
		json_t *r = client_reply(&o, NULL, 30000);
		ck_assert_msg(r && jtrue(r, "success"), "another owner: %s",
			      r ? err_msg(r) : "none");
		printf("bounds: another owner's execute answered in %lld ms\n", now_ms() - t0);
		json_decref(r);
		client_close(&o);
	} else {
		printf("bounds: many_unread_connections: the other-owner check not run: needs "
		       "root (as uid %u: switching a client to another uid needs root)\n",
		       (unsigned)geteuid());
	}
	printf("bounds: %d connections x %d unread 1 MB executes of one owner: peak grew %ld "
	       "KiB (bound 8M share + 4 running + 8M retained + 8 MiB)\n",
	       CONNS, EACH, grew / 1024);
	ck_assert_int_lt(grew, 28 * MIB);
	/* Read as a client of many connections does, all of them by turns
	 * (one that waited on one connection while leaving the others unread
	 * would wait until those were cut for not reading). */
	int got[CONNS] = {0}, left = CONNS * EACH;
	deadline = now_ms() + 120000;
	while (left > 0) {
		ck_assert_msg(now_ms() < deadline, "%d replies missing", left);
		for (int i = 0; i < CONNS; i++) {
			json_t *r = got[i] < EACH ? client_recv(&cs[i], 20) : NULL;
			if (!r)
				continue;
			if (strcmp(jstr(r, "event"), "started") == 0) {
				json_decref(r); /* each execute's first frame */
				continue;
			}
			ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
			ck_assert_uint_eq(strlen(jstr(r, "stdout")), 1048576);
			json_decref(r);
			got[i]++;
			left--;
		}
	}
	for (int i = 0; i < CONNS; i++)
		client_close(&cs[i]);
}
END_TEST

/* Executions held while their owner's replies wait count against the
 * queue caps: with one owner's share of --reply-bytes (8M of 16M) taken by
 * unread 1 MB replies, its next 500 executes on another connection are
 * held up to --max-queued-per-owner (64) and the rest refused at once,
 * rather than piling up; all are answered once the replies are read. */
START_TEST(held_executions_capped)
{
	enum { AS = 4, EACH = 3, BIG = AS * EACH, N = 500 };
	struct client a[AS], b;
	for (int k = 0; k < AS; k++)
		ck_assert_int_eq(client_open(&a[k], d.sock, FRAME_MODE_BINARY), 0);
	ck_assert_int_eq(client_open(&b, d.sock, FRAME_MODE_BINARY), 0);
	long long running, queued, total, before;
	health_counts(&running, &queued, &before);
	for (int i = 0; i < BIG; i++)
		client_request(&a[i % AS], json_pack("{s:s, s:s, s:i}", "op", "execute", "code",
						     "console.log('p'.repeat(1048575))", "id", i));
	long long deadline = now_ms() + 60000;
	do {
		health_counts(&running, &queued, &total);
		ck_assert_msg(now_ms() < deadline, "the big ones did not end");
		struct timespec gap = {0, 5 * 1000 * 1000}; /* polling interval */
		nanosleep(&gap, NULL);
	} while (total < before + BIG || running || queued);
	for (int i = 0; i < N; i++)
		client_request(&b, json_pack("{s:s, s:s, s:i}", "op", "execute", "code", "return 1",
					     "id", i));
	int refused = 0;
	for (int i = 0; i < N - 64; i++) {
		json_t *r = client_reply(&b, NULL, 30000);
		ck_assert_msg(r != NULL, "refusal %d missing", i);
		assert_error(r, "RESOURCE_EXHAUSTED", "per-owner queue limit");
		refused++;
		json_decref(r);
	}
	/* The big replies read: the held ones run and answer. */
	for (int i = 0; i < BIG; i++) {
		json_t *r = client_reply(&a[i % AS], NULL, 60000);
		ck_assert_msg(r && jtrue(r, "success"), "big reply %d: %s", i,
			      r ? err_msg(r) : "none");
		json_decref(r);
	}
	/* The last 64: held ones that ran, or refused (the owner's other
	 * held executions took their places). */
	int ran = 0;
	for (int i = 0; i < 64; i++) {
		json_t *r = client_reply(&b, NULL, 60000);
		ck_assert_msg(r != NULL, "held reply %d missing", i);
		if (jtrue(r, "success")) {
			ran++;
		} else {
			assert_error(r, "RESOURCE_EXHAUSTED", "per-owner queue limit");
			refused++;
		}
		json_decref(r);
	}
	ck_assert_int_gt(ran, 0);
	printf("bounds: %d executes behind an owner's unread replies: %d held then run, %d "
	       "refused (--max-queued-per-owner 64)\n",
	       N, ran, refused);
	for (int k = 0; k < AS; k++)
		client_close(&a[k]);
	client_close(&b);
}
END_TEST

/* A store counts against --queue-bytes (16M, half of it per owner) as code
 * does: executions that keep 1 MB stores waiting are refused past it. */
START_TEST(stores_count_in_queue_bytes)
{
	/* 1 MB in 4 values of 250 KB (a value may have 256 KiB, a store 1 MiB) */
	static char v[250 * 1000 + 1];
	memset(v, 'v', sizeof v - 1);
	int ok = 0, refused = 0;
	for (int i = 0; i < 10; i++) {
		json_t *st = json_object();
		for (int k = 0; k < 4; k++) {
			char key[8];
			snprintf(key, sizeof key, "k%d", k);
			json_object_set_new(st, key, json_string(v));
		}
		json_t *r =
			call_once(d.sock, json_pack("{s:s, s:s, s:o, s:i}", "op", "async", "code",
						    "for(;;){}", "store", st, "timeout_ms", 30000));
		if (jtrue(r, "ok")) {
			ok++;
		} else {
			assert_error(r, "RESOURCE_EXHAUSTED", "stores");
			refused++;
		}
		json_decref(r);
	}
	printf("bounds: ten async executions with 1 MB stores: %d accepted, %d refused (half of "
	       "--queue-bytes 16M per owner)\n",
	       ok, refused);
	ck_assert_int_eq(ok, 8);
	ck_assert_int_eq(refused, 2);
}
END_TEST

/* Many half-sent frames: past --partial-bytes (16M) the connection that
 * went over is told RESOURCE_EXHAUSTED and closed; the others keep their
 * place and memory stays within the budget. */
START_TEST(half_sent_frames)
{
	enum { N = 40 };
	static char chunk[900 * 1024];
	memset(chunk, ' ', sizeof chunk);
	chunk[0] = '{';
	struct client cs[N];
	long base = rss();
	int refused = 0;
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(client_open(&cs[i], d.sock, FRAME_MODE_BINARY), 0);
		unsigned char hdr[4] = {0, 0x10, 0, 0}; /* 1 MiB announced */
		client_send_raw(&cs[i], hdr, 4);
		/* The daemon may cut this one off part way: not an error here. */
		for (size_t off = 0; off < sizeof chunk;) {
			ssize_t n = send(cs[i].fd, chunk + off, sizeof chunk - off, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			off += (size_t)n;
		}
	}
	long long rtt = health_rtt();
	for (int i = 0; i < N; i++) {
		json_t *r = client_recv(&cs[i], i < 10 ? 200 : 2000);
		if (r) {
			assert_error(r, "RESOURCE_EXHAUSTED", "half-sent");
			refused++;
			json_decref(r);
			ck_assert(client_eof(&cs[i], 5000));
		}
	}
	long grew = rss() - base;
	printf("bounds: %d half-sent 900 KB frames: %d refused, RSS grew %ld KiB (bound 16M + 8 "
	       "MiB), health %lld ms\n",
	       N, refused, grew / 1024, rtt);
	ck_assert_int_ge(refused, N - 18);
	ck_assert_int_lt(grew, 24 * MIB);
	for (int i = 0; i < N; i++)
		client_close(&cs[i]);
}
END_TEST

/* ---- what the worker reports */

/* Code under test that breaks the harness's own bookkeeping cannot make
 * the report lie: the summary is the daemon's count of the entries. */
START_TEST(test_report_recounted)
{
	json_t *r =
		call_once(d.sock, json_pack("{s:s, s:s}", "op", "test", "tests",
					    "Array.prototype.push = function () { return 0 };\n"
					    "test('a', function () {});\n"
					    "test('b', function () { throw new Error('no') });"));
	ck_assert(jtrue(r, "ok"));
	json_t *sum = json_object_get(r, "summary");
	json_t *tests = json_object_get(r, "tests");
	long long passed = 0, failed = 0;
	for (size_t i = 0; i < json_array_size(tests); i++) {
		json_t *t = json_array_get(tests, i);
		if (jtrue(t, "skipped"))
			continue;
		if (jtrue(t, "passed"))
			passed++;
		else
			failed++;
	}
	ck_assert_int_eq(jint(sum, "total"), (long long)json_array_size(tests));
	ck_assert_int_eq(jint(sum, "passed"), passed);
	ck_assert_int_eq(jint(sum, "failed"), failed);
	/* success only when tests ran and none failed, by the entries */
	ck_assert(!jtrue(r, "success"));
	json_decref(r);
}
END_TEST

/* sandboxctl status polls on with the offsets until it has every byte. */
START_TEST(sandboxctl_status_reads_all_chunks)
{
	char *id = start_async(json_pack(
		"{s:s}", "code",
		"var s = 'x'.repeat(1048575); for (var i = 0; i < 3; i++) console.log(s)"));
	json_decref(wait_done(id));
	const char *ctl = getenv("SANDBOXCTL_BIN");
	ck_assert_ptr_nonnull(ctl);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s --socket %s status %s --wait", ctl, d.sock, id);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	long xs = 0;
	int ch;
	while ((ch = fgetc(p)) != EOF)
		xs += ch == 'x';
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_int_eq(xs, 3L * 1048575);
	free(id);
}
END_TEST

static Suite *bounds_suite(void)
{
	Suite *s = suite_create("bounds");
	TCase *tc = tcase_create("bounds");
	tcase_add_checked_fixture(tc, up, down);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, result_of_many_references);
	tcase_add_test(tc, kept_values_counted);
	tcase_add_test(tc, tool_names_counted);
	tcase_add_test(tc, value_with_nul);
	tcase_add_test(tc, tool_loop_client_gone);
	tcase_add_test(tc, schema_bomb);
	tcase_add_test(tc, status_never_read);
	tcase_add_test(tc, pinned_records_bounded);
	tcase_add_test(tc, long_polls_unread);
	tcase_add_test(tc, long_poll_flood);
	tcase_add_test(tc, declarations_unread);
	tcase_add_test(tc, draining_crowd_leaves_readers_served);
	tcase_add_test(tc, pipelined_tool_calls);
	tcase_add_test(tc, pipelined_unread);
	tcase_add_test(tc, many_unread_connections);
	tcase_add_test(tc, held_executions_capped);
	tcase_add_test(tc, stores_count_in_queue_bytes);
	tcase_add_test(tc, half_sent_frames);
	tcase_add_test(tc, test_report_recounted);
	tcase_add_test(tc, sandboxctl_status_reads_all_chunks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bounds_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
