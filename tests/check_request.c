/*
 * check_request.c - request validation (protocol/request.c) against the
 * golden cases in tests/data/requests.txt, and the reply and event frames
 * built by protocol/msg.c.
 *
 * The data directory is $SANDBOXD_TEST_DATA when set, else tests/data
 * relative to the working directory (`make check` runs from the root).
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/buf.h"
#include "../protocol/frame.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/request.h"
#include "../protocol/status.h"

/* ---- helpers */

/* Opens a file of the test data directory, failing the test when absent:
 * a missing data file must never pass as zero cases. */
static FILE *open_data(const char *name, char *path, size_t pathlen)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	if (!dir || !*dir)
		dir = "tests/data";
	snprintf(path, pathlen, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL,
		      "cannot open %s (run from the repository root or set "
		      "SANDBOXD_TEST_DATA to tests/data)",
		      path);
	return f;
}

/* The status whose name is s, or 0. */
static enum status status_by_name(const char *s)
{
	for (int c = STATUS_INVALID_ARGUMENT; c <= STATUS_INTERNAL; c++)
		if (strcmp(status_name((enum status)c), s) == 0)
			return (enum status)c;
	return 0;
}

/* Compact JSON of v; the caller frees it. */
static char *dump(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	ck_assert_ptr_nonnull(s);
	return s;
}

static void assert_json(const json_t *v, const char *want)
{
	char *s = dump(v);
	ck_assert_str_eq(s, want);
	free(s);
}

/* Parses s with the default limits; on success returns the root. */
static json_t *parse(const char *s, struct request *req, struct request_error *err,
		     json_t **bad_root)
{
	struct request_limits lim;
	request_limits_default(&lim);
	return request_parse(s, strlen(s), &lim, req, err, bad_root);
}

/* Parses s, which must fail with code, and returns the message (to free). */
static char *parse_error(const char *s, enum status code)
{
	struct request req;
	struct request_error err;
	json_t *bad;
	json_t *root = parse(s, &req, &err, &bad);
	ck_assert_msg(root == NULL, "%s: accepted", s);
	ck_assert_int_eq(err.code, code);
	ck_assert_ptr_nonnull(err.message);
	char *m = strdup(err.message);
	request_error_clear(&err);
	json_decref(bad);
	return m;
}

/* ---- golden cases */

/* Runs one golden case; returns NULL when it passes, else why (static). */
static const char *run_case(const char *expect, const char *substr, const char *json, size_t len)
{
	static char why[512];
	struct request_limits lim;
	struct request req;
	struct request_error err;
	json_t *bad = (json_t *)1;
	request_limits_default(&lim);
	json_t *root = request_parse(json, len, &lim, &req, &err, &bad);
	bool want_ok = strcmp(expect, "OK") == 0;
	why[0] = '\0';
	if (root) {
		if (!want_ok)
			snprintf(why, sizeof why, "accepted, want %s", expect);
		else if (bad != NULL)
			snprintf(why, sizeof why, "root_on_error set on success");
		else if (!req.op_name || (req.op != OP_HEALTH && !req.code))
			snprintf(why, sizeof why, "request not filled in");
		json_decref(root);
		return why[0] ? why : NULL;
	}
	if (want_ok) {
		snprintf(why, sizeof why, "refused: %s: %s", status_name(err.code),
			 err.message ? err.message : "(no message)");
	} else if (!err.message) {
		snprintf(why, sizeof why, "no message");
	} else if (err.code != status_by_name(expect)) {
		snprintf(why, sizeof why, "got %s (%s), want %s", status_name(err.code),
			 err.message, expect);
	} else if (!strstr(err.message, substr)) {
		snprintf(why, sizeof why, "message \"%s\" lacks \"%s\"", err.message, substr);
	} else {
		/* The reply built from it carries the code and the message as
		 * they are (so the message must be valid UTF-8). */
		json_t *r = msg_reply_error(err.id, err.code, err.message);
		json_t *e = json_object_get(r, "error");
		const char *code = json_string_value(json_object_get(e, "code"));
		const char *msg = json_string_value(json_object_get(e, "message"));
		if (!code || strcmp(code, expect) != 0 || !msg || strcmp(msg, err.message) != 0)
			snprintf(why, sizeof why, "error reply does not carry \"%s\"", err.message);
		json_decref(r);
	}
	request_error_clear(&err);
	json_decref(bad == (json_t *)1 ? NULL : bad);
	return why[0] ? why : NULL;
}

START_TEST(golden_requests)
{
	char path[4096];
	FILE *f = open_data("requests.txt", path, sizeof path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, cases = 0, failed = 0, first_failed = 0, ok_cases = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		char *tab1 = strchr(line, '\t');
		char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		if (!tab1 || !tab2) {
			ck_abort_msg("%s:%d: malformed case (want RESULT\\tSUBSTRING\\tJSON)", path,
				     lineno);
			break; /* not reached */
		}
		*tab1 = *tab2 = '\0';
		const char *expect = line, *substr = tab1 + 1, *json = tab2 + 1;
		ck_assert_msg(strcmp(expect, "OK") == 0 || status_by_name(expect) != 0,
			      "%s:%d: unknown result \"%s\"", path, lineno, expect);
		ck_assert_msg(strcmp(expect, "OK") != 0 || strcmp(substr, "-") == 0,
			      "%s:%d: an OK case takes \"-\" as its substring", path, lineno);
		cases++;
		ok_cases += strcmp(expect, "OK") == 0;
		const char *why = run_case(expect, substr, json, (size_t)(line + n - json));
		if (why) {
			fprintf(stderr, "%s:%d: %s\n", path, lineno, why);
			if (!failed)
				first_failed = lineno;
			failed++;
		}
	}
	free(line);
	fclose(f);
	/* Guard against a truncated or emptied data file. */
	ck_assert_msg(cases >= 80 && ok_cases >= 10, "%s: only %d cases", path, cases);
	ck_assert_msg(failed == 0, "%s: %d of %d cases failed, first at line %d (all on stderr)",
		      path, failed, cases, first_failed);
}
END_TEST

/* ---- request_parse, field by field */

START_TEST(parse_fills_defaults)
{
	struct request req;
	struct request_error err;
	json_t *bad;
	json_t *root = parse("{\"op\":\"execute\",\"code\":\"1+1\"}", &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_ptr_null(bad);
	ck_assert_int_eq(req.op, OP_EXECUTE);
	ck_assert_str_eq(req.op_name, "execute");
	ck_assert_ptr_null(req.id);
	ck_assert_str_eq(req.code, "1+1");
	ck_assert_uint_eq(req.code_len, 3);
	ck_assert_uint_eq(req.limits.timeout_ms, LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(req.limits.max_cpu_ms, LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(req.limits.memory_bytes, LIMIT_MEMORY_BYTES_DEFAULT);
	ck_assert_uint_eq(req.limits.output_bytes, LIMIT_OUTPUT_BYTES_DEFAULT);
	ck_assert_uint_eq(req.limits_given, 0);
	/* code borrows from the root. */
	ck_assert_ptr_eq(req.code, json_string_value(json_object_get(root, "code")));
	json_decref(root);

	root = parse("{\"op\":\"health\"}", &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(req.op, OP_HEALTH);
	ck_assert_str_eq(req.op_name, "health");
	ck_assert_ptr_null(req.code);
	json_decref(root);

	root = parse("{\"op\":\"stream\",\"code\":\"x\",\"id\":\"s1\"}", &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(req.op, OP_STREAM);
	ck_assert_str_eq(req.op_name, "stream");
	ck_assert_ptr_eq(req.id, json_object_get(root, "id"));
	ck_assert_str_eq(json_string_value(req.id), "s1");
	json_decref(root);
}
END_TEST

START_TEST(parse_fills_fields)
{
	struct request req;
	struct request_error err;
	json_t *bad;
	json_t *root =
		parse("{\"id\":42,\"op\":\"stream\",\"code\":\"a\\u0000b\",\"timeout_ms\":3e4,"
		      "\"memory_bytes\":2097152,\"output_bytes\":1.5e1}",
		      &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(json_integer_value(req.id), 42);
	ck_assert_uint_eq(req.code_len, 3); /* a NUL inside code is kept */
	ck_assert_mem_eq(req.code, "a\0b", 3);
	ck_assert_uint_eq(req.limits.timeout_ms, 30000);
	ck_assert_uint_eq(req.limits.max_cpu_ms, 30000); /* follows timeout_ms */
	ck_assert_uint_eq(req.limits.memory_bytes, 2097152);
	ck_assert_uint_eq(req.limits.output_bytes, 15);
	ck_assert_uint_eq(req.limits_given,
			  exec_limit_bit(exec_limit_find("timeout_ms")) |
				  exec_limit_bit(exec_limit_find("memory_bytes")) |
				  exec_limit_bit(exec_limit_find("output_bytes")));
	json_decref(root);

	root = parse("{\"op\":\"execute\",\"code\":\"\",\"timeout_ms\":120000,"
		     "\"memory_bytes\":1073741824,\"output_bytes\":16777216}",
		     &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(req.code_len, 0);
	ck_assert_uint_eq(req.limits.timeout_ms, LIMIT_TIMEOUT_MS_MAX);
	ck_assert_uint_eq(req.limits.memory_bytes, LIMIT_MEMORY_BYTES_MAX);
	ck_assert_uint_eq(req.limits.output_bytes, LIMIT_OUTPUT_BYTES_MAX_DEFAULT);
	json_decref(root);
}
END_TEST

START_TEST(parse_honours_given_limits)
{
	struct request_limits lim;
	struct request req;
	struct request_error err;
	json_t *bad;
	request_limits_default(&lim);
	ck_assert_uint_eq(lim.def.timeout_ms, LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(lim.max.timeout_ms, LIMIT_TIMEOUT_MS_MAX);
	ck_assert_uint_eq(lim.def.max_cpu_ms, LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(lim.max.max_cpu_ms, LIMIT_TIMEOUT_MS_MAX);
	ck_assert_uint_eq(lim.min.memory_bytes, LIMIT_MEMORY_BYTES_MIN);
	ck_assert_uint_eq(lim.max.memory_bytes, LIMIT_MEMORY_BYTES_MAX);
	ck_assert_uint_eq(lim.max.output_bytes, LIMIT_OUTPUT_BYTES_MAX_DEFAULT);

	/* A daemon started with tighter bounds. */
	lim.def.timeout_ms = 500;
	lim.max.timeout_ms = 1000;
	lim.def.memory_bytes = 5000000;
	lim.min.memory_bytes = 4000000;
	lim.def.output_bytes = 77;
	request_limits_settle(&lim);
	ck_assert_uint_eq(lim.def.max_cpu_ms, 500);
	ck_assert_uint_eq(lim.max.max_cpu_ms, 1000);
	static const char ok[] = "{\"op\":\"execute\",\"code\":\"x\"}";
	json_t *root = request_parse(ok, sizeof ok - 1, &lim, &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(req.limits.timeout_ms, 500);
	ck_assert_uint_eq(req.limits.max_cpu_ms, 500);
	ck_assert_uint_eq(req.limits.memory_bytes, 5000000);
	ck_assert_uint_eq(req.limits.output_bytes, 77);
	json_decref(root);

	static const char over[] = "{\"op\":\"execute\",\"code\":\"x\",\"timeout_ms\":1001}";
	root = request_parse(over, sizeof over - 1, &lim, &req, &err, &bad);
	ck_assert_ptr_null(root);
	ck_assert_str_eq(err.message,
			 "timeout_ms: 1001 is out of range (the daemon allows 1 to 1000)");
	request_error_clear(&err);
	json_decref(bad);

	static const char under[] = "{\"op\":\"execute\",\"code\":\"x\",\"memory_bytes\":3999999}";
	root = request_parse(under, sizeof under - 1, &lim, &req, &err, &bad);
	ck_assert_ptr_null(root);
	ck_assert_ptr_nonnull(strstr(err.message, "allows 4000000 to 1073741824"));
	request_error_clear(&err);
	json_decref(bad);
}
END_TEST

/* ---- the table of per-execution limits */

START_TEST(limit_table_is_whole)
{
	/* Every row names a distinct member of struct exec_limits, a
	 * follower comes after its leader, and an option has its help. */
	uint64_t seen = 0;
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		ck_assert_uint_eq(f->offset % sizeof(uint64_t), 0);
		ck_assert_uint_lt(f->offset, sizeof(struct exec_limits));
		uint64_t bit = 1ull << (f->offset / sizeof(uint64_t));
		ck_assert_msg(!(seen & bit), "%s: a member named twice", f->name);
		seen |= bit;
		ck_assert_ptr_eq(exec_limit_find(f->name), f);
		ck_assert_uint_eq(exec_limit_bit(f), 1u << i);
		ck_assert(f->unit && *f->unit); /* "bytes" are said as sizes (64M) */
		ck_assert_uint_le(f->min, f->def);
		ck_assert_uint_le(f->def, f->max);
		ck_assert(f->ceiling == 0 || f->max <= f->ceiling);
		if (f->follows >= 0) {
			ck_assert_int_lt(f->follows, (int)i);
			ck_assert_ptr_null(f->opt);
		} else {
			ck_assert_ptr_nonnull(f->opt);
			ck_assert_ptr_nonnull(f->help);
			ck_assert_ptr_nonnull(f->opt_max);
			ck_assert_ptr_nonnull(f->help_max);
		}
	}
	ck_assert_uint_eq(seen, (1ull << (sizeof(struct exec_limits) / sizeof(uint64_t))) - 1);
	ck_assert_ptr_null(exec_limit_find("wait_ms"));
	ck_assert_ptr_null(exec_limit_find("timeout"));
}
END_TEST

START_TEST(limit_fields_only_where_executions_are)
{
	/* A limit is a field of the ops that start an execution, and of no
	 * other. */
	static const char *const ok[] = {
		"{\"op\":\"execute\",\"code\":\"x\",\"max_cpu_ms\":5}",
		"{\"op\":\"stream\",\"code\":\"x\",\"output_bytes\":5}",
		"{\"op\":\"async\",\"code\":\"x\",\"timeout_ms\":5}",
		"{\"op\":\"test\",\"tests\":\"x\",\"memory_bytes\":2097152}",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct request req;
		struct request_error err;
		json_t *bad;
		json_t *root = parse(ok[i], &req, &err, &bad);
		ck_assert_msg(root != NULL, "%s: %s", ok[i], err.message);
		json_decref(root);
	}
	char *m = parse_error("{\"op\":\"health\",\"timeout_ms\":5}", STATUS_INVALID_ARGUMENT);
	ck_assert_str_eq(m, "timeout_ms: unknown field for op \"health\"");
	free(m);
	m = parse_error("{\"op\":\"status\",\"execution_id\":\"e\",\"memory_bytes\":5}",
			STATUS_INVALID_ARGUMENT);
	ck_assert_str_eq(m, "memory_bytes: unknown field for op \"status\"");
	free(m);
	m = parse_error("{\"op\":\"execute\",\"code\":\"x\",\"max_cpu_ms\":-1}",
			STATUS_INVALID_ARGUMENT);
	ck_assert_str_eq(m, "max_cpu_ms: expected a non-negative integer, got a negative number");
	free(m);
}
END_TEST

START_TEST(limit_follower_takes_its_leader)
{
	struct request req;
	struct request_error err;
	json_t *bad;
	/* Not given: max_cpu_ms is the request's own timeout. */
	json_t *root =
		parse("{\"op\":\"execute\",\"code\":\"x\",\"timeout_ms\":700}", &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(req.limits.max_cpu_ms, 700);
	json_decref(root);
	/* Given: its own, bounded by the timeout's maximum. */
	root = parse("{\"op\":\"execute\",\"code\":\"x\",\"timeout_ms\":700,\"max_cpu_ms\":9}",
		     &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_uint_eq(req.limits.max_cpu_ms, 9);
	ck_assert(req.limits_given & exec_limit_bit(exec_limit_find("max_cpu_ms")));
	json_decref(root);
	char *m = parse_error("{\"op\":\"execute\",\"code\":\"x\",\"max_cpu_ms\":120001}",
			      STATUS_INVALID_ARGUMENT);
	ck_assert_str_eq(m, "max_cpu_ms: 120001 is out of range (the daemon allows 1 to 120000)");
	free(m);

	/* An @options timeout set afterwards carries an untold follower along,
	 * and leaves a told one alone. */
	struct exec_limits l = {1, 1, 5, 5};
	const struct exec_limit_field *t = exec_limit_find("timeout_ms");
	exec_limits_set(&l, 0, t, 4000);
	ck_assert_uint_eq(l.timeout_ms, 4000);
	ck_assert_uint_eq(l.max_cpu_ms, 4000);
	ck_assert_uint_eq(l.memory_bytes, 5);
	exec_limits_set(&l, exec_limit_bit(exec_limit_find("max_cpu_ms")), t, 6000);
	ck_assert_uint_eq(l.timeout_ms, 6000);
	ck_assert_uint_eq(l.max_cpu_ms, 4000);
}
END_TEST

START_TEST(limit_json_views)
{
	struct exec_limits l = {11, 22, 33, 44};
	json_t *job = json_object();
	ck_assert_int_eq(exec_limits_to_json(&l, EXEC_LIMIT_JOB, job), 0);
	/* The worker's job: what the worker enforces itself, not the output
	 * cap, which the supervisor holds. */
	ck_assert_int_eq(json_integer_value(json_object_get(job, "timeout_ms")), 11);
	ck_assert_int_eq(json_integer_value(json_object_get(job, "max_cpu_ms")), 22);
	ck_assert_int_eq(json_integer_value(json_object_get(job, "memory_bytes")), 33);
	ck_assert_ptr_null(json_object_get(job, "output_bytes"));
	json_decref(job);
	json_t *all = json_object();
	ck_assert_int_eq(exec_limits_to_json(&l, 0, all), 0);
	ck_assert_uint_eq(json_object_size(all), exec_limit_count);
	json_decref(all);

	struct request_limits lim;
	request_limits_default(&lim);
	lim.max.output_bytes = 12345;
	json_t *h = json_object();
	ck_assert_int_eq(request_limits_to_json(&lim, h), 0);
	ck_assert_uint_eq(json_object_size(h), 2 * exec_limit_count + 1);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "timeout_ms")),
			 LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "timeout_ms_max")),
			 LIMIT_TIMEOUT_MS_MAX);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "max_cpu_ms_max")),
			 LIMIT_TIMEOUT_MS_MAX);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "memory_bytes")),
			 LIMIT_MEMORY_BYTES_DEFAULT);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "output_bytes_max")), 12345);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "wait_ms_max")), LIMIT_WAIT_MS_MAX);
	json_decref(h);
}
END_TEST

START_TEST(parse_payload_is_bounded_by_len)
{
	/* Only payload[0..len) is parsed: no NUL terminator is needed, and
	 * what follows is not read. */
	static const char s[] = "{\"op\":\"health\"}{\"garbage";
	struct request_limits lim;
	struct request req;
	struct request_error err;
	json_t *bad;
	request_limits_default(&lim);
	json_t *root = request_parse(s, 15, &lim, &req, &err, &bad);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(req.op, OP_HEALTH);
	json_decref(root);
	root = request_parse(s, 14, &lim, &req, &err, &bad);
	ck_assert_ptr_null(root);
	ck_assert_ptr_null(bad);
	ck_assert_ptr_nonnull(strstr(err.message, "not valid JSON"));
	request_error_clear(&err);
}
END_TEST

START_TEST(parse_depth_beyond_the_parser)
{
	/* Far past jansson's own limit: refused as JSON, without a crash. */
	size_t depth = 100000;
	char *s = malloc(2 * depth + 32);
	ck_assert_ptr_nonnull(s);
	size_t n = (size_t)sprintf(s, "{\"op\":\"health\",\"x\":");
	memset(s + n, '[', depth);
	memset(s + n + depth, ']', depth);
	strcpy(s + n + 2 * depth, "}");
	char *m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(m, "not valid JSON"));
	free(m);
	free(s);
}
END_TEST

/* A request of many tiny values is refused on its text, with the field
 * named, before jansson would build a tree of ~80 bytes a value. */
static char *repeat_request(const char *head, const char *unit, size_t count, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * count + tl + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, head, hl);
	for (size_t i = 0; i < count; i++)
		memcpy(s + hl + i * ul, unit, ul);
	strcpy(s + hl + ul * count - (count ? 1 : 0), tail); /* drop the last comma */
	return s;
}

START_TEST(parse_node_bounds)
{
	/* a 3 MB input_schema of {}s */
	char *s = repeat_request("{\"op\":\"execute\",\"code\":\"1\",\"tools\":[{\"name\":\"t\","
				 "\"input_schema\":{\"a\":[",
				 "{},", 1000000, "]}}]}");
	char *m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_msg(strstr(m, "tools") != NULL && strstr(m, "JSON values") != NULL, "%s", m);
	free(m);
	free(s);
	/* within the request's count but over the tools' */
	s = repeat_request("{\"op\":\"declarations\",\"tools\":[{\"name\":\"t\","
			   "\"input_schema\":{\"a\":[",
			   "1,", LIMIT_TOOLS_NODES, "]}}]}");
	m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_msg(strstr(m, "tools: ") == m, "%s", m);
	free(m);
	free(s);
	/* one schema over its size */
	s = repeat_request("{\"op\":\"declarations\",\"tools\":[{\"name\":\"t\","
			   "\"input_schema\":{\"description\":\"",
			   "xxxxxxxxxx", LIMIT_SCHEMA_BYTES / 10 + 1, "x\"}}]}");
	m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_msg(strstr(m, "tools[0].input_schema") != NULL, "%s", m);
	free(m);
	free(s);
	/* a tool_result value of too many values names the field */
	s = repeat_request("{\"op\":\"tool_result\",\"execution_id\":\"x\",\"call_id\":1,"
			   "\"value\":[",
			   "0,", LIMIT_REQUEST_NODES + 1, "]}");
	m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_msg(strstr(m, "value: ") == m, "%s", m);
	free(m);
	free(s);
	/* the store's count */
	s = repeat_request("{\"op\":\"execute\",\"code\":\"1\",\"store\":{\"k\":[", "0,",
			   LIMIT_STORE_NODES + 1, "]}}");
	m = parse_error(s, STATUS_INVALID_ARGUMENT);
	ck_assert_msg(strstr(m, "store: ") == m, "%s", m);
	free(m);
	free(s);
}
END_TEST

START_TEST(error_echoes_id)
{
	static const struct {
		const char *json;
		const char *id; /* compact JSON of err.id, or NULL */
	} cases[] = {
		{"{\"id\":\"abc\",\"op\":\"nope\"}", "\"abc\""},
		{"{\"op\":\"nope\",\"id\":\"abc\"}", "\"abc\""},
		{"{\"id\":7}", "7"},
		{"{\"id\":-1.5,\"op\":3}", "-1.5"},
		{"{\"id\":\"x\",\"op\":\"execute\"}", "\"x\""},
		{"{\"id\":\"x\",\"op\":\"execute\",\"code\":\"1\",\"timeout_ms\":0}", "\"x\""},
		{"{\"id\":\"x\",\"op\":\"health\",\"extra\":1}", "\"x\""},
		{"{\"id\":9,\"op\":\"health\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
		 "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
		 "9"}, /* 71 levels */
		/* Not readable: not echoed. */
		{"{\"id\":{\"a\":1},\"op\":\"health\"}", NULL},
		{"{\"id\":null,\"op\":\"health\"}", NULL},
		{"{\"op\":\"nope\"}", NULL},
		{"[{\"id\":1}]", NULL},
		{"{\"id\":1", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct request req;
		struct request_error err;
		json_t *bad;
		json_t *root = parse(cases[i].json, &req, &err, &bad);
		ck_assert_msg(root == NULL, "%s: accepted", cases[i].json);
		if (cases[i].id) {
			ck_assert_msg(err.id != NULL, "%s: id not echoed", cases[i].json);
			assert_json(err.id, cases[i].id);
			/* It borrows from the root handed back for release. */
			ck_assert_ptr_eq(err.id, json_object_get(bad, "id"));
		} else {
			ck_assert_msg(err.id == NULL, "%s: id echoed", cases[i].json);
		}
		request_error_clear(&err);
		json_decref(bad);
	}

	/* A too-long id is not echoed either: the reply must stay small. */
	char s[400];
	snprintf(s, sizeof s, "{\"op\":\"health\",\"id\":\"%0257d\"}", 0);
	struct request req;
	struct request_error err;
	json_t *bad;
	ck_assert_ptr_null(parse(s, &req, &err, &bad));
	ck_assert_ptr_null(err.id);
	ck_assert_ptr_nonnull(strstr(err.message, "id: longer than 256 bytes"));
	request_error_clear(&err);
	json_decref(bad);
}
END_TEST

START_TEST(root_on_error_ownership)
{
	struct request req;
	struct request_error err;
	json_t *bad = (json_t *)1;
	/* Not JSON: nothing to hand back. */
	ck_assert_ptr_null(parse("nope", &req, &err, &bad));
	ck_assert_ptr_null(bad);
	ck_assert_ptr_null(err.id);
	request_error_clear(&err);
	/* JSON but refused: the root comes back to be released. */
	ck_assert_ptr_null(parse("[1]", &req, &err, &bad));
	ck_assert_ptr_nonnull(bad);
	ck_assert(json_is_array(bad));
	request_error_clear(&err);
	json_decref(bad);
	ck_assert_ptr_null(parse("{\"op\":\"x\"}", &req, &err, &bad));
	ck_assert(json_is_object(bad));
	request_error_clear(&err);
	ck_assert_ptr_null(err.message);
	request_error_clear(&err); /* twice is harmless */
	json_decref(bad);
}
END_TEST

START_TEST(unknown_op_lists_known_ops)
{
	char *m = parse_error("{\"op\":\"exec\"}", STATUS_INVALID_ARGUMENT);
	ck_assert_str_eq(m,
			 "op: unknown op \"exec\" (known: health, execute, stream, async, status, "
			 "cancel, list, test, cache_list, cache_clear, tool_result, declarations)");
	free(m);
	/* An op that is a known name followed by a NUL is not that op. */
	m = parse_error("{\"op\":\"health\\u0000\"}", STATUS_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(m, "unknown op"));
	free(m);
	m = parse_error("{\"op\":\"execute\\u0000stream\",\"code\":\"x\"}",
			STATUS_INVALID_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(m, "unknown op"));
	free(m);
}
END_TEST

START_TEST(quoted_names_stay_valid_utf8)
{
	/* Client strings quoted in a message are cut at 64 bytes; the cut
	 * must not split a character, or the reply cannot be encoded. */
	for (int pad = 0; pad < 4; pad++) {
		char s[512], key[300];
		int n = snprintf(key, sizeof key, "%.*s", pad, "aaa");
		for (int i = 0; i < 50; i++)
			n += snprintf(key + n, sizeof key - (size_t)n, "\xe2\x82\xac");
		for (int which = 0; which < 2; which++) {
			if (which == 0)
				snprintf(s, sizeof s, "{\"op\":\"%s\"}", key);
			else
				snprintf(s, sizeof s, "{\"op\":\"health\",\"%s\":1}", key);
			char *m = parse_error(s, STATUS_INVALID_ARGUMENT);
			json_t *r = msg_reply_error(NULL, STATUS_INVALID_ARGUMENT, m);
			ck_assert_ptr_nonnull(r);
			const char *got = json_string_value(
				json_object_get(json_object_get(r, "error"), "message"));
			ck_assert_msg(got && strcmp(got, m) == 0, "pad %d: reply lost \"%s\"", pad,
				      m);
			/* As many whole characters as fit in 64 bytes. */
			int want_chars = (64 - pad) / 3;
			char *euros = strstr(m, "\xe2\x82\xac");
			ck_assert_ptr_nonnull(euros);
			int chars = 0;
			while (strncmp(euros + 3 * chars, "\xe2\x82\xac", 3) == 0)
				chars++;
			ck_assert_int_eq(chars, want_chars);
			json_decref(r);
			free(m);
		}
	}
}
END_TEST

/* ---- msg */

START_TEST(msg_reply_ok_shape)
{
	json_t *r = msg_reply_ok(NULL);
	assert_json(r, "{\"ok\":true}");
	json_decref(r);

	json_t *id = json_string("req-1");
	r = msg_reply_ok(id);
	assert_json(r, "{\"id\":\"req-1\",\"ok\":true}");
	/* The reply holds its own reference to the very same id. */
	ck_assert_ptr_eq(json_object_get(r, "id"), id);
	ck_assert_uint_eq(id->refcount, 2);
	json_decref(r);
	ck_assert_uint_eq(id->refcount, 1);
	json_decref(id);

	id = json_integer(12);
	r = msg_reply_ok(id);
	assert_json(r, "{\"id\":12,\"ok\":true}");
	json_decref(r);
	json_decref(id);
}
END_TEST

START_TEST(msg_reply_error_shape)
{
	json_t *id = json_integer(7);
	json_t *r = msg_reply_error(id, STATUS_NOT_FOUND, "no such execution");
	assert_json(r, "{\"id\":7,\"ok\":false,\"error\":{\"code\":\"NOT_FOUND\","
		       "\"message\":\"no such execution\"}}");
	json_decref(r);
	json_decref(id);

	r = msg_reply_error(NULL, STATUS_INVALID_ARGUMENT, "bad \"quote\"\n");
	assert_json(r, "{\"ok\":false,\"error\":{\"code\":\"INVALID_ARGUMENT\","
		       "\"message\":\"bad \\\"quote\\\"\\n\"}}");
	json_decref(r);

	/* Without a message the code's name stands in. */
	r = msg_reply_error(NULL, STATUS_UNAVAILABLE, NULL);
	assert_json(
		r,
		"{\"ok\":false,\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"UNAVAILABLE\"}}");
	json_decref(r);

	/* Every code by name. */
	static const char *names[] = {"INVALID_ARGUMENT",
				      "NOT_FOUND",
				      "FAILED_PRECONDITION",
				      "RESOURCE_EXHAUSTED",
				      "PERMISSION_DENIED",
				      "UNAVAILABLE",
				      "INTERNAL"};
	for (int c = STATUS_INVALID_ARGUMENT; c <= STATUS_INTERNAL; c++) {
		ck_assert_str_eq(status_name((enum status)c), names[c - 1]);
		r = msg_reply_error(NULL, (enum status)c, "m");
		ck_assert_str_eq(
			json_string_value(json_object_get(json_object_get(r, "error"), "code")),
			names[c - 1]);
		json_decref(r);
	}
	ck_assert_str_eq(status_name((enum status)99), "INTERNAL");
}
END_TEST

START_TEST(msg_reply_error_never_loses_the_error)
{
	/* A message that is not valid UTF-8 cannot go into JSON; the reply
	 * still says what failed rather than coming out without "error". */
	json_t *id = json_string("q");
	json_t *r = msg_reply_error(id, STATUS_INTERNAL, "broken \xff message");
	ck_assert_ptr_nonnull(r);
	json_t *e = json_object_get(r, "error");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "code")), "INTERNAL");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(e, "message")));
	ck_assert(json_is_false(json_object_get(r, "ok")));
	ck_assert_ptr_eq(json_object_get(r, "id"), id);
	struct buf out = BUF_INIT;
	ck_assert_int_eq(msg_encode(&out, FRAME_MODE_LINE, r), 0);
	buf_free(&out);
	json_decref(r);
	json_decref(id);
}
END_TEST

START_TEST(msg_event_shape)
{
	json_t *id = json_string("e1");
	json_t *ev = msg_event(id, "started");
	assert_json(ev, "{\"id\":\"e1\",\"event\":\"started\"}");
	/* Callers add the event's fields after. */
	json_object_set_new(ev, "data", json_string("a\nb"));
	assert_json(ev, "{\"id\":\"e1\",\"event\":\"started\",\"data\":\"a\\nb\"}");
	json_decref(ev);
	json_decref(id);

	ev = msg_event(NULL, "stdout");
	assert_json(ev, "{\"event\":\"stdout\"}");
	json_decref(ev);
}
END_TEST

/* Decodes the one frame out holds in mode and returns its payload (to
 * free); fails unless the frame is exactly all of out. */
static char *decode_one(const struct buf *out, enum frame_mode mode)
{
	struct frame_decoder d;
	const char *p;
	size_t plen, used;
	frame_decoder_init(&d, mode, 1 << 20);
	ck_assert_int_eq(frame_next(&d, buf_peek(out), buf_len(out), &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(used, buf_len(out));
	return strndup(p, plen);
}

START_TEST(msg_encode_binary)
{
	struct buf out = BUF_INIT;
	json_t *r = msg_reply_ok(NULL);
	ck_assert_int_eq(msg_encode(&out, FRAME_MODE_BINARY, r), 0);
	ck_assert_uint_eq(buf_len(&out), 4 + 11);
	ck_assert_mem_eq(buf_peek(&out), "\0\0\0\013{\"ok\":true}", 15);
	char *p = decode_one(&out, FRAME_MODE_BINARY);
	ck_assert_str_eq(p, "{\"ok\":true}");
	free(p);
	json_decref(r);
	buf_free(&out);
}
END_TEST

START_TEST(msg_encode_line)
{
	struct buf out = BUF_INIT;
	json_t *id = json_string("l");
	json_t *ev = msg_event(id, "stdout");
	json_object_set_new(ev, "data", json_string("two\nlines\r\n"));
	ck_assert_int_eq(msg_encode(&out, FRAME_MODE_LINE, ev), 0);
	static const char want[] =
		"{\"id\":\"l\",\"event\":\"stdout\",\"data\":\"two\\nlines\\r\\n\"}\n";
	ck_assert_uint_eq(buf_len(&out), sizeof want - 1);
	ck_assert_mem_eq(buf_peek(&out), want, sizeof want - 1);
	/* One line: the only raw newline is the terminator. */
	ck_assert_ptr_eq(memchr(buf_peek(&out), '\n', buf_len(&out)),
			 buf_peek(&out) + buf_len(&out) - 1);
	char *p = decode_one(&out, FRAME_MODE_LINE);
	ck_assert_str_eq(p, "{\"id\":\"l\",\"event\":\"stdout\",\"data\":\"two\\nlines\\r\\n\"}");
	free(p);
	json_decref(ev);
	json_decref(id);
	buf_free(&out);
}
END_TEST

START_TEST(msg_encode_appends_and_round_trips)
{
	/* Several frames queued behind bytes already partly sent, with enough
	 * data that the buffer slides and grows while a frame is written. */
	for (int m = 0; m < 2; m++) {
		enum frame_mode mode = m ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
		struct buf out = BUF_INIT;
		char junk[250];
		memset(junk, 'j', sizeof junk);
		ck_assert_int_eq(buf_append(&out, junk, sizeof junk), 0);
		buf_consume(&out, 240); /* 10 bytes left, start well past 0 */

		char big[3000];
		memset(big, 'b', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		json_t *id = json_integer(5);
		json_t *msgs[3];
		msgs[0] = msg_event(id, "stdout");
		json_object_set_new(msgs[0], "data", json_string(big));
		msgs[1] = msg_reply_error(id, STATUS_RESOURCE_EXHAUSTED, "queue full");
		msgs[2] = msg_reply_ok(NULL);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(msg_encode(&out, mode, msgs[i]), 0);

		ck_assert_mem_eq(buf_peek(&out), junk, 10);
		buf_consume(&out, 10);
		struct frame_decoder d;
		frame_decoder_init(&d, mode, 1 << 20);
		for (int i = 0; i < 3; i++) {
			const char *p;
			size_t plen, used;
			ck_assert_int_eq(
				frame_next(&d, buf_peek(&out), buf_len(&out), &p, &plen, &used),
				FRAME_OK);
			char *want = dump(msgs[i]);
			ck_assert_uint_eq(plen, strlen(want));
			ck_assert_mem_eq(p, want, plen);
			free(want);
			buf_consume(&out, used);
		}
		ck_assert_uint_eq(buf_len(&out), 0);
		for (int i = 0; i < 3; i++)
			json_decref(msgs[i]);
		json_decref(id);
		buf_free(&out);
	}
}
END_TEST

START_TEST(msg_encode_failure_leaves_out_unchanged)
{
	/* A string that is not UTF-8 cannot be dumped; nothing of the frame
	 * may stay behind, in either mode. */
	json_t *bad = json_object();
	json_object_set_new(bad, "event", json_string("stdout"));
	json_object_set_new(bad, "data", json_stringn_nocheck("\xff\xfe", 2));
	for (int m = 0; m < 2; m++) {
		enum frame_mode mode = m ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
		struct buf out = BUF_INIT;
		ck_assert_int_eq(buf_append(&out, "0123456789", 10), 0);
		buf_consume(&out, 3);
		ck_assert_int_eq(msg_encode(&out, mode, bad), -1);
		ck_assert_uint_eq(buf_len(&out), 7);
		ck_assert_mem_eq(buf_peek(&out), "3456789", 7);
		/* And the buffer still works for the next frame. */
		json_t *ok = msg_reply_ok(NULL);
		ck_assert_int_eq(msg_encode(&out, mode, ok), 0);
		buf_consume(&out, 7);
		char *p = decode_one(&out, mode);
		ck_assert_str_eq(p, "{\"ok\":true}");
		free(p);
		json_decref(ok);
		buf_free(&out);
	}
	json_decref(bad);
}
END_TEST

static Suite *request_suite(void)
{
	Suite *s = suite_create("request");
	TCase *tc = tcase_create("golden");
	tcase_add_test(tc, golden_requests);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, parse_fills_defaults);
	tcase_add_test(tc, parse_fills_fields);
	tcase_add_test(tc, parse_honours_given_limits);
	tcase_add_test(tc, parse_payload_is_bounded_by_len);
	tcase_add_test(tc, limit_table_is_whole);
	tcase_add_test(tc, limit_fields_only_where_executions_are);
	tcase_add_test(tc, limit_follower_takes_its_leader);
	tcase_add_test(tc, limit_json_views);
	tcase_add_test(tc, parse_depth_beyond_the_parser);
	tcase_add_test(tc, parse_node_bounds);
	tcase_add_test(tc, error_echoes_id);
	tcase_add_test(tc, root_on_error_ownership);
	tcase_add_test(tc, unknown_op_lists_known_ops);
	tcase_add_test(tc, quoted_names_stay_valid_utf8);
	suite_add_tcase(s, tc);

	tc = tcase_create("msg");
	tcase_add_test(tc, msg_reply_ok_shape);
	tcase_add_test(tc, msg_reply_error_shape);
	tcase_add_test(tc, msg_reply_error_never_loses_the_error);
	tcase_add_test(tc, msg_event_shape);
	tcase_add_test(tc, msg_encode_binary);
	tcase_add_test(tc, msg_encode_line);
	tcase_add_test(tc, msg_encode_appends_and_round_trips);
	tcase_add_test(tc, msg_encode_failure_leaves_out_unchanged);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(request_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
