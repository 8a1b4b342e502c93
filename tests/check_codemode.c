/*
 * check_codemode.c - code mode against the real daemon: tool calls answered
 * over the protocol (nested names, errors, interleaving, timeouts, clients
 * that leave), tool_result's checks, the store, the options line, limits
 * that fail inside the script, error kinds, promise results and
 * declarations.
 *
 * Nothing here sleeps to hide a race: every wait is for an event, a reply or
 * a status long-poll, with a deadline.
 */
#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

#define REPLY_MS 10000

static struct daemon shared;

static void shared_up(void)
{
	const char *args[] = {"--max-workers", "4", NULL};
	daemon_start(&shared, args);
}
static void shared_down(void) { daemon_stop(&shared); }

/* ---- requests and replies */

static bool is_event(json_t *m) { return json_object_get(m, "event") != NULL; }

/* A failed execution of this kind whose message contains needle. */
static void assert_kind(json_t *r, const char *kind, const char *needle)
{
	ck_assert_msg(jtrue(r, "ok"), "request failed: %s", err_msg(r));
	ck_assert(!jtrue(r, "success"));
	ck_assert_msg(strcmp(err_kind(r), kind) == 0, "expected kind %s, got %s (%s)", kind,
		      err_kind(r), err_msg(r));
	if (needle)
		ck_assert_msg(strstr(err_msg(r), needle) != NULL, "\"%s\" not in \"%s\"", needle,
			      err_msg(r));
}

/* {"op": op, "code": code, "tools": [{"name": n}...]} for the names in a
 * NULL-terminated list (none: no tools field). */
static json_t *req_with_tools(const char *op, const char *code, const char *const *names)
{
	json_t *req = json_pack("{s:s, s:s}", "op", op, "code", code);
	ck_assert_ptr_nonnull(req);
	if (names) {
		json_t *tools = json_array();
		for (; *names; names++)
			json_array_append_new(tools, json_pack("{s:s}", "name", *names));
		json_object_set_new(req, "tools", tools);
	}
	return req;
}

/* The next frame, which must be a tool_call event for name. */
static json_t *expect_call(struct client *c, const char *name)
{
	json_t *ev = client_recv(c, REPLY_MS);
	ck_assert_msg(ev != NULL, "no tool_call event");
	ck_assert_msg(strcmp(jstr(ev, "event"), "tool_call") == 0, "expected tool_call, got %s",
		      json_dumps(ev, 0));
	if (name)
		ck_assert_str_eq(jstr(ev, "name"), name);
	ck_assert_int_gt(jint(ev, "call_id"), 0);
	ck_assert(strncmp(jstr(ev, "execution_id"), "exec_", 5) == 0);
	return ev;
}

/* Sends req (stolen) and reads the started event that must answer it first,
 * for its id (or none); returns the execution id it names (static). */
static const char *submit(struct client *c, json_t *req)
{
	static char exec_id[32];
	json_t *id = json_object_get(req, "id");
	char want[64] = "";
	if (id)
		snprintf(want, sizeof want, "%s", json_string_value(id));
	client_request(c, req);
	json_t *started = client_started(c, want[0] ? want : NULL, REPLY_MS);
	snprintf(exec_id, sizeof exec_id, "%s", jstr(started, "execution_id"));
	json_decref(started);
	return exec_id;
}

/* {"op": "tool_result", ...} answering ev with value (stolen) or error. */
static json_t *result_req(json_t *ev, json_t *value, const char *error)
{
	json_t *req =
		json_pack("{s:s, s:s, s:I}", "op", "tool_result", "execution_id",
			  jstr(ev, "execution_id"), "call_id", (json_int_t)jint(ev, "call_id"));
	if (value)
		json_object_set_new(req, "value", value);
	if (error)
		json_object_set_new(req, "error", json_string(error));
	return req;
}

/* Answers ev on c; the ok reply carries the id "answer" (it may come after
 * frames of other executions, so callers match it by id). */
static void answer(struct client *c, json_t *ev, json_t *value, const char *error)
{
	json_t *req = result_req(ev, value, error);
	json_object_set_new(req, "id", json_string("answer"));
	client_request(c, req);
}

/* The next final reply with this id; tool_call events met on the way are
 * appended to calls, and ok replies to answers are checked and dropped. */
static json_t *reply_for(struct client *c, const char *id, json_t *calls)
{
	for (;;) {
		json_t *m = client_recv(c, REPLY_MS);
		ck_assert_msg(m != NULL, "no reply for %s", id);
		bool ev = is_event(m);
		if (ev && strcmp(jstr(m, "event"), "tool_call") == 0 && calls) {
			json_array_append_new(calls, m);
			continue;
		}
		const char *mid = jstr(m, "id");
		if (!ev && strcmp(mid, "answer") == 0) {
			ck_assert_msg(jtrue(m, "ok"), "tool_result refused: %s", err_msg(m));
			json_decref(m);
			continue;
		}
		if (!ev && strcmp(mid, id) == 0)
			return m;
		json_decref(m);
	}
}

/* The calls record of an execution, checked for count and names. */
static json_t *calls_of(json_t *r, size_t n)
{
	json_t *calls = json_object_get(r, "calls");
	ck_assert_msg(json_is_array(calls), "no calls field");
	ck_assert_uint_eq(json_array_size(calls), n);
	for (size_t i = 0; i < n; i++) {
		json_t *k = json_array_get(calls, i);
		ck_assert_int_gt(jint(k, "call_id"), 0);
		ck_assert_int_ge(jint(k, "duration_ms"), 0);
	}
	return calls;
}

static const char *call_status(json_t *r, size_t i)
{
	return jstr(json_array_get(json_object_get(r, "calls"), i), "status");
}

/* status --wait on a fresh connection. */
static json_t *wait_for(const char *id)
{
	json_t *r = call_once(shared.sock, json_pack("{s:s, s:s, s:b}", "op", "status",
						     "execution_id", id, "wait", 1));
	ck_assert_msg(jtrue(r, "ok"), "status failed: %s", err_msg(r));
	return r;
}

static json_t *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One execute on a fresh connection; fmt gives the whole request. */
static json_t *run(const char *fmt, ...)
{
	char req[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(req, sizeof req, fmt, ap);
	va_end(ap);
	ck_assert(n > 0 && (size_t)n < sizeof req);
	return exec_once(shared.sock, "%s", req);
}

/* ---- tools */

/* Nested names reach the client whole; arguments and results make a JSON
 * round trip both ways. */
START_TEST(test_tool_round_trip)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"github.search", "github.repos.get", "add", NULL};
	json_t *req = req_with_tools(
		"execute",
		"var hits = tools.github.search({q: 'duktape', page: 2, tags: ['a', 'ü'], "
		"skip: undefined});\n"
		"var repo = tools.github.repos.get({name: hits[0]});\n"
		"return {hits: hits, repo: repo, sum: tools.add({a: 2, b: 3}), "
		"types: [typeof tools.github, typeof tools.github.repos.get]};",
		names);
	json_object_set_new(req, "id", json_string("x"));
	const char *exec_id = submit(&c, req);

	json_t *ev = expect_call(&c, "github.search");
	ck_assert_str_eq(jstr(ev, "id"), "x");
	ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);
	json_t *want =
		json_pack("{s:s, s:i, s:[s,s]}", "q", "duktape", "page", 2, "tags", "a", "ü");
	ck_assert_msg(json_equal(json_object_get(ev, "args"), want), "args differ");
	json_decref(want);
	answer(&c, ev, json_pack("[s,s]", "svaarala/duktape", "other"), NULL);
	json_decref(ev);

	json_t *calls = json_array();
	json_t *r = NULL;
	/* The ok reply to the answer, then the next call. */
	for (int step = 0; step < 2; step++) {
		json_t *m;
		while ((m = client_recv(&c, REPLY_MS)) && !is_event(m)) {
			ck_assert_str_eq(jstr(m, "id"), "answer");
			ck_assert(jtrue(m, "ok"));
			json_decref(m);
		}
		ck_assert_ptr_nonnull(m);
		ck_assert_str_eq(jstr(m, "event"), "tool_call");
		if (step == 0) {
			ck_assert_str_eq(jstr(m, "name"), "github.repos.get");
			ck_assert_str_eq(jstr(json_object_get(m, "args"), "name"),
					 "svaarala/duktape");
			answer(&c, m,
			       json_pack("{s:s, s:i, s:n}", "full_name", "svaarala/duktape",
					 "stars", 6000, "license"),
			       NULL);
		} else {
			ck_assert_str_eq(jstr(m, "name"), "add");
			json_t *a = json_object_get(m, "args");
			answer(&c, m, json_integer(jint(a, "a") + jint(a, "b")), NULL);
		}
		json_decref(m);
	}
	r = reply_for(&c, "x", calls);
	ck_assert_uint_eq(json_array_size(calls), 0);
	json_decref(calls);
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *value = json_object_get(r, "value");
	want = json_pack("{s:[s,s], s:{s:s, s:i, s:n}, s:i, s:[s,s]}", "hits", "svaarala/duktape",
			 "other", "repo", "full_name", "svaarala/duktape", "stars", 6000, "license",
			 "sum", 5, "types", "object", "function");
	ck_assert_msg(json_equal(value, want), "value differs");
	json_decref(want);
	json_t *record = calls_of(r, 3);
	ck_assert_str_eq(jstr(json_array_get(record, 0), "name"), "github.search");
	ck_assert_str_eq(jstr(json_array_get(record, 1), "name"), "github.repos.get");
	ck_assert_str_eq(call_status(r, 2), "ok");
	json_decref(r);
	client_close(&c);
}
END_TEST

/* A tool's error is an Error thrown in the script: catchable, or the
 * script's failure. */
START_TEST(test_tool_errors)
{
	const char *names[] = {"fetch", NULL};
	const char *codes[] = {
		"try { tools.fetch({url: 'x'}) } catch (e) { return [e instanceof Error, "
		"e.message] }",
		"var v = tools.fetch({});\nreturn v",
	};
	for (int i = 0; i < 2; i++) {
		struct client c;
		ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
		json_t *req = req_with_tools("execute", codes[i], names);
		json_object_set_new(req, "id", json_string("e"));
		const char *exec_id = submit(&c, req);
		json_t *ev = expect_call(&c, "fetch");
		ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);
		answer(&c, ev, NULL, "rate limited: try again later");
		json_decref(ev);
		json_t *r = reply_for(&c, "e", NULL);
		if (i == 0) {
			ck_assert(jtrue(r, "success"));
			json_t *want = json_pack("[b,s]", 1, "rate limited: try again later");
			ck_assert(json_equal(json_object_get(r, "value"), want));
			json_decref(want);
		} else {
			assert_kind(r, "script", "rate limited: try again later");
			ck_assert_int_eq(jint(err_obj(r), "line"), 1);
		}
		calls_of(r, 1);
		ck_assert_str_eq(call_status(r, 0), "error");
		json_decref(r);
		client_close(&c);
	}
}
END_TEST

/* A tool that is not declared does not exist; a script with no tools has
 * an empty tools object. */
START_TEST(test_undeclared_tools)
{
	json_t *r = run("{\"op\":\"execute\",\"code\":\"return [typeof tools, "
			"Object.keys(tools).length]\"}");
	json_t *want = json_pack("[s,i]", "object", 0);
	ck_assert(json_equal(json_object_get(r, "value"), want));
	json_decref(want);
	ck_assert_ptr_null(json_object_get(r, "calls"));
	json_decref(r);

	r = run("{\"op\":\"execute\",\"code\":\"tools.other({})\",\"tools\":[{\"name\":\"one\"}]}");
	assert_kind(r, "script", "TypeError");
	calls_of(r, 0);
	json_decref(r);
}
END_TEST

/* Three executions on one connection, each blocked in a call; answered in
 * the reverse order, each gets its own answers. */
START_TEST(test_interleaved_calls)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"echo", NULL};
	const char *ids[] = {"r0", "r1", "r2"};
	for (int i = 0; i < 3; i++) {
		char code[256];
		snprintf(code, sizeof code,
			 "var a = tools.echo({n: %d, step: 1});\n"
			 "var b = tools.echo({n: %d, step: 2});\n"
			 "return [a, b];",
			 i, i);
		json_t *req = req_with_tools(i == 1 ? "stream" : "execute", code, names);
		json_object_set_new(req, "id", json_string(ids[i]));
		client_request(&c, req);
	}
	/* Two rounds: collect one call of each, answer them newest first.
	 * Each request's started event comes before its first call. */
	char started[3][32] = {"", "", ""};
	for (int round = 1; round <= 2; round++) {
		json_t *pending[3] = {NULL, NULL, NULL};
		int got = 0;
		while (got < 3) {
			json_t *m = client_recv(&c, REPLY_MS);
			ck_assert_msg(m != NULL, "round %d: %d calls of 3", round, got);
			if (!is_event(m)) {
				ck_assert_str_eq(jstr(m, "id"), "answer");
				ck_assert(jtrue(m, "ok"));
				json_decref(m);
				continue;
			}
			if (strcmp(jstr(m, "event"), "started") == 0) {
				const char *id = jstr(m, "id");
				ck_assert(round == 1 && id[0] == 'r' && id[1] >= '0' &&
					  id[1] <= '2');
				ck_assert(!started[id[1] - '0'][0]);
				snprintf(started[id[1] - '0'], 32, "%s", jstr(m, "execution_id"));
				json_decref(m);
				continue;
			}
			ck_assert_str_eq(jstr(m, "event"), "tool_call");
			json_t *args = json_object_get(m, "args");
			int n = (int)jint(args, "n");
			ck_assert(n >= 0 && n < 3 && !pending[n]);
			ck_assert_int_eq(jint(args, "step"), round);
			ck_assert_str_eq(jstr(m, "id"), ids[n]);
			ck_assert_str_eq(jstr(m, "execution_id"), started[n]);
			pending[n] = m;
			got++;
		}
		for (int n = 2; n >= 0; n--) {
			answer(&c, pending[n], json_integer(n * 10 + round), NULL);
			json_decref(pending[n]);
		}
	}
	/* The replies, in whatever order the executions end. */
	json_t *finals[3] = {NULL, NULL, NULL};
	for (int got = 0; got < 3;) {
		json_t *m = client_recv(&c, REPLY_MS);
		ck_assert_msg(m != NULL, "%d replies of 3", got);
		const char *id = jstr(m, "id");
		if (is_event(m) || strcmp(id, "answer") == 0) {
			ck_assert(is_event(m) || jtrue(m, "ok"));
			json_decref(m);
			continue;
		}
		ck_assert(id[0] == 'r' && id[1] >= '0' && id[1] <= '2' && !finals[id[1] - '0']);
		finals[id[1] - '0'] = m;
		got++;
	}
	for (int n = 0; n < 3; n++) {
		json_t *r = finals[n];
		ck_assert_msg(jtrue(r, "success"), "%s failed: %s", ids[n], err_msg(r));
		json_t *want = json_pack("[i,i]", n * 10 + 1, n * 10 + 2);
		ck_assert_msg(json_equal(json_object_get(r, "value"), want), "%s: wrong answers",
			      ids[n]);
		json_decref(want);
		calls_of(r, 2);
		json_decref(r);
	}
	client_close(&c);
}
END_TEST

/* A call nobody answers waits no longer than the timeout; answering it
 * afterwards is refused. */
START_TEST(test_timeout_while_calling)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"slow", NULL};
	json_t *req =
		req_with_tools("execute", "console.log('asking'); return tools.slow({})", names);
	json_object_set_new(req, "id", json_string("t"));
	json_object_set_new(req, "timeout_ms", json_integer(300));
	const char *exec_id = submit(&c, req);
	json_t *ev = expect_call(&c, "slow");
	ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);
	json_t *r = reply_for(&c, "t", NULL);
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	assert_kind(r, "timeout", NULL);
	ck_assert_str_eq(jstr(r, "stdout"), "asking\n");
	calls_of(r, 1);
	ck_assert_str_eq(call_status(r, 0), "cancelled");
	ck_assert_int_ge(jint(r, "execution_time_ms"), 300);
	json_decref(r);

	r = client_call(&c, result_req(ev, json_integer(1), NULL));
	assert_error(r, "FAILED_PRECONDITION", "not running");
	json_decref(r);
	json_decref(ev);
	client_close(&c);
}
END_TEST

/* An execute whose client leaves in the middle of a call is cancelled; its
 * worker goes. */
START_TEST(test_client_leaves_mid_call)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	const char *names[] = {"wait.forever", NULL};
	submit(&c, req_with_tools("execute", "tools.wait.forever({}); return 1", names));
	json_t *ev = expect_call(&c, "wait.forever");
	char id[32];
	snprintf(id, sizeof id, "%s", jstr(ev, "execution_id"));
	json_decref(ev);
	client_close(&c);

	json_t *r = wait_for(id);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	ck_assert_str_eq(err_kind(r), "cancelled");
	calls_of(r, 1);
	ck_assert_str_eq(call_status(r, 0), "cancelled");
	json_decref(r);
}
END_TEST

/* An async execution's calls go to its submitter; once that has gone, a
 * call fails inside the script and the script goes on. */
START_TEST(test_async_submitter_gone)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"kv.get", NULL};
	json_t *req = req_with_tools("async",
				     "var first = tools.kv.get({k: 1});\n"
				     "try { tools.kv.get({k: 2}) } catch (e) { return [first, "
				     "e.message] }",
				     names);
	json_t *r = client_call(&c, req);
	ck_assert(jtrue(r, "ok"));
	char id[32];
	snprintf(id, sizeof id, "%s", jstr(r, "execution_id"));
	json_decref(r);

	json_t *ev = expect_call(&c, "kv.get");
	ck_assert_str_eq(jstr(ev, "execution_id"), id);
	answer(&c, ev, json_string("one"), NULL);
	json_decref(ev);
	/* The answer's reply, then the second call: leave without answering. */
	json_t *m = client_recv(&c, REPLY_MS);
	ck_assert_ptr_nonnull(m);
	ck_assert(jtrue(m, "ok"));
	json_decref(m);
	json_decref(expect_call(&c, "kv.get"));
	client_close(&c);

	r = wait_for(id);
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *value = json_object_get(r, "value");
	ck_assert_str_eq(json_string_value(json_array_get(value, 0)), "one");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(value, 1)), "has gone"));
	calls_of(r, 2);
	ck_assert_str_eq(call_status(r, 0), "ok");
	ck_assert_str_eq(call_status(r, 1), "error");
	json_decref(r);

	/* Submitted and never listened to: every call fails at once. */
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	r = client_call(&c, req_with_tools("async", "return tools.kv.get({})", names));
	snprintf(id, sizeof id, "%s", jstr(r, "execution_id"));
	json_decref(r);
	client_close(&c);
	r = wait_for(id);
	assert_kind(r, "script", "has gone");
	json_decref(r);
}
END_TEST

/* tool_result answers only the call that is waiting, only from the
 * connection that got it, with exactly one of value and error. */
START_TEST(test_tool_result_checks)
{
	struct client a, b;
	ck_assert_int_eq(client_open(&a, shared.sock, FRAME_MODE_BINARY), 0);
	ck_assert_int_eq(client_open(&b, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"t", NULL};
	json_t *req = req_with_tools("execute", "return tools.t({})", names);
	json_object_set_new(req, "id", json_string("q"));
	const char *exec_id = submit(&a, req);
	json_t *ev = expect_call(&a, "t");
	ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);

	json_t *r = client_call(&b, result_req(ev, json_integer(1), NULL));
	assert_error(r, "PERMISSION_DENIED", "only the connection");
	json_decref(r);

	req = result_req(ev, json_integer(1), NULL);
	json_object_set_new(req, "call_id", json_integer(jint(ev, "call_id") + 7));
	r = client_call(&a, req);
	assert_error(r, "NOT_FOUND", "call_id");
	json_decref(r);

	req = result_req(ev, json_integer(1), NULL);
	json_object_set_new(req, "execution_id", json_string("exec_0000000000000000"));
	r = client_call(&a, req);
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);

	r = client_call(&a, result_req(ev, json_integer(1), "both"));
	assert_error(r, "INVALID_ARGUMENT", "not both");
	json_decref(r);
	r = client_call(&a, result_req(ev, NULL, NULL));
	assert_error(r, "INVALID_ARGUMENT", "value");
	json_decref(r);
	req = result_req(ev, json_integer(1), NULL);
	json_object_del(req, "call_id");
	r = client_call(&a, req);
	assert_error(r, "INVALID_ARGUMENT", "call_id");
	json_decref(r);

	/* null is a value like any other. */
	answer(&a, ev, json_null(), NULL);
	r = reply_for(&a, "q", NULL);
	ck_assert(jtrue(r, "success"));
	ck_assert(json_is_null(json_object_get(r, "value")));
	json_decref(r);
	r = client_call(&a, result_req(ev, json_integer(1), NULL));
	assert_error(r, "FAILED_PRECONDITION", NULL);
	json_decref(r);
	json_decref(ev);
	client_close(&a);
	client_close(&b);
}
END_TEST

/* Declarations that cannot name a tool are refused before anything runs. */
START_TEST(test_bad_tool_declarations)
{
	const char *bad[][2] = {
		{"\"tools\":{}", "tools: expected an array"},
		{"\"tools\":[{\"name\":\"a..b\"}]", "tools[0].name"},
		{"\"tools\":[{\"name\":\"x\"},{\"name\":\"1x\"}]", "tools[1].name"},
		{"\"tools\":[{\"name\":\"a\"},{\"name\":\"a.b\"}]", "clashes"},
		{"\"tools\":[{\"name\":\"a\"},{\"name\":\"a\"}]", "clashes"},
		{"\"tools\":[{\"name\":\"a\",\"colour\":1}]", "tools[0].colour"},
		{"\"tools\":[{\"description\":\"no name\"}]", "tools[0].name"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		json_t *r = run("{\"op\":\"execute\",\"code\":\"return 1\",%s}", bad[i][0]);
		assert_error(r, "INVALID_ARGUMENT", bad[i][1]);
		json_decref(r);
	}
	/* 257 tools is one too many. */
	json_t *tools = json_array();
	for (int i = 0; i < 257; i++) {
		char name[16];
		snprintf(name, sizeof name, "t%d", i);
		json_array_append_new(tools, json_pack("{s:s}", "name", name));
	}
	json_t *req =
		json_pack("{s:s, s:s, s:o}", "op", "execute", "code", "return 1", "tools", tools);
	json_t *r = call_once(shared.sock, req);
	assert_error(r, "INVALID_ARGUMENT", "at most");
	json_decref(r);
}
END_TEST

/* Tools work in test mode, and stream interleaves output with calls in the
 * order the script made them. */
START_TEST(test_tools_in_stream_and_test)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"now", NULL};
	json_t *req = req_with_tools("stream",
				     "console.log('a'); var t = tools.now({}); "
				     "console.log('b' + t); return t",
				     names);
	json_object_set_new(req, "id", json_string("s"));
	submit(&c, req);
	json_t *m = client_recv(&c, REPLY_MS);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(jstr(m, "event"), "output");
	ck_assert_str_eq(jstr(m, "data"), "a\n");
	json_decref(m);
	json_t *ev = expect_call(&c, "now");
	answer(&c, ev, json_integer(7), NULL);
	json_decref(ev);
	json_t *events = json_array();
	json_t *r = client_reply(&c, events, REPLY_MS);
	ck_assert_ptr_nonnull(r);
	if (strcmp(jstr(r, "id"), "answer") == 0) {
		json_decref(r);
		r = client_reply(&c, events, REPLY_MS);
	}
	ck_assert_str_eq(jstr(r, "id"), "s");
	ck_assert_int_eq(jint(r, "value"), 7);
	ck_assert_uint_eq(json_array_size(events), 1);
	ck_assert_str_eq(jstr(json_array_get(events, 0), "data"), "b7\n");
	json_decref(events);
	json_decref(r);

	req = json_pack("{s:s, s:s, s:s, s:s, s:[{s:s}]}", "op", "test", "id", "tt", "code",
			"function twice(x) { return 2 * tools.now({}) * x }", "tests",
			"test('twice', function () { assert.is(twice(3), 42) });", "tools", "name",
			"now");
	const char *exec_id = submit(&c, req); /* test mode too */
	ev = expect_call(&c, "now");
	ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);
	answer(&c, ev, json_integer(7), NULL);
	json_decref(ev);
	r = reply_for(&c, "tt", NULL);
	ck_assert_msg(jtrue(r, "success"), "tests failed: %s", json_dumps(r, 0));
	json_decref(r);
	client_close(&c);
}
END_TEST

/* ---- the store */

START_TEST(test_store_copies_and_writes)
{
	json_t *r =
		run("{\"op\":\"execute\",\"store\":{\"cfg\":{\"n\":1},\"gone\":[1],\"keep\":\"k\"},"
		    "\"code\":\"var c = load('cfg'); c.n = 99;\\n"
		    "var first = load('cfg').n;\\n"
		    "var o = {list: [1, 2]}; store('made', o); o.list.push(3);\\n"
		    "store('gone', undefined); store('cfg', {n: 2});\\n"
		    "store('tmp', 1); store('tmp', undefined);\\n"
		    "return [first, load('made').list.length, load('gone') === undefined, "
		    "load('missing') === undefined, load('keep'), load('cfg').n]\"}");
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *want = json_pack("[i,i,b,b,s,i]", 1, 2, 1, 1, "k", 2);
	ck_assert_msg(json_equal(json_object_get(r, "value"), want), "value differs");
	json_decref(want);
	json_t *writes = json_object_get(r, "store_writes");
	ck_assert_ptr_nonnull(writes);
	want = json_pack("{s:{s:{s:[i,i]}, s:{s:i}}, s:[s]}", "set", "made", "list", 1, 2, "cfg",
			 "n", 2, "delete", "gone");
	json_t *set = json_object_get(writes, "set");
	ck_assert_msg(json_equal(set, json_object_get(want, "set")), "set: %s", json_dumps(set, 0));
	/* tmp came and went: it is deleted, or never mentioned. */
	json_t *del = json_object_get(writes, "delete");
	bool gone = false;
	for (size_t i = 0; i < json_array_size(del); i++) {
		const char *k = json_string_value(json_array_get(del, i));
		ck_assert(strcmp(k, "gone") == 0 || strcmp(k, "tmp") == 0);
		gone |= strcmp(k, "gone") == 0;
	}
	ck_assert(gone);
	json_decref(want);
	json_decref(r);
}
END_TEST

START_TEST(test_store_failure_reports_nothing)
{
	json_t *r = run("{\"op\":\"execute\",\"store\":{\"a\":1},"
			"\"code\":\"store('a', 2); store('b', 3); throw new Error('no')\"}");
	assert_kind(r, "script", "no");
	ck_assert_ptr_null(json_object_get(r, "store_writes"));
	json_decref(r);
}
END_TEST

START_TEST(test_store_limits)
{
	/* One value over 256 KiB, then the whole over 1 MiB: RangeErrors the
	 * script can catch, and nothing half-written. */
	json_t *r =
		run("{\"op\":\"execute\",\"code\":\""
		    "var big = new Array(300 * 1024).join('x');\\n"
		    "var one; try { store('big', big) } catch (e) { one = e.name + ': ' + "
		    "e.message }\\n"
		    "var part = new Array(200 * 1024).join('y'), n = 0, all;\\n"
		    "try { for (;;) { store('p' + n, part); n++ } } catch (e) { all = e.name }\\n"
		    "return [one, load('big') === undefined, n, all]\"}");
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *v = json_object_get(r, "value");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(v, 0)), "RangeError"));
	ck_assert(json_is_true(json_array_get(v, 1)));
	ck_assert_int_eq(json_integer_value(json_array_get(v, 2)), 5);
	ck_assert_str_eq(json_string_value(json_array_get(v, 3)), "RangeError");
	ck_assert_uint_eq(
		json_object_size(json_object_get(json_object_get(r, "store_writes"), "set")), 5);
	json_decref(r);

	/* An initial store beyond the limits is refused. */
	char *blob = malloc(300 * 1024);
	memset(blob, 'z', 300 * 1024 - 1);
	blob[300 * 1024 - 1] = 0;
	json_t *req = json_pack("{s:s, s:s, s:{s:s}}", "op", "execute", "code", "return 1", "store",
				"blob", blob);
	free(blob);
	r = call_once(shared.sock, req);
	assert_error(r, "INVALID_ARGUMENT", "store.blob");
	json_decref(r);
	r = run("{\"op\":\"execute\",\"code\":\"return 1\",\"store\":[1]}");
	assert_error(r, "INVALID_ARGUMENT", "store: expected an object");
	json_decref(r);
}
END_TEST

/* ---- the options line */

START_TEST(test_options_line)
{
	/* It overrides timeout_ms. */
	json_t *r = run("{\"op\":\"execute\",\"timeout_ms\":60000,"
			"\"code\":\"// @options {\\\"timeout\\\": 0.3}\\nfor (;;) {}\"}");
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert_int_lt(jint(r, "execution_time_ms"), 30000);
	json_decref(r);

	/* Line numbers stay those of the submitted code. */
	r = run("{\"op\":\"execute\",\"code\":\"// @options {\\\"timeout\\\": 5}\\n\\n"
		"throw new Error('third')\"}");
	assert_kind(r, "script", "third");
	ck_assert_int_eq(jint(err_obj(r), "line"), 3);
	ck_assert_ptr_nonnull(strstr(jstr(err_obj(r), "stack"), ":3"));
	json_decref(r);

	const char *bad[][2] = {
		{"// @options {timeout: 5}\\nreturn 1", "@options: expected a JSON object"},
		{"// @options {\\\"timeout\\\": 5, \\\"memory\\\": 1}\\nreturn 1",
		 "unknown option \\\"memory\\\""},
		{"// @options {\\\"timeout\\\": -1}\\nreturn 1", "@options.timeout"},
		{"// @options {\\\"timeout\\\": \\\"5\\\"}\\nreturn 1", "@options.timeout"},
		{"// @options {\\\"timeout\\\": 100000}\\nreturn 1", "timeout"},
		{"// @options {\\\"timeout\\\": 5}", "no code after it"},
		{"// @options {\\\"timeout\\\": 5}\\n\\n  ", "no code after it"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		r = run("{\"op\":\"execute\",\"code\":\"%s\"}", bad[i][0]);
		char needle[128];
		/* The needle as the daemon writes it: unescape \" once. */
		size_t k = 0;
		for (const char *s = bad[i][1]; *s && k + 1 < sizeof needle; s++)
			if (!(s[0] == '\\' && s[1] == '"'))
				needle[k++] = *s;
		needle[k] = 0;
		assert_error(r, "INVALID_ARGUMENT", needle);
		json_decref(r);
	}
}
END_TEST

/* ---- limits inside the engine and error kinds */

/* The CPU budget stops even a loop that catches everything. */
START_TEST(test_cpu_budget)
{
	json_t *r =
		run("{\"op\":\"execute\",\"timeout_ms\":60000,\"max_cpu_ms\":200,"
		    "\"code\":\"var n = 0; for (;;) { try { for (;;) {} } catch (e) { n++ } }\"}");
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	assert_kind(r, "timeout", "CPU budget of 200 ms");
	ck_assert_int_ge(jint(r, "cpu_time_ms"), 150);
	ck_assert_int_lt(jint(r, "execution_time_ms"), 30000);
	json_decref(r);
}
END_TEST

/* Running out of heap throws inside the script, which may catch it; ending
 * on it is kind memory. */
START_TEST(test_memory_inside)
{
	json_t *r =
		run("{\"op\":\"execute\",\"memory_bytes\":8388608,\"code\":\""
		    "var a = []; try { for (;;) a.push('item ' + a.length) } "
		    "catch (e) { var n = a.length; a = null; return [String(e), n > 1000] }\"}");
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *v = json_object_get(r, "value");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(v, 0)), "out of memory"));
	ck_assert(json_is_true(json_array_get(v, 1)));
	ck_assert_int_gt(jint(r, "heap_peak_bytes"), 4 * 1024 * 1024);
	ck_assert_int_le(jint(r, "heap_peak_bytes"), 8388608 + 1024 * 1024);
	json_decref(r);

	r = run("{\"op\":\"execute\",\"memory_bytes\":8388608,\"code\":\""
		"var a = []; for (;;) a.push('item ' + a.length)\"}");
	assert_kind(r, "memory", "out of memory");
	json_decref(r);
}
END_TEST

START_TEST(test_heap_peak)
{
	json_t *small = run("{\"op\":\"execute\",\"code\":\"return 1\"}");
	json_t *big = run("{\"op\":\"execute\",\"code\":\"var a = new Array(200000); "
			  "for (var i = 0; i < a.length; i++) a[i] = {i: i}; return a.length\"}");
	ck_assert_int_gt(jint(small, "heap_peak_bytes"), 0);
	ck_assert_int_gt(jint(big, "heap_peak_bytes"), jint(small, "heap_peak_bytes") + 4000000);
	json_decref(small);
	json_decref(big);
}
END_TEST

START_TEST(test_error_positions)
{
	json_t *r = run("{\"op\":\"execute\",\"code\":\"var a = 1;\\nvar b = ;\"}");
	assert_kind(r, "syntax", NULL);
	ck_assert_int_eq(jint(err_obj(r), "line"), 2);
	ck_assert_int_eq(jint(err_obj(r), "column"), 9);
	json_decref(r);

	r = run("{\"op\":\"execute\",\"code\":\"const x = 1;\\nconst f = (a) => a * * 2;\"}");
	assert_kind(r, "syntax", "Unexpected token");
	ck_assert_int_eq(jint(err_obj(r), "line"), 2);
	ck_assert_int_eq(jint(err_obj(r), "column"), 22);
	json_decref(r);

	r = run("{\"op\":\"execute\",\"code\":\"function inner() {\\n  throw new TypeError('bad "
		"input')\\n}\\nfunction outer() { inner() }\\nouter()\"}");
	assert_kind(r, "script", "TypeError: bad input");
	ck_assert_int_eq(jint(err_obj(r), "line"), 2);
	const char *stack = jstr(err_obj(r), "stack");
	ck_assert_ptr_nonnull(strstr(stack, "inner"));
	ck_assert_ptr_nonnull(strstr(stack, ":2"));
	ck_assert_ptr_nonnull(strstr(stack, ":4"));
	json_decref(r);
}
END_TEST

/* The lowering runs under the script's limits: a script whose transform
 * is too big for them fails like any script, and the worker never hangs. */
START_TEST(test_lowering_limits)
{
	/* 6000 modern lines: far more than 2 MiB of parser and tree. */
	size_t n = 6000, line = 64;
	char *code = malloc(n * line + 1), *p = code;
	ck_assert_ptr_nonnull(code);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "const v%zu = [%zu].map((x) => ({x, y: `${x}`}));\n", i, i);
	json_t *req = json_pack("{s:s, s:s, s:i}", "op", "execute", "code", code, "memory_bytes",
				2 * 1024 * 1024);
	json_t *r = call_once(shared.sock, req);
	assert_kind(r, "memory", "out of memory");
	json_decref(r);
	req = json_pack("{s:s, s:s, s:i, s:i}", "op", "execute", "code", code, "max_cpu_ms", 5,
			"timeout_ms", 60000);
	r = call_once(shared.sock, req);
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	assert_kind(r, "timeout", "CPU budget");
	json_decref(r);
	free(code);

	/* The language field: only the two dialects. */
	r = run("{\"op\":\"execute\",\"code\":\"return 1\",\"language\":\"python\"}");
	assert_error(r, "INVALID_ARGUMENT", "language");
	json_decref(r);
	r = run("{\"op\":\"execute\",\"code\":\"let n: number = 2;\\nreturn n\","
		"\"language\":\"javascript\"}");
	assert_kind(r, "syntax", NULL);
	ck_assert_int_eq(jint(err_obj(r), "line"), 1);
	json_decref(r);
	r = run("{\"op\":\"execute\",\"code\":\"let n: number = 2;\\nreturn n\","
		"\"language\":\"typescript\"}");
	ck_assert_int_eq(jint(r, "value"), 2);
	json_decref(r);
}
END_TEST

/* ---- promises */

START_TEST(test_promise_results)
{
	json_t *r = run("{\"op\":\"execute\",\"code\":\""
			"var log = [];\\n"
			"Promise.resolve().then(function () { log.push('micro') });\\n"
			"log.push('sync');\\n"
			"return Promise.all([1, Promise.resolve(2)]).then(function (v) { "
			"return {v: v, log: log} })\"}");
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	json_t *want = json_pack("{s:[i,i], s:[s,s]}", "v", 1, 2, "log", "sync", "micro");
	ck_assert_msg(json_equal(json_object_get(r, "value"), want), "value differs");
	json_decref(want);
	json_decref(r);

	r = run("{\"op\":\"execute\",\"code\":\"return Promise.reject(new RangeError('nope'))\"}");
	assert_kind(r, "script", "RangeError: nope");
	json_decref(r);

	r = run("{\"op\":\"execute\",\"code\":\"return new Promise(function () {})\"}");
	assert_kind(r, "script", "nothing can settle");
	json_decref(r);

	/* A tool result inside a promise chain. */
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *names[] = {"get", NULL};
	json_t *req =
		req_with_tools("execute",
			       "return Promise.resolve('k').then(function (k) { "
			       "return tools.get({k: k}) }).then(function (v) { return v + 1 })",
			       names);
	json_object_set_new(req, "id", json_string("p"));
	const char *exec_id = submit(&c, req);
	json_t *ev = expect_call(&c, "get");
	ck_assert_str_eq(jstr(ev, "execution_id"), exec_id);
	ck_assert_str_eq(jstr(json_object_get(ev, "args"), "k"), "k");
	answer(&c, ev, json_integer(41), NULL);
	json_decref(ev);
	r = reply_for(&c, "p", NULL);
	ck_assert_int_eq(jint(r, "value"), 42);
	json_decref(r);
	client_close(&c);
}
END_TEST

/* ---- declarations */

START_TEST(test_declarations_op)
{
	json_t *req = json_loads(
		"{\"op\":\"declarations\",\"tools\":[{\"name\":\"fs.read\","
		"\"description\":\"Reads a file.\",\"input_schema\":{\"type\":\"object\","
		"\"properties\":{\"path\":{\"$ref\":\"#/$defs/path\"}},\"required\":[\"path\"],"
		"\"$defs\":{\"path\":{\"type\":\"string\",\"description\":\"Where.\"}}},"
		"\"output_schema\":{\"type\":\"object\",\"properties\":{\"node\":{\"$ref\":"
		"\"#\"}}}}]}",
		0, NULL);
	json_t *r = call_once(shared.sock, req);
	ck_assert_msg(jtrue(r, "ok"), "declarations failed: %s", err_msg(r));
	const char *ts = jstr(r, "typescript");
	ck_assert_ptr_nonnull(strstr(ts, "declare const tools"));
	ck_assert_ptr_nonnull(strstr(ts, "fs: {"));
	ck_assert_ptr_nonnull(strstr(ts, "Reads a file."));
	ck_assert_ptr_nonnull(strstr(ts, "path: string"));
	ck_assert_ptr_nonnull(strstr(ts, "node?: unknown"));
	json_decref(r);

	r = run("{\"op\":\"declarations\",\"tools\":[{\"name\":\"a-b\"}]}");
	assert_error(r, "INVALID_ARGUMENT", "tools[0].name");
	json_decref(r);
	r = run("{\"op\":\"declarations\"}");
	assert_error(r, "INVALID_ARGUMENT", "tools");
	json_decref(r);
}
END_TEST

static Suite *codemode_suite(void)
{
	Suite *s = suite_create("codemode");
	TCase *tc = tcase_create("shared");
	tcase_add_unchecked_fixture(tc, shared_up, shared_down);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tool_round_trip);
	tcase_add_test(tc, test_tool_errors);
	tcase_add_test(tc, test_undeclared_tools);
	tcase_add_test(tc, test_interleaved_calls);
	tcase_add_test(tc, test_timeout_while_calling);
	tcase_add_test(tc, test_client_leaves_mid_call);
	tcase_add_test(tc, test_async_submitter_gone);
	tcase_add_test(tc, test_tool_result_checks);
	tcase_add_test(tc, test_bad_tool_declarations);
	tcase_add_test(tc, test_tools_in_stream_and_test);
	tcase_add_test(tc, test_store_copies_and_writes);
	tcase_add_test(tc, test_store_failure_reports_nothing);
	tcase_add_test(tc, test_store_limits);
	tcase_add_test(tc, test_options_line);
	tcase_add_test(tc, test_cpu_budget);
	tcase_add_test(tc, test_memory_inside);
	tcase_add_test(tc, test_heap_peak);
	tcase_add_test(tc, test_error_positions);
	tcase_add_test(tc, test_lowering_limits);
	tcase_add_test(tc, test_promise_results);
	tcase_add_test(tc, test_declarations_op);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(codemode_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
