/*
 * check_lifecycle.c - executions over their whole life, against the real
 * daemon: async, status (long-polls, wait_ms, output offsets), cancel, the
 * queue, list, retention, test mode and the script cache.
 *
 * Nothing here sleeps to hide a race: a test either long-polls with status
 * or waits for a condition with a deadline.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

/* Replies come quickly; a script's own time is added where it matters. */
#define REPLY_MS 10000
#define ID_SIZE 32

static struct daemon shared;

static void shared_up(void)
{
	/* Frames up to 16 MiB: test_status_terminal_has_fields sends an 8 MiB
	 * script. */
	const char *args[] = {"--max-workers", "4", "--max-frame-bytes", "16M", "--partial-bytes",
			      "32M",	       NULL};
	daemon_start(&shared, args);
}
static void shared_down(void) { daemon_stop(&shared); }

/* ---- clocks and waiting */

static long long clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static long long now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* The daemon's *_at_ms fields are this clock, on the same machine. */
static long long wall_ms(void) { return clock_ms(CLOCK_REALTIME); }

/* Pacing for a loop that waits for a condition with a deadline. */
static void pause_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

/* ---- requests */

/* {"op": op, "code": code} plus, when extra is not NULL, its members. */
static json_t *code_req(const char *op, const char *code, json_t *extra)
{
	json_t *req = json_pack("{s:s, s:s}", "op", op, "code", code);
	ck_assert_ptr_nonnull(req);
	if (extra) {
		json_object_update(req, extra);
		json_decref(extra);
	}
	return req;
}

/* Runs code with execute on a fresh connection. */
static json_t *run_code(const char *sock, const char *code)
{
	return call_once(sock, code_req("execute", code, NULL));
}

static json_t *status_req(const char *id, bool wait, long long wait_ms, long long out_off,
			  long long err_off)
{
	json_t *req = json_pack("{s:s, s:s}", "op", "status", "execution_id", id);
	if (wait)
		json_object_set_new(req, "wait", json_true());
	if (wait_ms >= 0)
		json_object_set_new(req, "wait_ms", json_integer(wait_ms));
	if (out_off)
		json_object_set_new(req, "stdout_offset", json_integer(out_off));
	if (err_off)
		json_object_set_new(req, "stderr_offset", json_integer(err_off));
	return req;
}

/* status, now or (wait) when the execution ends. */
static json_t *status(struct client *c, const char *id, bool wait)
{
	json_t *r = client_call(c, status_req(id, wait, -1, 0, 0));
	ck_assert_msg(jtrue(r, "ok"), "status %s failed", id);
	return r;
}

static json_t *status_once(const char *sock, const char *id, bool wait)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, sock, FRAME_MODE_BINARY), 0);
	json_t *r = status(&c, id, wait);
	client_close(&c);
	return r;
}

static json_t *cancel(struct client *c, const char *id)
{
	return client_call(c, json_pack("{s:s, s:s}", "op", "cancel", "execution_id", id));
}

static json_t *cache_list(const char *sock, const char *filter)
{
	json_t *req = json_pack("{s:s}", "op", "cache_list");
	if (filter)
		json_object_set_new(req, "filter", json_string(filter));
	json_t *r = call_once(sock, req);
	ck_assert(jtrue(r, "ok"));
	json_t *scripts = json_incref(json_object_get(r, "scripts"));
	json_decref(r);
	ck_assert(json_is_array(scripts));
	return scripts;
}

static json_t *health(const char *sock)
{
	json_t *r = call_once(sock, json_pack("{s:s}", "op", "health"));
	ck_assert(jtrue(r, "ok"));
	return r;
}

/* ---- reply fields */

static bool has(json_t *o, const char *key) { return json_object_get(o, key) != NULL; }

/* Copies r's execution_id (checked: exec_ and 16 hex digits) into id. */
static void take_id(char id[ID_SIZE], json_t *r)
{
	const char *s = jstr(r, "execution_id");
	ck_assert_msg(strlen(s) == 21 && strncmp(s, "exec_", 5) == 0 &&
			      strspn(s + 5, "0123456789abcdef") == 16,
		      "bad execution_id \"%s\"", s);
	snprintf(id, ID_SIZE, "%s", s);
}

/* The byte length of a string member (strings may hold any byte). */
static size_t jlen(json_t *o, const char *key)
{
	return json_string_length(json_object_get(o, key));
}

/* Characters of UTF-8 text. */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* How often the daemon's log says needle. */
static size_t log_count(const struct daemon *d, const char *needle)
{
	char *log = daemon_log(d);
	size_t n = count_of(log, needle);
	free(log);
	return n;
}

/* A temporary directory of the test's own (the caller removes it). */
static void temp_dir(char dir[64])
{
	snprintf(dir, 64, "/tmp/sandboxd-lc-XXXXXX");
	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *dir)
{
	char cmd[128];
	ck_assert(strncmp(dir, "/tmp/sandboxd-lc-", 17) == 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- async */

/* An async execution belongs to no connection: closing the submitter's
 * right after the reply does not stop it, and another connection reads
 * its result. */
START_TEST(test_async_outlives_submitter)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	json_t *r = client_call(&c, code_req("async",
					     "var t = Date.now(); while (Date.now() - t < 200) {} "
					     "console.log('still here'); return {v: 'survived'}",
					     json_pack("{s:s}", "id", "a")));
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "id"), "a");
	char id[ID_SIZE];
	take_id(id, r);
	ck_assert_str_eq(jstr(r, "state"), "running"); /* slots are free */
	ck_assert(!has(r, "queue_position"));
	ck_assert(!has(r, "success")); /* an acknowledgement, not a result */
	json_decref(r);
	client_close(&c);

	r = status_once(shared.sock, id, true);
	ck_assert_str_eq(jstr(r, "execution_id"), id);
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert(jtrue(r, "success"));
	ck_assert_str_eq(jstr(json_object_get(r, "value"), "v"), "survived");
	ck_assert_str_eq(jstr(r, "stdout"), "still here\n");
	/* It ran to its end. Date.now() counts whole ms, so a 200 ms wait
	 * may last 199.x ms (the same below). */
	ck_assert_int_ge(jint(r, "execution_time_ms"), 199);
	json_decref(r);
}
END_TEST

/* ---- status */

START_TEST(test_status_running_then_ended)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	long long submitted = wall_ms();
	json_t *r = client_call(&c, code_req("async",
					     "console.log('partial'); console.error('e1'); "
					     "var t = Date.now(); while (Date.now() - t < 400) {} "
					     "console.log('done'); return {n: 42}",
					     NULL));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	/* Until the first writes have reached the daemon; wait_ms paces. */
	long long deadline = now_ms() + 5000;
	for (;;) {
		r = client_call(&c, status_req(id, true, 5, 0, 0));
		ck_assert_str_eq(jstr(r, "state"), "running");
		bool seen = jint(r, "stdout_length") > 0 && jint(r, "stderr_length") > 0;
		json_decref(r);
		if (seen)
			break;
		ck_assert_msg(now_ms() < deadline, "no output while running");
	}
	/* Without wait: the state now, the output so far, no result yet. */
	r = status(&c, id, false);
	ck_assert_str_eq(jstr(r, "execution_id"), id);
	ck_assert_str_eq(jstr(r, "state"), "running");
	ck_assert_str_eq(jstr(r, "stdout"), "partial\n");
	ck_assert_str_eq(jstr(r, "stderr"), "e1\n");
	ck_assert_int_eq(jint(r, "stdout_length"), 8);
	ck_assert_int_eq(jint(r, "stderr_length"), 3);
	ck_assert(!has(r, "queue_position"));
	static const char *const result_fields[] = {
		"success",	     "value",	      "error", "execution_time_ms", "cpu_time_ms",
		"memory_peak_bytes", "finished_at_ms"};
	for (size_t i = 0; i < sizeof result_fields / sizeof *result_fields; i++)
		ck_assert_msg(!has(r, result_fields[i]), "%s while running", result_fields[i]);
	json_decref(r);

	/* With wait: answered when it ends, with every execution field. */
	r = status(&c, id, true);
	long long received = wall_ms();
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert(jtrue(r, "success"));
	ck_assert_int_eq(jint(json_object_get(r, "value"), "n"), 42);
	ck_assert(!has(r, "error"));
	ck_assert_str_eq(jstr(r, "stdout"), "partial\ndone\n");
	ck_assert_str_eq(jstr(r, "stderr"), "e1\n");
	ck_assert_int_eq(jint(r, "stdout_length"), 13);
	ck_assert_int_eq(jint(r, "stderr_length"), 3);
	ck_assert(json_is_integer(json_object_get(r, "execution_time_ms")));
	ck_assert_int_ge(jint(r, "execution_time_ms"), 399);
	ck_assert(json_is_integer(json_object_get(r, "cpu_time_ms")));
	ck_assert_int_gt(jint(r, "cpu_time_ms"), 0);
	ck_assert_int_le(jint(r, "cpu_time_ms"), jint(r, "execution_time_ms") + 50);
	/* Replied on its result, before the reap: the rusage's peak is not
	 * known, the CPU time is the worker's own report. */
	ck_assert(!has(r, "memory_peak_bytes"));
	long long started = jint(r, "started_at_ms"), finished = jint(r, "finished_at_ms");
	ck_assert_int_ge(started, submitted - 1);
	ck_assert_int_ge(finished - started, 399);
	ck_assert_int_le(finished, received + 1);
	json_decref(r);
	client_close(&c);
}
END_TEST

/* ---- the long-poll wakes up when the execution ends */

static void check_wakeup(bool cache)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	char code[160];
	/* Code of its own each run, so that the cache has something to do. */
	snprintf(code, sizeof code,
		 "var t = Date.now(); while (Date.now() - t < 300) {} return %lld", wall_ms());
	json_t *r = client_call(&c, code_req("async", code, json_pack("{s:b}", "cache", cache)));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	long long sent = now_ms();
	r = status(&c, id, true);
	long long received = wall_ms();
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert_int_eq(has(r, "cached"), cache);
	/* It did wait for the end ... */
	ck_assert_int_ge(jint(r, "execution_time_ms"), 299);
	ck_assert_int_ge(now_ms() - sent, 200);
	/* ... and answered as soon as it came. */
	long long late = received - jint(r, "finished_at_ms");
	ck_assert_msg(late >= -1 && late <= 50, "status wait answered %lld ms after the end", late);
	json_decref(r);
	client_close(&c);
}

START_TEST(test_long_poll_wakes_promptly) { check_wakeup(false); }
END_TEST
/* An execution whose code goes to the cache ends once it is stored. */
START_TEST(test_long_poll_wakes_promptly_cached) { check_wakeup(true); }
END_TEST

/* A status that reports a terminal state carries the execution fields,
 * also in the moments after the script ended while its code is being
 * written to the cache (a big script makes that moment long). Today it
 * does not: exec_state() (server/exec.c) already gives the final state in
 * PHASE_STORING, while exec_fields() gives the fields only in PHASE_DONE. */
START_TEST(test_status_terminal_has_fields)
{
	size_t pad = 8u << 20;
	char *code = malloc(pad + 128);
	ck_assert_ptr_nonnull(code);
	int n = snprintf(code, 128, "// big\n/*");
	memset(code + n, 'x', pad);
	snprintf(code + (size_t)n + pad, 128,
		 "*/ var t = Date.now(); while (Date.now() - t < 100) {} return %lld", wall_ms());
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(&c, code_req("async", code, NULL));
	free(code);
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	int polls = 0, bare = 0;
	char bare_state[16] = "", state_now[16] = "";
	long long deadline = now_ms() + 20000;
	for (;;) {
		/* wait_ms 1 paces the polls without hiding the moment. */
		r = client_call(&c, status_req(id, true, 1, 0, 0));
		ck_assert(jtrue(r, "ok"));
		polls++;
		const char *state = jstr(r, "state");
		bool terminal = strcmp(state, "pending") != 0 && strcmp(state, "running") != 0;
		bool fields = has(r, "success") && has(r, "finished_at_ms") &&
			      has(r, "execution_time_ms");
		if (terminal && !fields && !bare++)
			snprintf(bare_state, sizeof bare_state, "%s", state);
		snprintf(state_now, sizeof state_now, "%s", state);
		json_decref(r);
		if (fields)
			break;
		ck_assert_msg(now_ms() < deadline, "no result after %d polls (%s, %d bare)", polls,
			      state_now, bare);
	}
	ck_assert_msg(bare == 0, "%d of %d status replies said \"%s\" without the execution fields",
		      bare, polls, bare_state);
	client_close(&c);
}
END_TEST

/* ---- wait_ms */

START_TEST(test_wait_ms)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(
		&c, code_req("async", "for(;;){}", json_pack("{s:i}", "timeout_ms", 60000)));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	long long t0 = now_ms();
	r = client_call(&c, status_req(id, true, 150, 0, 0));
	long long waited = now_ms() - t0;
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "running");
	ck_assert(!has(r, "finished_at_ms"));
	ck_assert_int_ge(waited, 149);
	ck_assert_int_lt(waited, 5000);
	json_decref(r);
	r = cancel(&c, id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	client_close(&c);
}
END_TEST

START_TEST(test_wait_ms_clamped)
{
	struct daemon d;
	const char *args[] = {"--max-wait-ms", "200", NULL};
	daemon_start(&d, args);
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(json_object_get(h, "limits"), "wait_ms_max"), 200);
	json_decref(h);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	json_t *r = client_call(
		&c, code_req("async", "for(;;){}", json_pack("{s:i}", "timeout_ms", 60000)));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	/* Asked for a minute, cut to 200 ms; the default 30 s is cut too. */
	for (int i = 0; i < 2; i++) {
		long long t0 = now_ms();
		r = client_call(&c, status_req(id, true, i ? -1 : 60000, 0, 0));
		long long waited = now_ms() - t0;
		ck_assert(jtrue(r, "ok"));
		ck_assert_str_eq(jstr(r, "state"), "running");
		ck_assert_int_ge(waited, 199);
		ck_assert_int_lt(waited, 5000);
		json_decref(r);
	}
	r = cancel(&c, id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- output offsets */

#define OFFSET_LINES 300

/* The script writes line i of OFFSET_LINES to stdout (even) or stderr
 * (odd), some with é and 😀, pausing ~1 ms after each. */
static const char offsets_code[] =
	"for (var i = 0; i < 300; i++) {"
	"  var s = 'line ' + i + (i % 3 == 0 ? ' caf\\u00e9' : '') +"
	"          (i % 5 == 0 ? ' \\ud83d\\ude00' : '');"
	"  if (i % 2) console.error('err ' + s); else console.log('out ' + s);"
	"  var t = Date.now(); while (Date.now() - t < 1) {}"
	"}"
	"return 'end'";

static void offsets_expected(struct buf *out, struct buf *err)
{
	for (int i = 0; i < OFFSET_LINES; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "%s line %d%s%s\n", i % 2 ? "err" : "out", i,
				 i % 3 == 0 ? " caf\xc3\xa9" : "",
				 i % 5 == 0 ? " \xf0\x9f\x98\x80" : "");
		buf_append(i % 2 ? err : out, line, (size_t)n);
	}
}

/* Passing back the last lengths as offsets, a poller gets every byte of
 * both streams exactly once, and the same bytes a final read gets. */
START_TEST(test_output_offsets)
{
	struct buf want_out = BUF_INIT, want_err = BUF_INIT;
	offsets_expected(&want_out, &want_err);
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	/* Not cached: see test_status_terminal_has_fields for why. */
	json_t *r = client_call(
		&c, code_req("async", offsets_code, json_pack("{s:b}", "cache", false)));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);

	struct buf got[2] = {BUF_INIT, BUF_INIT};
	long long off[2] = {0, 0};
	int polls = 0, slices_while_running = 0;
	long long deadline = now_ms() + 20000;
	for (;;) {
		/* Alternately without wait and with a short one. */
		r = client_call(&c, status_req(id, polls % 2, polls % 2 ? 3 : -1, off[0], off[1]));
		ck_assert_msg(jtrue(r, "ok"), "poll %d: %s", polls, err_msg(r));
		polls++;
		bool running = strcmp(jstr(r, "state"), "running") == 0;
		for (int i = 0; i < 2; i++) {
			const char *key = i ? "stderr" : "stdout";
			char len_key[16];
			snprintf(len_key, sizeof len_key, "%s_length", key);
			long long len = jint(r, len_key);
			size_t n = jlen(r, key);
			ck_assert_int_eq((long long)n, len - off[i]);
			buf_append(&got[i], jstr(r, key), n);
			if (running && n > 0)
				slices_while_running++;
			off[i] = len;
		}
		bool done = !running;
		if (done) {
			ck_assert_str_eq(jstr(r, "state"), "completed");
			ck_assert_str_eq(jstr(r, "value"), "end");
		}
		json_decref(r);
		if (done)
			break;
		ck_assert_msg(now_ms() < deadline, "still running after %d polls", polls);
	}
	/* Several slices came while it ran: the offsets were really used. */
	ck_assert_int_ge(slices_while_running, 2);
	ck_assert_uint_eq(buf_len(&got[0]), buf_len(&want_out));
	ck_assert(memcmp(buf_peek(&got[0]), buf_peek(&want_out), buf_len(&want_out)) == 0);
	ck_assert_uint_eq(buf_len(&got[1]), buf_len(&want_err));
	ck_assert(memcmp(buf_peek(&got[1]), buf_peek(&want_err), buf_len(&want_err)) == 0);

	r = status(&c, id, false); /* offsets 0: everything */
	ck_assert_uint_eq(jlen(r, "stdout"), buf_len(&want_out));
	ck_assert(memcmp(jstr(r, "stdout"), buf_peek(&want_out), buf_len(&want_out)) == 0);
	ck_assert_uint_eq(jlen(r, "stderr"), buf_len(&want_err));
	ck_assert(memcmp(jstr(r, "stderr"), buf_peek(&want_err), buf_len(&want_err)) == 0);
	json_decref(r);

	/* At the very end: nothing, but no error. */
	r = client_call(&c, status_req(id, false, -1, (long long)buf_len(&want_out),
				       (long long)buf_len(&want_err)));
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "stdout"), "");
	ck_assert_str_eq(jstr(r, "stderr"), "");
	json_decref(r);

	/* Past the end, each stream named. */
	r = client_call(&c, status_req(id, false, -1, (long long)buf_len(&want_out) + 1, 0));
	assert_error(r, "INVALID_ARGUMENT", "stdout_offset");
	json_decref(r);
	r = client_call(&c, status_req(id, false, -1, 0, (long long)buf_len(&want_err) + 1));
	assert_error(r, "INVALID_ARGUMENT", "stderr_offset");
	json_decref(r);
	/* Inside a character: the second byte of é, the third of 😀. */
	const char *e_acute = memmem(buf_peek(&want_out), buf_len(&want_out), "\xc3\xa9", 2);
	ck_assert_ptr_nonnull(e_acute);
	r = client_call(&c, status_req(id, false, -1, e_acute - buf_peek(&want_out) + 1, 0));
	assert_error(r, "INVALID_ARGUMENT", "stdout_offset");
	json_decref(r);
	const char *smiley = memmem(buf_peek(&want_err), buf_len(&want_err), "\xf0\x9f", 2);
	ck_assert_ptr_nonnull(smiley);
	r = client_call(&c, status_req(id, true, -1, 0, smiley - buf_peek(&want_err) + 2));
	assert_error(r, "INVALID_ARGUMENT", "stderr_offset");
	json_decref(r);
	/* While an execution runs, an offset beyond what it wrote so far is
	 * refused as well. */
	r = client_call(&c, code_req("async", "console.log('ab'); for(;;){}",
				     json_pack("{s:i}", "timeout_ms", 60000)));
	take_id(id, r);
	json_decref(r);
	r = client_call(&c, status_req(id, false, -1, 1000, 0));
	assert_error(r, "INVALID_ARGUMENT", "stdout_offset");
	json_decref(r);
	r = cancel(&c, id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);

	buf_free(&got[0]);
	buf_free(&got[1]);
	buf_free(&want_out);
	buf_free(&want_err);
	client_close(&c);
}
END_TEST

/* ---- cancel */

/* The reply goes on the worker's result, with every byte it wrote before
 * it (a pipe's worth and more), and nothing the reap finds afterwards
 * changes the record: the reply, the status once the worker is gone and
 * a cancel all tell the same end. */
START_TEST(test_reply_on_result)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	/* 3000 lines, some 40 KiB each on stdout and stderr. */
	json_t *r =
		client_call(&c, code_req("execute",
					 "for (var i = 0; i < 3000; i++) { console.log('line ' + "
					 "i + ' of the output'); console.error('e' + i); } "
					 "return 7",
					 NULL));
	ck_assert(jtrue(r, "success"));
	ck_assert_int_eq(jint(r, "value"), 7);
	const char *out = jstr(r, "stdout");
	size_t lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 3000);
	ck_assert_ptr_nonnull(strstr(out, "line 2999 of the output\n"));
	ck_assert_ptr_nonnull(strstr(jstr(r, "stderr"), "e2999\n"));
	/* Before the reap: the worker's own CPU time, no rusage peak. */
	ck_assert(json_is_integer(json_object_get(r, "cpu_time_ms")));
	ck_assert_int_le(jint(r, "cpu_time_ms"), jint(r, "execution_time_ms") + 1);
	ck_assert(!has(r, "memory_peak_bytes"));
	char id[ID_SIZE];
	take_id(id, r);
	/* Once no worker runs (this one reaped), the record is the reply's. */
	long long running = 1;
	for (long long deadline = now_ms() + 10000; running && now_ms() < deadline;) {
		json_t *h = health(shared.sock);
		running = jint(h, "workers_running");
		json_decref(h);
	}
	json_t *st = status(&c, id, false);
	const char *same[] = {"state",	     "success",	       "execution_time_ms",
			      "cpu_time_ms", "finished_at_ms", "stdout",
			      "stderr"};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		ck_assert_msg(json_equal(json_object_get(r, same[i]), json_object_get(st, same[i])),
			      "%s differs between the reply and the status", same[i]);
	ck_assert(!has(st, "memory_peak_bytes"));
	json_decref(st);
	json_decref(r);
	r = cancel(&c, id);
	assert_error(r, "FAILED_PRECONDITION", "completed");
	json_decref(r);

	/* Without a result the end comes on the reap: the rusage is known.
	 * (The engine's CPU budget is set beyond the timeout, so that only
	 * the supervisor's kill ends it.) */
	r = client_call(&c,
			code_req("execute", "for(;;){}",
				 json_pack("{s:i, s:i}", "timeout_ms", 300, "max_cpu_ms", 100000)));
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert_int_gt(jint(r, "memory_peak_bytes"), 0);
	ck_assert_int_gt(jint(r, "cpu_time_ms"), 0);
	json_decref(r);
	client_close(&c);
}
END_TEST

START_TEST(test_cancel_running)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(&c, code_req("async", "console.log('up'); for(;;){}",
					     json_pack("{s:i}", "timeout_ms", 60000)));
	char id[ID_SIZE];
	take_id(id, r);
	ck_assert_str_eq(jstr(r, "state"), "running");
	json_decref(r);
	r = client_call(
		&c, json_pack("{s:s, s:s, s:s}", "op", "cancel", "id", "k", "execution_id", id));
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "id"), "k");
	ck_assert_str_eq(jstr(r, "execution_id"), id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = status(&c, id, false);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "cancelled");
	ck_assert(!has(r, "value"));
	ck_assert(has(r, "finished_at_ms"));
	json_decref(r);
	/* It has ended now. */
	r = cancel(&c, id);
	assert_error(r, "FAILED_PRECONDITION", id);
	json_decref(r);

	/* A completed one, of another mode. */
	r = run_code(shared.sock, "return 1");
	ck_assert_str_eq(jstr(r, "state"), "completed");
	take_id(id, r);
	json_decref(r);
	r = cancel(&c, id);
	assert_error(r, "FAILED_PRECONDITION", "completed");
	json_decref(r);

	r = cancel(&c, "exec_0000000000000000");
	assert_error(r, "NOT_FOUND", "exec_0000000000000000");
	json_decref(r);
	r = client_call(&c, json_pack("{s:s}", "op", "cancel"));
	assert_error(r, "INVALID_ARGUMENT", "execution_id");
	json_decref(r);
	client_close(&c);
}
END_TEST

/* The requester of an execute or stream gets its final reply, saying
 * cancelled, when another connection cancels its execution. */
START_TEST(test_cancel_from_other_connection)
{
	struct client owner, other;
	ck_assert_int_eq(client_open(&owner, shared.sock, FRAME_MODE_BINARY), 0);
	ck_assert_int_eq(client_open(&other, shared.sock, FRAME_MODE_LINE), 0);

	/* execute: its id is only in list. */
	char code[96], marker[48], id[ID_SIZE] = "";
	snprintf(marker, sizeof marker, "lc-cancel-%d-%lld", (int)getpid(), wall_ms());
	snprintf(code, sizeof code, "/* %s */ for(;;){}", marker);
	client_request(&owner, code_req("execute", code,
					json_pack("{s:s, s:i}", "id", "ex", "timeout_ms", 60000)));
	long long deadline = now_ms() + 5000;
	while (!*id) {
		json_t *r = client_call(&other, json_pack("{s:s, s:[s], s:i}", "op", "list",
							  "states", "running", "limit", 100));
		size_t i;
		json_t *item;
		json_array_foreach (json_object_get(r, "executions"), i, item) {
			if (strstr(jstr(item, "code_preview"), marker)) {
				ck_assert_str_eq(jstr(item, "mode"), "execute");
				take_id(id, item);
			}
		}
		json_decref(r);
		ck_assert_msg(*id || now_ms() < deadline, "the execution never showed in list");
		if (!*id)
			pause_ms(2);
	}
	json_t *r = cancel(&other, id);
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = client_reply(&owner, NULL, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "ex");
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "execution_id"), id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "cancelled");
	json_decref(r);

	/* stream: its id is in every event. */
	client_request(&owner, code_req("stream", "console.log('up'); for(;;){}",
					json_pack("{s:s, s:i}", "id", "st", "timeout_ms", 60000)));
	json_t *ev = client_started(&owner, "st", REPLY_MS);
	take_id(id, ev);
	json_decref(ev);
	ev = client_recv(&owner, REPLY_MS);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	ck_assert_str_eq(jstr(ev, "execution_id"), id);
	json_decref(ev);
	r = cancel(&other, id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = client_reply(&owner, NULL, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "st");
	ck_assert_str_eq(jstr(r, "execution_id"), id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(err_kind(r), "cancelled");
	json_decref(r);

	/* The owner's connection goes on. */
	client_sendf(&owner, "{\"op\":\"execute\",\"code\":\"return 'next'\"}");
	r = client_reply(&owner, NULL, REPLY_MS);
	ck_assert_str_eq(jstr(r, "value"), "next");
	json_decref(r);
	client_close(&owner);
	client_close(&other);
}
END_TEST

/* A queued execution is taken out of the queue and never starts. */
START_TEST(test_cancel_pending)
{
	struct daemon d;
	const char *args[] = {"--max-workers", "1", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(
		&c, code_req("async", "for(;;){}", json_pack("{s:i}", "timeout_ms", 60000)));
	char first[ID_SIZE], queued[ID_SIZE];
	take_id(first, r);
	ck_assert_str_eq(jstr(r, "state"), "running");
	json_decref(r);
	/* Were it ever started it would hold the slot: it never ends. */
	r = client_call(&c, code_req("async", "console.log('ran'); for(;;){}",
				     json_pack("{s:i}", "timeout_ms", 60000)));
	take_id(queued, r);
	ck_assert_str_eq(jstr(r, "state"), "pending");
	ck_assert_int_eq(jint(r, "queue_position"), 1);
	json_decref(r);

	r = cancel(&c, queued);
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "execution_id"), queued);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = status(&c, queued, false);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(err_kind(r), "cancelled");
	ck_assert(!has(r, "queue_position"));
	ck_assert_str_eq(jstr(r, "stdout"), "");
	ck_assert_int_eq(jint(r, "execution_time_ms"), 0);
	ck_assert_int_eq(jint(r, "cpu_time_ms"), 0);
	json_decref(r);
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(h, "queued"), 0);
	ck_assert_int_eq(jint(h, "workers_running"), 1);
	json_decref(h);

	/* The slot frees (the cancel reply comes once the worker is gone,
	 * after the queue was served): nothing took it. */
	r = cancel(&c, first);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	h = health(d.sock);
	ck_assert_int_eq(jint(h, "queued"), 0);
	ck_assert_int_eq(jint(h, "workers_running"), 0);
	json_decref(h);
	r = status(&c, queued, false);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(jstr(r, "stdout"), "");
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- the queue */

static void assert_pending_at(struct client *c, const char *id, long long pos)
{
	json_t *r = status(c, id, false);
	ck_assert_msg(strcmp(jstr(r, "state"), "pending") == 0, "%s is %s", id, jstr(r, "state"));
	ck_assert_int_eq(jint(r, "queue_position"), pos);
	json_decref(r);
}

START_TEST(test_queue_positions)
{
	struct daemon d;
	const char *args[] = {"--max-workers", "1", "--queue", "3", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	static const char *const codes[] = {
		"for(;;){}",
		"var t = Date.now(); while (Date.now() - t < 300) {} return 'B'",
		"return 'C'",
		"return 'D'",
	};
	char id[4][ID_SIZE];
	for (int i = 0; i < 4; i++) {
		json_t *r = client_call(
			&c, code_req("async", codes[i], json_pack("{s:i}", "timeout_ms", 60000)));
		ck_assert(jtrue(r, "ok"));
		take_id(id[i], r);
		ck_assert_str_eq(jstr(r, "state"), i ? "pending" : "running");
		if (i)
			ck_assert_int_eq(jint(r, "queue_position"), i);
		else
			ck_assert(!has(r, "queue_position"));
		json_decref(r);
	}
	json_t *r = client_call(&c, code_req("async", "return 'E'", NULL));
	assert_error(r, "RESOURCE_EXHAUSTED", "queue");
	json_decref(r);
	for (int i = 1; i < 4; i++)
		assert_pending_at(&c, id[i], i);

	/* C leaves: D moves up. */
	r = cancel(&c, id[2]);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	assert_pending_at(&c, id[1], 1);
	assert_pending_at(&c, id[3], 2);
	r = client_call(&c, json_pack("{s:s, s:[s]}", "op", "list", "states", "pending"));
	json_t *items = json_object_get(r, "executions");
	ck_assert_uint_eq(json_array_size(items), 2);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), id[3]); /* newest first */
	ck_assert_str_eq(jstr(json_array_get(items, 1), "execution_id"), id[1]);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "state"), "pending");
	json_decref(r);

	/* A leaves: B takes the slot, D is next. */
	r = cancel(&c, id[0]);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = status(&c, id[1], false);
	ck_assert_msg(strcmp(jstr(r, "state"), "running") == 0 ||
			      strcmp(jstr(r, "state"), "completed") == 0,
		      "B is %s", jstr(r, "state"));
	ck_assert(!has(r, "queue_position"));
	json_decref(r);
	assert_pending_at(&c, id[3], 1);

	/* Nothing was lost on the way. */
	r = status(&c, id[1], true);
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert_str_eq(jstr(r, "value"), "B");
	json_decref(r);
	r = status(&c, id[3], true);
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert_str_eq(jstr(r, "value"), "D");
	json_decref(r);
	r = status(&c, id[2], false);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	/* D's reply came on its result; its slot is free once it is reaped. */
	long long running = 1;
	for (long long deadline = now_ms() + 10000; running && now_ms() < deadline;) {
		json_t *h = health(d.sock);
		ck_assert_int_eq(jint(h, "queued"), 0);
		running = jint(h, "workers_running");
		json_decref(h);
	}
	ck_assert_int_eq(running, 0);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- the started event */

/* The started event comes first for execute, stream and test, names the
 * execution status and cancel take, says pending with the queue position
 * status gives while the execution waits, and is never sent for a request
 * that was refused or for async (whose reply carries the id). */
START_TEST(test_started_event)
{
	struct daemon d;
	const char *args[] = {"--max-workers", "1", "--queue", "1", NULL};
	daemon_start(&d, args);
	struct client a, b, line;
	ck_assert_int_eq(client_open(&a, d.sock, FRAME_MODE_BINARY), 0);
	ck_assert_int_eq(client_open(&b, d.sock, FRAME_MODE_BINARY), 0);
	ck_assert_int_eq(client_open(&line, d.sock, FRAME_MODE_LINE), 0);

	/* A free worker: it runs at once. */
	client_request(&a, code_req("execute", "for(;;){}",
				    json_pack("{s:s, s:i}", "id", "run", "timeout_ms", 60000)));
	json_t *ev = client_started(&a, "run", REPLY_MS);
	ck_assert_str_eq(jstr(ev, "state"), "running");
	ck_assert(!has(ev, "queue_position"));
	char run[ID_SIZE], wait[ID_SIZE];
	take_id(run, ev);
	json_decref(ev);
	json_t *r = status(&b, run, false);
	ck_assert_str_eq(jstr(r, "state"), "running");
	json_decref(r);

	/* The slot is taken: the next waits, and says where. */
	client_request(&a, code_req("execute", "console.log('ran'); return 1",
				    json_pack("{s:s}", "id", "wait")));
	ev = client_started(&a, "wait", REPLY_MS);
	ck_assert_str_eq(jstr(ev, "state"), "pending");
	ck_assert_int_eq(jint(ev, "queue_position"), 1);
	take_id(wait, ev);
	ck_assert_str_ne(wait, run);
	json_decref(ev);
	assert_pending_at(&b, wait, 1);

	/* The queue (of 1) is full: an error, and no started event before it. */
	client_request(&a, code_req("execute", "return 2", json_pack("{s:s}", "id", "full")));
	r = client_recv(&a, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "full");
	assert_error(r, "RESOURCE_EXHAUSTED", "queue");
	json_decref(r);

	/* Cancelled by the id from its started event, while it still waits:
	 * its requester gets the final reply, and it never ran. */
	r = cancel(&b, wait);
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = client_recv(&a, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "wait");
	ck_assert_str_eq(jstr(r, "execution_id"), wait);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(err_kind(r), "cancelled");
	ck_assert_str_eq(jstr(r, "stdout"), "");
	json_decref(r);

	/* And the running one, by its id. */
	r = cancel(&b, run);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = client_recv(&a, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "run");
	ck_assert_str_eq(jstr(r, "execution_id"), run);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);

	/* Line framing, test mode: started, then the report. */
	client_request(&line, json_pack("{s:s, s:s, s:s, s:s}", "op", "test", "id", "t", "code",
					"function two() { return 2 }", "tests",
					"test('two', function () { assert.is(two(), 2) })"));
	ev = client_started(&line, "t", REPLY_MS);
	r = client_recv(&line, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(jstr(r, "id"), "t");
	ck_assert_msg(jtrue(r, "success"), "tests failed: %s", err_msg(r));
	ck_assert_str_eq(jstr(r, "execution_id"), jstr(ev, "execution_id"));
	json_decref(ev);
	json_decref(r);
	/* Line framing, execute without an id: a started event without one. */
	client_request(&line, code_req("execute", "return 3", NULL));
	ev = client_started(&line, NULL, REPLY_MS);
	r = client_recv(&line, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(jint(r, "value"), 3);
	ck_assert_str_eq(jstr(r, "execution_id"), jstr(ev, "execution_id"));
	json_decref(ev);
	json_decref(r);
	/* async is as it was: its reply is the first frame. */
	client_request(&line, code_req("async", "return 4", json_pack("{s:s}", "id", "as")));
	r = client_recv(&line, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(jtrue(r, "ok") && !has(r, "event"), "async answered by %s",
		      json_dumps(r, JSON_COMPACT));
	take_id(run, r);
	json_decref(r);
	r = status(&line, run, true);
	ck_assert_int_eq(jint(r, "value"), 4);
	json_decref(r);

	client_close(&a);
	client_close(&b);
	client_close(&line);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- list */

static json_t *list(struct client *c, json_t *fields)
{
	json_t *req = json_pack("{s:s}", "op", "list");
	if (fields) {
		json_object_update(req, fields);
		json_decref(fields);
	}
	json_t *r = client_call(c, req);
	ck_assert_msg(jtrue(r, "ok"), "list: %s", err_msg(r));
	json_t *items = json_incref(json_object_get(r, "executions"));
	json_decref(r);
	ck_assert(json_is_array(items));
	return items;
}

/* The first 100 characters of s, as a new string. */
static char *first_chars(const char *s, size_t chars)
{
	size_t n = 0, seen = 0;
	while (s[n]) {
		if (((unsigned char)s[n] & 0xC0) != 0x80 && seen++ == chars)
			break;
		n++;
	}
	return strndup(s, n);
}

START_TEST(test_list)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	/* 11 ended executions, the 6th failed, then one running. */
	enum { ENDED = 11, FAILED_AT = 5 };
	char ids[ENDED + 1][ID_SIZE];
	long long last_finish = 0;
	for (int i = 0; i < ENDED; i++) {
		char code[64];
		snprintf(code, sizeof code, i == FAILED_AT ? "throw new Error('%d')" : "return %d",
			 i);
		json_t *r = client_call(&c, code_req("execute", code, NULL));
		take_id(ids[i], r);
		if (jint(r, "finished_at_ms") > last_finish)
			last_finish = jint(r, "finished_at_ms");
		json_decref(r);
	}
	json_t *r = client_call(
		&c, code_req("async", "for(;;){}", json_pack("{s:i}", "timeout_ms", 60000)));
	take_id(ids[ENDED], r);
	json_decref(r);

	/* Newest first, 10 by default. */
	json_t *items = list(&c, NULL);
	ck_assert_uint_eq(json_array_size(items), 10);
	long long prev_start = 1LL << 62;
	for (size_t k = 0; k < 10; k++) {
		json_t *it = json_array_get(items, k);
		int i = ENDED - (int)k;
		ck_assert_str_eq(jstr(it, "execution_id"), ids[i]);
		ck_assert_str_eq(jstr(it, "mode"), i == ENDED ? "async" : "execute");
		ck_assert_str_eq(jstr(it, "state"), i == ENDED	     ? "running"
						    : i == FAILED_AT ? "failed"
								     : "completed");
		ck_assert_int_eq(has(it, "finished_at_ms"), i != ENDED);
		ck_assert_int_le(jint(it, "started_at_ms"), prev_start);
		prev_start = jint(it, "started_at_ms");
		ck_assert(!has(it, "cached_name"));
	}
	ck_assert_str_eq(jstr(json_array_get(items, 0), "code_preview"), "for(;;){}");
	ck_assert_str_eq(jstr(json_array_get(items, 1), "code_preview"), "return 10");
	json_decref(items);

	items = list(&c, json_pack("{s:i}", "limit", 2));
	ck_assert_uint_eq(json_array_size(items), 2);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), ids[ENDED]);
	ck_assert_str_eq(jstr(json_array_get(items, 1), "execution_id"), ids[ENDED - 1]);
	json_decref(items);
	items = list(&c, json_pack("{s:i}", "limit", 100));
	ck_assert_uint_eq(json_array_size(items), ENDED + 1);
	json_decref(items);
	r = client_call(&c, json_pack("{s:s, s:i}", "op", "list", "limit", 101));
	assert_error(r, "INVALID_ARGUMENT", "limit");
	json_decref(r);
	r = client_call(&c, json_pack("{s:s, s:i}", "op", "list", "limit", 0));
	assert_error(r, "INVALID_ARGUMENT", "limit");
	json_decref(r);
	r = client_call(&c, json_pack("{s:s, s:[s]}", "op", "list", "states", "sleeping"));
	assert_error(r, "INVALID_ARGUMENT", "states");
	json_decref(r);

	/* States. */
	items = list(&c, json_pack("{s:[s]}", "states", "running"));
	ck_assert_uint_eq(json_array_size(items), 1);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), ids[ENDED]);
	json_decref(items);
	items = list(&c, json_pack("{s:[s]}", "states", "failed"));
	ck_assert_uint_eq(json_array_size(items), 1);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), ids[FAILED_AT]);
	json_decref(items);
	items = list(&c,
		     json_pack("{s:[s, s], s:i}", "states", "completed", "failed", "limit", 100));
	ck_assert_uint_eq(json_array_size(items), ENDED);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), ids[ENDED - 1]);
	json_decref(items);
	items = list(&c, json_pack("{s:[s, s]}", "states", "pending", "timeout"));
	ck_assert_uint_eq(json_array_size(items), 0);
	json_decref(items);

	/* include_completed_within_ms: a wide window keeps every ended one;
	 * once 30 ms have passed since the last end, a 20 ms window keeps
	 * none of them (the running one is not ended, so it stays). */
	items = list(&c,
		     json_pack("{s:i, s:i}", "include_completed_within_ms", 3600000, "limit", 100));
	ck_assert_uint_eq(json_array_size(items), ENDED + 1);
	json_decref(items);
	long long deadline = now_ms() + 5000;
	while (wall_ms() < last_finish + 30) {
		ck_assert(now_ms() < deadline);
		pause_ms(1);
	}
	items = list(&c, json_pack("{s:i, s:i}", "include_completed_within_ms", 20, "limit", 100));
	ck_assert_uint_eq(json_array_size(items), 1);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "execution_id"), ids[ENDED]);
	json_decref(items);
	items = list(&c,
		     json_pack("{s:i, s:i}", "include_completed_within_ms", 600000, "limit", 100));
	ck_assert_uint_eq(json_array_size(items), ENDED + 1);
	json_decref(items);

	/* code_preview: 100 characters, not bytes, never a split character. */
	char code[1024];
	int n = snprintf(code, sizeof code, "/* ");
	for (int i = 0; i < 50; i++)
		n += snprintf(code + n, sizeof code - (size_t)n, "\xc3\xa9");
	n += snprintf(code + n, sizeof code - (size_t)n, " */ return '");
	for (int i = 0; i < 60; i++)
		n += snprintf(code + n, sizeof code - (size_t)n, "\xf0\x9f\x98\x80");
	snprintf(code + n, sizeof code - (size_t)n, "'");
	ck_assert_uint_gt(utf8_chars(code), 100);
	r = client_call(&c, code_req("execute", code, NULL));
	ck_assert_str_eq(jstr(r, "state"), "completed");
	json_decref(r);
	items = list(&c, json_pack("{s:i}", "limit", 1));
	const char *preview = jstr(json_array_get(items, 0), "code_preview");
	char *want = first_chars(code, 100);
	ck_assert_uint_eq(utf8_chars(preview), 100);
	ck_assert_str_eq(preview, want);
	free(want);
	json_decref(items);

	/* A test without code: the start of its tests. */
	r = client_call(&c, json_pack("{s:s, s:s}", "op", "test", "tests",
				      "test('t', function () { assert.ok(1) })"));
	ck_assert(jtrue(r, "success"));
	json_decref(r);
	items = list(&c, json_pack("{s:i}", "limit", 1));
	ck_assert_str_eq(jstr(json_array_get(items, 0), "mode"), "test");
	ck_assert_str_eq(jstr(json_array_get(items, 0), "code_preview"),
			 "test('t', function () { assert.ok(1) })");
	json_decref(items);

	/* cached_name: only on a run of a cached script. */
	r = client_call(&c, code_req("execute", "// listed\nreturn 'from cache'", NULL));
	char name[80];
	snprintf(name, sizeof name, "%s", jstr(json_object_get(r, "cached"), "name"));
	ck_assert_uint_gt(strlen(name), 0);
	json_decref(r);
	r = client_call(&c, json_pack("{s:s, s:s}", "op", "execute", "cached", name));
	ck_assert_str_eq(jstr(r, "value"), "from cache");
	json_decref(r);
	items = list(&c, json_pack("{s:i}", "limit", 2));
	ck_assert_str_eq(jstr(json_array_get(items, 0), "cached_name"), name);
	ck_assert_str_eq(jstr(json_array_get(items, 0), "code_preview"),
			 "// listed\nreturn 'from cache'");
	ck_assert(!has(json_array_get(items, 1), "cached_name"));
	json_decref(items);

	r = cancel(&c, ids[ENDED]);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- retention */

START_TEST(test_retention_time)
{
	struct daemon d;
	const char *args[] = {"--retention-ms", "300", NULL};
	daemon_start(&d, args);
	json_t *r = run_code(d.sock, "return 'kept a while'");
	char id[ID_SIZE];
	take_id(id, r);
	long long finished = jint(r, "finished_at_ms");
	json_decref(r);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	r = status(&c, id, false);
	ck_assert_str_eq(jstr(r, "value"), "kept a while");
	json_decref(r);
	long long deadline = now_ms() + 5000;
	for (;;) {
		r = client_call(&c, status_req(id, false, -1, 0, 0));
		long long at = wall_ms();
		bool gone = !jtrue(r, "ok");
		if (gone) {
			assert_error(r, "NOT_FOUND", id);
			/* Not before its time. */
			ck_assert_msg(at >= finished + 295, "gone %lld ms after it ended",
				      at - finished);
		}
		json_decref(r);
		if (gone)
			break;
		ck_assert_msg(now_ms() < deadline, "still there after 5 s");
		pause_ms(10);
	}
	/* Gone from list too; cancel says the same. */
	json_t *items = list(&c, json_pack("{s:i}", "limit", 100));
	ck_assert_uint_eq(json_array_size(items), 0);
	json_decref(items);
	r = cancel(&c, id);
	assert_error(r, "NOT_FOUND", id);
	json_decref(r);
	/* A running execution is never expired. */
	r = client_call(&c, code_req("async",
				     "var t = Date.now(); while (Date.now() - t < 500) {} "
				     "return 'long'",
				     NULL));
	take_id(id, r);
	json_decref(r);
	r = status(&c, id, true);
	ck_assert_str_eq(jstr(r, "value"), "long");
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

START_TEST(test_retention_count)
{
	struct daemon d;
	const char *args[] = {"--retain-count", "2", NULL};
	daemon_start(&d, args);
	char ids[3][ID_SIZE];
	for (int i = 0; i < 3; i++) {
		char code[32];
		snprintf(code, sizeof code, "return %d", i);
		json_t *r = run_code(d.sock, code);
		take_id(ids[i], r);
		json_decref(r);
	}
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(&c, status_req(ids[0], false, -1, 0, 0));
	assert_error(r, "NOT_FOUND", ids[0]);
	json_decref(r);
	for (int i = 1; i < 3; i++) {
		r = status(&c, ids[i], false);
		ck_assert_int_eq(jint(r, "value"), i);
		json_decref(r);
	}
	json_t *items = list(&c, json_pack("{s:i}", "limit", 100));
	ck_assert_uint_eq(json_array_size(items), 2);
	json_decref(items);
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(h, "executions_retained"), 2);
	json_decref(h);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- test mode */

static json_t *run_tests(const char *code, const char *tests)
{
	json_t *req = json_pack("{s:s, s:s}", "op", "test", "tests", tests);
	if (code)
		json_object_set_new(req, "code", json_string(code));
	return call_once(shared.sock, req);
}

/* One line of the tests each, so that a test's line is its index + 1. */
static const struct {
	const char *name, *body;
	bool passed;
	const char *error[3]; /* what a failure's message says */
} cases[] = {
	{"is", "assert.is(add(2, 3), 5); assert.is(VERSION, 'v1');", true, {NULL}},
	{"is fails", "assert.is(add(2, 2), 5);", false, {"expected 5", "found 4", "(tests.js:2)"}},
	{"equal", "assert.equal({a: [1, {b: 2}]}, {a: [1, {b: 2}]});", true, {NULL}},
	{"equal fails",
	 "assert.equal({a: [1, 2], b: 'x'}, {a: [1, 3], b: 'x'});",
	 false,
	 {".a[1]: expected 3, found 2", "expected {\"a\":[1,3],\"b\":\"x\"}", "(tests.js:4)"}},
	{"throws TypeError", "var o = null; o.x = 1;", false, {"TypeError", "(tests.js:5)"}},
	{"skipped", NULL, false, {NULL}},
	{"throws matchers",
	 "assert.throws(function () { throw new Error('boom here') }, 'boom');"
	 " assert.throws(function () { throw new Error('boom here') }, /bo+m h/);"
	 " assert.throws(function () { throw new TypeError('t') },"
	 " function (e) { return e instanceof TypeError });"
	 " assert.not.throws(function () {});",
	 true,
	 {NULL}},
	{"throws string mismatch",
	 "assert.throws(function () { throw new Error('abc') }, 'xyz');",
	 false,
	 {"\"xyz\"", "abc", "(tests.js:8)"}},
	{"throws regexp mismatch",
	 "assert.throws(function () { throw new Error('abc') }, /^b/);",
	 false,
	 {"/^b/", "(tests.js:9)"}},
	{"throws fn mismatch",
	 "assert.throws(function () { throw new Error('abc') }, function (e) { return false });",
	 false,
	 {"Expected function to throw an error matching", "(tests.js:10)"}},
	{"throws nothing",
	 "assert.throws(function () {});",
	 false,
	 {"Expected function to throw", "(tests.js:11)"}},
	{"type, instance, match",
	 "assert.type('s', 'string'); assert.instance([], Array);"
	 " assert.match('hello', /el+/); assert.match('hello', 'llo');"
	 " assert.not.type(1, 'string'); assert.not.match('abc', /z/);",
	 true,
	 {NULL}},
	{"type fails", "assert.type(1, 'string');", false, {"\"number\"", "\"string\""}},
	{"instance fails", "assert.instance({}, Array);", false, {"instance", "(tests.js:14)"}},
	{"match fails", "assert.match('hello', /z+/);", false, {"\"hello\"", "/z+/"}},
	{"unreachable", "assert.unreachable('got here');", false, {"got here", "(tests.js:16)"}},
	{"not, not.equal, is.not",
	 "assert.not(0); assert.not.ok(''); assert.not.equal({a: 1},"
	 " {a: 2}); assert.is.not(1, 2); assert.ok(add);",
	 true,
	 {NULL}},
	{"not fails", "assert.not(1);", false, {"falsy", "(tests.js:18)"}},
	{"not.equal fails", "assert.not.equal([1], [1]);", false, {"not to be deeply equal"}},
	{"is.not fails", "assert.is.not(3, 3);", false, {"not to be strictly equal", "3"}},
	{"logs", "console.log('from a test'); console.error('to stderr');", true, {NULL}},
	{"custom message", "assert.is(1, 2, 'one is not two');", false, {"one is not two"}},
};
#define N_CASES (sizeof cases / sizeof *cases)

/* Builds the tests source of cases, one per line. */
static char *cases_source(void)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < N_CASES; i++) {
		char *line = NULL;
		if (cases[i].body)
			ck_assert_int_ge(asprintf(&line, "test('%s', function () { %s });\n",
						  cases[i].name, cases[i].body),
					 0);
		else
			ck_assert_int_ge(asprintf(&line,
						  "test.skip('%s', function () { throw new "
						  "Error('never') });\n",
						  cases[i].name),
					 0);
		buf_append(&b, line, strlen(line));
		free(line);
	}
	buf_append(&b, "", 1);
	return b.data;
}

START_TEST(test_test_mode)
{
	char *tests = cases_source();
	json_t *r = run_tests("function add(a, b) { return a + b; }\nvar VERSION = 'v1';", tests);
	free(tests);
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "completed"); /* the tests ran ... */
	ck_assert(!jtrue(r, "success"));		 /* ... and some failed */
	ck_assert(!has(r, "value"));
	json_t *list_ = json_object_get(r, "tests");
	ck_assert_uint_eq(json_array_size(list_), N_CASES);
	int passed = 0, failed = 0, skipped = 0;
	for (size_t i = 0; i < N_CASES; i++) {
		json_t *t = json_array_get(list_, i);
		ck_assert_str_eq(jstr(t, "name"), cases[i].name);
		ck_assert(json_is_integer(json_object_get(t, "duration_ms")));
		if (!cases[i].body) {
			ck_assert_msg(jtrue(t, "skipped"), "%s not skipped", cases[i].name);
			ck_assert(!jtrue(t, "passed"));
			skipped++;
			continue;
		}
		ck_assert(!jtrue(t, "skipped"));
		ck_assert_msg(jtrue(t, "passed") == cases[i].passed, "%s: passed %d, error %s",
			      cases[i].name, jtrue(t, "passed"), jstr(t, "error"));
		if (cases[i].passed) {
			ck_assert(!has(t, "error"));
			passed++;
			continue;
		}
		failed++;
		for (int k = 0; k < 3 && cases[i].error[k]; k++)
			ck_assert_msg(strstr(jstr(t, "error"), cases[i].error[k]) != NULL,
				      "%s: \"%s\" not in \"%s\"", cases[i].name, cases[i].error[k],
				      jstr(t, "error"));
	}
	json_t *sum = json_object_get(r, "summary");
	ck_assert_int_eq(jint(sum, "total"), (long long)N_CASES);
	ck_assert_int_eq(jint(sum, "passed"), passed);
	ck_assert_int_eq(jint(sum, "failed"), failed);
	ck_assert_int_eq(jint(sum, "skipped"), skipped);
	ck_assert_int_eq(skipped, 1);
	ck_assert_str_eq(jstr(r, "stdout"), "from a test\n");
	ck_assert_str_eq(jstr(r, "stderr"), "to stderr\n");
	ck_assert(json_is_integer(json_object_get(r, "execution_time_ms")));
	ck_assert(has(r, "finished_at_ms"));
	json_decref(r);
}
END_TEST

START_TEST(test_test_mode_passing)
{
	json_t *r = run_tests(
		"function sq(x) { return x * x; }",
		"var calls = 0;\n"
		"test.before.each(function () { calls++; });\n"
		"test('square', function () { assert.is(sq(3), 9); });\n"
		"test('deep', function () { assert.equal([sq(1), {k: sq(2)}], [1, {k: 4}]); });\n"
		"test('hooks ran', function () { assert.is(calls, 3); });\n"
		"test.run();\n");
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "completed");
	ck_assert(jtrue(r, "success"));
	ck_assert(!has(r, "error"));
	json_t *sum = json_object_get(r, "summary");
	ck_assert_int_eq(jint(sum, "total"), 3);
	ck_assert_int_eq(jint(sum, "passed"), 3);
	ck_assert_int_eq(jint(sum, "failed"), 0);
	ck_assert_int_eq(jint(sum, "skipped"), 0);
	json_decref(r);
	/* A test mode run is never cached. */
	json_t *scripts = cache_list(shared.sock, "square");
	ck_assert_uint_eq(json_array_size(scripts), 0);
	json_decref(scripts);
}
END_TEST

/* test.only: only those run, the rest count as skipped; a skipped test
 * that would fail does not fail the run. */
START_TEST(test_test_mode_only)
{
	json_t *r = run_tests(NULL, "test('a', function () { throw new Error('not run') });\n"
				    "test.only('b', function () { console.log('b ran'); });\n"
				    "test('c', function () { assert.unreachable(); });\n"
				    "test.only('d', function () { assert.is(1, 1); });\n"
				    "test.skip('e', function () { assert.unreachable(); });\n");
	ck_assert(jtrue(r, "success"));
	json_t *t = json_object_get(r, "tests");
	ck_assert_uint_eq(json_array_size(t), 5);
	static const bool ran[] = {false, true, false, true, false};
	for (size_t i = 0; i < 5; i++) {
		json_t *ti = json_array_get(t, i);
		ck_assert_int_eq(jtrue(ti, "passed"), ran[i]);
		ck_assert_int_eq(jtrue(ti, "skipped"), !ran[i]);
	}
	json_t *sum = json_object_get(r, "summary");
	ck_assert_int_eq(jint(sum, "total"), 5);
	ck_assert_int_eq(jint(sum, "passed"), 2);
	ck_assert_int_eq(jint(sum, "failed"), 0);
	ck_assert_int_eq(jint(sum, "skipped"), 3);
	ck_assert_str_eq(jstr(r, "stdout"), "b ran\n");
	json_decref(r);
}
END_TEST

START_TEST(test_test_mode_load_errors)
{
	/* A syntax error in the tests, on line 4. */
	json_t *r = run_tests("var x = 1;", "test('a', function () {\n  assert.ok(x);\n});\n"
					    "var = 5;\n");
	ck_assert(jtrue(r, "ok"));
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "syntax");
	ck_assert_str_eq(jstr(err_obj(r), "source"), "tests");
	ck_assert_int_eq(jint(err_obj(r), "line"), 4);
	ck_assert(!has(r, "tests"));
	json_decref(r);
	/* In the code, on line 2. */
	r = run_tests("var ok = 1;\nfunction (", "test('a', function () {});");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "syntax");
	ck_assert_str_eq(jstr(err_obj(r), "source"), "code");
	ck_assert_int_eq(jint(err_obj(r), "line"), 2);
	json_decref(r);
	/* An exception at the top level of the tests. */
	r = run_tests(NULL, "test('a', function () {});\n\nthrow new RangeError('top');");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_str_eq(jstr(err_obj(r), "source"), "tests");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "RangeError"));
	json_decref(r);
	/* No test registered. */
	r = run_tests("function f() {}", "var nothing = 1;");
	ck_assert(jtrue(r, "ok"));
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "no test"));
	ck_assert_int_eq(jint(json_object_get(r, "summary"), "total"), 0);
	json_decref(r);
	/* No tests at all. */
	r = call_once(shared.sock, json_pack("{s:s, s:s}", "op", "test", "code", "var a = 1;"));
	assert_error(r, "INVALID_ARGUMENT", "tests");
	json_decref(r);
	r = call_once(shared.sock,
		      json_pack("{s:s, s:s, s:i}", "op", "test", "code", "", "tests", 5));
	assert_error(r, "INVALID_ARGUMENT", "tests");
	json_decref(r);
}
END_TEST

/* ---- the script cache */

static const char cache_name_re[] =
	"^script-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9a-f]{12}\\.js$";

static void sha256_of(const char *s, char hex[65])
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(s), (const uint8_t *)s);
	sha256_digest(&ctx, sizeof digest, digest);
	for (size_t i = 0; i < sizeof digest; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* Checks a "cached" object for code stored between before and after
 * (wall ms), and copies its name out. */
static void check_cached(json_t *cached, const char *code, const char *description,
			 long long before, long long after, char name[80])
{
	ck_assert_msg(json_is_object(cached), "no \"cached\" in the reply");
	const char *nm = jstr(cached, "name");
	regex_t re;
	ck_assert_int_eq(regcomp(&re, cache_name_re, REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_msg(regexec(&re, nm, 0, NULL, 0) == 0, "bad name %s", nm);
	regfree(&re);
	char hash[65];
	sha256_of(code, hash);
	ck_assert_str_eq(jstr(cached, "content_hash"), hash);
	ck_assert(strncmp(nm + strlen(nm) - 15, hash, 12) == 0);
	ck_assert_str_eq(jstr(cached, "description"), description);
	long long created = jint(cached, "created_at_ms");
	ck_assert_int_ge(created, before - 1);
	ck_assert_int_le(created, after + 1);
	/* The name's time is the creation time, in UTC. */
	time_t secs = (time_t)(created / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	char stamp[32];
	strftime(stamp, sizeof stamp, "script-%Y-%m-%dT%H-%M-%S-", &tm);
	ck_assert_msg(strncmp(nm, stamp, strlen(stamp)) == 0, "%s is not %s...", nm, stamp);
	snprintf(name, 80, "%s", nm);
}

/* The reply names a stored script before its file is written: waits
 * (on health's count, for at most 30 s) until the daemon has written
 * every script it was given. */
static void cache_settled(const char *sock)
{
	long long deadline = wall_ms() + 30000;
	for (;;) {
		json_t *h = health(sock);
		long long n = jint(json_object_get(h, "cache"), "pending_writes");
		json_decref(h);
		if (n == 0)
			return;
		ck_assert_msg(wall_ms() < deadline, "%lld cache writes still pending", n);
	}
}

/* Stores code through execute (checked), returning its cache name, once
 * its file is written. */
static void store(const char *sock, const char *code, const char *description, char name[80])
{
	long long before = wall_ms();
	json_t *r = run_code(sock, code);
	long long after = wall_ms();
	ck_assert_msg(jtrue(r, "success"), "%s: %s", code, err_msg(r));
	check_cached(json_object_get(r, "cached"), code, description, before, after, name);
	json_decref(r);
	cache_settled(sock);
}

/* Files in dir: script files counted (and, when names is not NULL, each
 * must be listed there); any ".tmp-" file fails. */
static int cache_files(const char *dir, const char *const *names, int n_names)
{
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "%s: %s", dir, strerror(errno));
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || strcmp(de->d_name, "..") == 0))
			continue;
		ck_assert_msg(strncmp(de->d_name, ".tmp-", 5) != 0, "left behind: %s", de->d_name);
		bool listed = names == NULL;
		for (int i = 0; i < n_names && !listed; i++)
			listed = strcmp(names[i], de->d_name) == 0;
		ck_assert_msg(listed, "unexpected file %s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_cache_store)
{
	struct daemon d;
	daemon_start(&d, NULL);
	static const char code[] = "// Adds two numbers\n// for the cache test\nreturn 40 + 2";
	char name[80];
	store(d.sock, code, "Adds two numbers for the cache test", name);

	/* The file: owner-only, whole, written atomically. */
	char dir[160], path[256];
	snprintf(dir, sizeof dir, "%s/scripts/uid-%u", d.dir, (unsigned)getuid()); /* its owner's */
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, (long)strlen(code));
	FILE *f = fopen(path, "re");
	char content[128] = "";
	ck_assert_uint_eq(fread(content, 1, sizeof content - 1, f), strlen(code));
	fclose(f);
	ck_assert_str_eq(content, code);
	const char *names[] = {name};
	ck_assert_int_eq(cache_files(dir, names, 1), 1);

	/* The same content again: it ran, and was not stored twice. */
	json_t *r = run_code(d.sock, code);
	ck_assert_int_eq(jint(r, "value"), 42);
	ck_assert(!has(r, "cached"));
	json_decref(r);
	/* A failing script, and one that asks not to be: not stored. */
	r = run_code(d.sock, "// broken one\nthrow new Error('no')");
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert(!has(r, "cached"));
	json_decref(r);
	r = call_once(d.sock, code_req("execute", "// times out\nfor(;;){}",
				       json_pack("{s:i}", "timeout_ms", 50)));
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert(!has(r, "cached"));
	json_decref(r);
	r = call_once(d.sock, code_req("execute", "// private one\nreturn 'p'",
				       json_pack("{s:b}", "cache", false)));
	ck_assert_str_eq(jstr(r, "value"), "p");
	ck_assert(!has(r, "cached"));
	json_decref(r);
	json_t *scripts = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(scripts), 1);
	json_t *s0 = json_array_get(scripts, 0);
	ck_assert_str_eq(jstr(s0, "name"), name);
	ck_assert_str_eq(jstr(s0, "description"), "Adds two numbers for the cache test");
	ck_assert_int_eq(jint(s0, "size_bytes"), (long long)strlen(code));
	json_decref(scripts);

	/* stream and async store too, and say so in their final result. */
	long long before = wall_ms();
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_request(&c, code_req("stream",
				    "/* Streamed\n * script */ console.log(1); return 's'", NULL));
	r = client_reply(&c, NULL, REPLY_MS);
	char name2[80], name3[80];
	check_cached(json_object_get(r, "cached"),
		     "/* Streamed\n * script */ console.log(1); return 's'", "Streamed script",
		     before, wall_ms(), name2);
	json_decref(r);
	r = client_call(&c, code_req("async", "// async one\nreturn 'a'", NULL));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	r = status(&c, id, true);
	check_cached(json_object_get(r, "cached"), "// async one\nreturn 'a'", "async one", before,
		     wall_ms(), name3);
	json_decref(r);
	client_close(&c);

	/* Newest first. */
	scripts = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(scripts), 3);
	ck_assert_str_eq(jstr(json_array_get(scripts, 0), "name"), name3);
	ck_assert_str_eq(jstr(json_array_get(scripts, 1), "name"), name2);
	ck_assert_str_eq(jstr(json_array_get(scripts, 2), "name"), name);
	long long prev = 1LL << 62;
	for (size_t i = 0; i < 3; i++) {
		json_t *s = json_array_get(scripts, i);
		ck_assert_int_le(jint(s, "created_at_ms"), prev);
		prev = jint(s, "created_at_ms");
		ck_assert_uint_eq(strlen(jstr(s, "content_hash")), 64);
	}
	json_decref(scripts);
	const char *all[] = {name, name2, name3};
	cache_settled(d.sock);
	ck_assert_int_eq(cache_files(dir, all, 3), 3);
	json_t *h = health(d.sock);
	ck_assert_int_eq(jint(json_object_get(h, "cache"), "scripts"), 3);
	ck_assert(jtrue(json_object_get(h, "cache"), "writable"));
	json_decref(h);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

START_TEST(test_cache_lookup)
{
	struct daemon d;
	daemon_start(&d, NULL);
	char names[3][80];
	store(d.sock, "// Alpha helper: sums\nreturn 'alpha'", "Alpha helper: sums", names[0]);
	store(d.sock, "// beta HELPER: products\nreturn 'beta'", "beta HELPER: products", names[1]);
	store(d.sock, "//gamma\n  //ray\nreturn 'gamma'", "gamma ray", names[2]);

	/* filter: description or name, any case. */
	json_t *s = cache_list(d.sock, "hElPeR");
	ck_assert_uint_eq(json_array_size(s), 2);
	ck_assert_str_eq(jstr(json_array_get(s, 0), "name"), names[1]);
	ck_assert_str_eq(jstr(json_array_get(s, 1), "name"), names[0]);
	json_decref(s);
	s = cache_list(d.sock, "GAMMA");
	ck_assert_uint_eq(json_array_size(s), 1);
	ck_assert_str_eq(jstr(json_array_get(s, 0), "name"), names[2]);
	json_decref(s);
	char hash_part[16];
	snprintf(hash_part, sizeof hash_part, "%.12s", names[0] + strlen(names[0]) - 15);
	s = cache_list(d.sock, hash_part);
	ck_assert_uint_eq(json_array_size(s), 1);
	ck_assert_str_eq(jstr(json_array_get(s, 0), "name"), names[0]);
	json_decref(s);
	s = cache_list(d.sock, "no such thing");
	ck_assert_uint_eq(json_array_size(s), 0);
	json_decref(s);

	/* "cached": the exact name, a unique prefix (any case), a unique
	 * substring. */
	char prefix[80], upper[80];
	snprintf(prefix, sizeof prefix, "%.*s", (int)strlen(names[1]) - 3, names[1]);
	for (size_t i = 0; i <= strlen(prefix); i++)
		upper[i] =
			(char)(prefix[i] >= 'a' && prefix[i] <= 'z' ? prefix[i] - 32 : prefix[i]);
	char sub[16];
	snprintf(sub, sizeof sub, "%.10s", names[2] + strlen(names[2]) - 14);
	const struct {
		const char *query, *value, *name;
	} runs[] = {
		{names[0], "alpha", names[0]},
		{prefix, "beta", names[1]},
		{upper, "beta", names[1]},
		{sub, "gamma", names[2]},
	};
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		json_t *r = client_call(
			&c, json_pack("{s:s, s:s}", "op", "execute", "cached", runs[i].query));
		ck_assert_msg(jtrue(r, "success"), "%s: %s", runs[i].query, err_msg(r));
		ck_assert_str_eq(jstr(r, "value"), runs[i].value);
		ck_assert(!has(r, "cached")); /* already there */
		json_decref(r);
		json_t *items = list(&c, json_pack("{s:i}", "limit", 1));
		ck_assert_str_eq(jstr(json_array_get(items, 0), "cached_name"), runs[i].name);
		json_decref(items);
	}
	/* async and stream run cached scripts too. */
	json_t *r = client_call(&c, json_pack("{s:s, s:s}", "op", "async", "cached", names[2]));
	char id[ID_SIZE];
	take_id(id, r);
	json_decref(r);
	r = status(&c, id, true);
	ck_assert_str_eq(jstr(r, "value"), "gamma");
	json_decref(r);

	/* Several matches: refused, naming them. */
	r = client_call(&c, json_pack("{s:s, s:s}", "op", "execute", "cached", "script-"));
	assert_error(r, "INVALID_ARGUMENT", "cached");
	for (int i = 0; i < 3; i++)
		ck_assert_msg(strstr(err_msg(r), names[i]) != NULL, "%s not in %s", names[i],
			      err_msg(r));
	json_decref(r);
	r = client_call(&c, json_pack("{s:s, s:s}", "op", "execute", "cached", "nonexistent-zzz"));
	assert_error(r, "NOT_FOUND", "nonexistent-zzz");
	json_decref(r);
	r = client_call(&c, json_pack("{s:s, s:s, s:s}", "op", "execute", "cached", names[0],
				      "code", "return 1"));
	assert_error(r, "INVALID_ARGUMENT", NULL);
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* The cache survives a restart: same entries, and they run. */
START_TEST(test_cache_restart)
{
	char top[64], dir[96];
	temp_dir(top);
	snprintf(dir, sizeof dir, "%s/cache", top);
	const char *args[] = {"--cache-dir", dir, NULL};
	static const char code[] = "// survives restarts\nreturn 'again'";
	struct daemon d;
	daemon_start(&d, args);
	char name[80];
	store(d.sock, code, "survives restarts", name);
	json_t *before = cache_list(d.sock, NULL);
	ck_assert_int_eq(daemon_stop(&d), 0);

	daemon_start(&d, args);
	json_t *after = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(after), 1);
	ck_assert_msg(json_equal(before, after), "the index changed across a restart");
	json_t *r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "execute", "cached", name));
	ck_assert_str_eq(jstr(r, "value"), "again");
	json_decref(r);
	/* Known content is not stored again. */
	r = run_code(d.sock, code);
	ck_assert_str_eq(jstr(r, "value"), "again");
	ck_assert(!has(r, "cached"));
	json_decref(r);
	json_decref(before);
	json_decref(after);
	ck_assert_int_eq(daemon_stop(&d), 0);
	remove_tree(top);
}
END_TEST

START_TEST(test_cache_max_entries)
{
	struct daemon d;
	const char *args[] = {"--cache-max-entries", "2", NULL};
	daemon_start(&d, args);
	char names[3][80];
	store(d.sock, "// one\nreturn 1", "one", names[0]);
	store(d.sock, "// two\nreturn 2", "two", names[1]);
	store(d.sock, "// three\nreturn 3", "three", names[2]);
	json_t *s = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(s), 2);
	ck_assert_str_eq(jstr(json_array_get(s, 0), "name"), names[2]);
	ck_assert_str_eq(jstr(json_array_get(s, 1), "name"), names[1]);
	json_decref(s);
	char dir[160];
	snprintf(dir, sizeof dir, "%s/scripts/uid-%u", d.dir, (unsigned)getuid()); /* its owner's */
	const char *kept[] = {names[1], names[2]};
	ck_assert_int_eq(cache_files(dir, kept, 2), 2);
	json_t *r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "execute", "cached", names[0]));
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

START_TEST(test_cache_clear)
{
	struct daemon d;
	daemon_start(&d, NULL);
	char names[2][80];
	store(d.sock, "// first\nreturn 1", "first", names[0]);
	store(d.sock, "// second\nreturn 2", "second", names[1]);
	char dir[160];
	snprintf(dir, sizeof dir, "%s/scripts/uid-%u", d.dir, (unsigned)getuid()); /* its owner's */
	ck_assert_int_eq(cache_files(dir, NULL, 0), 2);
	json_t *r = call_once(d.sock, json_pack("{s:s}", "op", "cache_clear"));
	ck_assert(jtrue(r, "ok"));
	ck_assert_int_eq(jint(r, "removed"), 2);
	json_decref(r);
	ck_assert_int_eq(cache_files(dir, NULL, 0), 0);
	json_t *s = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(s), 0);
	json_decref(s);
	r = call_once(d.sock, json_pack("{s:s, s:s}", "op", "execute", "cached", names[0]));
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);
	/* Cleared content may be stored again. */
	char again[80];
	store(d.sock, "// first\nreturn 1", "first", again);
	r = call_once(d.sock, json_pack("{s:s}", "op", "cache_clear"));
	ck_assert_int_eq(jint(r, "removed"), 1);
	json_decref(r);
	r = call_once(d.sock, json_pack("{s:s}", "op", "cache_clear"));
	ck_assert_int_eq(jint(r, "removed"), 0);
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Runs two new scripts that must succeed without being cached. */
static void run_uncached(const char *sock)
{
	char code[64];
	for (int i = 0; i < 2; i++) {
		snprintf(code, sizeof code, "// uncached %d\nreturn %d", i, i);
		json_t *r = run_code(sock, code);
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		ck_assert_int_eq(jint(r, "value"), i);
		ck_assert(!has(r, "cached"));
		json_decref(r);
	}
}

/* A cache dir that cannot be made: no cache, one log line, and
 * executions as usual. */
START_TEST(test_cache_unusable_dir)
{
	char top[64], file[96], dir[128];
	temp_dir(top);
	snprintf(file, sizeof file, "%s/file", top);
	FILE *f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(dir, sizeof dir, "%s/scripts", file);
	const char *args[] = {"--cache-dir", dir, NULL};
	struct daemon d;
	daemon_start(&d, args);
	run_uncached(d.sock);
	json_t *s = cache_list(d.sock, NULL);
	ck_assert_uint_eq(json_array_size(s), 0);
	json_decref(s);
	json_t *h = health(d.sock);
	ck_assert(!jtrue(json_object_get(h, "cache"), "writable"));
	json_decref(h);
	ck_assert_uint_eq(log_count(&d, "script cache"), 1);
	ck_assert_uint_eq(log_count(&d, "not being cached"), 1);
	ck_assert_uint_eq(log_count(&d, dir), 1);
	ck_assert_int_eq(daemon_stop(&d), 0);
	remove_tree(top);
}
END_TEST

/* The directory removed under a running daemon: the first script after
 * it is named in its reply (the write fails after the reply) and then
 * leaves the index; the next scripts run uncached, and the log says so
 * once. */
START_TEST(test_cache_dir_removed)
{
	struct daemon d;
	daemon_start(&d, NULL);
	char name[80], dir[160], cmd[200];
	store(d.sock, "// before\nreturn 0", "before", name);
	ck_assert_uint_eq(log_count(&d, "not being cached"), 0);
	snprintf(dir, sizeof dir, "%s/scripts", d.dir);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	json_t *r = run_code(d.sock, "// lost\nreturn 'lost'");
	ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
	json_decref(r);
	cache_settled(d.sock);
	json_t *lost = cache_list(d.sock, "lost");
	ck_assert_uint_eq(json_array_size(lost), 0);
	json_decref(lost);
	run_uncached(d.sock);
	ck_assert_uint_eq(log_count(&d, "not being cached"), 1);
	/* Nothing was made in its place. */
	struct stat st;
	ck_assert_int_ne(lstat(dir, &st), 0);
	json_t *h = health(d.sock);
	ck_assert(!jtrue(json_object_get(h, "cache"), "writable"));
	json_decref(h);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A cache dir that is a symlink is not followed. */
START_TEST(test_cache_symlink_dir)
{
	char top[64], real[96], link[96];
	temp_dir(top);
	snprintf(real, sizeof real, "%s/real", top);
	snprintf(link, sizeof link, "%s/link", top);
	ck_assert_int_eq(mkdir(real, 0700), 0);
	ck_assert_int_eq(symlink(real, link), 0);
	const char *args[] = {"--cache-dir", link, NULL};
	struct daemon d;
	daemon_start(&d, args);
	run_uncached(d.sock);
	ck_assert_uint_eq(log_count(&d, "not being cached"), 1);
	ck_assert_uint_eq(log_count(&d, link), 1);
	ck_assert_int_eq(cache_files(real, NULL, 0), 0);
	ck_assert_int_eq(daemon_stop(&d), 0);
	remove_tree(top);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lifecycle");
	TCase *ops = tcase_create("operations");
	tcase_add_unchecked_fixture(ops, shared_up, shared_down);
	tcase_set_timeout(ops, 60);
	tcase_add_test(ops, test_async_outlives_submitter);
	tcase_add_test(ops, test_status_running_then_ended);
	tcase_add_test(ops, test_long_poll_wakes_promptly);
	tcase_add_test(ops, test_long_poll_wakes_promptly_cached);
	tcase_add_test(ops, test_status_terminal_has_fields);
	tcase_add_test(ops, test_wait_ms);
	tcase_add_test(ops, test_output_offsets);
	tcase_add_test(ops, test_reply_on_result);
	tcase_add_test(ops, test_cancel_running);
	tcase_add_test(ops, test_cancel_from_other_connection);
	suite_add_tcase(s, ops);

	TCase *tm = tcase_create("test mode");
	tcase_add_unchecked_fixture(tm, shared_up, shared_down);
	tcase_set_timeout(tm, 60);
	tcase_add_test(tm, test_test_mode);
	tcase_add_test(tm, test_test_mode_passing);
	tcase_add_test(tm, test_test_mode_only);
	tcase_add_test(tm, test_test_mode_load_errors);
	suite_add_tcase(s, tm);

	TCase *own = tcase_create("own daemon");
	tcase_set_timeout(own, 60);
	tcase_add_test(own, test_wait_ms_clamped);
	tcase_add_test(own, test_cancel_pending);
	tcase_add_test(own, test_queue_positions);
	tcase_add_test(own, test_started_event);
	tcase_add_test(own, test_list);
	tcase_add_test(own, test_retention_time);
	tcase_add_test(own, test_retention_count);
	suite_add_tcase(s, own);

	TCase *cache = tcase_create("cache");
	tcase_set_timeout(cache, 60);
	tcase_add_test(cache, test_cache_store);
	tcase_add_test(cache, test_cache_lookup);
	tcase_add_test(cache, test_cache_restart);
	tcase_add_test(cache, test_cache_max_entries);
	tcase_add_test(cache, test_cache_clear);
	tcase_add_test(cache, test_cache_unusable_dir);
	tcase_add_test(cache, test_cache_dir_removed);
	tcase_add_test(cache, test_cache_symlink_dir);
	suite_add_tcase(s, cache);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
