/*
 * check_daemon.c - the real daemon on a temporary socket, over the real
 * protocol, in both framings.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static struct daemon shared;

static void shared_up(void)
{
	/* test_concurrent_clients pipelines 160 executions of one owner. */
	const char *args[] = {
		"--max-workers", "4", "--frame-timeout-ms", "300", "--max-queued-per-owner",
		"256",		 NULL};
	daemon_start(&shared, args);
}
static void shared_down(void) { daemon_stop(&shared); }

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static json_t *health(const char *sock)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"health\"}");
	json_t *r = client_reply(&c, NULL, 5000);
	ck_assert_ptr_nonnull(r);
	client_close(&c);
	return r;
}

/* Waits (bounded) until health reports no running worker. */
static void wait_idle(const char *sock)
{
	long long deadline = now_ms() + 10000;
	for (;;) {
		json_t *h = health(sock);
		long long running = jint(h, "workers_running");
		json_decref(h);
		if (running == 0)
			return;
		ck_assert_msg(now_ms() < deadline, "workers still running: %lld", running);
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
	}
}

/* ---- protocol */

START_TEST(test_health)
{
	json_t *h = health(shared.sock);
	ck_assert(jtrue(h, "ok"));
	ck_assert_str_eq(jstr(h, "version"), "0.1.0");
	ck_assert(json_is_integer(json_object_get(h, "uptime_ms")));
	ck_assert(json_is_integer(json_object_get(h, "workers_running")));
	ck_assert(json_is_integer(json_object_get(h, "executions_total")));
	json_t *sb = json_object_get(h, "sandbox");
	ck_assert(json_is_object(sb));
	ck_assert(jtrue(sb, "no_new_privs"));
	ck_assert_ptr_nonnull(strstr(jstr(sb, "seccomp"), "allowlist"));
	ck_assert(jtrue(sb, "forkserver"));
	if (geteuid() == 0) {
		json_t *uids = json_object_get(sb, "worker_uids");
		ck_assert_int_eq(jint(uids, "first"), 2000000000);
		ck_assert_int_eq(jint(uids, "last"), 2000065535);
		ck_assert(json_is_null(json_object_get(sb, "worker_uid")));
	} else {
		printf("check_daemon: health's worker_uids range: not run: needs root (a daemon "
		       "not root has none, and says null: that is checked)\n");
		ck_assert(json_is_null(json_object_get(sb, "worker_uids")));
	}
	json_decref(h);
}
END_TEST

static void check_execute(enum frame_mode mode)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, mode), 0);
	client_sendf(&c, "{\"op\":\"execute\",\"id\":\"a1\",\"code\":\"console.log('hi'); "
			 "console.error('oops'); return 6*7\"}");
	json_t *r = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "a1");
	ck_assert(jtrue(r, "ok"));
	ck_assert(jtrue(r, "success"));
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert_int_eq(jint(r, "value"), 42);
	ck_assert_str_eq(jstr(r, "stdout"), "hi\n");
	ck_assert_str_eq(jstr(r, "stderr"), "oops\n");
	ck_assert_ptr_eq(strstr(jstr(r, "execution_id"), "exec_"), jstr(r, "execution_id"));
	ck_assert(json_is_integer(json_object_get(r, "execution_time_ms")));
	ck_assert(json_is_integer(json_object_get(r, "cpu_time_ms")));
	/* The reply goes before the worker is reaped: no rusage peak. */
	ck_assert_ptr_null(json_object_get(r, "memory_peak_bytes"));
	ck_assert_ptr_null(json_object_get(r, "error"));
	json_decref(r);
	/* A numeric id is echoed as a number; no id, no "id". */
	client_sendf(&c, "{\"op\":\"execute\",\"id\":7,\"code\":\"return null\"}");
	r = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r, "id"), 7);
	ck_assert(json_is_null(json_object_get(r, "value")));
	json_decref(r);
	client_sendf(&c, "{\"op\":\"execute\",\"code\":\"var x = 1\"}");
	r = client_reply(&c, NULL, 10000);
	ck_assert_ptr_null(json_object_get(r, "id"));
	ck_assert_ptr_null(json_object_get(r, "value")); /* undefined */
	ck_assert(jtrue(r, "success"));
	json_decref(r);
	client_close(&c);
}

START_TEST(test_execute_binary) { check_execute(FRAME_MODE_BINARY); }
END_TEST
START_TEST(test_execute_line) { check_execute(FRAME_MODE_LINE); }
END_TEST

/* Line mode replies are compact JSON, one per line. */
START_TEST(test_line_mode_wire)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	const char req[] = "{\"op\":\"health\",\"id\":1}\r\n\n{\"op\":\"health\",\"id\":2}\n";
	client_send_raw(&c, req, sizeof req - 1);
	char buf[8192];
	size_t n = 0;
	while (n < sizeof buf - 1) {
		struct pollfd p = {c.fd, POLLIN, 0};
		ck_assert_int_eq(poll(&p, 1, 5000), 1);
		ssize_t r = recv(c.fd, buf + n, sizeof buf - 1 - n, 0);
		ck_assert_int_gt(r, 0);
		n += (size_t)r;
		buf[n] = '\0';
		char *first = strchr(buf, '\n');
		if (first && strchr(first + 1, '\n'))
			break;
	}
	ck_assert_msg(strncmp(buf, "{\"id\":1,\"ok\":true", 17) == 0, "got %s", buf);
	char *second = strchr(buf, '\n') + 1;
	ck_assert_msg(strncmp(second, "{\"id\":2,\"ok\":true", 17) == 0, "got %s", second);
	ck_assert_ptr_null(strchr(buf, '\r'));
	client_close(&c);
}
END_TEST

START_TEST(test_stream)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"id\":\"s\",\"code\":\"console.log('one'); "
			 "console.error('two'); console.log('three'); return [1]\"}");
	json_t *started = client_started(&c, "s", 10000);
	json_t *events = json_array();
	json_t *r = client_reply(&c, events, 10000);
	ck_assert_ptr_nonnull(r);
	ck_assert(jtrue(r, "success"));
	ck_assert_str_eq(jstr(started, "execution_id"), jstr(r, "execution_id"));
	json_decref(started);
	ck_assert_ptr_null(json_object_get(r, "stdout"));
	ck_assert_ptr_null(json_object_get(r, "stderr"));
	/* One event per read of a pipe: writes may coalesce. */
	ck_assert_int_ge(json_array_size(events), 2);
	/* Events of different streams may arrive in either order; each
	 * stream's own order holds. */
	char seen_out[64] = "", seen_err[64] = "";
	for (size_t i = 0; i < json_array_size(events); i++) {
		json_t *ev = json_array_get(events, i);
		ck_assert_str_eq(jstr(ev, "event"), "output");
		ck_assert_str_eq(jstr(ev, "id"), "s");
		ck_assert_str_eq(jstr(ev, "execution_id"), jstr(r, "execution_id"));
		ck_assert_int_gt(jint(ev, "ts_ms"), 1600000000000LL);
		strcat(strcmp(jstr(ev, "stream"), "stdout") == 0 ? seen_out : seen_err,
		       jstr(ev, "data"));
	}
	ck_assert_str_eq(seen_out, "one\nthree\n");
	ck_assert_str_eq(seen_err, "two\n");
	json_decref(events);
	json_decref(r);
	client_close(&c);
}
END_TEST

/* Output reaches the client while the script still runs. */
START_TEST(test_stream_not_held_back)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"code\":\"console.log('early'); for(;;){}\","
			 "\"timeout_ms\":20000}");
	json_decref(client_started(&c, NULL, 10000));
	json_t *ev = client_recv(&c, 10000);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	ck_assert_str_eq(jstr(ev, "data"), "early\n");
	json_decref(ev);
	client_close(&c); /* ends the execution too */
	wait_idle(shared.sock);
}
END_TEST

START_TEST(test_interleaved_requests)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	for (int i = 0; i < 8; i++)
		client_sendf(&c,
			     "{\"op\":\"%s\",\"id\":%d,\"code\":\"console.log(%d); "
			     "var t = Date.now(); while (Date.now() - t < %d) {} return %d\"}",
			     i % 2 ? "stream" : "execute", i, i, (8 - i) * 5, i * 10);
	client_sendf(&c, "{\"op\":\"health\",\"id\":\"h\"}");
	int got[8] = {0};
	bool health_seen = false;
	for (int n = 0; n < 9; n++) {
		json_t *r = client_reply(&c, NULL, 10000);
		ck_assert_ptr_nonnull(r);
		if (json_is_string(json_object_get(r, "id"))) {
			health_seen = true;
		} else {
			long long id = jint(r, "id");
			ck_assert(id >= 0 && id < 8);
			got[id]++;
			ck_assert_int_eq(jint(r, "value"), id * 10);
		}
		json_decref(r);
	}
	ck_assert(health_seen);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(got[i], 1);
	client_close(&c);
}
END_TEST

/* ---- bad input */

static json_t *bad_line(struct client *c, const char *line)
{
	client_send_raw(c, line, strlen(line));
	json_t *r = client_reply(c, NULL, 5000);
	ck_assert_msg(r != NULL, "no reply to %s", line);
	ck_assert(!jtrue(r, "ok"));
	return r;
}

START_TEST(test_bad_requests_named)
{
	static const struct {
		const char *line, *code, *needle;
	} cases[] = {
		{"{not json\n", "INVALID_ARGUMENT", "not valid JSON"},
		{"{\"op\":\"health\"} trailing\n", "INVALID_ARGUMENT", "not valid JSON"},
		{"{\"id\":1}\n", "INVALID_ARGUMENT", "op"},
		{"{\"op\":5}\n", "INVALID_ARGUMENT", "op"},
		{"{\"op\":\"launch\"}\n", "INVALID_ARGUMENT", "unknown op"},
		{"{\"op\":\"execute\"}\n", "INVALID_ARGUMENT", "code"},
		{"{\"op\":\"execute\",\"code\":1}\n", "INVALID_ARGUMENT", "code"},
		{"{\"op\":\"execute\",\"code\":\"\",\"timeout\":5}\n", "INVALID_ARGUMENT",
		 "timeout"},
		{"{\"op\":\"execute\",\"code\":\"\",\"timeout_ms\":\"5\"}\n", "INVALID_ARGUMENT",
		 "timeout_ms"},
		{"{\"op\":\"execute\",\"code\":\"\",\"timeout_ms\":-1}\n", "INVALID_ARGUMENT",
		 "timeout_ms"},
		{"{\"op\":\"execute\",\"code\":\"\",\"timeout_ms\":120001}\n", "INVALID_ARGUMENT",
		 "timeout_ms"},
		{"{\"op\":\"execute\",\"code\":\"\",\"memory_bytes\":1e12}\n", "INVALID_ARGUMENT",
		 "memory_bytes"},
		{"{\"op\":\"execute\",\"code\":\"\",\"output_bytes\":0}\n", "INVALID_ARGUMENT",
		 "output_bytes"},
		{"{\"op\":\"health\",\"id\":{}}\n", "INVALID_ARGUMENT", "id"},
	};
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *r = bad_line(&c, cases[i].line);
		ck_assert_msg(strcmp(err_code(r), cases[i].code) == 0, "%s: %s", cases[i].line,
			      err_code(r));
		ck_assert_msg(strstr(err_msg(r), cases[i].needle) != NULL, "%s: %s", cases[i].line,
			      err_msg(r));
		json_decref(r);
	}
	/* The id is echoed when it could be read, and the connection goes on. */
	json_t *r = bad_line(&c, "{\"op\":\"nope\",\"id\":\"x9\"}\n");
	ck_assert_str_eq(jstr(r, "id"), "x9");
	json_decref(r);
	client_sendf(&c, "{\"op\":\"execute\",\"code\":\"return 5\"}");
	r = client_reply(&c, NULL, 5000);
	ck_assert_int_eq(jint(r, "value"), 5);
	json_decref(r);
	client_close(&c);
}
END_TEST

START_TEST(test_binary_non_object)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char frame[] = "\0\0\0\3[1]";
	client_send_raw(&c, frame, sizeof frame - 1);
	json_t *r = client_reply(&c, NULL, 5000);
	ck_assert_str_eq(err_code(r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "object"));
	json_decref(r);
	client_sendf(&c, "{\"op\":\"health\"}");
	r = client_reply(&c, NULL, 5000);
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	client_close(&c);
}
END_TEST

START_TEST(test_zero_length_frame)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_send_raw(&c, "\0\0\0\0", 4);
	json_t *r = client_reply(&c, NULL, 5000);
	ck_assert_str_eq(err_code(r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "zero"));
	json_decref(r);
	ck_assert(client_eof(&c, 5000));
	client_close(&c);
}
END_TEST

START_TEST(test_oversize_frame)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_send_raw(&c, "\x01\0\0\x01", 4); /* 16 MiB + 1 */
	json_t *r = client_reply(&c, NULL, 5000);
	ck_assert_str_eq(err_code(r), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "maximum"));
	json_decref(r);
	ck_assert(client_eof(&c, 5000));
	client_close(&c);
	json_t *h = health(shared.sock);
	ck_assert(jtrue(h, "ok"));
	json_decref(h);
}
END_TEST

/* A frame that never completes does not hold its connection forever. */
START_TEST(test_half_sent_frame)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_send_raw(&c, "\0\0\0\x40{\"op\"", 9);
	ck_assert(client_eof(&c, 5000)); /* --frame-timeout-ms 300 */
	client_close(&c);
}
END_TEST

/* `echo REQUEST | socat - UNIX-CONNECT:...` half-closes after sending. */
START_TEST(test_half_close_still_answered)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	client_sendf(&c, "{\"op\":\"execute\",\"code\":\"var t = Date.now(); "
			 "while (Date.now() - t < 100) {} return 'late'\"}");
	shutdown(c.fd, SHUT_WR);
	json_t *r = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "value"), "late");
	json_decref(r);
	ck_assert(client_eof(&c, 5000));
	client_close(&c);
}
END_TEST

/* A client gone before its reply: no SIGPIPE kills the daemon. */
START_TEST(test_vanishing_client)
{
	for (int i = 0; i < 20; i++) {
		struct client c;
		ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
		client_sendf(&c, "{\"op\":\"execute\",\"code\":\"return 1\"}");
		client_sendf(&c, "{\"op\":\"health\"}");
		client_close(&c);
	}
	json_t *h = health(shared.sock);
	ck_assert(jtrue(h, "ok"));
	json_decref(h);
}
END_TEST

/* ---- executions that go wrong */

START_TEST(test_errors)
{
	json_t *r = exec_once(shared.sock, "{\"code\":\"var a = 1;\\nvar b = ;\"}");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "syntax");
	ck_assert_int_eq(jint(json_object_get(r, "error"), "line"), 2);
	json_decref(r);

	/* Modern syntax runs; its mistakes are placed like any other. */
	r = exec_once(shared.sock, "{\"code\":\"const f = x => x;\\nreturn f(2)\"}");
	ck_assert_int_eq(jint(r, "value"), 2);
	json_decref(r);
	r = exec_once(shared.sock, "{\"code\":\"const f = x => x;\\nreturn f(2\"}");
	ck_assert_str_eq(err_kind(r), "syntax");
	ck_assert_int_eq(jint(json_object_get(r, "error"), "line"), 2);
	json_decref(r);

	r = exec_once(shared.sock, "{\"code\":\"\\n\\nundefinedFn()\"}");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "ReferenceError"));
	ck_assert_int_eq(jint(json_object_get(r, "error"), "line"), 3);
	ck_assert_ptr_nonnull(strstr(jstr(json_object_get(r, "error"), "stack"), "script.js:3"));
	json_decref(r);

	r = exec_once(shared.sock, "{\"code\":\"var o = {}; o.o = o; return o\"}");
	ck_assert_str_eq(err_kind(r), "script");
	json_decref(r);
}
END_TEST

START_TEST(test_timeout)
{
	json_t *r = exec_once(shared.sock,
			      "{\"code\":\"console.log('before'); for(;;){}\",\"timeout_ms\":200}");
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "timeout");
	ck_assert_str_eq(jstr(r, "stdout"), "before\n");
	ck_assert_int_ge(jint(r, "execution_time_ms"), 200);
	json_decref(r);
}
END_TEST

START_TEST(test_catastrophic_regex)
{
	json_t *r = exec_once(
		shared.sock,
		"{\"code\":\"return /(a+)+$/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!')\","
		"\"timeout_ms\":300}");
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	json_decref(r);
}
END_TEST

static void check_flood(const char *fn, const char *field, const char *other)
{
	json_t *r = exec_once(shared.sock,
			      "{\"code\":\"console.log('start'); for (var i = 0; ; i++) console.%s("
			      "'line ' + i)\",\"output_bytes\":100000}",
			      fn);
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "output_limit");
	/* Everything up to the cap is kept, nothing beyond it. */
	size_t kept = strlen(jstr(r, field)) + strlen(jstr(r, other));
	ck_assert_uint_eq(kept, 100000);
	ck_assert_ptr_nonnull(strstr(jstr(r, field), "line 0\nline 1\n"));
	json_decref(r);
}

START_TEST(test_flood_stdout) { check_flood("log", "stdout", "stderr"); }
END_TEST
START_TEST(test_flood_stderr) { check_flood("error", "stderr", "stdout"); }
END_TEST

START_TEST(test_flood_stream)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"code\":\"for (;;) console.log('xxxxxxxxxxxxxxx')\","
			 "\"output_bytes\":1000000}");
	json_t *events = json_array();
	json_t *r = client_reply(&c, events, 20000);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(err_kind(r), "output_limit");
	size_t total = 0;
	for (size_t i = 0; i < json_array_size(events); i++)
		total += strlen(jstr(json_array_get(events, i), "data"));
	ck_assert_uint_eq(total, 1000000);
	json_decref(events);
	json_decref(r);
	client_close(&c);
}
END_TEST

START_TEST(test_memory_bomb)
{
	json_t *r = exec_once(shared.sock, "{\"code\":\"var s = 'xy'; for (var i = 0; ; i++) "
					   "s = s + s + i;\",\"memory_bytes\":16777216}");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "memory");
	json_decref(r);
	r = exec_once(shared.sock, "{\"code\":\"var a = []; for (;;) a.push({k: a.length, "
				   "s: 'v' + a.length});\",\"memory_bytes\":8388608}");
	ck_assert_str_eq(err_kind(r), "memory");
	json_decref(r);
	/* Caught inside, an allocation failure is just an exception. */
	r = exec_once(shared.sock,
		      "{\"code\":\"try { var b = new ArrayBuffer(512 * 1024 * 1024); } "
		      "catch (e) { return 'caught ' + e.name }\",\"memory_bytes\":8388608}");
	ck_assert_ptr_nonnull(strstr(jstr(r, "value"), "caught "));
	json_decref(r);
}
END_TEST

START_TEST(test_deep_recursion)
{
	json_t *r = exec_once(shared.sock, "{\"code\":\"function f(n) { return 1 + f(n + 1) } "
					   "return f(0)\"}");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "RangeError"));
	json_decref(r);
}
END_TEST

START_TEST(test_unicode_output)
{
	json_t *r =
		exec_once(shared.sock, "{\"code\":\"console.log('caf\\\\u00e9 \\\\ud83d\\\\ude00 "
				       "\\\\ud800'); return '\\\\u4e2d'\"}");
	ck_assert_str_eq(jstr(r, "stdout"), "café 😀 \xef\xbf\xbd\n");
	ck_assert_str_eq(jstr(r, "value"), "中");
	json_decref(r);
}
END_TEST

/* Script output and code never reach the daemon's log. */
START_TEST(test_log_holds_no_script_data)
{
	json_t *r = exec_once(shared.sock, "{\"code\":\"console.log('SECRET_OUT'); "
					   "throw new Error('SECRET_ERR')\"}");
	json_decref(r);
	char *log = daemon_log(&shared);
	ck_assert_ptr_null(strstr(log, "SECRET"));
	ck_assert_ptr_nonnull(strstr(log, "failed"));
	free(log);
}
END_TEST

/* ---- scheduling */

START_TEST(test_queue)
{
	struct daemon d;
	const char *args[] = {"--max-workers", "1", "--queue", "1", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	/* 1 runs, 2 waits, 3 finds the queue full. 2's timeout counts from
	 * when it starts: it runs 200 ms of a 400 ms budget after waiting
	 * 500 ms behind 1. */
	client_sendf(&c, "{\"op\":\"execute\",\"id\":1,\"code\":\"for(;;){}\",\"timeout_ms\":500}");
	client_sendf(&c, "{\"op\":\"execute\",\"id\":2,\"code\":\"var t = Date.now(); "
			 "while (Date.now() - t < 200) {} return 2\",\"timeout_ms\":400}");
	client_sendf(&c, "{\"op\":\"execute\",\"id\":3,\"code\":\"return 3\"}");
	json_t *r3 = client_reply(&c, NULL, 5000);
	ck_assert_int_eq(jint(r3, "id"), 3);
	ck_assert_str_eq(err_code(r3), "RESOURCE_EXHAUSTED");
	json_decref(r3);
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(h, "workers_running"), 1);
	ck_assert_int_eq(jint(h, "queued"), 1);
	json_decref(h);
	json_t *r1 = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r1, "id"), 1);
	ck_assert_str_eq(jstr(r1, "state"), "timeout");
	json_decref(r1);
	json_t *r2 = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r2, "id"), 2);
	ck_assert_str_eq(jstr(r2, "state"), "completed");
	ck_assert_int_eq(jint(r2, "value"), 2);
	json_decref(r2);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

START_TEST(test_concurrent_clients)
{
	enum { CLIENTS = 16, EACH = 10 };
	struct client c[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		ck_assert_int_eq(client_open(&c[i], shared.sock,
					     i % 2 ? FRAME_MODE_LINE : FRAME_MODE_BINARY),
				 0);
		for (int k = 0; k < EACH; k++)
			client_sendf(&c[i], "{\"op\":\"execute\",\"id\":%d,\"code\":\"return %d\"}",
				     k, i * 1000 + k);
	}
	for (int i = 0; i < CLIENTS; i++) {
		bool seen[EACH] = {false};
		for (int k = 0; k < EACH; k++) {
			json_t *r = client_reply(&c[i], NULL, 20000);
			ck_assert_ptr_nonnull(r);
			long long id = jint(r, "id");
			ck_assert(id >= 0 && id < EACH && !seen[id]);
			seen[id] = true;
			ck_assert_int_eq(jint(r, "value"), i * 1000 + id);
			json_decref(r);
		}
		client_close(&c[i]);
	}
}
END_TEST

/* A client that disconnects has its running executions killed. */
START_TEST(test_disconnect_kills)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	for (int i = 0; i < 3; i++)
		client_sendf(&c, "{\"op\":\"stream\",\"code\":\"console.log('up'); for(;;){}\","
				 "\"timeout_ms\":120000}");
	/* Each one's started event, then its output: all three are up. */
	for (int started = 0, up = 0; started < 3 || up < 3;) {
		json_t *ev = client_recv(&c, 10000);
		ck_assert_ptr_nonnull(ev);
		if (strcmp(jstr(ev, "event"), "started") == 0)
			started++;
		else
			ck_assert(strcmp(jstr(ev, "event"), "output") == 0 && ++up <= started);
		json_decref(ev);
	}
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(h, "workers_running"), 3);
	json_decref(h);
	client_close(&c);
	wait_idle(d.sock);
	int zombies, parked = daemon_pool_full(&d, 10000);
	/* The forkserver and the parked workers. */
	ck_assert_int_eq(daemon_child_count(&d, &zombies), 1 + parked);
	ck_assert_int_eq(zombies, 0);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* 1000 executions leave no zombie and no extra fd behind. */
START_TEST(test_thousand_no_leaks)
{
	struct daemon d;
	const char *args[] = {"--log-level", "warn", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"health\"}");
	json_decref(client_reply(&c, NULL, 5000));
	/* A parked worker holds three fds of the daemon's: counted full. */
	int parked = daemon_pool_full(&d, 10000);
	/* daemon_pool_full asks on connections of its own: the fds are
	 * counted once the daemon has closed them, with only c left. */
	for (long long deadline = now_ms() + 10000;;) {
		client_sendf(&c, "{\"op\":\"health\"}");
		json_t *h = client_reply(&c, NULL, 5000);
		ck_assert_ptr_nonnull(h);
		long long conns = jint(h, "connections");
		json_decref(h);
		if (conns == 1)
			break;
		ck_assert_msg(now_ms() < deadline, "%lld connections left open", conns);
	}
	int fds_before = daemon_fd_count(&d);
	int done = 0, sent = 0;
	while (done < 1000) {
		while (sent < 1000 && sent - done < 32) {
			const char *kinds[] = {"return 1", "console.log('x')", "throw new Error()",
					       "var ;"};
			client_sendf(&c, "{\"op\":\"%s\",\"code\":\"%s\"}",
				     sent % 3 ? "execute" : "stream", kinds[sent % 4]);
			sent++;
		}
		json_t *r = client_reply(&c, NULL, 20000);
		ck_assert_ptr_nonnull(r);
		ck_assert(jtrue(r, "ok"));
		json_decref(r);
		done++;
	}
	/* The last replies go before their workers are reaped (their pidfds
	 * close then): once none runs, and the pool is full again (a parked
	 * worker holds three fds), nothing may be left. Asked on this
	 * connection, so that no other is open when the fds are counted. */
	for (long long deadline = now_ms() + 10000;;) {
		client_sendf(&c, "{\"op\":\"health\"}");
		json_t *h = client_reply(&c, NULL, 5000);
		ck_assert_ptr_nonnull(h);
		long long running = jint(h, "workers_running");
		json_t *pool = json_object_get(h, "pool");
		bool full = jint(pool, "parked") == parked && jint(pool, "starting") == 0;
		json_decref(h);
		if (running == 0 && full)
			break;
		ck_assert_msg(now_ms() < deadline, "workers still running: %lld", running);
	}
	ck_assert_int_eq(daemon_fd_count(&d), fds_before);
	int zombies;
	ck_assert_int_eq(daemon_child_count(&d, &zombies), 1 + parked);
	ck_assert_int_eq(zombies, 0);
	json_t *h = health(d.sock);
	ck_assert_int_ge(jint(h, "executions_total"), 1000);
	json_decref(h);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A client that reads nothing does not stall the others. */
START_TEST(test_slow_reader)
{
	struct client slow, fast;
	ck_assert_int_eq(client_open(&slow, shared.sock, FRAME_MODE_BINARY), 0);
	int small = 4096;
	setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	client_sendf(&slow, "{\"op\":\"stream\",\"code\":\"for (;;) console.log("
			    "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy')\","
			    "\"output_bytes\":16777216,\"timeout_ms\":20000}");
	ck_assert_int_eq(client_open(&fast, shared.sock, FRAME_MODE_LINE), 0);
	for (int i = 0; i < 20; i++) {
		client_sendf(&fast, "{\"op\":\"execute\",\"code\":\"return %d\"}", i);
		json_t *r = client_reply(&fast, NULL, 5000);
		ck_assert_msg(r != NULL, "fast client stalled at %d", i);
		ck_assert_int_eq(jint(r, "value"), i);
		json_decref(r);
	}
	client_close(&fast);
	client_close(&slow);
	wait_idle(shared.sock);
}
END_TEST

/* Requests sent behind a reply backlog are answered once it drains. */
START_TEST(test_backlog_then_requests)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"id\":\"flood\",\"code\":\"var s = new Array(1000)"
			 ".join('z'); for (var i = 0; i < 16000; i++) console.log(s)\","
			 "\"output_bytes\":16777216}");
	json_decref(client_started(&c, "flood", 10000));
	json_t *ev = client_recv(&c, 10000); /* its output flows */
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	json_decref(ev);
	for (int i = 0; i < 5; i++)
		client_sendf(&c, "{\"op\":\"execute\",\"id\":%d,\"code\":\"return %d\"}", i, i);
	int answered = 0;
	bool flood_done = false;
	while (answered < 5 || !flood_done) {
		json_t *m = client_recv(&c, 20000);
		ck_assert_msg(m != NULL, "stalled with %d answered", answered);
		if (json_object_get(m, "ok")) {
			if (json_is_string(json_object_get(m, "id"))) {
				ck_assert(jtrue(m, "success"));
				flood_done = true;
			} else {
				ck_assert_int_eq(jint(m, "value"), jint(m, "id"));
				answered++;
			}
		}
		json_decref(m);
	}
	client_close(&c);
}
END_TEST

/* A client that connects and says nothing is closed after the idle time. */
START_TEST(test_silent_client_closed)
{
	struct daemon d;
	const char *args[] = {"--idle-timeout-ms", "200", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	ck_assert(client_eof(&c, 5000));
	client_close(&c);
	/* Work in flight is not idleness: a 400 ms script outlives 200 ms. */
	json_t *r = exec_once(d.sock, "{\"code\":\"var t = Date.now(); "
				      "while (Date.now() - t < 400) {} return 'kept'\"}");
	ck_assert_str_eq(jstr(r, "value"), "kept");
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A worker killed by a signal it did not ask for is a "sandbox" failure
 * that names the signal. */
START_TEST(test_worker_killed_by_signal)
{
	struct daemon d;
	daemon_start(&d, NULL);
	const int sigs[] = {SIGSEGV, SIGSYS};
	const char *names[] = {"SIGSEGV", "seccomp"};
	for (int i = 0; i < 2; i++) {
		struct client c;
		ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
		client_sendf(&c, "{\"op\":\"stream\",\"code\":\"console.log('up'); for(;;){}\","
				 "\"timeout_ms\":7000}");
		json_decref(client_started(&c, NULL, 5000));
		json_t *ev = client_recv(&c, 5000); /* its output: the worker runs */
		ck_assert_ptr_nonnull(ev);
		ck_assert_str_eq(jstr(ev, "event"), "output");
		json_decref(ev);
		/* Not a parked one: the one that lowered its limits to 7 s. */
		pid_t worker = daemon_worker_by_timeout(&d, 7000);
		ck_assert_int_gt(worker, 0);
		ck_assert_int_eq(kill(worker, sigs[i]), 0);
		json_t *r = client_reply(&c, NULL, 5000);
		ck_assert_str_eq(jstr(r, "state"), "failed");
		ck_assert_str_eq(err_kind(r), "sandbox");
		ck_assert_msg(strstr(err_msg(r), names[i]) != NULL, "message: %s", err_msg(r));
		json_decref(r);
		client_close(&c);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A forkserver that dies is replaced; the daemon goes on serving. */
START_TEST(test_forkserver_restart)
{
	struct daemon d;
	daemon_start(&d, NULL);
	pid_t old = daemon_forkserver(&d);
	ck_assert_int_gt(old, 0);
	ck_assert_int_eq(kill(old, SIGKILL), 0);
	long long deadline = now_ms() + 10000;
	pid_t now;
	while ((now = daemon_forkserver(&d)) <= 0 || now == old) {
		ck_assert_msg(now_ms() < deadline, "no new forkserver");
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	json_t *r = exec_once(d.sock, "{\"code\":\"return 'still here'\"}");
	ck_assert_str_eq(jstr(r, "value"), "still here");
	json_decref(r);
	char *log = daemon_log(&d);
	ck_assert_ptr_nonnull(strstr(log, "; restarting it"));
	free(log);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

START_TEST(test_connection_cap)
{
	struct daemon d;
	const char *args[] = {"--max-connections", "1", NULL};
	daemon_start(&d, args);
	struct client a, b;
	ck_assert_int_eq(client_open(&a, d.sock, FRAME_MODE_LINE), 0);
	client_sendf(&a, "{\"op\":\"health\"}");
	json_t *r = client_reply(&a, NULL, 5000);
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	ck_assert_int_eq(client_open(&b, d.sock, FRAME_MODE_LINE), 0);
	client_sendf(&b, "{\"op\":\"health\"}");
	r = client_reply(&b, NULL, 5000);
	ck_assert_str_eq(err_code(r), "UNAVAILABLE");
	json_decref(r);
	ck_assert(client_eof(&b, 5000));
	client_close(&b);
	client_close(&a);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- lifecycle */

START_TEST(test_sigterm_finishes_work)
{
	struct daemon d;
	const char *args[] = {"--max-workers", "1", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"id\":1,\"code\":\"console.log('go'); var t = "
			 "Date.now(); while (Date.now() - t < 300) {} return 'done'\"}");
	client_sendf(&c, "{\"op\":\"execute\",\"id\":2,\"code\":\"return 2\"}");
	json_t *ev = client_started(&c, "1", 5000);
	ck_assert_str_eq(jstr(ev, "state"), "running");
	json_decref(ev);
	ev = client_started(&c, "2", 5000);
	ck_assert_str_eq(jstr(ev, "state"), "pending");
	ck_assert_int_eq(jint(ev, "queue_position"), 1);
	json_decref(ev);
	ev = client_recv(&c, 5000); /* 1 is running */
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	json_decref(ev);
	kill(d.pid, SIGTERM);
	json_t *r = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r, "id"), 2); /* the queued one never starts */
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(err_kind(r), "cancelled");
	json_decref(r);
	r = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r, "id"), 1); /* the running one finishes */
	ck_assert_str_eq(jstr(r, "value"), "done");
	json_decref(r);
	int st = daemon_wait(&d, 10000);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
	struct stat sb;
	ck_assert_int_ne(stat(d.sock, &sb), 0); /* socket removed */
	client_close(&c);
	daemon_stop(&d);
}
END_TEST

START_TEST(test_sigterm_grace_kills)
{
	struct daemon d;
	const char *args[] = {"--grace-ms", "200", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_sendf(&c, "{\"op\":\"stream\",\"code\":\"console.log('go'); for(;;){}\","
			 "\"timeout_ms\":60000}");
	json_decref(client_started(&c, NULL, 5000));
	json_t *ev = client_recv(&c, 5000); /* its output: the worker runs */
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	json_decref(ev);
	/* The forkserver, the worker and the parked ones. */
	int parked = daemon_pool_full(&d, 10000);
	pid_t kids[64];
	int nkids = daemon_children(&d, kids, 64);
	ck_assert_int_eq(nkids, 2 + parked);
	kill(d.pid, SIGTERM);
	json_t *r = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	int st = daemon_wait(&d, 10000);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
	/* Nothing it started is left running (or unreaped). */
	for (int i = 0; i < nkids; i++)
		ck_assert_msg(kill(kids[i], 0) < 0 && errno == ESRCH, "pid %d survived",
			      (int)kids[i]);
	client_close(&c);
	daemon_stop(&d);
}
END_TEST

START_TEST(test_socket_activation)
{
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	char dir[] = "/tmp/sandboxd-act-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char sock[128], lock[128];
	snprintf(sock, sizeof sock, "%s/act.sock", dir);
	snprintf(lock, sizeof lock, "%s/uids.lock", dir);
	int errpipe[2];
	ck_assert_int_eq(pipe(errpipe), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(errpipe[1], 2);
		close(errpipe[0]);
		execlp("systemd-socket-activate", "systemd-socket-activate", "-l", sock, bin,
		       "--uid-lock", lock, (char *)NULL);
		_exit(127);
	}
	close(errpipe[1]);
	/* The activator says "Listening on ..." once it listens. */
	char said[4096];
	size_t n = 0;
	while (!memmem(said, n, "Listening on", 12)) {
		struct pollfd p = {errpipe[0], POLLIN, 0};
		ck_assert_msg(poll(&p, 1, 10000) == 1, "systemd-socket-activate did not listen");
		ssize_t r = read(errpipe[0], said + n, sizeof said - n);
		ck_assert_msg(r > 0, "systemd-socket-activate exited");
		n += (size_t)r;
	}
	/* The daemon logs there too: keep draining so it never blocks. */
	pid_t drain = fork();
	if (drain == 0) {
		while (read(errpipe[0], said, sizeof said) > 0)
			;
		_exit(0);
	}
	close(errpipe[0]);
	struct stat sb;
	json_t *r = exec_once(sock, "{\"code\":\"return 'activated'\"}");
	ck_assert_str_eq(jstr(r, "value"), "activated");
	json_decref(r);
	kill(pid, SIGTERM);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
	ck_assert_int_eq(waitpid(drain, NULL, 0), drain);
	/* The socket belongs to the service manager: the daemon leaves it. */
	ck_assert_int_eq(stat(sock, &sb), 0);
	unlink(sock);
	unlink(lock);
	rmdir(dir);
}
END_TEST

START_TEST(test_refuses_live_socket)
{
	struct daemon d;
	daemon_start(&d, NULL);
	const char *bin = getenv("SANDBOXD_BIN");
	char lock[160];
	snprintf(lock, sizeof lock, "%s/uids2.lock", d.dir);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", 1);
		dup2(null, 2);
		execl(bin, bin, "--socket", d.sock, "--uid-lock", lock, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	json_t *h = health(d.sock); /* the first daemon is untouched */
	ck_assert(jtrue(h, "ok"));
	json_decref(h);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon");
	TCase *proto = tcase_create("protocol");
	tcase_add_unchecked_fixture(proto, shared_up, shared_down);
	tcase_set_timeout(proto, 60);
	tcase_add_test(proto, test_health);
	tcase_add_test(proto, test_execute_binary);
	tcase_add_test(proto, test_execute_line);
	tcase_add_test(proto, test_line_mode_wire);
	tcase_add_test(proto, test_stream);
	tcase_add_test(proto, test_stream_not_held_back);
	tcase_add_test(proto, test_interleaved_requests);
	tcase_add_test(proto, test_bad_requests_named);
	tcase_add_test(proto, test_binary_non_object);
	tcase_add_test(proto, test_zero_length_frame);
	tcase_add_test(proto, test_oversize_frame);
	tcase_add_test(proto, test_half_sent_frame);
	tcase_add_test(proto, test_half_close_still_answered);
	tcase_add_test(proto, test_vanishing_client);
	suite_add_tcase(s, proto);

	TCase *exec = tcase_create("executions");
	tcase_add_unchecked_fixture(exec, shared_up, shared_down);
	tcase_set_timeout(exec, 60);
	tcase_add_test(exec, test_errors);
	tcase_add_test(exec, test_timeout);
	tcase_add_test(exec, test_catastrophic_regex);
	tcase_add_test(exec, test_flood_stdout);
	tcase_add_test(exec, test_flood_stderr);
	tcase_add_test(exec, test_flood_stream);
	tcase_add_test(exec, test_memory_bomb);
	tcase_add_test(exec, test_deep_recursion);
	tcase_add_test(exec, test_unicode_output);
	tcase_add_test(exec, test_log_holds_no_script_data);
	tcase_add_test(exec, test_concurrent_clients);
	tcase_add_test(exec, test_slow_reader);
	tcase_add_test(exec, test_backlog_then_requests);
	suite_add_tcase(s, exec);

	TCase *own = tcase_create("own daemon");
	tcase_set_timeout(own, 120);
	tcase_add_test(own, test_queue);
	tcase_add_test(own, test_disconnect_kills);
	tcase_add_test(own, test_thousand_no_leaks);
	tcase_add_test(own, test_connection_cap);
	tcase_add_test(own, test_silent_client_closed);
	tcase_add_test(own, test_worker_killed_by_signal);
	tcase_add_test(own, test_forkserver_restart);
	tcase_add_test(own, test_sigterm_finishes_work);
	tcase_add_test(own, test_sigterm_grace_kills);
	tcase_add_test(own, test_socket_activation);
	tcase_add_test(own, test_refuses_live_socket);
	suite_add_tcase(s, own);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
