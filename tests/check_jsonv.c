/*
 * check_jsonv.c - the JSON validator and compactor (protocol/jsonv.c) and
 * the worker's control frames checked with it (protocol/ctl.c): what a
 * worker sends is validated as text, as its bytes arrive in any split,
 * and only bounded, compact text is kept. The compromised-worker cases
 * (a 16 MiB frame of [{},{},...], forged test summaries, store writes over
 * their limits) are driven here directly, bytes in, verdict out.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/jsonv.h"
#include "../protocol/limits.h"

static const struct jsonv_limits wide = {JSONV_DEPTH_MAX, 100000000u, 0};

/* Compacts s in one go; returns the text (caller frees) or NULL. */
static char *compact(const char *s, size_t len, const struct jsonv_limits *lim, const char **why)
{
	struct buf out = BUF_INIT;
	if (jsonv_compact(s, len, lim, &out, NULL, why) < 0) {
		buf_free(&out);
		return NULL;
	}
	buf_append(&out, "", 1);
	return out.data;
}

/* The compact text must mean what the input meant (jansson decides). */
static void assert_same_meaning(const char *in, size_t len, const char *out)
{
	json_t *a = json_loadb(in, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	json_t *b = json_loads(out, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	ck_assert_msg(a && b && json_equal(a, b), "meaning changed: %.*s -> %s", (int)len, in, out);
	json_decref(a);
	json_decref(b);
}

START_TEST(valid_compacted)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"0", "0"},
		{" -0.5e+10 ", "-0.5e+10"},
		{"[ 1 , 2 ,3 ]", "[1,2,3]"},
		{"{ \"a\" : [ true, false, null ] , \"b\":{} }",
		 "{\"a\":[true,false,null],\"b\":{}}"},
		{"\"tab\\tnl\\n\\u00e9\\ud83d\\ude00\"", "\"tab\\tnl\\n\\u00e9\\ud83d\\ude00\""},
		{"\"nul \\u0000 inside\"", "\"nul \\u0000 inside\""},
		{"\"h\xC3\xA9llo \xF0\x9F\x98\x80\"", "\"h\xC3\xA9llo \xF0\x9F\x98\x80\""},
		{"[[[[]]]]", "[[[[]]]]"},
		{"\n\t{\"k\" :\r\n\"v\"}\n", "{\"k\":\"v\"}"},
		{"1E5", "1E5"},
		{"[0,-1,12.25,3e-2]", "[0,-1,12.25,3e-2]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *why = NULL;
		char *out = compact(cases[i].in, strlen(cases[i].in), &wide, &why);
		ck_assert_msg(out != NULL, "case %zu refused: %s", i, why);
		ck_assert_str_eq(out, cases[i].out);
		assert_same_meaning(cases[i].in, strlen(cases[i].in), out);
		free(out);
	}
}
END_TEST

START_TEST(invalid_refused)
{
	static const char *const bad[] = {
		"",
		" ",
		"[",
		"]",
		"[1,]",
		"{\"a\"}",
		"{\"a\":}",
		"{1:2}",
		"[1 2]",
		"01",
		"1.",
		"1e",
		"-",
		"+1",
		".5",
		"tru",
		"nul",
		"truex",
		"[true false]",
		"\"abc",
		"\"\\x\"",
		"\"\\u12\"",
		"\"\\ud800\"",
		"\"\\udc00\"",
		"\"\\ud800\\u0041\"",
		"\"a\nb\"",
		"\"\xC0\xAF\"",
		"\"\xED\xA0\x80\"",
		"\"\xF5\x80\x80\x80\"",
		"\"\xE2\x82\"",
		"1 2",
		"{\"a\":1,}",
		"[}",
		"{]",
		"\"\x80\"",
		"NaN",
		"Infinity",
		"[1]x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *why = NULL;
		char *out = compact(bad[i], strlen(bad[i]), &wide, &why);
		ck_assert_msg(out == NULL, "case %zu (%s) accepted as %s", i, bad[i], out);
		ck_assert_ptr_nonnull(why);
		/* jansson agrees that it is not JSON */
		json_t *j = json_loads(bad[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		ck_assert_msg(j == NULL, "case %zu: jansson accepts %s", i, bad[i]);
	}
}
END_TEST

/* Fed one byte at a time, or split at every place, the verdict and the
 * output are those of one call. */
START_TEST(split_anywhere)
{
	const char *in = "{ \"type\" : \"result\", \"v\": [1, -2.5e3, \"\\ud83d\\ude00 \xC3\xA9\","
			 " {\"x\": null}, true ], \"s\": \"\\u0000\" }";
	size_t len = strlen(in);
	const char *why;
	char *whole = compact(in, len, &wide, &why);
	ck_assert_ptr_nonnull(whole);
	for (size_t cut = 0; cut <= len; cut++) {
		struct jsonv v;
		struct buf out = BUF_INIT;
		jsonv_init(&v, &wide, &out);
		ck_assert_int_eq(jsonv_feed(&v, in, cut), 0);
		ck_assert_int_eq(jsonv_feed(&v, in + cut, len - cut), 0);
		ck_assert_int_eq(jsonv_finish(&v), 0);
		ck_assert_uint_eq(buf_len(&out), strlen(whole));
		ck_assert(memcmp(buf_peek(&out), whole, buf_len(&out)) == 0);
		ck_assert_uint_eq(v.n_members, 3);
		buf_free(&out);
	}
	struct jsonv v;
	struct buf out = BUF_INIT;
	jsonv_init(&v, &wide, &out);
	for (size_t i = 0; i < len; i++)
		ck_assert_int_eq(jsonv_feed(&v, in + i, 1), 0);
	ck_assert_int_eq(jsonv_finish(&v), 0);
	ck_assert(memcmp(buf_peek(&out), whole, buf_len(&out)) == 0);
	buf_free(&out);
	free(whole);
}
END_TEST

START_TEST(limits_enforced)
{
	const char *why;
	struct jsonv_limits lim = {3, 1000, 0};
	ck_assert_int_eq(jsonv_compact("[[[1]]]", 7, &lim, NULL, NULL, &why), 0);
	ck_assert_int_eq(jsonv_compact("[[[[1]]]]", 9, &lim, NULL, NULL, &why), -1);
	ck_assert_str_eq(why, "nested too deeply");
	lim = (struct jsonv_limits){64, 4, 0};
	uint64_t nodes;
	ck_assert_int_eq(jsonv_compact("[1,{},\"a\"]", 10, &lim, NULL, &nodes, &why), 0);
	ck_assert_uint_eq(nodes, 4);
	ck_assert_int_eq(jsonv_compact("[1,{},\"a\",2]", 12, &lim, NULL, NULL, &why), -1);
	ck_assert_str_eq(why, "too many values");
	lim = (struct jsonv_limits){64, 100, 5};
	ck_assert_int_eq(jsonv_compact("[1,2]", 5, &lim, NULL, NULL, &why), 0);
	ck_assert_int_eq(jsonv_compact("[1, 2]", 6, &lim, NULL, NULL, &why), -1);
	ck_assert_str_eq(why, "too big");
}
END_TEST

START_TEST(members_and_walk)
{
	const char *in = "{\"type\":\"result\", \"value\" : [1,[2,3],{\"a\":\"]\"}], \"ok\":true}";
	struct jsonv v;
	struct buf out = BUF_INIT;
	jsonv_init(&v, &wide, &out);
	ck_assert_int_eq(jsonv_feed(&v, in, strlen(in)), 0);
	ck_assert_int_eq(jsonv_finish(&v), 0);
	const char *text = buf_peek(&out);
	bool dup;
	const struct jsonv_member *m = jsonv_member(&v, "value", &dup);
	ck_assert_ptr_nonnull(m);
	ck_assert(!dup);
	ck_assert_int_eq((int)m->value.len, (int)strlen("[1,[2,3],{\"a\":\"]\"}]"));
	ck_assert(memcmp(text + m->value.off, "[1,[2,3],{\"a\":\"]\"}]", m->value.len) == 0);
	ck_assert_uint_eq(m->nodes, 7);
	ck_assert_ptr_null(jsonv_member(&v, "nope", NULL));
	/* walk the value's elements */
	const char *arr = text + m->value.off;
	size_t pos = 0, n = 0;
	struct jsonv_span k, e;
	const char *want[] = {"1", "[2,3]", "{\"a\":\"]\"}"};
	while (jsonv_next(arr, m->value.len, &pos, &k, &e)) {
		ck_assert_uint_lt(n, 3);
		ck_assert_uint_eq(k.len, 0);
		ck_assert_uint_eq(e.len, strlen(want[n]));
		ck_assert(memcmp(arr + e.off, want[n], e.len) == 0);
		n++;
	}
	ck_assert_uint_eq(n, 3);
	/* and the object's members */
	pos = n = 0;
	while (jsonv_next(text, buf_len(&out), &pos, &k, &e))
		n++;
	ck_assert_uint_eq(n, 3);
	pos = 0;
	ck_assert(!jsonv_next("[]", 2, &pos, &k, &e));
	buf_free(&out);
}
END_TEST

/* Big input is validated at well over 100 MiB/s, so a 64 KiB read costs
 * the loop well under a millisecond, and a 16 MiB value all in all a few
 * tens of milliseconds spread over its reads. */
START_TEST(speed)
{
	size_t n = 16u * 1024 * 1024;
	char *s = malloc(n);
	ck_assert_ptr_nonnull(s);
	/* [{},{},...]: the densest value there is */
	s[0] = '[';
	size_t i = 1;
	while (i + 4 < n) {
		memcpy(s + i, "{},", 3);
		i += 3;
	}
	memcpy(s + i, "{}]", 3);
	i += 3;
	struct jsonv_limits lim = {64, 100000000u, 0};
	struct buf out = BUF_INIT;
	/* CPU time, so that a shared machine's scheduling does not count. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	struct jsonv v;
	jsonv_init(&v, &lim, &out);
	double worst = 0;
	for (size_t off = 0; off < i; off += 65536) {
		struct timespec a, b;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		size_t k = i - off < 65536 ? i - off : 65536;
		ck_assert_int_eq(jsonv_feed(&v, s + off, k), 0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		double ms =
			(double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		if (ms > worst)
			worst = ms;
	}
	ck_assert_int_eq(jsonv_finish(&v), 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("jsonv: 16 MiB of [{},...] (%llu values) in %.1f ms; slowest 64 KiB read %.2f ms\n",
	       (unsigned long long)v.nodes, ms, worst);
	ck_assert_uint_eq(buf_len(&out), i);
	/* Generous for a shared CPU; typically some 50 times less. */
	ck_assert_msg(worst < 10.0, "a 64 KiB read took %.2f ms to validate", worst);
	buf_free(&out);
	free(s);
}
END_TEST

/* ---- control frames */

static int parse(const char *s, struct ctl_msg *m, const char **why)
{
	return ctl_parse(s, strlen(s), m, why);
}

START_TEST(ctl_result_value_kept_as_text)
{
	struct ctl_msg m;
	const char *why;
	ck_assert_int_eq(parse("{\"type\": \"result\", \"ok\": true, \"value\": { \"a\" : [1, "
			       "\"x\\u0000y\"] }, \"heap_peak_bytes\": 123}",
			       &m, &why),
			 0);
	ck_assert_int_eq(m.type, CTL_RESULT);
	ck_assert(m.ok);
	ck_assert_str_eq(m.value, "{\"a\":[1,\"x\\u0000y\"]}");
	ck_assert_uint_eq(m.value_len, strlen(m.value));
	ck_assert_int_eq(m.heap_peak, 123);
	ctl_msg_clear(&m);

	ck_assert_int_eq(parse("{\"type\":\"result\",\"ok\":true}", &m, &why), 0);
	ck_assert_ptr_null(m.value);
	ctl_msg_clear(&m);

	ck_assert_int_eq(parse("{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\","
			       "\"message\":\"boom\",\"line\":3}}",
			       &m, &why),
			 0);
	ck_assert(!m.ok);
	ck_assert_str_eq(json_string_value(json_object_get(m.error, "kind")), "script");
	ctl_msg_clear(&m);
}
END_TEST

START_TEST(ctl_refuses_forgeries)
{
	static const char *const bad[] = {
		"[]",
		"{\"type\":\"result\"}",
		"{\"type\":\"nope\",\"ok\":true}",
		"{\"type\":\"result\",\"ok\":true,\"ok\":false}",
		"{\"type\":\"result\",\"ok\":true,\"extra\":1}",
		/* a kind only the supervisor gives */
		"{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"sandbox\",\"message\":"
		"\"x\"}}",
		"{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\"}}",
		"{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":[],\"delete\":[]}}",
		"{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{},\"delete\":[1]}}",
		"{\"type\":\"result\",\"ok\":true,\"test\":{\"summary\":{}}}",
		"{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":[{\"name\":1}]}}",
		"{\"type\":\"tool_call\",\"call_id\":0,\"name\":\"t\",\"args\":{}}",
		"{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\"}",
		"{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"a\\u0000b\",\"args\":{}}",
		"{\"type\":\"result\",\"ok\":true,\"value\":[1,]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ctl_msg m;
		const char *why = NULL;
		ck_assert_msg(parse(bad[i], &m, &why) < 0, "case %zu accepted: %s", i, bad[i]);
		ck_assert_ptr_nonnull(why);
	}
}
END_TEST

START_TEST(ctl_tool_call)
{
	struct ctl_msg m;
	const char *why;
	ck_assert_int_eq(parse("{\"type\":\"tool_call\",\"call_id\":7,\"name\":\"gh.search\","
			       "\"args\": {\"q\": \"x\"}}",
			       &m, &why),
			 0);
	ck_assert_int_eq(m.type, CTL_TOOL_CALL);
	ck_assert_int_eq(m.call_id, 7);
	ck_assert_str_eq(m.name, "gh.search");
	ck_assert_str_eq(m.args, "{\"q\":\"x\"}");
	ctl_msg_clear(&m);
}
END_TEST

/* The summary is the supervisor's count of the entries, whatever the
 * worker claims; entries are bounded. */
START_TEST(ctl_test_summary_recomputed)
{
	struct ctl_msg m;
	const char *why;
	ck_assert_int_eq(
		parse("{\"type\":\"result\",\"ok\":true,\"test\":{\"summary\":{\"total\":9,"
		      "\"passed\":9,\"failed\":0,\"skipped\":0},\"tests\":["
		      "{\"name\":\"a\",\"passed\":true,\"duration_ms\":1},"
		      "{\"name\":\"b\",\"passed\":false,\"error\":\"no\",\"duration_ms\":2},"
		      "{\"name\":\"c\",\"passed\":true,\"skipped\":true,\"duration_ms\":0},"
		      "{\"name\":\"d\",\"passed\":true,\"error\":\"claims a "
		      "pass\",\"duration_ms\":0}]}}",
		      &m, &why),
		0);
	ck_assert(m.has_test);
	ck_assert_uint_eq(m.summary.total, 4);
	ck_assert_uint_eq(m.summary.passed, 1);
	ck_assert_uint_eq(m.summary.failed, 2);
	ck_assert_uint_eq(m.summary.skipped, 1);
	json_t *t = json_loads(m.tests, 0, NULL);
	ck_assert_uint_eq(json_array_size(t), 4);
	ck_assert(json_is_false(json_object_get(json_array_get(t, 2), "passed")));
	ck_assert(json_is_false(json_object_get(json_array_get(t, 3), "passed")));
	json_decref(t);
	ctl_msg_clear(&m);

	/* a name over its bound is cut */
	char *name = malloc(5000);
	memset(name, 'n', 4999);
	name[4999] = '\0';
	char *frame = malloc(6000);
	snprintf(frame, 6000,
		 "{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":[{\"name\":\"%s\","
		 "\"passed\":true,\"duration_ms\":1}]}}",
		 name);
	ck_assert_int_eq(parse(frame, &m, &why), 0);
	t = json_loads(m.tests, 0, NULL);
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(json_array_get(t, 0), "name"))),
			  CTL_TEST_NAME_BYTES);
	json_decref(t);
	ctl_msg_clear(&m);
	free(name);
	free(frame);
}
END_TEST

/* store_writes are held to the store's limits here too. */
START_TEST(ctl_store_limits)
{
	size_t big = LIMIT_STORE_VALUE_BYTES + 10;
	char *frame = malloc(big + 200);
	int n = snprintf(frame, 200,
			 "{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{"
			 "\"k\":\"");
	memset(frame + n, 'x', big);
	strcpy(frame + n + big, "\"},\"delete\":[]}}");
	struct ctl_msg m;
	const char *why;
	ck_assert_int_eq(parse(frame, &m, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "per-value"));
	free(frame);

	/* five values under the per-value limit, over the total */
	size_t each = LIMIT_STORE_VALUE_BYTES - 100;
	frame = malloc(5 * (each + 20) + 200);
	char *p = frame +
		  sprintf(frame, "{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{");
	for (int i = 0; i < 5; i++) {
		p += sprintf(p, "%s\"k%d\":\"", i ? "," : "", i);
		memset(p, 'y', each);
		p += each;
		*p++ = '"';
	}
	strcpy(p, "},\"delete\":[\"gone\"]}}");
	ck_assert_int_eq(parse(frame, &m, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "total"));
	free(frame);

	ck_assert_int_eq(parse("{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{\"a\":"
			       "[1, 2]},\"delete\":[\"b\"]}}",
			       &m, &why),
			 0);
	ck_assert_str_eq(m.store_writes, "{\"set\":{\"a\":[1,2]},\"delete\":[\"b\"]}");
	ctl_msg_clear(&m);
}
END_TEST

/* A compromised worker's 16 MiB frame of [{},{},...]: refused by count
 * long before its end, never built into a tree. */
START_TEST(ctl_node_bomb)
{
	size_t n = CTL_VALUE_BYTES;
	char *s = malloc(n + 64);
	size_t i = (size_t)sprintf(s, "{\"type\":\"result\",\"ok\":true,\"value\":[");
	while (i + 8 < n) {
		memcpy(s + i, "{},", 3);
		i += 3;
	}
	memcpy(s + i, "{}]}", 4);
	i += 4;
	struct ctl_msg m;
	const char *why;
	ck_assert_int_eq(ctl_parse(s, i, &m, &why), -1);
	ck_assert_str_eq(why, "too many values");
	free(s);
}
END_TEST

static Suite *jsonv_suite(void)
{
	Suite *s = suite_create("jsonv");
	TCase *tc = tcase_create("jsonv");
	tcase_add_test(tc, valid_compacted);
	tcase_add_test(tc, invalid_refused);
	tcase_add_test(tc, split_anywhere);
	tcase_add_test(tc, limits_enforced);
	tcase_add_test(tc, members_and_walk);
	tcase_add_test(tc, speed);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	tc = tcase_create("ctl");
	tcase_add_test(tc, ctl_result_value_kept_as_text);
	tcase_add_test(tc, ctl_refuses_forgeries);
	tcase_add_test(tc, ctl_tool_call);
	tcase_add_test(tc, ctl_test_summary_recomputed);
	tcase_add_test(tc, ctl_store_limits);
	tcase_add_test(tc, ctl_node_bomb);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jsonv_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
