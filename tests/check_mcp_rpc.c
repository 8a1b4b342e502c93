/*
 * check_mcp_rpc.c - the bridge's JSON-RPC and MCP layer (client/mcp_rpc.c),
 * lines in, lines out: framing, every error the spec names, both eras of
 * the protocol and the negotiation of each version, ids echoed byte for
 * byte, tool calls answered later, cancellation routed to the right call
 * (and nothing sent for it afterwards), progress, list_changed.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../client/mcp_rpc.h"
#include "../protocol/limits.h"

/* ---- The output side: every line written, in order. */

#define MAX_OUT 512
static char *out[MAX_OUT];
static size_t nout, taken;
static int writes_with_inner_newline;

static void capture(void *arg, const char *line, size_t len)
{
	(void)arg;
	ck_assert_msg(len > 0 && line[len - 1] == '\n', "a message must end in a newline");
	if (memchr(line, '\n', len - 1))
		writes_with_inner_newline++;
	ck_assert(nout < MAX_OUT);
	out[nout++] = strndup(line, len - 1);
}

static void reset_out(void)
{
	for (size_t i = 0; i < nout; i++)
		free(out[i]);
	nout = taken = 0;
	writes_with_inner_newline = 0;
}

/* The next line written, as text (borrowed until reset). */
static const char *next_raw(void)
{
	ck_assert_msg(taken < nout, "expected another message, got none");
	return out[taken++];
}

/* The next line written, parsed (caller decrefs). */
static json_t *next_msg(void)
{
	const char *raw = next_raw();
	json_error_t e;
	json_t *j = json_loads(raw, JSON_DECODE_INT_AS_REAL, &e);
	ck_assert_msg(j != NULL, "output is not JSON: %s", raw);
	ck_assert_str_eq(json_string_value(json_object_get(j, "jsonrpc")), "2.0");
	return j;
}

static void assert_nothing_more(void)
{
	ck_assert_msg(taken == nout, "unexpected message: %s", taken < nout ? out[taken] : "");
}

static void feed(struct mrpc *m, const char *s) { mrpc_feed(m, s, strlen(s)); }

/* The next message must be an error with code; returns its raw text. */
static const char *expect_error(int code)
{
	const char *raw = next_raw();
	json_t *j = json_loads(raw, JSON_DECODE_INT_AS_REAL, NULL);
	ck_assert_msg(j != NULL, "not JSON: %s", raw);
	json_t *err = json_object_get(j, "error");
	ck_assert_msg(json_is_object(err), "not an error: %s", raw);
	ck_assert_msg(json_number_value(json_object_get(err, "code")) == code,
		      "expected code %d: %s", code, raw);
	ck_assert(json_is_string(json_object_get(err, "message")));
	ck_assert(json_object_get(j, "result") == NULL);
	json_decref(j);
	return raw;
}

/* The next message must be a result; returns it (caller decrefs). */
static json_t *expect_result(void)
{
	json_t *j = next_msg();
	ck_assert_msg(json_is_object(json_object_get(j, "result")), "not a result: %s",
		      out[taken - 1]);
	return j;
}

/* ---- A tool that keeps its calls to answer them later. */

static struct mrpc_call *held[LIMIT_MCP_CALLS_RUNNING + 16];
static size_t nheld;
static int cancels;
static struct mrpc_call *cancelled_call;
static json_t *last_args;
static bool end_in_cancel;

static void on_cancel(void *arg, struct mrpc_call *c)
{
	(void)arg;
	cancels++;
	cancelled_call = c;
	if (end_in_cancel) {
		for (size_t i = 0; i < nheld; i++)
			if (held[i] == c)
				held[i] = NULL;
		mrpc_call_result(c, json_pack("{s:[]}", "content"));
	}
}

static void hold_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	json_decref(last_args);
	last_args = json_deep_copy(args);
	mrpc_call_on_cancel(c, on_cancel, NULL);
	ck_assert_uint_lt(nheld, sizeof held / sizeof *held);
	held[nheld++] = c;
}

/* A tool that answers at once, with its arguments echoed. */
static void echo_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	json_t *r = json_pack("{s:[{s:s,s:s}],s:O}", "content", "type", "text", "text", "ok",
			      "structuredContent", args);
	mrpc_call_result(c, r);
}

static void bad_args_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	(void)args;
	mrpc_call_tool_error(c, "code: must be a string");
}

static struct mrpc *new_session(void)
{
	reset_out();
	nheld = 0;
	cancels = 0;
	cancelled_call = NULL;
	end_in_cancel = false;
	struct mrpc_server_info info = {"sandboxd", "sandboxd", "9.9.9", NULL};
	struct mrpc *m = mrpc_new(&info, capture, NULL);
	ck_assert(m != NULL);
	json_t *in = json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties", "code",
			       "type", "string", "required", "code");
	json_t *outs = json_pack("{s:s}", "type", "object");
	json_t *ann = json_pack("{s:b}", "readOnlyHint", 1);
	struct mrpc_tool_def d = {"hold", NULL, "holds the call", in, outs, NULL, hold_tool, NULL};
	ck_assert_int_eq(mrpc_tool_add(m, &d), 0);
	struct mrpc_tool_def e = {"echo", "Echo", "answers at once", in,
				  NULL,	  ann,	  echo_tool,	     NULL};
	ck_assert_int_eq(mrpc_tool_add(m, &e), 0);
	struct mrpc_tool_def b = {"bad", NULL, "argument error", in,
				  NULL,	 NULL, bad_args_tool,	 NULL};
	ck_assert_int_eq(mrpc_tool_add(m, &b), 0);
	json_decref(in);
	json_decref(outs);
	json_decref(ann);
	return m;
}

static void legacy_init(struct mrpc *m)
{
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
		"\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
		"\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
	json_decref(expect_result());
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	assert_nothing_more();
}

#define ENV                                                                      \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* ---- Framing and JSON-RPC errors. */

START_TEST(framing_blank_and_crlf)
{
	struct mrpc *m = new_session();
	feed(m, "");
	feed(m, "   \t ");
	feed(m, "\r");
	assert_nothing_more();
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r");
	json_t *r = expect_result();
	ck_assert_int_eq(json_object_size(json_object_get(r, "result")), 0);
	json_decref(r);
	/* A string holding a newline is escaped: one message, one line. */
	legacy_init(m);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\",\"arguments\":{\"code\":\"a\\nb\"}}}");
	r = expect_result();
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_object_get(r, "result"), "structuredContent"),
				 "code")),
			 "a\nb");
	json_decref(r);
	ck_assert_int_eq(writes_with_inner_newline, 0);
	mrpc_free(m);
}
END_TEST

START_TEST(errors_parse_and_invalid)
{
	struct mrpc *m = new_session();
	const char *raw;
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
	raw = expect_error(MRPC_PARSE_ERROR);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":null"));
	feed(m, "not json at all");
	raw = expect_error(MRPC_PARSE_ERROR);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":null"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}");
	expect_error(MRPC_PARSE_ERROR); /* duplicate member */
	/* Batches: one -32600 with id null, whatever they hold. */
	feed(m, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
	raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":null"));
	assert_nothing_more();
	feed(m, "[]");
	raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":null"));
	feed(m, "42");
	expect_error(MRPC_INVALID_REQUEST);
	feed(m, "\"ping\"");
	expect_error(MRPC_INVALID_REQUEST);
	/* Ids that are not ids. */
	const char *bad_ids[] = {"null", "1.5", "true", "{}", "[1]", "1e3", "-1.0"};
	for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
		char line[128];
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}",
			 bad_ids[i]);
		feed(m, line);
		raw = expect_error(MRPC_INVALID_REQUEST);
		ck_assert_msg(strstr(raw, "\"id\":null") != NULL, "%s: %s", bad_ids[i], raw);
	}
	/* Wrong envelope, with the id echoed. */
	feed(m, "{\"id\":7,\"method\":\"ping\"}");
	raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":7"));
	feed(m, "{\"jsonrpc\":\"1.0\",\"id\":8,\"method\":\"ping\"}");
	raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":8"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":5}");
	raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":9"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":10}");
	expect_error(MRPC_INVALID_REQUEST);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"params\":3}");
	expect_error(MRPC_INVALID_REQUEST);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\",\"params\":[1]}");
	expect_error(MRPC_INVALID_PARAMS);
	/* A line dropped for its size. */
	mrpc_line_too_long(m, LIMIT_MCP_LINE_BYTES);
	raw = expect_error(MRPC_PARSE_ERROR);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":null"));
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

START_TEST(errors_method_and_params)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}");
	expect_error(MRPC_METHOD_NOT_FOUND);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}");
	expect_error(MRPC_METHOD_NOT_FOUND);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}}");
	expect_error(MRPC_INVALID_PARAMS);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"nosuch\"}}");
	const char *raw = expect_error(MRPC_INVALID_PARAMS);
	ck_assert_ptr_nonnull(strstr(raw, "nosuch"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\",\"arguments\":[1]}}");
	expect_error(MRPC_INVALID_PARAMS);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\",\"_meta\":{\"progressToken\":1.5}}}");
	expect_error(MRPC_INVALID_PARAMS);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":"
		"\"zz\"}}");
	expect_error(MRPC_INVALID_PARAMS);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"initialize\",\"params\":{}}");
	expect_error(MRPC_INVALID_PARAMS);
	/* Wrong arguments are the tool's to report, as a result. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"bad\",\"arguments\":{}}}");
	json_t *r = expect_result();
	json_t *res = json_object_get(r, "result");
	ck_assert(json_is_true(json_object_get(res, "isError")));
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(res, "content"), 0), "text")),
			 "code: must be a string");
	json_decref(r);
	/* Notifications need no answer, unknown ones included; responses from
	 * the client are not answered either. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\",\"params\":{}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":999}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/method\"}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":1,\"message\":\"x\"}}");
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

START_TEST(ids_echoed_exactly)
{
	struct mrpc *m = new_session();
	const char *ids[] = {"0",
			     "-0",
			     "7",
			     "-42",
			     "9223372036854775807",
			     "123456789012345678901234567890",
			     "-99999999999999999999999",
			     "\"abc\"",
			     "\"\"",
			     "\"caf\\u00e9 \\\"quoted\\\"\"",
			     "\"1\""};
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
		char line[256], want[256];
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\": %s ,\"method\":\"ping\"}",
			 ids[i]);
		feed(m, line);
		const char *raw = next_raw();
		snprintf(want, sizeof want, "\"id\":%s,", ids[i]);
		ck_assert_msg(strstr(raw, want) != NULL, "id %s came back as %s", ids[i], raw);
		ck_assert_ptr_nonnull(strstr(raw, "\"result\":{}"));
	}
	/* The id member may come anywhere, and a huge integer elsewhere in
	 * the message does not make it unreadable. */
	feed(m, "{\"method\":\"ping\",\"params\":{\"x\":123456789012345678901234567890},"
		"\"jsonrpc\":\"2.0\",\"id\":\"last\"}");
	ck_assert_ptr_nonnull(strstr(next_raw(), "\"id\":\"last\""));
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

/* ---- Legacy era. */

START_TEST(legacy_negotiation)
{
	const char *asked[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
			       "2024-10-07", "1999-01-01", "2026-07-28"};
	const char *got[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
			     "2025-11-25", "2025-11-25", "2025-11-25"};
	for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
		struct mrpc *m = new_session();
		ck_assert(!mrpc_ready(m));
		ck_assert_ptr_null(mrpc_protocol_version(m));
		char line[256];
		snprintf(line, sizeof line,
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
			 "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{"
			 "\"name\":\"c\",\"version\":\"2\"}}}",
			 asked[i]);
		feed(m, line);
		json_t *r = expect_result();
		json_t *res = json_object_get(r, "result");
		ck_assert_str_eq(json_string_value(json_object_get(res, "protocolVersion")),
				 got[i]);
		ck_assert(json_is_true(json_object_get(
			json_object_get(json_object_get(res, "capabilities"), "tools"),
			"listChanged")));
		json_t *si = json_object_get(res, "serverInfo");
		ck_assert_str_eq(json_string_value(json_object_get(si, "name")), "sandboxd");
		ck_assert_str_eq(json_string_value(json_object_get(si, "version")), "9.9.9");
		ck_assert_ptr_null(json_object_get(res, "resultType"));
		json_decref(r);
		ck_assert(mrpc_ready(m));
		ck_assert_str_eq(mrpc_protocol_version(m), got[i]);
		ck_assert_str_eq(json_string_value(json_object_get(mrpc_client_info(m), "name")),
				 "c");
		assert_nothing_more();
		mrpc_free(m);
	}
}
END_TEST

START_TEST(legacy_before_initialize)
{
	struct mrpc *m = new_session();
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	json_decref(expect_result());
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	const char *raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, "initialize"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\"}}");
	expect_error(MRPC_INVALID_REQUEST);
	/* No list_changed before the client has listed. */
	mrpc_tools_changed(m);
	assert_nothing_more();
	legacy_init(m);
	mrpc_tools_changed(m);
	json_t *n = next_msg();
	ck_assert_str_eq(json_string_value(json_object_get(n, "method")),
			 "notifications/tools/list_changed");
	ck_assert_ptr_null(json_object_get(n, "id"));
	json_decref(n);
	mrpc_free(m);
}
END_TEST

START_TEST(legacy_tools_list)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	ck_assert_int_eq(mrpc_tool_set_description(m, "hold", "new words"), 0);
	ck_assert_str_eq(mrpc_tool_description(m, "hold"), "new words");
	ck_assert_int_eq(mrpc_tool_set_description(m, "nosuch", "x"), -1);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	json_t *r = expect_result();
	json_t *res = json_object_get(r, "result");
	json_t *tools = json_object_get(res, "tools");
	ck_assert_int_eq(json_array_size(tools), 3);
	json_t *t0 = json_array_get(tools, 0), *t1 = json_array_get(tools, 1);
	ck_assert_str_eq(json_string_value(json_object_get(t0, "name")), "hold");
	ck_assert_str_eq(json_string_value(json_object_get(t0, "description")), "new words");
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(t0, "inputSchema"), "type")),
		"object");
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(t0, "outputSchema"), "type")),
		"object");
	ck_assert_ptr_null(json_object_get(t0, "annotations"));
	ck_assert_str_eq(json_string_value(json_object_get(t1, "title")), "Echo");
	ck_assert(
		json_is_true(json_object_get(json_object_get(t1, "annotations"), "readOnlyHint")));
	ck_assert_ptr_null(json_object_get(res, "nextCursor"));
	ck_assert_ptr_null(json_object_get(res, "resultType"));
	ck_assert_ptr_null(json_object_get(res, "ttlMs"));
	json_decref(r);
	ck_assert_int_eq(mrpc_tool_remove(m, "bad"), 0);
	ck_assert_int_eq(mrpc_tool_remove(m, "bad"), -1);
	/* Pagination past a page of tools. */
	json_t *in = json_pack("{s:s}", "type", "object");
	for (int i = 0; i < 70; i++) {
		char name[16];
		snprintf(name, sizeof name, "t%d", i);
		struct mrpc_tool_def d = {name, NULL, "x", in, NULL, NULL, echo_tool, NULL};
		ck_assert_int_eq(mrpc_tool_add(m, &d), 0);
	}
	struct mrpc_tool_def bad = {"", NULL, "x", in, NULL, NULL, echo_tool, NULL};
	ck_assert_int_eq(mrpc_tool_add(m, &bad), -1);
	json_decref(in);
	size_t seen = 0;
	char cursor[32] = "";
	for (int page = 0; page < 5; page++) {
		char line[256];
		if (*cursor)
			snprintf(line, sizeof line,
				 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\","
				 "\"params\":{\"cursor\":\"%s\"}}",
				 10 + page, cursor);
		else
			snprintf(line, sizeof line,
				 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}",
				 10 + page);
		feed(m, line);
		r = expect_result();
		res = json_object_get(r, "result");
		size_t n = json_array_size(json_object_get(res, "tools"));
		ck_assert(n <= LIMIT_MCP_TOOLS_PAGE);
		seen += n;
		json_t *nc = json_object_get(res, "nextCursor");
		if (!nc) {
			json_decref(r);
			break;
		}
		snprintf(cursor, sizeof cursor, "%s", json_string_value(nc));
		json_decref(r);
	}
	ck_assert_int_eq(seen, 72);
	mrpc_free(m);
}
END_TEST

/* ---- Calls: later answers, cancellation, progress. */

/* Calls running at once are bounded: one past LIMIT_MCP_CALLS_RUNNING is
 * answered -32603 at once (its tool never runs), and room comes back as
 * calls end or are cancelled. */
/* Error messages that quote what the client sent, cut to a length, are
 * still UTF-8: a character cut in two made the message unencodable, and
 * the request went unanswered. */
START_TEST(errors_quoting_cut_utf8)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	char name[400] = "a", line[1200];
	for (int i = 0; i < 150; i++)
		strcat(name, "\xc3\xa9");
	snprintf(line, sizeof line,
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"%s\"}}",
		 name);
	feed(m, line);
	ck_assert_ptr_nonnull(strstr(expect_error(MRPC_INVALID_PARAMS), "Unknown tool: a\xc3\xa9"));
	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"%s\"}", name);
	feed(m, line);
	ck_assert_ptr_nonnull(strstr(expect_error(MRPC_METHOD_NOT_FOUND), "\"id\":2,"));
	/* A token jansson quotes, cut to its error buffer. */
	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":%s}", name + 1);
	feed(m, line);
	expect_error(MRPC_PARSE_ERROR);
	assert_nothing_more();
	mrpc_free(m);
	/* The modern era's -32022 quotes the version asked for. */
	m = new_session();
	snprintf(line, sizeof line,
		 "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\",\"params\":{"
		 "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\","
		 "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
		 name + 99);
	feed(m, line);
	ck_assert_ptr_nonnull(strstr(expect_error(MRPC_UNSUPPORTED_VERSION), "\"id\":4,"));
	assert_nothing_more();
	mrpc_free(m);
	reset_out();
}
END_TEST

/* Ids and progress tokens longer than LIMIT_MCP_ID_BYTES are refused (and
 * the id echoed): a running call keeps them. One of the limit is fine. */
START_TEST(long_ids_refused)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	enum { N = LIMIT_MCP_ID_BYTES + 1 };
	char *id = malloc(N + 1), *line = malloc(2 * N + 200);
	memset(id, 'i', N);
	id[N] = '\0';
	sprintf(line,
		"{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}",
		id);
	feed(m, line);
	const char *raw = expect_error(MRPC_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(raw, id));
	ck_assert_uint_eq(nheld, 0);
	/* The same long text as a progress token. */
	sprintf(line,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\",\"_meta\":{\"progressToken\":\"%s\"}}}",
		id);
	feed(m, line);
	ck_assert_ptr_nonnull(strstr(expect_error(MRPC_INVALID_PARAMS), "progressToken"));
	ck_assert_uint_eq(nheld, 0);
	/* At the limit (the quotes count): taken. */
	id[N - 3] = '\0';
	sprintf(line,
		"{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\",\"_meta\":{\"progressToken\":\"%s\"}}}",
		id, id);
	feed(m, line);
	assert_nothing_more();
	ck_assert_uint_eq(nheld, 1);
	mrpc_call_result(held[0], json_pack("{s:[]}", "content"));
	json_decref(expect_result());
	free(id);
	free(line);
	mrpc_free(m);
	reset_out();
}
END_TEST

START_TEST(calls_running_bounded)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	char line[200];
	for (unsigned i = 0; i < LIMIT_MCP_CALLS_RUNNING; i++) {
		snprintf(line, sizeof line,
			 "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\",\"params\":{"
			 "\"name\":\"hold\"}}",
			 i);
		feed(m, line);
	}
	assert_nothing_more();
	ck_assert_uint_eq(nheld, LIMIT_MCP_CALLS_RUNNING);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"over\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	const char *raw = expect_error(MRPC_INTERNAL_ERROR);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":\"over\""));
	ck_assert_ptr_nonnull(strstr(raw, "Too many tool calls"));
	ck_assert_uint_eq(nheld, LIMIT_MCP_CALLS_RUNNING);
	/* Other requests are still served. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
	json_decref(expect_result());
	/* One ends: room for one more. */
	mrpc_call_result(held[0], json_pack("{s:[]}", "content"));
	json_decref(expect_result());
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	assert_nothing_more();
	ck_assert_uint_eq(nheld, LIMIT_MCP_CALLS_RUNNING + 1);
	/* One is cancelled: room again, nothing sent for it. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":1}}");
	ck_assert_int_eq(cancels, 1);
	mrpc_call_result(held[1], json_pack("{s:[]}", "content"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	assert_nothing_more();
	ck_assert_uint_eq(nheld, LIMIT_MCP_CALLS_RUNNING + 2);
	for (size_t i = 2; i < nheld; i++)
		mrpc_call_result(held[i], json_pack("{s:[]}", "content"));
	mrpc_free(m);
	reset_out();
}
END_TEST

START_TEST(calls_answered_later)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"hold\",\"arguments\":{\"code\":\"1\"}}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"hold\"}}");
	assert_nothing_more();
	ck_assert_int_eq(nheld, 2);
	ck_assert_str_eq(mrpc_call_tool(held[0]), "hold");
	ck_assert_ptr_null(mrpc_call_progress_token(held[0]));
	ck_assert_str_eq(mrpc_call_protocol_version(held[0]), "2025-06-18");
	ck_assert(json_is_object(last_args) && json_object_size(last_args) == 0);
	/* An id still in use is refused. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	ck_assert_ptr_nonnull(strstr(expect_error(MRPC_INVALID_REQUEST), "\"id\":\"a\""));
	/* Answered out of order, each with its own id. */
	mrpc_call_error(held[1], -32603, "boom", json_pack("{s:i}", "n", 1));
	const char *raw = expect_error(-32603);
	ck_assert_ptr_nonnull(strstr(raw, "\"id\":2,"));
	ck_assert_ptr_nonnull(strstr(raw, "\"data\":{\"n\":1}"));
	mrpc_call_result(held[0], json_pack("{s:[]}", "content"));
	json_t *r = expect_result();
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "a");
	json_decref(r);
	/* The id is free again. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\",\"arguments\":{\"code\":\"x\"}}}");
	json_decref(expect_result());
	/* A NULL result (no memory to build it) is still an answer. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"hold\"}}");
	mrpc_call_result(held[2], NULL);
	expect_error(MRPC_INTERNAL_ERROR);
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

START_TEST(cancellation_routing)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	feed(m,
	     "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"method\":"
	     "\"tools/call\",\"params\":{\"name\":\"hold\",\"_meta\":{\"progressToken\":\"p1\"}}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\",\"_meta\":{\"progressToken\":5}}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	ck_assert_int_eq(nheld, 3);
	/* A cancel for another id, or of the wrong type, touches nothing. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":\"3\"}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":123456789012345678901234567891}}");
	ck_assert_int_eq(cancels, 0);
	/* The big id is matched digit for digit. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"reason\":\"user\",\"requestId\":123456789012345678901234567890}}");
	ck_assert_int_eq(cancels, 1);
	ck_assert_ptr_eq(cancelled_call, held[0]);
	ck_assert(mrpc_call_cancelled(held[0]));
	/* Nothing is sent for it afterwards: neither progress nor result. */
	ck_assert_int_eq(mrpc_call_progress(held[0], 1, -1, "x"), 0);
	mrpc_call_result(held[0], json_pack("{s:[]}", "content"));
	assert_nothing_more();
	/* A second cancel of the same id does nothing. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":123456789012345678901234567890}}");
	ck_assert_int_eq(cancels, 1);
	/* A string id, spelled with an escape, matches the same string. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":\"\\u0073\"}}");
	ck_assert_int_eq(cancels, 2);
	ck_assert_ptr_eq(cancelled_call, held[1]);
	mrpc_call_error(held[1], -32603, "late", NULL);
	assert_nothing_more();
	/* The third is answered as usual. */
	mrpc_call_result(held[2], json_pack("{s:[]}", "content"));
	json_t *r = expect_result();
	ck_assert_int_eq((int)json_real_value(json_object_get(r, "id")), 3);
	json_decref(r);
	/* A tool may end the call inside its cancel callback. */
	end_in_cancel = true;
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":4}}");
	ck_assert_int_eq(cancels, 3);
	assert_nothing_more();
	/* Ending the session cancels what still runs; the handle stays the
	 * tool's to end, and ending it sends nothing. */
	end_in_cancel = false;
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	struct mrpc_call *c = held[nheld - 1];
	mrpc_free(m);
	ck_assert_int_eq(cancels, 4);
	ck_assert_ptr_eq(cancelled_call, c);
	mrpc_call_result(c, json_pack("{s:[]}", "content"));
	assert_nothing_more();
}
END_TEST

START_TEST(progress_notifications)
{
	struct mrpc *m = new_session();
	legacy_init(m);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\",\"_meta\":{\"progressToken\":\"tok\"}}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\",\"_meta\":{\"progressToken\":77}}}");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
		"\"name\":\"hold\"}}");
	ck_assert_str_eq(json_string_value(mrpc_call_progress_token(held[0])), "tok");
	ck_assert_int_eq(json_integer_value(mrpc_call_progress_token(held[1])), 77);
	ck_assert_int_eq(mrpc_call_progress(held[0], 1, -1, "line one"), 1);
	json_t *n = next_msg();
	ck_assert_str_eq(json_string_value(json_object_get(n, "method")), "notifications/progress");
	json_t *p = json_object_get(n, "params");
	ck_assert_str_eq(json_string_value(json_object_get(p, "progressToken")), "tok");
	ck_assert(json_number_value(json_object_get(p, "progress")) == 1);
	ck_assert_str_eq(json_string_value(json_object_get(p, "message")), "line one");
	ck_assert_ptr_null(json_object_get(p, "total"));
	ck_assert_ptr_null(json_object_get(n, "id"));
	json_decref(n);
	/* Progress must increase: an equal or smaller value is not sent. */
	ck_assert_int_eq(mrpc_call_progress(held[0], 1, -1, NULL), 0);
	ck_assert_int_eq(mrpc_call_progress(held[0], 0.5, -1, NULL), 0);
	assert_nothing_more();
	ck_assert_int_eq(mrpc_call_progress(held[0], 2, 10, NULL), 1);
	n = next_msg();
	p = json_object_get(n, "params");
	ck_assert(json_number_value(json_object_get(p, "total")) == 10);
	ck_assert_ptr_null(json_object_get(p, "message"));
	json_decref(n);
	/* An integer token comes back as the same integer. */
	ck_assert_int_eq(mrpc_call_progress(held[1], 1, -1, NULL), 1);
	ck_assert_ptr_nonnull(strstr(next_raw(), "\"progressToken\":77"));
	/* No token, no progress. */
	ck_assert_int_eq(mrpc_call_progress(held[2], 1, -1, NULL), 0);
	/* Once ended, nothing more for it. */
	for (int i = 0; i < 3; i++)
		mrpc_call_result(held[i], json_pack("{s:[]}", "content"));
	for (int i = 0; i < 3; i++)
		json_decref(expect_result());
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

/* ---- Modern era (2026-07-28). */

static void check_modern_result(json_t *res, bool cacheable)
{
	ck_assert_str_eq(json_string_value(json_object_get(res, "resultType")), "complete");
	json_t *si = json_object_get(json_object_get(res, "_meta"),
				     "io.modelcontextprotocol/serverInfo");
	ck_assert_str_eq(json_string_value(json_object_get(si, "name")), "sandboxd");
	ck_assert_str_eq(json_string_value(json_object_get(si, "version")), "9.9.9");
	if (cacheable) {
		ck_assert(json_is_integer(json_object_get(res, "ttlMs")) ||
			  json_is_real(json_object_get(res, "ttlMs")));
		ck_assert(json_number_value(json_object_get(res, "ttlMs")) >= 0);
		const char *scope = json_string_value(json_object_get(res, "cacheScope"));
		ck_assert(scope && (strcmp(scope, "private") == 0 || strcmp(scope, "public") == 0));
	} else {
		ck_assert_ptr_null(json_object_get(res, "ttlMs"));
	}
}

START_TEST(modern_discover_and_calls)
{
	struct mrpc *m = new_session();
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"server-discover-probe-1\",\"method\":"
		"\"server/discover\",\"params\":{" ENV "}}");
	json_t *r = expect_result();
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "server-discover-probe-1");
	json_t *res = json_object_get(r, "result");
	json_t *sv = json_object_get(res, "supportedVersions");
	ck_assert_int_eq(json_array_size(sv), 1);
	ck_assert_str_eq(json_string_value(json_array_get(sv, 0)), "2026-07-28");
	ck_assert(json_is_true(json_object_get(
		json_object_get(json_object_get(res, "capabilities"), "tools"), "listChanged")));
	check_modern_result(res, true);
	json_decref(r);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENV "}}");
	r = expect_result();
	res = json_object_get(r, "result");
	ck_assert_int_eq(json_array_size(json_object_get(res, "tools")), 3);
	check_modern_result(res, true);
	json_decref(r);
	ck_assert(mrpc_ready(m));
	ck_assert_str_eq(mrpc_protocol_version(m), "2026-07-28");
	ck_assert_ptr_null(mrpc_client_info(m));
	feed(m,
	     "{\"jsonrpc\":\"2.0\",\"id\":\"ci\",\"method\":\"tools/list\",\"params\":{\"_meta\":{"
	     "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	     "\"io.modelcontextprotocol/clientCapabilities\":{},"
	     "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"insp\",\"version\":\"2\"}}}}");
	json_decref(expect_result());
	ck_assert_str_eq(json_string_value(json_object_get(mrpc_client_info(m), "name")), "insp");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"echo\",\"arguments\":{\"code\":\"1\"}," ENV "}}");
	r = expect_result();
	res = json_object_get(r, "result");
	check_modern_result(res, false);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(res, "structuredContent"), "code")),
			 "1");
	json_decref(r);
	/* A held call carries the request's version; progress and
	 * cancellation work as in the legacy era. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
		"\"hold\",\"_meta\":{\"progressToken\":\"t\","
		"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
		"\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	ck_assert_str_eq(mrpc_call_protocol_version(held[0]), "2026-07-28");
	ck_assert_int_eq(mrpc_call_progress(held[0], 1, -1, NULL), 1);
	json_t *n = next_msg();
	ck_assert_str_eq(json_string_value(json_object_get(n, "method")), "notifications/progress");
	json_decref(n);
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":3}}");
	ck_assert_int_eq(cancels, 1);
	mrpc_call_result(held[0], json_pack("{s:[]}", "content"));
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

START_TEST(modern_version_errors)
{
	struct mrpc *m = new_session();
	/* A version the bridge does not speak: -32022 {supported, requested},
	 * and the era stays open. */
	feed(m,
	     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
	     "\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\","
	     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	json_t *r = next_msg();
	json_t *err = json_object_get(r, "error");
	ck_assert_int_eq((int)json_number_value(json_object_get(err, "code")), -32022);
	json_t *data = json_object_get(err, "data");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(data, "supported"), 0)),
			 "2026-07-28");
	ck_assert_str_eq(json_string_value(json_object_get(data, "requested")), "2099-01-01");
	json_decref(r);
	ck_assert(!mrpc_ready(m));
	/* A malformed envelope: -32602 naming the key. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
		"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
	const char *raw = expect_error(MRPC_INVALID_PARAMS);
	ck_assert_ptr_nonnull(strstr(raw, "clientCapabilities"));
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
		"\"io.modelcontextprotocol/protocolVersion\":7,"
		"\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	expect_error(MRPC_INVALID_PARAMS);
	ck_assert(!mrpc_ready(m));
	/* Now a modern request pins the era. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{" ENV "}}");
	json_decref(expect_result());
	/* initialize on a modern session: -32022 echoing what it asked. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{"
		"\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
		"\"x\",\"version\":\"1\"}}}");
	r = next_msg();
	err = json_object_get(r, "error");
	ck_assert_int_eq((int)json_number_value(json_object_get(err, "code")), -32022);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(err, "data"), "requested")),
		"2025-11-25");
	json_decref(r);
	/* ping is not a method of this revision. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{" ENV "}}");
	expect_error(MRPC_METHOD_NOT_FOUND);
	/* Every request carries its envelope; one without is -32602. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
	expect_error(MRPC_INVALID_PARAMS);
	/* Another version in a request of a modern session: -32022. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
		"\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\","
		"\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	expect_error(MRPC_UNSUPPORTED_VERSION);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"prompts/list\",\"params\":{" ENV "}}");
	expect_error(MRPC_METHOD_NOT_FOUND);
	/* notifications/initialized means nothing here and is ignored. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	assert_nothing_more();
	mrpc_free(m);
}
END_TEST

START_TEST(modern_probe_then_legacy)
{
	/* A client that probes and then falls back to the handshake gets the
	 * legacy era. */
	struct mrpc *m = new_session();
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"server/discover\",\"params\":{" ENV
		"}}");
	json_decref(expect_result());
	ck_assert(!mrpc_ready(m));
	legacy_init(m);
	ck_assert_str_eq(mrpc_protocol_version(m), "2025-06-18");
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	json_t *r = expect_result();
	ck_assert_ptr_null(json_object_get(json_object_get(r, "result"), "resultType"));
	json_decref(r);
	mrpc_free(m);
}
END_TEST

START_TEST(modern_subscriptions)
{
	struct mrpc *m = new_session();
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"method\":\"subscriptions/listen\",\"params\":"
		"{\"notifications\":{\"toolsListChanged\":true,\"promptsListChanged\":true}," ENV
		"}}");
	json_t *n = next_msg();
	ck_assert_str_eq(json_string_value(json_object_get(n, "method")),
			 "notifications/subscriptions/acknowledged");
	json_t *p = json_object_get(n, "params");
	ck_assert(json_is_true(
		json_object_get(json_object_get(p, "notifications"), "toolsListChanged")));
	ck_assert_ptr_null(
		json_object_get(json_object_get(p, "notifications"), "promptsListChanged"));
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(p, "_meta"),
						  "io.modelcontextprotocol/subscriptionId")),
		"L1");
	json_decref(n);
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"subscriptions/listen\",\"params\":{" ENV
		"}}");
	expect_error(MRPC_INVALID_PARAMS);
	mrpc_tools_changed(m);
	n = next_msg();
	ck_assert_str_eq(json_string_value(json_object_get(n, "method")),
			 "notifications/tools/list_changed");
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(json_object_get(n, "params"), "_meta"),
				 "io.modelcontextprotocol/subscriptionId")),
			 "L1");
	json_decref(n);
	assert_nothing_more();
	/* Cancelled: nothing more for it. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
		"\"requestId\":\"L1\"}}");
	mrpc_tools_changed(m);
	assert_nothing_more();
	/* One left open is closed with an empty result when the session ends. */
	feed(m, "{\"jsonrpc\":\"2.0\",\"id\":\"L2\",\"method\":\"subscriptions/listen\",\"params\":"
		"{\"notifications\":{\"toolsListChanged\":true}," ENV "}}");
	json_decref(next_msg());
	mrpc_free(m);
	json_t *r = expect_result();
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "L2");
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(r, "result"), "resultType")),
		"complete");
	json_decref(r);
	assert_nothing_more();
}
END_TEST

static Suite *mrpc_suite(void)
{
	Suite *s = suite_create("mcp_rpc");
	TCase *tc = tcase_create("jsonrpc");
	tcase_add_test(tc, framing_blank_and_crlf);
	tcase_add_test(tc, errors_parse_and_invalid);
	tcase_add_test(tc, errors_method_and_params);
	tcase_add_test(tc, ids_echoed_exactly);
	suite_add_tcase(s, tc);
	tc = tcase_create("legacy");
	tcase_add_test(tc, legacy_negotiation);
	tcase_add_test(tc, legacy_before_initialize);
	tcase_add_test(tc, legacy_tools_list);
	suite_add_tcase(s, tc);
	tc = tcase_create("calls");
	tcase_add_test(tc, calls_answered_later);
	tcase_add_test(tc, calls_running_bounded);
	tcase_add_test(tc, long_ids_refused);
	tcase_add_test(tc, errors_quoting_cut_utf8);
	tcase_add_test(tc, cancellation_routing);
	tcase_add_test(tc, progress_notifications);
	suite_add_tcase(s, tc);
	tc = tcase_create("modern");
	tcase_add_test(tc, modern_discover_and_calls);
	tcase_add_test(tc, modern_version_errors);
	tcase_add_test(tc, modern_probe_then_legacy);
	tcase_add_test(tc, modern_subscriptions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mrpc_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	reset_out();
	return failed ? 1 : 0;
}
