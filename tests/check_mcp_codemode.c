/*
 * check_mcp_codemode.c - code mode in a whole bridge session, in process:
 * the MCP session (mcp_rpc) fed lines as a host sends them, the tools
 * runner (mcp_toolrun) on the real daemon, and code mode (mcp_codemode)
 * over tests/mcp_stub.c as the upstream server. execute's description
 * with the declarations or, past 16 KiB, the catalogue; search_tools;
 * scripts calling the upstream tools; a call pending at the timeout
 * ending the execution as kind timeout.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../client/mcp_codemode.h"
#include "../client/mcp_config.h"
#include "../client/mcp_rpc.h"
#include "../client/mcp_tools.h"
#include "../client/ploop.h"
#include "../protocol/limits.h"
#include "testlib.h"

struct session {
	struct daemon d;
	struct ploop *loop;
	struct mrpc *rpc;
	struct mtool *tools;
	struct mcode *code;
	json_t *out; /* messages the bridge sent, not yet taken */
	int changed; /* notifications/tools/list_changed seen */
	long long next_id;
};

static void capture(void *arg, const char *line, size_t len)
{
	struct session *s = arg;
	json_t *m = json_loadb(line, len, 0, NULL);
	ck_assert_ptr_nonnull(m);
	const char *method = json_string_value(json_object_get(m, "method"));
	if (method && strcmp(method, "notifications/tools/list_changed") == 0)
		s->changed++;
	json_array_append_new(s->out, m);
}

static const char *stub(void)
{
	const char *p = getenv("SANDBOXD_MCP_STUB");
	return p ? p : "build/tests/mcp_stub";
}

/* A session whose config has the stub as server "s" with these args, and
 * the servers of extra (JSON members, or ""). */
static void session_start_with(struct session *s, const char *stub_args, const char *extra)
{
	memset(s, 0, sizeof *s);
	daemon_start(&s->d, NULL);
	s->loop = ploop_new();
	s->out = json_array();
	struct mrpc_server_info info = {"sandboxd", NULL, "0", NULL};
	s->rpc = mrpc_new(&info, capture, s);
	ck_assert_ptr_nonnull(s->rpc);
	struct mtool_options o = {.socket_path = s->d.sock};
	char *why = NULL;
	s->tools = mtool_new(s->loop, s->rpc, &o, &why);
	ck_assert_msg(s->tools != NULL, "%s", why);
	char text[4096];
	snprintf(text, sizeof text,
		 "{\"mcpServers\": {\"s\": {\"command\": \"%s\", \"args\": [%s]}%s},"
		 " \"sandboxd\": {\"servers\": {\"s\": {\"deny\": [\"secret_*\"]}}}}",
		 stub(), stub_args, extra);
	struct mcfg *cfg = NULL;
	ck_assert_int_eq(mcfg_parse(text, strlen(text), NULL, NULL, &cfg, text, sizeof text), 0);
	s->code = mcode_new(s->loop, s->rpc, s->tools, cfg, &why);
	ck_assert_msg(s->code != NULL, "%s", why);
	const char init[] = "{\"jsonrpc\": \"2.0\", \"id\": 0, \"method\": \"initialize\", "
			    "\"params\": {\"protocolVersion\": \"2025-11-25\", \"capabilities\": "
			    "{}, \"clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}}";
	mrpc_feed(s->rpc, init, sizeof init - 1);
	const char done[] = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}";
	mrpc_feed(s->rpc, done, sizeof done - 1);
	s->next_id = 1;
}

static void session_start(struct session *s, const char *stub_args)
{
	session_start_with(s, stub_args, "");
}

static void on_shutdown(void *arg) { *(bool *)arg = true; }

static void run_until(struct session *s, const bool *flag, int max_ms)
{
	uint64_t end = ploop_now_ms() + (uint64_t)max_ms;
	while (!*flag) {
		ck_assert_msg(ploop_now_ms() < end, "nothing happened in %d ms", max_ms);
		ck_assert_int_eq(ploop_once(s->loop, 100), 0);
	}
}

static void session_stop(struct session *s)
{
	bool done = false;
	mtool_shutdown(s->tools, on_shutdown, &done);
	run_until(s, &done, 10000);
	mcode_free(s->code);
	mtool_free(s->tools);
	mrpc_free(s->rpc);
	ploop_free(s->loop);
	json_decref(s->out);
	daemon_stop(&s->d);
}

/* The response to request id (a new reference), waiting for it. */
static json_t *response(struct session *s, long long id)
{
	uint64_t end = ploop_now_ms() + 30000;
	for (;;) {
		size_t i;
		json_t *m;
		json_array_foreach (s->out, i, m) {
			json_t *mid = json_object_get(m, "id");
			if (json_is_integer(mid) && json_integer_value(mid) == id &&
			    !json_object_get(m, "method")) {
				json_incref(m);
				json_array_remove(s->out, i);
				return m;
			}
		}
		ck_assert_msg(ploop_now_ms() < end, "no response to %lld", id);
		ck_assert_int_eq(ploop_once(s->loop, 100), 0);
	}
}

/* Sends a request (params as JSON text) and returns its result. */
static json_t *request(struct session *s, const char *method, json_t *params)
{
	long long id = s->next_id++;
	json_t *m = json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", (json_int_t)id,
			      "method", method, "params", params ? params : json_object());
	char *line = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	mrpc_feed(s->rpc, line, strlen(line));
	free(line);
	json_t *r = response(s, id);
	json_t *result = json_incref(json_object_get(r, "result"));
	ck_assert_msg(result != NULL, "%s failed: %s", method, json_dumps(r, 0));
	json_decref(r);
	return result;
}

static json_t *call_tool(struct session *s, const char *tool, const char *args)
{
	json_t *a = json_loads(args, 0, NULL);
	ck_assert_ptr_nonnull(a);
	return request(s, "tools/call", json_pack("{s:s, s:o}", "name", tool, "arguments", a));
}

/* The tools/list entry of name (borrowed from list). */
static json_t *listed(json_t *list, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach (json_object_get(list, "tools"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return t;
	return NULL;
}

/* Waits for execute's description to name the upstream tools (the
 * servers start and list, then the daemon renders the declarations, then
 * list_changed), and returns the tools/list result. */
static json_t *list_when_declared(struct session *s)
{
	uint64_t end = ploop_now_ms() + 30000;
	for (;;) {
		int seen = s->changed;
		json_t *list = request(s, "tools/list", NULL);
		const char *d =
			json_string_value(json_object_get(listed(list, "execute"), "description"));
		if (d && strstr(d, "tools.<server>.<tool>"))
			return list;
		json_decref(list);
		while (s->changed == seen) {
			ck_assert_msg(ploop_now_ms() < end, "execute's description never changed");
			ck_assert_int_eq(ploop_once(s->loop, 100), 0);
		}
	}
}

static const char *text0(json_t *result)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(result, "content"), 0), "text"));
}

START_TEST(test_declarations_and_calls)
{
	struct session s;
	session_start(&s, "");
	json_t *list = list_when_declared(&s);
	const char *d = json_string_value(json_object_get(listed(list, "execute"), "description"));
	ck_assert_msg(strstr(d, "```typescript") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "echo") && strstr(d, "cancelled"), "%s", d);
	ck_assert_msg(strstr(d, "secret_key") == NULL, "a denied tool is declared: %s", d);
	ck_assert_uint_le(strlen(d), LIMIT_MCP_DECL_BYTES + 4096);
	ck_assert_ptr_null(mcode_problems(s.code));
	json_t *search = listed(list, "search_tools");
	ck_assert_ptr_nonnull(search);
	ck_assert(json_is_true(
		json_object_get(json_object_get(search, "annotations"), "readOnlyHint")));
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(search, "outputSchema"), "type")),
		"object");
	json_decref(list);

	json_t *r = call_tool(&s, "execute",
			      "{\"code\": \"return [tools.s.echo({a: 1}), tools.s.text({})]\"}");
	ck_assert_msg(!json_is_true(json_object_get(r, "isError")), "%s", text0(r));
	char *v = json_dumps(json_object_get(json_object_get(r, "structuredContent"), "value"),
			     JSON_COMPACT);
	ck_assert_str_eq(v, "[{\"a\":1},\"plain words\"]");
	free(v);
	json_decref(r);

	/* Pending at the timeout: kind timeout, not a script error. */
	r = call_tool(&s, "execute",
		      "{\"code\": \"try { tools.s.slow({}) } catch (e) { return 'caught: ' + e }\","
		      " \"timeout_ms\": 1000}");
	json_t *sc = json_object_get(r, "structuredContent");
	ck_assert_msg(json_is_true(json_object_get(r, "isError")), "%s", text0(r));
	ck_assert_str_eq(json_string_value(json_object_get(sc, "state")), "timeout");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(sc, "error"), "kind")),
			 "timeout");
	json_decref(r);
	/* ... and cancelled upstream before the next call reached it. */
	r = call_tool(&s, "execute", "{\"code\": \"return tools.s.cancelled({})\"}");
	v = json_dumps(json_object_get(json_object_get(r, "structuredContent"), "value"),
		       JSON_COMPACT);
	ck_assert_str_eq(v, "{\"cancelled\":1}");
	free(v);
	json_decref(r);

	/* A background execution waiting on an upstream call, cancelled
	 * from another connection: the bridge learns it ended without any
	 * status asked, and cancels the call upstream. */
	r = call_tool(
		&s, "execute",
		"{\"code\": \"tools.s.slow({})\", \"timeout_ms\": 60000, \"background\": true}");
	char *bg = strdup(json_string_value(
		json_object_get(json_object_get(r, "structuredContent"), "execution_id")));
	json_decref(r);
	uint64_t end = ploop_now_ms() + 10000;
	while (mcode_calls_running(s.code) == 0) { /* until its call is upstream */
		ck_assert_msg(ploop_now_ms() < end, "the call never went upstream");
		ck_assert_int_eq(ploop_once(s.loop, 100), 0);
	}
	uint64_t t0 = ploop_now_ms();
	json_t *cr =
		call_once(s.d.sock, json_pack("{s:s, s:s}", "op", "cancel", "execution_id", bg));
	ck_assert(json_is_true(json_object_get(cr, "ok")));
	json_decref(cr);
	while (mcode_calls_running(s.code) > 0) {
		ck_assert_msg(ploop_now_ms() - t0 < 10000, "the call still runs 10 s after");
		ck_assert_int_eq(ploop_once(s.loop, 100), 0);
	}
	fprintf(stderr, "background execution's upstream call ended %llu ms after it\n",
		(unsigned long long)(ploop_now_ms() - t0));
	for (;;) {
		r = call_tool(&s, "execute", "{\"code\": \"return tools.s.cancelled({})\"}");
		v = json_dumps(json_object_get(json_object_get(r, "structuredContent"), "value"),
			       JSON_COMPACT);
		json_decref(r);
		bool seen = strcmp(v, "{\"cancelled\":2}") == 0;
		free(v);
		if (seen)
			break;
		ck_assert_msg(ploop_now_ms() - t0 < 10000, "not cancelled upstream in 10 s");
		ploop_once(s.loop, 50);
	}
	free(bg);

	/* search_tools: the declarations of the matches. */
	r = call_tool(&s, "search_tools", "{\"query\": \"cancel\"}");
	ck_assert_msg(!json_is_true(json_object_get(r, "isError")), "%s", text0(r));
	sc = json_object_get(r, "structuredContent");
	v = json_dumps(json_object_get(sc, "tools"), JSON_COMPACT);
	ck_assert_str_eq(v, "[\"tools.s.cancelled\"]");
	free(v);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "matched")), 1);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(sc, "typescript")), "cancelled"));
	ck_assert_ptr_nonnull(strstr(text0(r), "cancelled"));
	json_decref(r);
	r = call_tool(&s, "search_tools", "{\"query\": \"no such words\"}");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "structuredContent"),
							    "matched")),
			 0);
	ck_assert_ptr_nonnull(strstr(text0(r), "No upstream tool matches"));
	json_decref(r);
	r = call_tool(&s, "search_tools", "{}");
	ck_assert(json_is_true(json_object_get(r, "isError")));
	ck_assert_str_eq(text0(r), "query: required");
	json_decref(r);
	r = call_tool(&s, "search_tools", "{\"query\": 5}");
	ck_assert_str_eq(text0(r), "query: expected a string");
	json_decref(r);
	session_stop(&s);
}
END_TEST

START_TEST(test_catalogue_past_the_size)
{
	struct session s;
	/* 40 more tools of 600-byte descriptions: past 16 KiB. */
	session_start(&s, "\"--many\", \"40\"");
	json_t *list = list_when_declared(&s);
	const char *d = json_string_value(json_object_get(listed(list, "execute"), "description"));
	ck_assert_msg(strstr(d, "```typescript") == NULL, "declared in full: %zu bytes: %s",
		      strlen(d), d);
	ck_assert_msg(strstr(d, "search_tools {query}") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "tools.s.echo, tools.s.text") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "tools.s.tool_39") != NULL, "%s", d);
	ck_assert_uint_le(strlen(d), 2000 + LIMIT_MCP_CATALOGUE_BYTES);
	json_decref(list);
	/* The tools are there all the same. */
	json_t *r = call_tool(&s, "execute", "{\"code\": \"return typeof tools.s.tool_39\"}");
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_object_get(r, "structuredContent"), "value")),
			 "function");
	json_decref(r);
	session_stop(&s);
}
END_TEST

START_TEST(test_server_down_reported)
{
	struct session s;
	session_start_with(&s, "", ", \"broken\": {\"command\": \"/nonexistent/server\"}");
	/* mcode_new waited for both: the description is there at once. */
	json_t *list = request(&s, "tools/list", NULL);
	const char *d = json_string_value(json_object_get(listed(list, "execute"), "description"));
	ck_assert_msg(strstr(d, "```typescript") != NULL, "%s", d);
	ck_assert_msg(
		strstr(d, "Upstream servers down (restarted on the next call): broken (failed "
			  "to start: cannot run /nonexistent/server: No such file or directory)"),
		"%s", d);
	json_decref(list);
	json_t *p = mcode_problems(s.code);
	ck_assert_uint_eq(json_array_size(p), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(p, 0), "server")),
			 "broken");
	json_decref(p);
	/* The other server works; the result names the one that is down
	 * (restarted for the call, failed again), in both renderings. */
	json_t *r = call_tool(&s, "execute", "{\"code\": \"return tools.s.text({})\"}");
	json_t *sc = json_object_get(r, "structuredContent");
	ck_assert_str_eq(json_string_value(json_object_get(sc, "value")), "plain words");
	ck_assert(!json_is_true(json_object_get(r, "isError")));
	json_t *ue = json_object_get(sc, "upstream_errors");
	ck_assert_uint_eq(json_array_size(ue), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ue, 0), "server")),
			 "broken");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ue, 0), "error")),
			 "failed to start: cannot run /nonexistent/server: No such file or "
			 "directory");
	ck_assert_msg(strstr(text0(r), "upstream server broken is down (restarted on the next "
				       "call): failed to start: cannot run /nonexistent/server"),
		      "%s", text0(r));
	json_decref(r);
	/* A server that dies during the execution: the call throws, and the
	 * result says why it is down. */
	r = call_tool(&s, "execute",
		      "{\"code\": \"try { tools.s.crash({}) } catch (e) { return String(e) }\"}");
	sc = json_object_get(r, "structuredContent");
	ck_assert_msg(strstr(json_string_value(json_object_get(sc, "value")),
			     "upstream server s failed during the call: exited with status 7"),
		      "%s", text0(r));
	ue = json_object_get(sc, "upstream_errors");
	ck_assert_uint_eq(json_array_size(ue), 2);
	char *u = json_dumps(ue, JSON_COMPACT);
	ck_assert_msg(strstr(u, "{\"server\":\"s\",\"error\":\"exited with status 7\"}"), "%s", u);
	free(u);
	ck_assert_msg(strstr(text0(r), "upstream server s is down (restarted on the next call): "
				       "exited with status 7"),
		      "%s", text0(r));
	json_decref(r);
	/* The next call restarts it: it is not reported any more. */
	r = call_tool(&s, "execute", "{\"code\": \"return tools.s.text({})\"}");
	sc = json_object_get(r, "structuredContent");
	ck_assert_str_eq(json_string_value(json_object_get(sc, "value")), "plain words");
	u = json_dumps(json_object_get(sc, "upstream_errors"), JSON_COMPACT);
	ck_assert_msg(u && !strstr(u, "\"s\""), "%s", u);
	free(u);
	json_decref(r);
	/* With every server up, no upstream_errors at all. */
	session_stop(&s);
	session_start(&s, "");
	r = call_tool(&s, "execute", "{\"code\": \"return 1\"}");
	ck_assert_ptr_null(
		json_object_get(json_object_get(r, "structuredContent"), "upstream_errors"));
	ck_assert_ptr_null(strstr(text0(r), "upstream"));
	json_decref(r);
	session_stop(&s);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *su = suite_create("mcp_codemode");
	TCase *tc = tcase_create("mcp_codemode");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_declarations_and_calls);
	tcase_add_test(tc, test_catalogue_past_the_size);
	tcase_add_test(tc, test_server_down_reported);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
