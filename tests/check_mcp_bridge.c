/*
 * check_mcp_bridge.c - the bridge's tools against the real daemon: the MCP
 * session (mcp_rpc) and the tools runner (mcp_toolrun) on a ploop in this
 * process, fed JSON-RPC lines as a host would send them on stdin, reading
 * the lines the bridge would write on stdout; the daemon is bin/sandboxd
 * on its own socket, and is asked directly what became of the executions.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "testlib.h"

#include "../client/mcp_rpc.h"
#include "../client/mcp_tools.h"
#include "../client/ploop.h"

struct bridge {
	struct ploop *loop;
	struct mrpc *rpc;
	struct mtool *tools;
	json_t *out; /* every message the bridge sent, in order */
	size_t seen; /* how many of them bridge_reply has looked through */
	long next_id;
};

static struct daemon d;

static void on_write(void *arg, const char *line, size_t len)
{
	struct bridge *b = arg;
	ck_assert_msg(len > 0 && line[len - 1] == '\n', "a message is one line");
	ck_assert_msg(memchr(line, '\n', len - 1) == NULL, "no newline inside a message");
	json_error_t e;
	json_t *m = jnum_loadb(line, len, 0, &e);
	ck_assert_msg(m != NULL, "the bridge wrote something that is not JSON: %.*s", (int)len,
		      line);
	json_array_append_new(b->out, m);
}

static void feed(struct bridge *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void feed(struct bridge *b, const char *fmt, ...)
{
	char *line;
	va_list ap;
	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&line, fmt, ap), 0);
	va_end(ap);
	mrpc_feed(b->rpc, line, strlen(line));
	free(line);
}

static uint64_t now_ms(void) { return ploop_now_ms(); }

/* The response to request id, running the loop up to timeout_ms for it.
 * Borrowed from b->out. */
static json_t *bridge_reply(struct bridge *b, long id, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		size_t i;
		json_t *m;
		json_array_foreach (b->out, i, m) {
			json_t *mid = json_object_get(m, "id");
			if (json_is_integer(mid) && json_integer_value(mid) == id &&
			    !json_object_get(m, "method"))
				return m;
		}
		ck_assert_msg(now_ms() < end, "no response to request %ld in %d ms", id,
			      timeout_ms);
		ploop_once(b->loop, 50);
	}
}

/* The socket bridges are opened on: the daemon's unless set. */
static const char *bridge_sock;

static void bridge_open(struct bridge *b, const char *store_file)
{
	memset(b, 0, sizeof *b);
	b->loop = ploop_new();
	b->out = json_array();
	struct mrpc_server_info info = {"sandboxd", NULL, "test", NULL};
	b->rpc = mrpc_new(&info, on_write, b);
	ck_assert_ptr_nonnull(b->rpc);
	struct mtool_options o = {bridge_sock ? bridge_sock : d.sock, {10000, 0, 0, 0}, store_file};
	char *why = NULL;
	b->tools = mtool_new(b->loop, b->rpc, &o, &why);
	ck_assert_msg(b->tools != NULL, "mtool_new: %s", why ? why : "?");
	b->next_id = 1;
	feed(b,
	     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"initialize\",\"params\":{"
	     "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	     "\"check\",\"version\":\"1\"}}}",
	     b->next_id);
	json_t *r = bridge_reply(b, b->next_id++, 1000);
	ck_assert_ptr_nonnull(json_object_get(r, "result"));
	feed(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void bridge_close(struct bridge *b)
{
	mtool_free(b->tools);
	mrpc_free(b->rpc);
	ploop_free(b->loop);
	json_decref(b->out);
}

/* Sends tools/call name(args) (meta: the _meta object's members, or "")
 * and returns its request id. */
static long call_start(struct bridge *b, const char *name, const char *args, const char *meta)
{
	long id = b->next_id++;
	feed(b,
	     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/"
	     "call\",\"params\":{\"name\":\"%s\","
	     "\"arguments\":%s%s%s%s}}",
	     id, name, args, *meta ? ",\"_meta\":{" : "", meta, *meta ? "}" : "");
	return id;
}

/* The CallToolResult of a call, waited for. Borrowed. */
static json_t *call(struct bridge *b, const char *name, const char *args)
{
	long id = call_start(b, name, args, "");
	json_t *r = json_object_get(bridge_reply(b, id, 30000), "result");
	ck_assert_msg(r != NULL, "tools/call %s: no result", name);
	return r;
}

static json_t *sc_of(json_t *r) { return json_object_get(r, "structuredContent"); }
static const char *text_of(json_t *r)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}
static bool is_error(json_t *r) { return json_is_true(json_object_get(r, "isError")); }

/* The daemon's own view of an execution, once it has ended. */
static json_t *daemon_status(const char *exec_id)
{
	return call_once(d.sock, json_pack("{s:s, s:s, s:b, s:i}", "op", "status", "execution_id",
					   exec_id, "wait", 1, "wait_ms", 10000));
}

/* The execution whose code starts with marker among the daemon's latest. */
static char *find_execution(const char *marker)
{
	json_t *l = call_once(d.sock, json_pack("{s:s, s:i}", "op", "list", "limit", 50));
	size_t i;
	json_t *e;
	char *id = NULL;
	json_array_foreach (json_object_get(l, "executions"), i, e) {
		const char *p = jstr(e, "code_preview");
		if (!id && p && strstr(p, marker))
			id = strdup(jstr(e, "execution_id"));
	}
	json_decref(l);
	return id;
}

/* Notifications/progress for token so far, in order. */
static json_t *progress_of(struct bridge *b, const char *token)
{
	json_t *a = json_array();
	size_t i;
	json_t *m;
	json_array_foreach (b->out, i, m) {
		json_t *p = json_object_get(m, "params");
		if (json_is_string(json_object_get(m, "method")) &&
		    strcmp(jstr(m, "method"), "notifications/progress") == 0 &&
		    strcmp(jstr(p, "progressToken"), token) == 0)
			json_array_append(a, p);
	}
	return a;
}

static void setup(void) { daemon_start(&d, NULL); }
static void teardown(void) { daemon_stop(&d); }

START_TEST(test_execute_and_tools_list)
{
	struct bridge b;
	bridge_open(&b, NULL);
	feed(&b, "{\"jsonrpc\":\"2.0\",\"id\":100,\"method\":\"tools/list\"}");
	json_t *tools =
		json_object_get(json_object_get(bridge_reply(&b, 100, 1000), "result"), "tools");
	ck_assert_int_eq(json_array_size(tools), MTOOL_COUNT);
	for (int i = 0; i < MTOOL_COUNT; i++) {
		json_t *t = json_array_get(tools, (size_t)i);
		ck_assert_str_eq(jstr(t, "name"), mtool_name((enum mtool_id)i));
		ck_assert(json_is_object(json_object_get(t, "outputSchema")));
	}
	json_t *r =
		call(&b, "execute",
		     "{\"code\":\"console.log('hi'); console.error('oops'); return {n: 6*7}\"}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	json_t *sc = sc_of(r);
	ck_assert_int_eq(jint(json_object_get(sc, "value"), "n"), 42);
	ck_assert_str_eq(jstr(sc, "stdout"), "hi\n");
	ck_assert_str_eq(jstr(sc, "stderr"), "oops\n");
	ck_assert_str_eq(jstr(sc, "state"), "completed");
	ck_assert_ptr_nonnull(strstr(text_of(r), "value: {\"n\":42}"));

	r = call(&b, "execute", "{\"code\":\"let a = 1;\\nnull.x\"}");
	ck_assert(is_error(r));
	ck_assert_str_eq(jstr(json_object_get(sc_of(r), "error"), "kind"), "script");
	ck_assert_int_eq(jint(json_object_get(sc_of(r), "error"), "line"), 2);

	r = call(&b, "execute", "{\"code\":\"return 1\",\"timeout_ms\":\"soon\"}");
	ck_assert(is_error(r));
	ck_assert_str_eq(text_of(r), "timeout_ms: must be a non-negative integer");
	/* What the daemon refuses comes back as its error. */
	r = call(&b, "status", "{\"execution_id\":\"exec_0000000000000000\"}");
	ck_assert(is_error(r));
	ck_assert_ptr_nonnull(strstr(text_of(r), "NOT_FOUND"));
	bridge_close(&b);
}
END_TEST

/* Numbers as JavaScript writes them, and error.data, in both the text and
 * structuredContent of a result. */
START_TEST(test_values_and_error_data)
{
	struct bridge b;
	bridge_open(&b, NULL);
	json_t *r = call(&b, "execute",
			 "{\"code\":\"return [0.1, 1/3, 1e21, 1e-7, 123456789012345680000, -0]\"}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	ck_assert_msg(
		strstr(text_of(r),
		       "value: [0.1,0.3333333333333333,1e+21,1e-7,123456789012345680000,0]\n"),
		"%s", text_of(r));
	char *v = jnum_dumps(json_object_get(sc_of(r), "value"), JSON_COMPACT);
	ck_assert_str_eq(v, "[0.1,0.3333333333333333,1e+21,1e-7,123456789012345680000,0]");
	free(v);
	r = call(&b, "execute",
		 "{\"code\":\"var e = new Error('nope'); e.code = 'E42'; e.ratio = 2/3; "
		 "e.cause = new TypeError('inner'); throw e\"}");
	ck_assert(is_error(r));
	const char *want = "{\"code\":\"E42\",\"ratio\":0.6666666666666666,"
			   "\"cause\":{\"name\":\"TypeError\",\"message\":\"inner\"}}";
	char *data = jnum_dumps(json_object_get(json_object_get(sc_of(r), "error"), "data"),
				JSON_COMPACT);
	ck_assert_msg(data && strcmp(data, want) == 0, "%s", data ? data : "no data");
	free(data);
	char line[256];
	snprintf(line, sizeof line, "\ndata: %s\n", want);
	ck_assert_msg(strstr(text_of(r), line), "%s", text_of(r));
	bridge_close(&b);
}
END_TEST

/* Long output, cut in the result and read on with status at its offsets,
 * every byte once. */
START_TEST(test_long_output_and_status)
{
	struct bridge b;
	bridge_open(&b, NULL);
	json_t *r = call(&b, "execute",
			 "{\"code\":\"for (let i = 0; i < 5000; i++) console.log('line ' + i); "
			 "return 1\"}");
	json_t *sc = sc_of(r);
	ck_assert(json_is_true(json_object_get(sc, "output_more")));
	size_t total = (size_t)jint(sc, "stdout_length");
	char *all = malloc(total + 1);
	size_t have = json_string_length(json_object_get(sc, "stdout"));
	ck_assert_uint_le(have, LIMIT_MCP_OUTPUT_BYTES);
	memcpy(all, jstr(sc, "stdout"), have);
	char *id = strdup(jstr(sc, "execution_id"));
	int polls = 0;
	while (have < total) {
		char args[160];
		snprintf(args, sizeof args, "{\"execution_id\":\"%s\",\"stdout_offset\":%zu}", id,
			 have);
		json_t *s = sc_of(call(&b, "status", args));
		ck_assert_int_eq(
			jint(s, "stdout_next"),
			(long long)(have + json_string_length(json_object_get(s, "stdout"))));
		size_t n = json_string_length(json_object_get(s, "stdout"));
		ck_assert_uint_gt(n, 0);
		memcpy(all + have, jstr(s, "stdout"), n);
		have += n;
		polls++;
	}
	all[have] = '\0';
	/* The stream put back together is the script's output. */
	ck_assert_uint_eq(have, total);
	ck_assert(strncmp(all, "line 0\nline 1\n", 14) == 0);
	ck_assert_ptr_nonnull(strstr(all, "\nline 4999\n"));
	ck_assert_int_ge(polls, (int)(total / LIMIT_MCP_OUTPUT_BYTES));
	fprintf(stderr, "long output: %zu bytes read in 1 execute + %d status calls\n", total,
		polls);
	free(all);
	free(id);
	bridge_close(&b);
}
END_TEST

START_TEST(test_progress)
{
	struct bridge b;
	bridge_open(&b, NULL);
	/* Lines 300 ms apart, then 4.6 s of silence before the end. */
	long id =
		call_start(&b, "execute",
			   "{\"code\":\"function spin(ms) { const e = Date.now() + ms; while "
			   "(Date.now() < e) {} }\\nfor (let i = 1; i <= 3; i++) { "
			   "console.log('step ' + i); spin(300); }\\nspin(4600); return 'done'\"}",
			   "\"progressToken\":\"tok\"");
	json_t *resp = bridge_reply(&b, id, 30000);
	json_t *r = json_object_get(resp, "result");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	/* As stream, the output still whole in the result. */
	ck_assert_str_eq(jstr(sc_of(r), "stdout"), "step 1\nstep 2\nstep 3\n");
	json_t *p = progress_of(&b, "tok");
	ck_assert_uint_ge(json_array_size(p), 3);
	size_t i;
	json_t *n;
	double last = 0;
	int steps = 0;
	json_array_foreach (p, i, n) {
		double v = json_number_value(json_object_get(n, "progress"));
		ck_assert_msg(v > last, "progress goes up: %g after %g", v, last);
		last = v;
		const char *msg = jstr(n, "message");
		if (strncmp(msg, "step ", 5) == 0)
			steps++;
	}
	ck_assert_int_ge(steps, 2);
	/* The heartbeat in the silence says the last line again. */
	ck_assert_str_eq(jstr(json_array_get(p, json_array_size(p) - 1), "message"), "step 3");
	/* Nothing for the token after the response. */
	size_t after = 0;
	bool past = false;
	json_array_foreach (b.out, i, n) {
		if (n == resp)
			past = true;
		else if (past && json_object_get(n, "method"))
			after++;
	}
	ck_assert_uint_eq(after, 0);
	fprintf(stderr, "progress: %zu notifications, %d with an output line\n", json_array_size(p),
		steps);
	json_decref(p);
	bridge_close(&b);
}
END_TEST

/* A stream's output past the cut: what the result keeps is the stream's
 * first bytes, whole characters, whatever the events' sizes. */
START_TEST(test_stream_cut)
{
	struct bridge b;
	bridge_open(&b, NULL);
	long id = call_start(
		&b, "execute",
		"{\"code\":\"for (let i = 0; i < 3000; i++) console.log('\u00e9t\u00e9 ' + "
		"i); return 1\"}",
		"\"progressToken\":\"cut\"");
	json_t *r = json_object_get(bridge_reply(&b, id, 30000), "result");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	json_t *sc = sc_of(r);
	struct buf want = BUF_INIT;
	for (int i = 0; i < 3000; i++) {
		char line[32];
		int n = snprintf(line, sizeof line, "\u00e9t\u00e9 %d\n", i);
		buf_append(&want, line, (size_t)n);
	}
	size_t have = json_string_length(json_object_get(sc, "stdout"));
	ck_assert_int_eq(jint(sc, "stdout_length"), (long long)buf_len(&want));
	ck_assert_uint_le(have, LIMIT_MCP_OUTPUT_BYTES);
	ck_assert_uint_ge(have, LIMIT_MCP_OUTPUT_BYTES - 3);
	ck_assert(memcmp(jstr(sc, "stdout"), buf_peek(&want), have) == 0);
	ck_assert_int_eq(jint(sc, "stdout_next"), (long long)have);
	ck_assert(json_is_true(json_object_get(sc, "output_more")));
	buf_free(&want);
	bridge_close(&b);
}
END_TEST

/* notifications/cancelled: the daemon cancels the execution (found by the
 * id the started event gave, before any output), and the bridge sends
 * nothing more for the request. */
START_TEST(test_cancelled)
{
	struct bridge b;
	bridge_open(&b, NULL);
	long id = call_start(&b, "execute", "{\"code\":\"// cancel-me-1\\nwhile (true) {}\"}", "");
	char *exec = NULL;
	uint64_t end = now_ms() + 10000;
	while (!(exec = find_execution("cancel-me-1")) && now_ms() < end)
		ploop_once(b.loop, 20);
	ck_assert_ptr_nonnull(exec);
	ploop_once(b.loop, 20); /* the started event */
	size_t before = json_array_size(b.out);
	feed(&b,
	     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
	     "cancelled\",\"params\":{\"requestId\":"
	     "%ld,\"reason\":\"test\"}}",
	     id);
	/* Run the loop until the daemon says it is cancelled. */
	json_t *st = NULL;
	end = now_ms() + 10000;
	for (;;) {
		ploop_once(b.loop, 50);
		json_t *s = call_once(
			d.sock, json_pack("{s:s, s:s}", "op", "status", "execution_id", exec));
		if (strcmp(jstr(s, "state"), "running") != 0) {
			st = s;
			break;
		}
		json_decref(s);
		ck_assert(now_ms() < end);
	}
	ck_assert_str_eq(jstr(st, "state"), "cancelled");
	json_decref(st);
	/* A ping's answer comes; nothing for the cancelled request. */
	feed(&b, "{\"jsonrpc\":\"2.0\",\"id\":999,\"method\":\"ping\"}");
	bridge_reply(&b, 999, 1000);
	for (int k = 0; k < 5; k++)
		ploop_once(b.loop, 20);
	for (size_t i = before; i < json_array_size(b.out); i++) {
		json_t *m = json_array_get(b.out, i);
		ck_assert_msg(!json_is_integer(json_object_get(m, "id")) ||
				      json_integer_value(json_object_get(m, "id")) != id,
			      "a response to the cancelled request");
	}
	free(exec);
	bridge_close(&b);
}
END_TEST

START_TEST(test_background_and_store)
{
	char dir[] = "/tmp/check_mcp_bridge.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char file[128];
	snprintf(file, sizeof file, "%s/store.json", dir);
	struct bridge b;
	bridge_open(&b, file);
	json_t *r = call(&b, "execute", "{\"code\":\"store('a', 1); store('s', 'x'); return 0\"}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	/* A failed run writes nothing. */
	r = call(&b, "execute", "{\"code\":\"store('a', 100); throw new Error('no')\"}");
	ck_assert(is_error(r));
	/* A background run's writes once status sees it end. */
	r = call(&b, "execute",
		 "{\"code\":\"store('a', load('a') + 1); store('s', undefined); "
		 "console.log('bg'); return load('a')\",\"background\":true}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	char *id = strdup(jstr(sc_of(r), "execution_id"));
	ck_assert_ptr_null(json_object_get(sc_of(r), "stdout"));
	char args[128];
	snprintf(args, sizeof args, "{\"execution_id\":\"%s\",\"wait_ms\":10000}", id);
	r = call(&b, "status", args);
	ck_assert_str_eq(jstr(sc_of(r), "state"), "completed");
	ck_assert_int_eq(json_integer_value(json_object_get(sc_of(r), "value")), 2);
	ck_assert_str_eq(jstr(sc_of(r), "stdout"), "bg\n");
	/* Asked again: not applied twice. */
	r = call(&b, "status", args);
	r = call(&b, "execute", "{\"code\":\"return [load('a'), load('s')]\"}");
	json_t *v = json_object_get(sc_of(r), "value");
	ck_assert_int_eq(json_integer_value(json_array_get(v, 0)), 2);
	ck_assert(json_is_null(json_array_get(v, 1))); /* undefined in an array */
	bridge_close(&b);
	/* The file holds the store; no temporary file is left. */
	json_t *f = json_load_file(file, 0, NULL);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(jint(f, "a"), 2);
	ck_assert_ptr_null(json_object_get(f, "s"));
	json_decref(f);
	struct stat stb;
	ck_assert_int_eq(stat(file, &stb), 0);
	ck_assert_int_eq(stb.st_mode & 0777, 0600);
	char tmp[160];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", file, (long)getpid());
	ck_assert_int_ne(access(tmp, F_OK), 0);
	/* A new session starts from it. */
	bridge_open(&b, file);
	r = call(&b, "execute", "{\"code\":\"return load('a')\"}");
	ck_assert_int_eq(json_integer_value(json_object_get(sc_of(r), "value")), 2);
	bridge_close(&b);
	/* A store file that is not an object is refused at start. */
	FILE *w = fopen(file, "w");
	fputs("[1]", w);
	fclose(w);
	struct ploop *lp = ploop_new();
	struct mrpc_server_info info = {"s", NULL, "t", NULL};
	struct mrpc *m = mrpc_new(&info, on_write, &b);
	struct mtool_options o = {d.sock, {0, 0, 0, 0}, file};
	char *why = NULL;
	ck_assert_ptr_null(mtool_new(lp, m, &o, &why));
	ck_assert_ptr_nonnull(strstr(why, "not a JSON object"));
	free(why);
	mrpc_free(m);
	ploop_free(lp);
	unlink(file);
	rmdir(dir);
	free(id);
}
END_TEST

/* Code mode's hooks: declared tools, tool calls answered later, the end
 * of an execution with a call still pending. */
struct cm {
	struct ploop *loop;
	struct mtool_call *pending;
	json_t *args;
	char ended[64];
	int calls, ends;
	uint64_t deadline;
	struct ploop_timer later;
};

static json_t *cm_tools(void *ctx)
{
	(void)ctx;
	return json_pack("[{s:s}, {s:s}]", "name", "host.add", "name", "host.hang");
}

static void cm_answer(struct ploop_timer *t)
{
	struct cm *c = t->arg;
	json_t *v = json_pack("{s:I}", "sum",
			      json_integer_value(json_object_get(c->args, "a")) +
				      json_integer_value(json_object_get(c->args, "b")));
	mtool_call_answer(c->pending, v, NULL);
	c->pending = NULL;
	json_decref(v);
}

static void cm_call(void *ctx, struct mtool_call *call, const char *exec, const char *name,
		    const json_t *args, uint64_t deadline)
{
	struct cm *c = ctx;
	(void)exec;
	c->calls++;
	c->deadline = deadline;
	c->pending = call;
	if (strcmp(name, "host.add") == 0) {
		json_decref(c->args);
		c->args = json_deep_copy(args);
		ploop_timer_set(c->loop, &c->later, 10, cm_answer, c);
	}
}

static void cm_ended(void *ctx, const char *exec)
{
	struct cm *c = ctx;
	c->ends++;
	snprintf(c->ended, sizeof c->ended, "%s", exec);
}

START_TEST(test_codemode_hooks)
{
	struct bridge b;
	bridge_open(&b, NULL);
	struct cm c = {.loop = b.loop, .later = PLOOP_TIMER_INIT};
	struct mtool_codemode hooks = {&c, cm_tools, cm_call, cm_ended, NULL};
	mtool_set_codemode(b.tools, &hooks);
	uint64_t t0 = now_ms();
	json_t *r = call(&b, "execute", "{\"code\":\"return tools.host.add({a: 2, b: 3}).sum\"}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	ck_assert_int_eq(json_integer_value(json_object_get(sc_of(r), "value")), 5);
	json_t *calls = json_object_get(sc_of(r), "calls");
	ck_assert_int_eq(json_array_size(calls), 1);
	ck_assert_str_eq(jstr(json_array_get(calls, 0), "name"), "host.add");
	ck_assert_str_eq(jstr(json_array_get(calls, 0), "status"), "ok");
	ck_assert_str_eq(c.ended, jstr(sc_of(r), "execution_id"));
	ck_assert_int_eq(c.ends, 1);
	/* The deadline is the execution's timeout (the bridge's 10 s). */
	ck_assert_uint_ge(c.deadline, t0 + 9000);
	ck_assert_uint_le(c.deadline, now_ms() + 10000);

	/* A call never answered: the execution's timeout ends it, code mode
	 * hears so, and the late answer is only freed. */
	r = call(&b, "execute", "{\"code\":\"tools.host.hang({}); return 1\",\"timeout_ms\":500}");
	ck_assert(is_error(r));
	ck_assert_str_eq(jstr(sc_of(r), "state"), "timeout");
	ck_assert_str_eq(jstr(json_array_get(json_object_get(sc_of(r), "calls"), 0), "status"),
			 "cancelled");
	ck_assert_int_eq(c.ends, 2);
	ck_assert_ptr_nonnull(c.pending);
	mtool_call_answer(c.pending, NULL, "too late");
	c.pending = NULL;
	ck_assert_int_eq(c.calls, 2);

	/* A background execution's call: bounded by its timeout (counted
	 * from the async reply, which said running), and ended when the
	 * execution ends, though nobody asks its status (it is cancelled
	 * from another connection, which the bridge does not see). */
	uint64_t t1 = now_ms();
	r = call(&b, "execute",
		 "{\"code\":\"tools.host.hang({}); return 1\",\"timeout_ms\":60000,"
		 "\"background\":true}");
	char *bg = strdup(jstr(sc_of(r), "execution_id"));
	uint64_t end = now_ms() + 10000;
	while (c.calls < 3 && now_ms() < end)
		ploop_once(b.loop, 20);
	ck_assert_int_eq(c.calls, 3);
	ck_assert_uint_ge(c.deadline, t1 + 60000);
	ck_assert_uint_le(c.deadline, now_ms() + 60000);
	json_t *cr = call_once(d.sock, json_pack("{s:s, s:s}", "op", "cancel", "execution_id", bg));
	ck_assert(json_is_true(json_object_get(cr, "ok")));
	json_decref(cr);
	uint64_t t2 = now_ms();
	while (c.ends < 3 && now_ms() < end)
		ploop_once(b.loop, 20);
	ck_assert_int_eq(c.ends, 3);
	ck_assert_str_eq(c.ended, bg);
	fprintf(stderr, "background call ended %llu ms after its execution was cancelled\n",
		(unsigned long long)(now_ms() - t2));
	ck_assert_ptr_nonnull(c.pending);
	mtool_call_answer(c.pending, NULL, "too late"); /* only freed */
	c.pending = NULL;
	/* The host's status after it says it ended; code mode is not told
	 * again. */
	char args[128];
	snprintf(args, sizeof args, "{\"execution_id\":\"%s\"}", bg);
	r = call(&b, "status", args);
	ck_assert_str_eq(jstr(sc_of(r), "state"), "cancelled");
	ck_assert_int_eq(c.ends, 3);
	free(bg);

	/* The description suffix reaches tools/list. */
	ck_assert_int_eq(mtool_set_execute_suffix(b.tools, "declare const tools: {host: {}};"), 0);
	feed(&b, "{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"tools/list\"}");
	json_t *tools =
		json_object_get(json_object_get(bridge_reply(&b, 200, 1000), "result"), "tools");
	ck_assert_ptr_nonnull(strstr(jstr(json_array_get(tools, 0), "description"),
				     "\n\ndeclare const tools: {host: {}};"));
	json_decref(c.args);
	bridge_close(&b);
}
END_TEST

static void on_done(void *arg) { *(bool *)arg = true; }

/* The end of the session cancels what the bridge started, background
 * executions included. */
START_TEST(test_shutdown)
{
	struct bridge b;
	bridge_open(&b, NULL);
	json_t *r = call(&b, "execute",
			 "{\"code\":\"// bg-end\\nwhile (true) {}\",\"background\":"
			 "true,\"timeout_ms\":60000}");
	char *bg = strdup(jstr(sc_of(r), "execution_id"));
	call_start(&b, "execute", "{\"code\":\"// fg-end\\nwhile (true) {}\",\"timeout_ms\":60000}",
		   "");
	char *fg = NULL;
	uint64_t end = now_ms() + 10000;
	while (!(fg = find_execution("fg-end")) && now_ms() < end)
		ploop_once(b.loop, 20);
	ck_assert_ptr_nonnull(fg);
	for (int k = 0; k < 5; k++)
		ploop_once(b.loop, 10);
	bool done = false;
	uint64_t t0 = now_ms();
	mtool_shutdown(b.tools, on_done, &done);
	while (!done)
		ploop_once(b.loop, 50);
	/* Confirmed by the daemon, not by the timer. */
	ck_assert_uint_lt(now_ms() - t0, LIMIT_MCP_SHUTDOWN_MS);
	fprintf(stderr, "shutdown: 2 cancels confirmed in %llu ms\n",
		(unsigned long long)(now_ms() - t0));
	/* No call is taken after it. */
	r = call(&b, "list_executions", "{}");
	ck_assert(is_error(r));
	bridge_close(&b);
	json_t *s = daemon_status(bg);
	ck_assert_str_eq(jstr(s, "state"), "cancelled");
	json_decref(s);
	s = daemon_status(fg);
	ck_assert_str_eq(jstr(s, "state"), "cancelled");
	json_decref(s);
	free(bg);
	free(fg);
}
END_TEST

/* The daemon going away: the call in flight ends with an error saying so;
 * the next finds no daemon and says where it looked; once a daemon is
 * there again (the bridge's socket path is a symlink, moved to the new
 * daemon's socket), the next call dials it. */
START_TEST(test_daemon_gone)
{
	char dir[] = "/tmp/check_mcp_bridge.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char link[128];
	snprintf(link, sizeof link, "%s/sandboxd.sock", dir);
	ck_assert_int_eq(symlink(d.sock, link), 0);
	bridge_sock = link;
	struct bridge b;
	bridge_open(&b, NULL);
	long id = call_start(&b, "execute", "{\"code\":\"// gone\\nwhile (true) {}\"}", "");
	char *exec = NULL;
	uint64_t end = now_ms() + 10000;
	while (!(exec = find_execution("gone")) && now_ms() < end)
		ploop_once(b.loop, 20);
	ck_assert_ptr_nonnull(exec);
	free(exec);
	kill(d.pid, SIGKILL);
	daemon_wait(&d, 10000);
	json_t *r = json_object_get(bridge_reply(&b, id, 10000), "result");
	ck_assert(is_error(r));
	ck_assert_ptr_nonnull(strstr(text_of(r), "the connection to the daemon failed"));
	r = call(&b, "list_executions", "{}");
	ck_assert(is_error(r));
	ck_assert_ptr_nonnull(strstr(text_of(r), "cannot connect to the daemon at"));
	ck_assert_ptr_nonnull(strstr(text_of(r), link));
	daemon_start(&d, NULL);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink(d.sock, link), 0);
	r = call(&b, "execute", "{\"code\":\"return 'again'\"}");
	ck_assert_msg(!is_error(r), "%s", text_of(r));
	ck_assert_str_eq(jstr(sc_of(r), "value"), "again");
	bridge_close(&b);
	bridge_sock = NULL;
	unlink(link);
	rmdir(dir);
}
END_TEST

/* ---- bin/sandboxd-mcp itself, over pipes. */

struct proc {
	pid_t pid;
	int in, out; /* its stdin (we write), its stdout (we read) */
	struct buf buf;
};

static void proc_start(struct proc *p)
{
	const char *bin = getenv("SANDBOXD_MCP_BIN");
	char path[4096];
	if (!bin) {
		const char *daemon = getenv("SANDBOXD_BIN");
		ck_assert_msg(daemon != NULL, "SANDBOXD_BIN is not set (run through make check)");
		snprintf(path, sizeof path, "%s", daemon);
		char *slash = strrchr(path, '/');
		ck_assert_ptr_nonnull(slash);
		snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "sandboxd-mcp");
		bin = path;
	}
	int in[2], out[2];
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	char errlog[160];
	snprintf(errlog, sizeof errlog, "%s/bridge.log", d.dir);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		int e = open(errlog, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(e, 2);
		execl(bin, bin, "--socket", d.sock, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = out[0];
	p->buf = (struct buf)BUF_INIT;
}

static void proc_send(struct proc *p, const char *line)
{
	size_t len = strlen(line);
	ck_assert_int_eq(write(p->in, line, len), (ssize_t)len);
	ck_assert_int_eq(write(p->in, "\n", 1), 1);
}

/* The next message on its stdout (every line must be JSON-RPC), or NULL at
 * EOF; fails after timeout_ms. */
static json_t *proc_next(struct proc *p, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		const char *nl = memchr(buf_peek(&p->buf), '\n', buf_len(&p->buf));
		if (buf_len(&p->buf) && nl) {
			size_t n = (size_t)(nl - buf_peek(&p->buf));
			json_t *m = json_loadb(buf_peek(&p->buf), n, 0, NULL);
			ck_assert_msg(m != NULL, "not JSON on stdout: %.*s", (int)n,
				      buf_peek(&p->buf));
			ck_assert_str_eq(jstr(m, "jsonrpc"), "2.0");
			buf_consume(&p->buf, n + 1);
			return m;
		}
		uint64_t now = now_ms();
		ck_assert_msg(now < end, "nothing from the bridge in %d ms", timeout_ms);
		struct pollfd pfd = {p->out, POLLIN, 0};
		poll(&pfd, 1, (int)(end - now));
		char chunk[65536];
		ssize_t r = read(p->out, chunk, sizeof chunk);
		if (r == 0)
			return NULL;
		if (r > 0)
			buf_append(&p->buf, chunk, (size_t)r);
	}
}

/* The response to id, skipping notifications (counted in *notes). */
static json_t *proc_reply(struct proc *p, long id, int *notes)
{
	for (;;) {
		json_t *m = proc_next(p, 30000);
		ck_assert_ptr_nonnull(m);
		if (json_object_get(m, "method")) {
			if (notes)
				(*notes)++;
			json_decref(m);
			continue;
		}
		ck_assert_int_eq(jint(m, "id"), id);
		return m;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

START_TEST(test_binary_over_pipes)
{
	struct proc p;
	proc_start(&p);
	proc_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
		      "\"name\":\"check\",\"version\":\"1\"}}}");
	json_t *m = proc_reply(&p, 1, NULL);
	ck_assert_str_eq(jstr(json_object_get(m, "result"), "protocolVersion"), "2025-11-25");
	json_decref(m);
	proc_send(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

	/* Round trips through the bridge and straight to the daemon, of one
	 * script (cached by the first, so neither writes the cache). */
	enum { N = 40 };
	uint64_t via[N], direct[N];
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	for (int i = 0; i < N; i++) {
		char line[256];
		snprintf(line, sizeof line,
			 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
			 "\"name\":\"execute\",\"arguments\":{\"code\":\"return 2 * 21\"}}}",
			 100 + i);
		double t0 = now_us();
		proc_send(&p, line);
		m = proc_reply(&p, 100 + i, NULL);
		via[i] = (uint64_t)(now_us() - t0);
		json_t *sc = json_object_get(json_object_get(m, "result"), "structuredContent");
		ck_assert_int_eq(json_integer_value(json_object_get(sc, "value")), 42);
		json_decref(m);
		t0 = now_us();
		json_t *r = client_call(
			&c, json_pack("{s:s, s:s}", "op", "execute", "code", "return 2 * 21"));
		direct[i] = (uint64_t)(now_us() - t0);
		ck_assert(jtrue(r, "ok"));
		json_decref(r);
	}
	client_close(&c);
	qsort(via, N, sizeof via[0], cmp_u64);
	qsort(direct, N, sizeof direct[0], cmp_u64);
	fprintf(stderr,
		"bridge: tools/call execute p50 %llu us, direct execute p50 %llu us (%d each)\n",
		(unsigned long long)via[N / 2], (unsigned long long)direct[N / 2], N);

	/* A running execution, then stdin closes: the bridge cancels it and
	 * exits 0, having written nothing but JSON-RPC. */
	proc_send(
		&p,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"execute\",\"arguments\":{\"code\":\"// pipes-end\\nconsole.log('up'); "
		"while (true) {}\",\"timeout_ms\":60000},\"_meta\":{\"progressToken\":1}}}");
	m = proc_next(&p, 10000);
	ck_assert_str_eq(jstr(m, "method"), "notifications/progress");
	ck_assert_str_eq(jstr(json_object_get(m, "params"), "message"), "up");
	json_decref(m);
	char *exec = find_execution("pipes-end");
	ck_assert_ptr_nonnull(exec);
	close(p.in);
	while ((m = proc_next(&p, 10000)) != NULL) {
		ck_assert_msg(!json_object_get(m, "id") || jint(m, "id") != 7 ||
				      json_object_get(m, "result") || json_object_get(m, "error"),
			      "only JSON-RPC");
		json_decref(m);
	}
	int st;
	ck_assert_int_eq(waitpid(p.pid, &st, 0), p.pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %d", st);
	json_t *s = daemon_status(exec);
	ck_assert_str_eq(jstr(s, "state"), "cancelled");
	json_decref(s);
	free(exec);
	close(p.out);
	buf_free(&p.buf);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mcp_bridge");
	TCase *tc = tcase_create("tools");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_execute_and_tools_list);
	tcase_add_test(tc, test_values_and_error_data);
	tcase_add_test(tc, test_long_output_and_status);
	tcase_add_test(tc, test_progress);
	tcase_add_test(tc, test_stream_cut);
	tcase_add_test(tc, test_cancelled);
	tcase_add_test(tc, test_background_and_store);
	tcase_add_test(tc, test_codemode_hooks);
	tcase_add_test(tc, test_shutdown);
	tcase_add_test(tc, test_daemon_gone);
	tcase_add_test(tc, test_binary_over_pipes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
