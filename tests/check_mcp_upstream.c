/*
 * check_mcp_upstream.c - code mode's upstream servers: real child
 * processes (tests/mcp_stub.c) driven through mcp_upstream on a ploop:
 * both eras, paging, the filter, list_changed, result unwrapping, env and
 * cwd, deadlines and cancellation upstream, a server that crashes and its
 * restart with backoff, one that cannot start; and, with the real daemon,
 * scripts calling tools.<server>.<tool> through it, a call still pending
 * at the execution's timeout ending it as kind "timeout".
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../client/mcp_config.h"
#include "../client/mcp_upstream.h"
#include "../client/ploop.h"
#include "../protocol/limits.h"
#include "testlib.h"

static struct ploop *loop;

static const char *stub(void)
{
	const char *p = getenv("SANDBOXD_MCP_STUB");
	return p ? p : "build/tests/mcp_stub";
}

static int changes;
static void on_changed(void *arg)
{
	(void)arg;
	changes++;
}

/* A set over the config text, where "STUB" stands for the stub's path. */
static struct mup *set_new(const char *text)
{
	char buf[8192];
	size_t n = 0;
	for (const char *p = text; *p;) {
		const char *at = strstr(p, "STUB");
		size_t k = at ? (size_t)(at - p) : strlen(p);
		ck_assert_uint_lt(n + k + strlen(stub()), sizeof buf);
		memcpy(buf + n, p, k);
		n += k;
		p += k;
		if (at) {
			memcpy(buf + n, stub(), strlen(stub()));
			n += strlen(stub());
			p += 4;
		}
	}
	buf[n] = '\0';
	char err[512];
	struct mcfg *cfg = NULL;
	ck_assert_msg(mcfg_parse(buf, strlen(buf), NULL, NULL, &cfg, err, sizeof err) == 0, "%s",
		      err);
	loop = ploop_new();
	ck_assert_ptr_nonnull(loop);
	changes = 0;
	struct mup *u = mup_new(loop, cfg, on_changed, NULL);
	ck_assert_ptr_nonnull(u);
	return u;
}

static void set_free(struct mup *u)
{
	mup_free(u);
	ploop_free(loop);
	loop = NULL;
}

/* Runs the loop until *flag, failing after max_ms. */
static void run_until(const bool *flag, int max_ms)
{
	uint64_t end = ploop_now_ms() + (uint64_t)max_ms;
	while (!*flag) {
		ck_assert_msg(ploop_now_ms() < end, "nothing happened in %d ms", max_ms);
		ck_assert_int_eq(ploop_once(loop, 100), 0);
	}
}

static void on_ready(void *arg) { *(bool *)arg = true; }

static void on_waited(struct ploop_timer *t) { *(bool *)t->arg = true; }

static void prepare(struct mup *u)
{
	bool ready = false;
	ck_assert_int_eq(mup_prepare(u, on_ready, &ready), 0);
	run_until(&ready, 20000);
}

struct result {
	bool done;
	enum mup_outcome outcome;
	json_t *value;
	char *error;
	uint64_t at_ms;
};

static void on_result(void *arg, enum mup_outcome o, json_t *value, const char *error)
{
	struct result *r = arg;
	ck_assert(!r->done);
	r->done = true;
	r->outcome = o;
	r->value = json_incref(value);
	r->error = error ? strdup(error) : NULL;
	r->at_ms = ploop_now_ms();
}

static void result_clear(struct result *r)
{
	json_decref(r->value);
	free(r->error);
	memset(r, 0, sizeof *r);
}

/* Calls name with args (JSON text) and waits for its end. */
static void call(struct mup *u, const char *name, const char *args, uint64_t deadline,
		 struct result *r)
{
	memset(r, 0, sizeof *r);
	json_t *a = json_loads(args, 0, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(mup_call(u, "exec_1", name, a, deadline, on_result, r), 0);
	json_decref(a);
	ck_assert(!r->done); /* never inside mup_call */
	run_until(&r->done, 20000);
}

static void call_ok(struct mup *u, const char *name, const char *args, const char *want)
{
	struct result r;
	call(u, name, args, 0, &r);
	ck_assert_msg(r.outcome == MUP_OK, "%s: %s", name, r.error ? r.error : "abandoned");
	char *got = json_dumps(r.value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	ck_assert_msg(strcmp(got, want) == 0, "%s: got %s, want %s", name, got, want);
	free(got);
	result_clear(&r);
}

static void call_fails(struct mup *u, const char *name, const char *want)
{
	struct result r;
	call(u, name, "{}", 0, &r);
	ck_assert_msg(r.outcome == MUP_ERROR, "%s did not fail", name);
	ck_assert_msg(strstr(r.error, want) != NULL, "%s: error \"%s\" lacks \"%s\"", name, r.error,
		      want);
	result_clear(&r);
}

static bool has_tool(json_t *tools, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return true;
	return false;
}

START_TEST(test_list_names_filter)
{
	struct mup *u =
		set_new("{\"mcpServers\": {\"my-stub\": {\"command\": \"STUB\","
			" \"args\": [\"--page\", \"3\"]}},"
			" \"sandboxd\": {\"servers\": {\"my-stub\": {\"deny\": [\"secret*\"]}}}}");
	ck_assert(mup_configured(u));
	prepare(u);
	ck_assert_int_eq(changes, 1);
	json_t *tools = mup_tools(u, NULL, 0);
	/* Twelve tools over four pages, one denied. */
	ck_assert_uint_eq(json_array_size(tools), 11);
	/* A schema nested past what the daemon takes is left out, the tool
	 * kept. */
	json_t *deep = json_array_get(tools, 10);
	ck_assert_str_eq(json_string_value(json_object_get(deep, "name")), "my_stub.deep");
	ck_assert_ptr_null(json_object_get(deep, "input_schema"));
	ck_assert(has_tool(tools, "my_stub.echo"));
	ck_assert(has_tool(tools, "my_stub.env"));
	ck_assert(!has_tool(tools, "my_stub.secret_key"));
	json_t *echo = json_array_get(tools, 0);
	ck_assert_str_eq(json_string_value(json_object_get(echo, "name")), "my_stub.echo");
	ck_assert_str_eq(json_string_value(json_object_get(echo, "description")), "a stub tool");
	ck_assert_ptr_nonnull(json_object_get(json_object_get(echo, "input_schema"), "properties"));
	json_decref(tools);
	tools = mup_tools(u, "CANCEL", 0);
	ck_assert_uint_eq(json_array_size(tools), 1);
	ck_assert(has_tool(tools, "my_stub.cancelled"));
	json_decref(tools);
	tools = mup_tools(u, "stub tool", 2);
	ck_assert_uint_eq(json_array_size(tools), 2);
	json_decref(tools);
	char *cat = mup_catalogue(u, 1000);
	ck_assert_ptr_nonnull(strstr(cat, "tools.my_stub.echo, tools.my_stub.text"));
	free(cat);
	cat = mup_catalogue(u, 30);
	ck_assert_str_eq(cat, "tools.my_stub.echo, ...");
	free(cat);
	json_t *problems = mup_problems(u);
	ck_assert_uint_eq(json_array_size(problems), 0);
	json_decref(problems);
	/* A denied tool does not exist for scripts. */
	call_fails(u, "my_stub.secret_key", "my_stub.secret_key: no such upstream tool");
	call_fails(u, "nothing.echo", "no such upstream tool");
	set_free(u);
}
END_TEST

/* A server that lists thousands of tools is cut at LIMIT_MCP_SERVER_TOOLS
 * (they were all held, named and declared), and a tool whose name holds a
 * NUL drops that tool alone, not the page it came in (the whole line was
 * refused, and the server never came up). */
START_TEST(test_list_bounds)
{
	struct mup *u =
		set_new("{\"mcpServers\": {\"s\": {\"command\": \"STUB\","
			" \"args\": [\"--many\", \"5000\", \"--page\", \"6000\", \"--nul\"]}}}");
	uint64_t t0 = ploop_now_ms();
	prepare(u);
	fprintf(stderr, "5013 tools listed in one page: up in %llu ms\n",
		(unsigned long long)(ploop_now_ms() - t0));
	json_t *problems = mup_problems(u);
	ck_assert_uint_eq(json_array_size(problems), 0);
	json_decref(problems);
	/* Declared: the first LIMIT_TOOLS (what the daemon takes). */
	json_t *tools = mup_tools(u, NULL, 0);
	ck_assert_uint_eq(json_array_size(tools), LIMIT_TOOLS);
	ck_assert(has_tool(tools, "s.echo"));
	ck_assert(!has_tool(tools, "s.echo_2"));
	json_decref(tools);
	/* A search finds only what a script can call: tool_200 is declared,
	 * tool_1000 is kept but past the first LIMIT_TOOLS. */
	tools = mup_tools(u, "tool_200", 0);
	ck_assert_uint_eq(json_array_size(tools), 1);
	ck_assert(has_tool(tools, "s.tool_200"));
	json_decref(tools);
	tools = mup_tools(u, "tool_1000", 0);
	ck_assert_uint_eq(json_array_size(tools), 0);
	json_decref(tools);
	call_ok(u, "s.echo", "{\"a\": 1}", "{\"a\":1}");
	/* Kept: twelve fixed tools, then tool_0 .. tool_1011. */
	ck_assert_uint_eq(LIMIT_MCP_SERVER_TOOLS, 1024);
	struct result r;
	call(u, "s.tool_1011", "{}", 0, &r);
	ck_assert_msg(r.outcome == MUP_ERROR && strstr(r.error, "unknown tool"), "%s",
		      r.error ? r.error : "no error");
	result_clear(&r);
	call_fails(u, "s.tool_1012", "s.tool_1012: no such upstream tool");
	set_free(u);
}
END_TEST

START_TEST(test_unwrapping)
{
	struct mup *u = set_new("{\"mcpServers\": {\"s\": {\"command\": \"STUB\"}}}");
	prepare(u);
	call_ok(u, "s.echo", "{\"a\": [1, {\"b\": null}]}", "{\"a\":[1,{\"b\":null}]}");
	call_ok(u, "s.text", "{}", "\"plain words\"");
	call_ok(u, "s.json", "{}", "{\"n\":[1,2,3]}");
	call_ok(u, "s.blocks", "{}",
		"[\"one\",{\"data\":\"AAAA\",\"mimeType\":\"image/png\",\"type\":\"image\"}]");
	call_fails(u, "s.fail", "the stub tool failed");
	set_free(u);
}
END_TEST

START_TEST(test_eras)
{
	/* Modern: initialize refused, server/discover, _meta on every request
	 * (the stub refuses requests without it). */
	struct mup *u = set_new(
		"{\"mcpServers\": {\"m\": {\"command\": \"STUB\", \"args\": [\"--modern\"]}}}");
	prepare(u);
	call_ok(u, "m.echo", "{\"x\": 1}", "{\"x\":1}");
	set_free(u);
	/* An older legacy version the server prefers is accepted. */
	u = set_new("{\"mcpServers\": {\"o\": {\"command\": \"STUB\", \"args\": [\"--version\", "
		    "\"2024-11-05\"]}}}");
	prepare(u);
	call_ok(u, "o.text", "{}", "\"plain words\"");
	set_free(u);
	/* A version the bridge does not speak is a failure naming it. */
	u = set_new("{\"mcpServers\": {\"v\": {\"command\": \"STUB\", \"args\": [\"--version\", "
		    "\"1999-01-01\"]}}}");
	prepare(u);
	json_t *p = mup_problems(u);
	ck_assert_uint_eq(json_array_size(p), 1);
	const char *e = json_string_value(json_object_get(json_array_get(p, 0), "error"));
	ck_assert_msg(strstr(e, "protocol version 1999-01-01") != NULL, "%s", e);
	json_decref(p);
	set_free(u);
}
END_TEST

START_TEST(test_env_cwd_list_changed)
{
	setenv("MCP_TEST_OUTER", "outer", 1);
	struct mup *u = set_new(
		"{\"mcpServers\": {\"s\": {\"command\": \"STUB\","
		" \"env\": {\"MCP_TEST_VAR\": \"${MCP_TEST_OUTER}-x\"}, \"cwd\": \"/tmp\"}}}");
	prepare(u);
	call_ok(u, "s.env", "{\"name\": \"MCP_TEST_VAR\"}",
		"{\"cwd\":\"/tmp\",\"value\":\"outer-x\"}");
	/* The bridge's own environment comes through too. */
	call_ok(u, "s.env", "{\"name\": \"MCP_TEST_OUTER\"}",
		"{\"cwd\":\"/tmp\",\"value\":\"outer\"}");
	json_t *tools = mup_tools(u, NULL, 0);
	ck_assert(!has_tool(tools, "s.added_later"));
	json_decref(tools);
	int before = changes;
	call_ok(u, "s.add", "{}", "true");
	/* list_changed: listed again, the new tool there. */
	while (changes == before)
		ck_assert_int_eq(ploop_once(loop, 1000), 0);
	tools = mup_tools(u, NULL, 0);
	ck_assert(has_tool(tools, "s.added_later"));
	json_decref(tools);
	call_ok(u, "s.added_later", "{}", "\"later\"");
	set_free(u);
}
END_TEST

START_TEST(test_deadline_and_cancel)
{
	struct mup *u = set_new("{\"mcpServers\": {\"s\": {\"command\": \"STUB\"}}}");
	prepare(u);
	/* A deadline: abandoned then, and cancelled upstream. */
	struct result r;
	uint64_t t0 = ploop_now_ms();
	call(u, "s.slow", "{}", t0 + 300, &r);
	ck_assert_int_eq(r.outcome, MUP_ABANDONED);
	ck_assert_uint_ge(r.at_ms - t0, 300);
	result_clear(&r);
	ck_assert_uint_eq(mup_calls_running(u), 0);
	call_ok(u, "s.cancelled", "{}", "{\"cancelled\":1}");
	/* The execution's end: its calls abandoned and cancelled upstream,
	 * another execution's untouched. */
	struct result a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	json_t *args = json_object();
	ck_assert_int_eq(mup_call(u, "exec_a", "s.slow", args, 0, on_result, &a), 0);
	ck_assert_int_eq(mup_call(u, "exec_b", "s.slow", args, 0, on_result, &b), 0);
	json_decref(args);
	ck_assert_uint_eq(mup_calls_running(u), 2);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ploop_once(loop, 10), 0);
	mup_cancel_exec(u, "exec_a");
	ck_assert(a.done);
	ck_assert_int_eq(a.outcome, MUP_ABANDONED);
	ck_assert(!b.done);
	call_ok(u, "s.cancelled", "{}", "{\"cancelled\":2}");
	/* Stopping the set abandons what still runs. */
	set_free(u);
	ck_assert(b.done);
	ck_assert_int_eq(b.outcome, MUP_ABANDONED);
}
END_TEST

START_TEST(test_crash_restart_backoff)
{
	struct mup *u = set_new("{\"mcpServers\": {\"s\": {\"command\": \"STUB\"}}}");
	prepare(u);
	int pid1 = mup_server_pid(u, "s");
	ck_assert_int_gt(pid1, 0);
	call_fails(u, "s.crash", "upstream server s failed during the call: exited with status 7");
	ck_assert_int_eq(mup_server_pid(u, "s"), -1);
	json_t *p = mup_problems(u);
	ck_assert_uint_eq(json_array_size(p), 1);
	json_decref(p);
	/* The first restart is at once, on the next call. */
	call_ok(u, "s.text", "{}", "\"plain words\"");
	int pid2 = mup_server_pid(u, "s");
	ck_assert_int_gt(pid2, 0);
	ck_assert_int_ne(pid1, pid2);
	/* A second failure: the next restart waits 1 s; a call before fails
	 * at once, saying so. */
	call_fails(u, "s.crash", "exited with status 7");
	uint64_t t0 = ploop_now_ms();
	struct result r;
	call(u, "s.text", "{}", 0, &r);
	ck_assert_int_eq(r.outcome, MUP_ERROR);
	ck_assert_msg(strstr(r.error, "upstream server s is down (exited with status 7)") != NULL,
		      "%s", r.error);
	ck_assert_msg(strstr(r.error, "ms from now") != NULL, "%s", r.error);
	ck_assert_uint_lt(r.at_ms - t0, 900);
	result_clear(&r);
	/* After the documented wait (1 s after the second failure) it
	 * starts again. */
	struct ploop_timer t = PLOOP_TIMER_INIT;
	bool waited = false;
	ck_assert_int_eq(ploop_timer_set(loop, &t, 1000, on_waited, &waited), 0);
	run_until(&waited, 5000);
	call_ok(u, "s.text", "{}", "\"plain words\"");
	set_free(u);
}
END_TEST

START_TEST(test_cannot_start)
{
	struct mup *u =
		set_new("{\"mcpServers\": {\"ok\": {\"command\": \"STUB\"},"
			" \"gone\": {\"command\": \"/nonexistent/mcp-server\"},"
			" \"quits\": {\"command\": \"STUB\", \"args\": [\"--exit\", \"3\"]},"
			" \"badcwd\": {\"command\": \"STUB\", \"cwd\": \"/nonexistent\"}}}");
	prepare(u);
	json_t *p = mup_problems(u);
	ck_assert_uint_eq(json_array_size(p), 3);
	char *text = json_dumps(p, JSON_COMPACT);
	ck_assert_msg(strstr(text, "{\"server\":\"gone\",\"error\":\"failed to start: cannot run "
				   "/nonexistent/mcp-server: No such file or directory\"}"),
		      "%s", text);
	ck_assert_msg(strstr(text, "{\"server\":\"quits\",\"error\":\"") &&
			      strstr(text, "exited with status 3"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cwd /nonexistent: No such file or directory"), "%s", text);
	free(text);
	json_decref(p);
	/* The server that is up works. */
	call_ok(u, "ok.text", "{}", "\"plain words\"");
	set_free(u);
}
END_TEST

/* A server that exits at once is reported by its exit status, whether the
 * bridge's first write (initialize) reached it before it ended or found
 * its stdin gone (EPIPE): never as out of memory. Sixteen of them, so the
 * second case comes up in every run. */
START_TEST(test_exit_at_once_reported_by_status)
{
	char text[4096];
	size_t off = (size_t)snprintf(text, sizeof text, "{\"mcpServers\": {");
	for (int i = 0; i < 16; i++)
		off += (size_t)snprintf(text + off, sizeof text - off,
					"%s\"q%d\": {\"command\": \"STUB\", \"args\": [\"--exit\", "
					"\"3\"]}",
					i ? ", " : "", i);
	snprintf(text + off, sizeof text - off, "}}");
	for (int round = 0; round < 4; round++) {
		struct mup *u = set_new(text);
		prepare(u);
		json_t *p = mup_problems(u);
		ck_assert_uint_eq(json_array_size(p), 16);
		size_t i;
		json_t *e;
		json_array_foreach (p, i, e) {
			const char *why = json_string_value(json_object_get(e, "error"));
			ck_assert_msg(why && strstr(why, "exited with status 3") &&
					      !strstr(why, "memory"),
				      "%s: %s", json_string_value(json_object_get(e, "server")),
				      why);
		}
		json_decref(p);
		set_free(u);
	}
}
END_TEST

/* ---- with the daemon */

struct conn {
	int fd;
	char buf[1 << 20];
	size_t len;
	struct mup *u;
	json_t *final;
	int calls;
	uint64_t started_ms;
	long long timeout_ms;
};

struct answer {
	struct conn *c;
	json_t *event;
};

static void send_line(int fd, json_t *m)
{
	char *s = json_dumps(m, JSON_COMPACT);
	size_t n = strlen(s);
	s = realloc(s, n + 2);
	s[n] = '\n';
	ck_assert_int_eq(write(fd, s, n + 1), (ssize_t)(n + 1));
	free(s);
}

static void on_answer(void *arg, enum mup_outcome o, json_t *value, const char *error)
{
	struct answer *a = arg;
	if (o != MUP_ABANDONED) {
		json_t *m = json_pack("{s:s, s:O, s:O}", "op", "tool_result", "execution_id",
				      json_object_get(a->event, "execution_id"), "call_id",
				      json_object_get(a->event, "call_id"));
		if (o == MUP_OK)
			json_object_set(m, "value", value);
		else
			json_object_set_new(m, "error", json_string(error));
		send_line(a->c->fd, m);
		json_decref(m);
	}
	json_decref(a->event);
	free(a);
}

static void on_daemon(struct ploop_watch *w, unsigned events)
{
	struct conn *c = w->arg;
	(void)events;
	ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
	ck_assert_int_gt(k, 0);
	c->len += (size_t)k;
	char *nl;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		json_t *m = json_loadb(c->buf, (size_t)(nl - c->buf), 0, NULL);
		ck_assert_ptr_nonnull(m);
		size_t used = (size_t)(nl - c->buf) + 1;
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		const char *ev = json_string_value(json_object_get(m, "event"));
		if (ev && strcmp(ev, "tool_call") == 0) {
			struct answer *a = calloc(1, sizeof *a);
			a->c = c;
			a->event = json_incref(m);
			c->calls++;
			/* The execution's remaining time, from when it was
			 * sent (it starts at once: the daemon is idle). */
			uint64_t deadline = c->started_ms + (uint64_t)c->timeout_ms;
			ck_assert_int_eq(
				mup_call(c->u,
					 json_string_value(json_object_get(m, "execution_id")),
					 json_string_value(json_object_get(m, "name")),
					 json_object_get(m, "args"), deadline, on_answer, a),
				0);
		} else if (json_object_get(m, "ok") &&
			   json_integer_value(json_object_get(m, "id")) == 1) {
			c->final = json_incref(m);
			const char *xid = json_string_value(json_object_get(m, "execution_id"));
			if (xid)
				mup_cancel_exec(c->u, xid);
		}
		json_decref(m);
	}
}

/* Runs code (with the set's tools) in the daemon; the final reply. */
static json_t *run_script(struct daemon *d, struct mup *u, const char *code, long long timeout_ms)
{
	struct client cl;
	ck_assert_int_eq(client_open(&cl, d->sock, FRAME_MODE_LINE), 0);
	struct conn *c = calloc(1, sizeof *c);
	c->fd = cl.fd;
	c->u = u;
	c->timeout_ms = timeout_ms;
	json_t *req =
		json_pack("{s:s, s:i, s:s, s:o, s:I}", "op", "execute", "id", 1, "code", code,
			  "tools", mup_tools(u, NULL, 0), "timeout_ms", (json_int_t)timeout_ms);
	c->started_ms = ploop_now_ms();
	send_line(c->fd, req);
	json_decref(req);
	struct ploop_watch w = PLOOP_WATCH_INIT;
	ck_assert_int_eq(ploop_watch_add(loop, &w, c->fd, PLOOP_READ, on_daemon, c), 0);
	uint64_t end = ploop_now_ms() + 30000;
	while (!c->final) {
		ck_assert(ploop_now_ms() < end);
		ck_assert_int_eq(ploop_once(loop, 100), 0);
	}
	ploop_watch_del(&w);
	json_t *r = c->final;
	json_object_set_new(r, "test_calls", json_integer(c->calls));
	free(c);
	client_close(&cl);
	return r;
}

START_TEST(test_scripts_through_the_daemon)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct mup *u = set_new("{\"mcpServers\": {\"up-stub\": {\"command\": \"STUB\"}}}");
	prepare(u);
	/* Values come back unwrapped; an upstream error is an Error in the
	 * script, carrying its text. */
	json_t *r =
		run_script(&d, u,
			   "var a = tools.up_stub.echo({k: [1, 2]});\n"
			   "var b = tools.up_stub.json({});\n"
			   "var e; try { tools.up_stub.fail({}); } catch (x) { e = x.message; }\n"
			   "return {a: a, b: b, e: e, t: tools.up_stub.text({})};",
			   10000);
	ck_assert_msg(jtrue(r, "ok") && jtrue(r, "success"), "%s", json_dumps(r, 0));
	char *v = json_dumps(json_object_get(r, "value"), JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_str_eq(v, "{\"a\":{\"k\":[1,2]},\"b\":{\"n\":[1,2,3]},\"e\":\"the stub tool "
			    "failed\",\"t\":\"plain words\"}");
	free(v);
	ck_assert_int_eq(jint(r, "test_calls"), 4);
	json_decref(r);

	/* A call still pending at the execution's timeout: kind timeout, not
	 * a script error; and cancelled upstream. */
	uint64_t t0 = ploop_now_ms();
	r = run_script(&d, u, "try { tools.up_stub.slow({}); } catch (e) { return 'caught ' + e; }",
		       1000);
	uint64_t took = ploop_now_ms() - t0;
	ck_assert_msg(jtrue(r, "ok"), "%s", json_dumps(r, 0));
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert_str_eq(err_kind(r), "timeout");
	ck_assert_uint_ge(took, 1000);
	ck_assert_uint_eq(mup_calls_running(u), 0);
	json_t *calls = json_object_get(r, "calls");
	ck_assert_uint_eq(json_array_size(calls), 1);
	ck_assert_str_eq(jstr(json_array_get(calls, 0), "status"), "cancelled");
	json_decref(r);
	call_ok(u, "up_stub.cancelled", "{}", "{\"cancelled\":1}");

	/* A server that crashes: the script gets an Error naming it; the
	 * next call restarts it. */
	r = run_script(&d, u,
		       "var m; try { tools.up_stub.crash({}); } catch (e) { m = e.message; }\n"
		       "return [m, tools.up_stub.text({})];",
		       10000);
	ck_assert_msg(jtrue(r, "success"), "%s", json_dumps(r, 0));
	v = json_dumps(json_object_get(r, "value"), JSON_COMPACT);
	ck_assert_str_eq(v, "[\"upstream server up-stub failed during the call: exited with status "
			    "7\",\"plain words\"]");
	free(v);
	json_decref(r);
	set_free(u);
	daemon_stop(&d);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("mcp_upstream");
	TCase *tc = tcase_create("mcp_upstream");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_list_names_filter);
	tcase_add_test(tc, test_list_bounds);
	tcase_add_test(tc, test_unwrapping);
	tcase_add_test(tc, test_eras);
	tcase_add_test(tc, test_env_cwd_list_changed);
	tcase_add_test(tc, test_deadline_and_cancel);
	tcase_add_test(tc, test_crash_restart_backoff);
	tcase_add_test(tc, test_cannot_start);
	tcase_add_test(tc, test_exit_at_once_reported_by_status);
	tcase_add_test(tc, test_scripts_through_the_daemon);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
