/* check_mcp_tools.c - the MCP tools' definitions, argument checks, daemon
 * requests and rendered results (client/mcp_tools.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"

#include "../client/mcp_tools.h"

/*
 * A JSON Schema check of the subset the tools' schemas use (type, enum,
 * minimum, maximum, properties, required, additionalProperties: false,
 * items), so that every rendered structuredContent is checked against its
 * tool's outputSchema as a host's validator would. NULL when v is valid,
 * else the path of the first violation (static buffer).
 */
static char where[1024];

static bool type_ok(const char *t, const json_t *v)
{
	if (strcmp(t, "object") == 0)
		return json_is_object(v);
	if (strcmp(t, "array") == 0)
		return json_is_array(v);
	if (strcmp(t, "string") == 0)
		return json_is_string(v);
	if (strcmp(t, "integer") == 0)
		return json_is_integer(v);
	if (strcmp(t, "number") == 0)
		return json_is_number(v);
	if (strcmp(t, "boolean") == 0)
		return json_is_boolean(v);
	if (strcmp(t, "null") == 0)
		return json_is_null(v);
	return false;
}

static const char *check_schema(const json_t *s, const json_t *v, const char *path)
{
	const json_t *type = json_object_get(s, "type");
	if (json_is_string(type) && !type_ok(json_string_value(type), v)) {
		snprintf(where, sizeof where, "%s: not %s", path, json_string_value(type));
		return where;
	}
	if (json_is_array(type)) {
		bool any = false;
		size_t i;
		json_t *t;
		json_array_foreach (type, i, t)
			any = any || type_ok(json_string_value(t), v);
		if (!any) {
			snprintf(where, sizeof where, "%s: none of the types", path);
			return where;
		}
	}
	const json_t *en = json_object_get(s, "enum");
	if (en) {
		bool any = false;
		size_t i;
		json_t *e;
		json_array_foreach (en, i, e)
			any = any || json_equal(e, v);
		if (!any) {
			snprintf(where, sizeof where, "%s: not in enum", path);
			return where;
		}
	}
	const json_t *min = json_object_get(s, "minimum");
	if (min && json_is_number(v) && json_number_value(v) < json_number_value(min)) {
		snprintf(where, sizeof where, "%s: below minimum", path);
		return where;
	}
	char sub[512];
	if (json_is_object(v)) {
		const json_t *props = json_object_get(s, "properties");
		const char *key;
		json_t *m;
		json_object_foreach ((json_t *)v, key, m) {
			const json_t *ps = json_object_get(props, key);
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			if (!ps) {
				if (json_is_false(json_object_get(s, "additionalProperties"))) {
					snprintf(where, sizeof where, "%s: not allowed", sub);
					return where;
				}
				continue;
			}
			const char *r = check_schema(ps, m, sub);
			if (r)
				return r;
		}
		size_t i;
		json_t *req;
		json_array_foreach (json_object_get(s, "required"), i, req) {
			if (!json_object_get(v, json_string_value(req))) {
				snprintf(where, sizeof where, "%s.%s: required", path,
					 json_string_value(req));
				return where;
			}
		}
	}
	if (json_is_array(v) && json_object_get(s, "items")) {
		size_t i;
		json_t *m;
		json_array_foreach (v, i, m) {
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			const char *r = check_schema(json_object_get(s, "items"), m, sub);
			if (r)
				return r;
		}
	}
	return NULL;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
	ck_assert_msg(v != NULL, "bad test JSON: %s: %s", e.text, text);
	return v;
}

/* Renders reply for tool id and checks the result's shape and, when it has
 * structuredContent, that it validates against the tool's outputSchema. */
static json_t *render(enum mtool_id id, const json_t *reply)
{
	json_t *r = mtool_result(id, reply);
	ck_assert_ptr_nonnull(r);
	json_t *content = json_object_get(r, "content");
	ck_assert_int_eq(json_array_size(content), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(content, 0), "type")),
			 "text");
	ck_assert(json_is_string(json_object_get(json_array_get(content, 0), "text")));
	ck_assert(json_is_boolean(json_object_get(r, "isError")));
	json_t *sc = json_object_get(r, "structuredContent");
	if (sc) {
		json_t *def = mtool_definition(id, NULL);
		const char *bad = check_schema(json_object_get(def, "outputSchema"), sc, "$");
		ck_assert_msg(bad == NULL, "%s: %s", mtool_name(id), bad);
		json_decref(def);
	}
	return r;
}

static json_t *render_text(enum mtool_id id, const char *reply_json)
{
	json_t *reply = parse(reply_json);
	json_t *r = render(id, reply);
	json_decref(reply);
	return r;
}

static const char *text_of(const json_t *r)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
}

static bool is_error(const json_t *r) { return json_is_true(json_object_get(r, "isError")); }

#define HAS(s, sub) ck_assert_msg(strstr((s), (sub)) != NULL, "missing \"%s\" in:\n%s", (sub), (s))

START_TEST(test_definitions)
{
	static const struct {
		const char *name;
		bool read_only;
	} want[] = {{"execute", false},	       {"status", true}, {"cancel", false},
		    {"list_executions", true}, {"test", false},	 {"list_scripts", true}};
	ck_assert_int_eq(MTOOL_COUNT, 6);
	for (int i = 0; i < MTOOL_COUNT; i++) {
		json_t *d = mtool_definition((enum mtool_id)i, NULL);
		ck_assert_ptr_nonnull(d);
		ck_assert_str_eq(json_string_value(json_object_get(d, "name")), want[i].name);
		ck_assert_int_eq(mtool_find(want[i].name), i);
		json_t *in = json_object_get(d, "inputSchema");
		json_t *out = json_object_get(d, "outputSchema");
		ck_assert_str_eq(json_string_value(json_object_get(in, "type")), "object");
		ck_assert_str_eq(json_string_value(json_object_get(out, "type")), "object");
		ck_assert(json_is_object(json_object_get(in, "properties")));
		ck_assert(json_is_object(json_object_get(out, "properties")));
		ck_assert(json_is_string(json_object_get(d, "description")));
		json_t *ann = json_object_get(d, "annotations");
		ck_assert(json_is_true(json_object_get(ann, "readOnlyHint")) == want[i].read_only);
		ck_assert(json_is_boolean(json_object_get(ann, "destructiveHint")));
		ck_assert(json_is_false(json_object_get(ann, "openWorldHint")));
		/* Every property documented. */
		const char *key;
		json_t *p;
		json_object_foreach (json_object_get(in, "properties"), key, p)
			ck_assert_msg(json_is_string(json_object_get(p, "description")), "%s.%s",
				      want[i].name, key);
		json_decref(d);
	}
	ck_assert_int_eq(mtool_find("search_tools"), -1);
	ck_assert_int_eq(mtool_find(NULL), -1);
	/* Only cancel destroys anything. */
	json_t *d = mtool_definition(MTOOL_CANCEL, NULL);
	ck_assert(json_is_true(
		json_object_get(json_object_get(d, "annotations"), "destructiveHint")));
	json_decref(d);
	d = mtool_definition(MTOOL_EXECUTE, "declare const tools: {};");
	const char *desc = json_string_value(json_object_get(d, "description"));
	ck_assert_ptr_nonnull(strstr(desc, "\n\ndeclare const tools: {};"));
	HAS(desc, "16384 bytes");
	/* The engine gives a runtime error's line, not its column: the
	 * description promises a column only where the daemon gives one. */
	HAS(desc, "line (and column, for a syntax error) and stack");
	json_decref(d);
}
END_TEST

/* The request for tool id and arguments, or NULL with the message in *why. */
static json_t *request(enum mtool_id id, const char *args, bool streaming, char **why)
{
	json_t *a = args ? parse(args) : NULL;
	struct mtool_limits lim = {5000, 0, 0, 0};
	json_t *r = mtool_request(id, a, &lim, streaming, why);
	json_decref(a);
	return r;
}

static void bad_args(enum mtool_id id, const char *args, const char *msg)
{
	char *why = NULL;
	json_t *r = request(id, args, false, &why);
	ck_assert_msg(r == NULL, "accepted %s", args);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strcmp(why, msg) == 0, "%s: got \"%s\", want \"%s\"", args, why, msg);
	free(why);
}

START_TEST(test_arguments)
{
	bad_args(MTOOL_EXECUTE, "{}", "code: required (or cached)");
	bad_args(MTOOL_EXECUTE, NULL, "code: required (or cached)");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"cached\": \"x\"}",
		 "code, cached: give one of them, not both");
	bad_args(MTOOL_EXECUTE, "{\"code\": 1}", "code: must be a string");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"cod\": 2}", "cod: unknown argument");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"timeout_ms\": 0}",
		 "timeout_ms: must be at least 1");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"timeout_ms\": 1.5}",
		 "timeout_ms: must be a non-negative integer");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"timeout_ms\": \"5\"}",
		 "timeout_ms: must be a non-negative integer");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"memory_bytes\": 1000}",
		 "memory_bytes: must be at least 1048576");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"language\": \"python\"}",
		 "language: must be one of javascript, typescript");
	bad_args(MTOOL_EXECUTE, "{\"code\": \"1\", \"background\": 1}",
		 "background: must be true or false");
	bad_args(MTOOL_EXECUTE, "[]", "arguments: must be an object");
	bad_args(MTOOL_STATUS, "{}", "execution_id: required");
	bad_args(MTOOL_STATUS, "{\"execution_id\": \"e\", \"wait_ms\": 120001}",
		 "wait_ms: must be 0 .. 120000");
	bad_args(MTOOL_STATUS, "{\"execution_id\": \"e\", \"stdout_offset\": -1}",
		 "stdout_offset: must be a non-negative integer");
	bad_args(MTOOL_CANCEL, "{\"execution_id\": null}", "execution_id: must be a string");
	bad_args(MTOOL_LIST_EXECUTIONS, "{\"states\": \"running\"}",
		 "states: must be an array of strings");
	bad_args(MTOOL_LIST_EXECUTIONS, "{\"states\": [\"running\", \"done\"]}",
		 "states[1]: \"done\" is not a state (pending, running, completed, failed, "
		 "timeout, cancelled)");
	bad_args(MTOOL_LIST_EXECUTIONS, "{\"limit\": 101}", "limit: must be 1 .. 100");
	bad_args(MTOOL_TEST, "{\"code\": \"x\"}", "tests: required");
	bad_args(MTOOL_LIST_SCRIPTS, "{\"filter\": 3}", "filter: must be a string");
}
END_TEST

static void same(const json_t *req, const char *want)
{
	json_t *w = parse(want);
	char *got = json_dumps(req, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_msg(json_equal(req, w), "got %s, want %s", got, want);
	free(got);
	json_decref(w);
}

START_TEST(test_requests)
{
	char *why = NULL;
	json_t *r = request(MTOOL_EXECUTE, "{\"code\": \"return 1\"}", false, &why);
	same(r, "{\"op\": \"execute\", \"code\": \"return 1\", \"timeout_ms\": 5000}");
	json_decref(r);
	/* A progress token makes it a stream; background an async, whatever
	 * the token; the call's own limits win, 3e4 is an integer. */
	r = request(MTOOL_EXECUTE, "{\"code\": \"1\", \"timeout_ms\": 3e4}", true, &why);
	same(r, "{\"op\": \"stream\", \"code\": \"1\", \"timeout_ms\": 30000}");
	json_decref(r);
	r = request(
		MTOOL_EXECUTE,
		"{\"cached\": \"script-1\", \"background\": true, \"language\": \"typescript\"}",
		true, &why);
	same(r, "{\"op\": \"async\", \"cached\": \"script-1\", \"language\": \"typescript\", "
		"\"timeout_ms\": 5000}");
	json_decref(r);
	r = request(MTOOL_EXECUTE, "{\"code\": \"1\", \"background\": false}", false, &why);
	same(r, "{\"op\": \"execute\", \"code\": \"1\", \"timeout_ms\": 5000}");
	json_decref(r);
	r = request(MTOOL_STATUS,
		    "{\"execution_id\": \"exec_1\", \"wait_ms\": 2000, "
		    "\"stdout_offset\": 10}",
		    false, &why);
	same(r, "{\"op\": \"status\", \"execution_id\": \"exec_1\", \"wait\": true, "
		"\"wait_ms\": 2000, \"stdout_offset\": 10}");
	json_decref(r);
	r = request(MTOOL_STATUS, "{\"execution_id\": \"exec_1\", \"wait_ms\": 0}", false, &why);
	same(r, "{\"op\": \"status\", \"execution_id\": \"exec_1\"}");
	json_decref(r);
	r = request(MTOOL_CANCEL, "{\"execution_id\": \"exec_1\"}", false, &why);
	same(r, "{\"op\": \"cancel\", \"execution_id\": \"exec_1\"}");
	json_decref(r);
	r = request(MTOOL_LIST_EXECUTIONS, "{\"states\": [\"running\"], \"limit\": 5}", false,
		    &why);
	same(r, "{\"op\": \"list\", \"states\": [\"running\"], \"limit\": 5}");
	json_decref(r);
	r = request(MTOOL_TEST, "{\"tests\": \"t\", \"code\": \"c\"}", false, &why);
	same(r, "{\"op\": \"test\", \"tests\": \"t\", \"code\": \"c\", \"timeout_ms\": 5000}");
	json_decref(r);
	r = request(MTOOL_LIST_SCRIPTS, NULL, false, &why);
	same(r, "{\"op\": \"cache_list\"}");
	json_decref(r);
	ck_assert_ptr_null(why);
}
END_TEST

START_TEST(test_completed)
{
	json_t *r = render_text(
		MTOOL_EXECUTE,
		"{\"id\": 3, \"ok\": true, \"execution_id\": \"exec_0123456789abcdef\", \"state\": "
		"\"completed\", \"success\": true, \"value\": {\"a\": [1, null]}, \"stdout\": "
		"\"hi\\n\", \"stderr\": \"\", \"started_at_ms\": 1, \"finished_at_ms\": 5, "
		"\"execution_time_ms\": 4, \"cpu_time_ms\": 2, \"memory_peak_bytes\": 2232320, "
		"\"calls\": [{\"call_id\": 1, \"name\": \"gh.search\", \"status\": \"ok\", "
		"\"duration_ms\": 7}], \"store_writes\": {\"set\": {\"k\": 1}, \"delete\": []}, "
		"\"cached\": {\"name\": \"script-x.js\", \"description\": \"\", \"created_at_ms\": "
		"1, \"content_hash\": \"ab\"}, \"future_field\": 1}");
	ck_assert(!is_error(r));
	json_t *sc = json_object_get(r, "structuredContent");
	same(json_object_get(sc, "value"), "{\"a\": [1, null]}");
	ck_assert_str_eq(json_string_value(json_object_get(sc, "stdout")), "hi\n");
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stdout_length")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stdout_next")), 3);
	ck_assert(json_is_false(json_object_get(sc, "output_more")));
	/* Neither the frame's id nor what the bridge keeps for itself. */
	ck_assert_ptr_null(json_object_get(sc, "id"));
	ck_assert_ptr_null(json_object_get(sc, "ok"));
	ck_assert_ptr_null(json_object_get(sc, "store_writes"));
	ck_assert_ptr_null(json_object_get(sc, "future_field"));
	const char *t = text_of(r);
	HAS(t,
	    "execution exec_0123456789abcdef: completed in 4 ms (cpu 2 ms, peak memory 2.1 MiB)");
	HAS(t, "value: {\"a\":[1,null]}");
	HAS(t, "stdout:\nhi\n");
	HAS(t, "stderr: (empty)");
	HAS(t, "#1 gh.search: ok, 7 ms");
	HAS(t, "cached as script-x.js");
	json_decref(r);

	/* undefined: no value at all, and the text does not invent one. */
	r = render_text(MTOOL_EXECUTE, "{\"ok\": true, \"execution_id\": \"exec_1\", \"state\": "
				       "\"completed\", \"success\": true, \"stdout\": \"\", "
				       "\"stderr\": \"\"}");
	ck_assert_ptr_null(json_object_get(json_object_get(r, "structuredContent"), "value"));
	ck_assert_ptr_null(strstr(text_of(r), "value"));
	json_decref(r);
	/* null is a value. */
	r = render_text(MTOOL_EXECUTE, "{\"ok\": true, \"execution_id\": \"exec_1\", \"state\": "
				       "\"completed\", \"success\": true, \"value\": null}");
	ck_assert(json_is_null(json_object_get(json_object_get(r, "structuredContent"), "value")));
	HAS(text_of(r), "value: null");
	json_decref(r);
}
END_TEST

START_TEST(test_failed)
{
	json_t *r = render_text(
		MTOOL_EXECUTE,
		"{\"ok\": true, \"execution_id\": \"exec_1\", \"state\": \"failed\", \"success\": "
		"false, \"stdout\": \"before\\n\", \"stderr\": \"warned\\n\", \"error\": "
		"{\"kind\": "
		"\"script\", \"message\": \"TypeError: x is undefined\", \"line\": 3, \"column\": "
		"7, \"stack\": \"TypeError: x is undefined\\n    at f (input:3)\"}, "
		"\"execution_time_ms\": 1, \"cpu_time_ms\": 0}");
	ck_assert(is_error(r));
	json_t *e = json_object_get(json_object_get(r, "structuredContent"), "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "script");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "column")), 7);
	const char *t = text_of(r);
	HAS(t, "execution exec_1: failed");
	HAS(t, "error (script, line 3, column 7): TypeError: x is undefined");
	HAS(t, "stack:\nTypeError: x is undefined\n    at f (input:3)");
	HAS(t, "stdout:\nbefore\n");
	HAS(t, "stderr:\nwarned");
	json_decref(r);
	static const char *const states_failed[] = {"timeout", "cancelled"};
	for (int i = 0; i < 2; i++) {
		char buf[256];
		snprintf(buf, sizeof buf,
			 "{\"ok\": true, \"execution_id\": \"exec_1\", \"state\": \"%s\", "
			 "\"success\": false, \"error\": {\"kind\": \"%s\", \"message\": \"m\"}}",
			 states_failed[i], states_failed[i]);
		r = render_text(MTOOL_EXECUTE, buf);
		ck_assert(is_error(r));
		json_decref(r);
	}
	/* A daemon error: its code and message, no structuredContent. */
	r = render_text(MTOOL_STATUS, "{\"ok\": false, \"error\": {\"code\": \"NOT_FOUND\", "
				      "\"message\": \"execution_id: no execution \\\"x\\\"\"}}");
	ck_assert(is_error(r));
	ck_assert_ptr_null(json_object_get(r, "structuredContent"));
	ck_assert_str_eq(text_of(r), "NOT_FOUND: execution_id: no execution \"x\"");
	json_decref(r);
	r = mtool_error_result("code: required");
	ck_assert(is_error(r));
	ck_assert_str_eq(text_of(r), "code: required");
	json_decref(r);
}
END_TEST

/* A string of n bytes: lines of ASCII with a 3-byte character here and there. */
static char *big(size_t n, char c)
{
	char *s = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = (i % 80 == 79) ? '\n' : c;
	for (size_t i = 100; i + 3 < n; i += 997) {
		s[i] = (char)0xE2;
		s[i + 1] = (char)0x82;
		s[i + 2] = (char)0xAC;
	}
	s[n] = '\0';
	return s;
}

START_TEST(test_long_output)
{
	char *out = big(100000, 'o');
	char *err = big(30000, 'e');
	json_t *reply =
		json_pack("{s:b, s:s, s:s, s:b, s:s, s:s}", "ok", 1, "execution_id", "exec_1",
			  "state", "completed", "success", 1, "stdout", out, "stderr", err);
	json_t *r = render(MTOOL_EXECUTE, reply);
	json_t *sc = json_object_get(r, "structuredContent");
	size_t so = json_string_length(json_object_get(sc, "stdout"));
	size_t se = json_string_length(json_object_get(sc, "stderr"));
	ck_assert_uint_le(so + se, LIMIT_MCP_OUTPUT_BYTES);
	ck_assert_uint_ge(so + se, LIMIT_MCP_OUTPUT_BYTES - 3);
	/* stderr keeps its share; both prefixes of the real streams. */
	ck_assert_uint_ge(se, LIMIT_MCP_STDERR_SHARE_BYTES - 3);
	ck_assert_uint_le(se, LIMIT_MCP_STDERR_SHARE_BYTES);
	ck_assert(memcmp(json_string_value(json_object_get(sc, "stdout")), out, so) == 0);
	ck_assert(memcmp(json_string_value(json_object_get(sc, "stderr")), err, se) == 0);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stdout_next")), (json_int_t)so);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stdout_length")), 100000);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stderr_next")), (json_int_t)se);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stderr_length")), 30000);
	ck_assert(json_is_true(json_object_get(sc, "output_more")));
	char want[256];
	snprintf(want, sizeof want,
		 "[stdout cut at byte %zu of 100000: call status with execution_id \"exec_1\" "
		 "and stdout_offset %zu for the rest]",
		 so, so);
	HAS(text_of(r), want);
	snprintf(want, sizeof want, "stderr, bytes 0 to %zu of 30000:\n", se);
	HAS(text_of(r), want);
	/* The text holds the same bytes, not more. */
	ck_assert_uint_lt(strlen(text_of(r)), LIMIT_MCP_OUTPUT_BYTES + 1024);
	json_decref(r);
	json_decref(reply);

	/* Only stdout: it gets the whole budget. */
	reply = json_pack("{s:b, s:s, s:s, s:b, s:s, s:s}", "ok", 1, "execution_id", "exec_1",
			  "state", "completed", "success", 1, "stdout", out, "stderr", "");
	r = render(MTOOL_EXECUTE, reply);
	sc = json_object_get(r, "structuredContent");
	ck_assert_uint_ge(json_string_length(json_object_get(sc, "stdout")),
			  LIMIT_MCP_OUTPUT_BYTES - 3);
	json_decref(r);
	json_decref(reply);

	/* A status chunk from offset 50000 of a running execution: its bytes
	 * are placed at that offset, and the next offset follows them. */
	reply = json_pack("{s:b, s:s, s:s, s:s, s:i, s:i, s:s, s:i, s:i, s:b}", "ok", 1,
			  "execution_id", "exec_1", "state", "running", "stdout", out + 50000,
			  "stdout_length", 100000, "stdout_next", 100000, "stderr", "",
			  "stderr_length", 0, "stderr_next", 0, "output_more", 0);
	r = render(MTOOL_STATUS, reply);
	ck_assert(!is_error(r));
	sc = json_object_get(r, "structuredContent");
	so = json_string_length(json_object_get(sc, "stdout"));
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "stdout_next")),
			 (json_int_t)(50000 + so));
	ck_assert(json_is_true(json_object_get(sc, "output_more")));
	snprintf(want, sizeof want, "stdout, bytes 50000 to %zu of 100000 so far:\n", 50000 + so);
	HAS(text_of(r), want);
	json_decref(r);
	json_decref(reply);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_big_value_and_calls)
{
	char *s = big(40000, 'v');
	json_t *calls = json_array();
	for (int i = 1; i <= 150; i++)
		json_array_append_new(calls, json_pack("{s:i, s:s, s:s, s:i}", "call_id", i, "name",
						       "t", "status", "ok", "duration_ms", 0));
	json_t *reply =
		json_pack("{s:b, s:s, s:s, s:b, s:[s], s:o}", "ok", 1, "execution_id", "exec_1",
			  "state", "completed", "success", 1, "value", s, "calls", calls);
	json_t *r = render(MTOOL_EXECUTE, reply);
	json_t *sc = json_object_get(r, "structuredContent");
	ck_assert_ptr_null(json_object_get(sc, "value"));
	ck_assert_uint_le(json_string_length(json_object_get(sc, "value_preview")),
			  LIMIT_MCP_VALUE_BYTES);
	char *js = json_dumps(json_object_get(reply, "value"), JSON_COMPACT);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "value_bytes")),
			 (json_int_t)strlen(js));
	ck_assert(strncmp(json_string_value(json_object_get(sc, "value_preview")), js, 1000) == 0);
	free(js);
	ck_assert_int_eq(json_array_size(json_object_get(sc, "calls")), LIMIT_MCP_CALLS);
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "calls_omitted")), 50);
	HAS(text_of(r), "[value cut]");
	HAS(text_of(r), "(50 more not listed)");
	json_decref(r);
	json_decref(reply);
	free(s);
}
END_TEST

START_TEST(test_background)
{
	json_t *r = render_text(MTOOL_EXECUTE, "{\"ok\": true, \"execution_id\": \"exec_9\", "
					       "\"state\": \"pending\", \"queue_position\": 2}");
	ck_assert(!is_error(r));
	json_t *sc = json_object_get(r, "structuredContent");
	ck_assert_int_eq(json_integer_value(json_object_get(sc, "queue_position")), 2);
	ck_assert_ptr_null(json_object_get(sc, "stdout"));
	HAS(text_of(r), "execution exec_9: pending (queue position 2)");
	HAS(text_of(r), "call status with execution_id \"exec_9\"");
	json_decref(r);
}
END_TEST

START_TEST(test_test_results)
{
	/* Failing tests are a result, not an error. */
	json_t *r = render_text(
		MTOOL_TEST,
		"{\"ok\": true, \"execution_id\": \"exec_2\", \"state\": \"completed\", "
		"\"success\": "
		"false, \"stdout\": \"\", \"stderr\": \"\", \"summary\": {\"total\": 3, "
		"\"passed\": "
		"1, \"failed\": 1, \"skipped\": 1}, \"tests\": [{\"name\": \"adds\", \"passed\": "
		"true, \"duration_ms\": 0}, {\"name\": \"subs\", \"passed\": false, \"error\": "
		"\"expected 1, found 2 (tests.js:4)\", \"duration_ms\": 1}, {\"name\": \"later\", "
		"\"passed\": false, \"skipped\": true, \"duration_ms\": 0}]}");
	ck_assert(!is_error(r));
	const char *t = text_of(r);
	HAS(t, "tests: 3 total, 1 passed, 1 failed, 1 skipped");
	HAS(t, "PASS adds");
	HAS(t, "FAIL subs (1 ms)\n  expected 1, found 2 (tests.js:4)");
	HAS(t, "SKIP later");
	json_decref(r);
	/* Code that does not load is. */
	r = render_text(
		MTOOL_TEST,
		"{\"ok\": true, \"execution_id\": \"exec_3\", \"state\": \"failed\", "
		"\"success\": false, \"stdout\": \"\", \"stderr\": \"\", \"error\": {\"kind\": "
		"\"syntax\", \"message\": \"SyntaxError: x (line 1, column 2)\", \"line\": 1, "
		"\"column\": 2, \"source\": \"code\"}}");
	ck_assert(is_error(r));
	HAS(text_of(r), "error (syntax, in code, line 1, column 2)");
	json_decref(r);
	/* A test error past its size is cut in both, and says so. */
	char *e = big(5000, 'x');
	json_t *reply =
		json_pack("{s:b, s:s, s:s, s:b, s:{s:i, s:i, s:i, s:i}, s:[{s:s, s:b, s:s}]}", "ok",
			  1, "execution_id", "exec_4", "state", "completed", "success", 0,
			  "summary", "total", 1, "passed", 0, "failed", 1, "skipped", 0, "tests",
			  "name", "t", "passed", 0, "error", e);
	r = render(MTOOL_TEST, reply);
	json_t *t0 = json_array_get(
		json_object_get(json_object_get(r, "structuredContent"), "tests"), 0);
	ck_assert_uint_le(json_string_length(json_object_get(t0, "error")),
			  LIMIT_MCP_TEST_ERROR_BYTES);
	ck_assert(json_is_true(json_object_get(t0, "cut")));
	HAS(text_of(r), " [cut]");
	json_decref(r);
	json_decref(reply);
	free(e);
}
END_TEST

/* status of a test run: its report, and isError as test's. */
START_TEST(test_status_of_test_run)
{
	json_t *r = render_text(
		MTOOL_STATUS,
		"{\"ok\": true, \"execution_id\": \"exec_5\", \"state\": \"completed\", "
		"\"success\": "
		"false, \"stdout\": \"\", \"stderr\": \"\", \"stdout_length\": 0, "
		"\"stderr_length\": "
		"0, \"stdout_next\": 0, \"stderr_next\": 0, \"output_more\": false, \"summary\": "
		"{\"total\": 1, \"passed\": 0, \"failed\": 1, \"skipped\": 0}, \"tests\": "
		"[{\"name\": "
		"\"t\", \"passed\": false, \"error\": \"boom\", \"duration_ms\": 0}]}");
	ck_assert(!is_error(r));
	json_t *sc = json_object_get(r, "structuredContent");
	ck_assert_int_eq(
		json_integer_value(json_object_get(json_object_get(sc, "summary"), "failed")), 1);
	HAS(text_of(r), "test run exec_5: completed");
	HAS(text_of(r), "FAIL t (0 ms)\n  boom");
	json_decref(r);
}
END_TEST

START_TEST(test_lists)
{
	json_t *r = render_text(
		MTOOL_LIST_EXECUTIONS,
		"{\"ok\": true, \"executions\": [{\"execution_id\": \"exec_1\", \"mode\": "
		"\"async\", "
		"\"state\": \"running\", \"started_at_ms\": 1, \"code_preview\": \"a\\nb\\u0001\", "
		"\"owner\": \"uid-0\"}, {\"execution_id\": \"exec_2\", \"mode\": \"execute\", "
		"\"state\": \"completed\", \"started_at_ms\": 1, \"finished_at_ms\": 2, "
		"\"code_preview\": \"x\", \"cached_name\": \"script-a.js\"}]}");
	ck_assert(!is_error(r));
	HAS(text_of(r), "2 executions, newest first:");
	HAS(text_of(r), "exec_1  running  async\n    a\\nb \n");
	HAS(text_of(r), "exec_2  completed  execute  cached script-a.js");
	json_decref(r);
	r = render_text(MTOOL_LIST_EXECUTIONS, "{\"ok\": true, \"executions\": []}");
	HAS(text_of(r), "0 executions");
	json_decref(r);
	r = render_text(MTOOL_LIST_SCRIPTS,
			"{\"ok\": true, \"scripts\": [{\"name\": \"script-a.js\", \"description\": "
			"\"sums\", \"created_at_ms\": 1, \"content_hash\": \"ff\", \"size_bytes\": "
			"12}]}");
	HAS(text_of(r), "1 cached script\nscript-a.js  (12 bytes)  sums");
	json_decref(r);
	r = render_text(MTOOL_CANCEL, "{\"ok\": true, \"execution_id\": \"exec_1\", \"state\": "
				      "\"cancelled\"}");
	ck_assert(!is_error(r));
	ck_assert_str_eq(text_of(r), "execution exec_1: cancelled");
	json_decref(r);
	r = render_text(MTOOL_CANCEL, "{\"ok\": false, \"error\": {\"code\": "
				      "\"FAILED_PRECONDITION\", \"message\": \"already ended\"}}");
	ck_assert(is_error(r));
	json_decref(r);
	r = render_text(MTOOL_LIST_SCRIPTS, "[1]");
	ck_assert(is_error(r));
	json_decref(r);
}
END_TEST

START_TEST(test_last_line)
{
	char *s = mtool_last_line("one\ntwo\n\n", 9);
	ck_assert_str_eq(s, "two");
	free(s);
	s = mtool_last_line("partial", 7);
	ck_assert_str_eq(s, "partial");
	free(s);
	ck_assert_ptr_null(mtool_last_line("\n\n", 2));
	ck_assert_ptr_null(mtool_last_line("", 0));
	char *b = big(1000, 'z');
	memset(b, 'z', 1000);
	b[199] = (char)0xE2, b[200] = (char)0x82, b[201] = (char)0xAC;
	s = mtool_last_line(b + 1, 999);
	ck_assert_uint_eq(strlen(s), 198); /* cut before the character, not inside */
	free(s);
	free(b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mcp_tools");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_definitions);
	tcase_add_test(tc, test_arguments);
	tcase_add_test(tc, test_requests);
	tcase_add_test(tc, test_completed);
	tcase_add_test(tc, test_failed);
	tcase_add_test(tc, test_long_output);
	tcase_add_test(tc, test_big_value_and_calls);
	tcase_add_test(tc, test_background);
	tcase_add_test(tc, test_test_results);
	tcase_add_test(tc, test_status_of_test_run);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_last_line);
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
