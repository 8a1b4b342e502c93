/* check_decl.c - TypeScript declarations from tool schemas. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../protocol/limits.h"

#include "../server/decl.h"

static char *render(const char *tools_json)
{
	json_error_t err;
	json_t *tools = json_loads(tools_json, 0, &err);
	ck_assert_msg(tools != NULL, "bad test JSON: %s", err.text);
	char *ts = decl_typescript(tools);
	json_decref(tools);
	ck_assert_ptr_nonnull(ts);
	return ts;
}

#define HAS(ts, s) ck_assert_msg(strstr((ts), (s)) != NULL, "missing:\n%s\nin:\n%s", (s), (ts))

START_TEST(test_plain_and_nested)
{
	char *ts =
		render("[{\"name\": \"read\", \"description\": \"Read a file\", \"input_schema\": "
		       "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}, "
		       "\"required\": [\"path\"]}, \"output_schema\": {\"type\": \"string\"}},"
		       "{\"name\": \"github.issues.list\"}, {\"name\": \"github.search\"}]");
	HAS(ts, "declare const tools: {\n");
	HAS(ts, "  /** Read a file */\n  read(args: {\n    path: string;\n  }): string;\n");
	HAS(ts, "  github: {\n    issues: {\n      list(args?: unknown): unknown;\n    };\n"
		"    search(args?: unknown): unknown;\n  };\n");
	/* One group, however many tools it holds. */
	ck_assert_ptr_null(strstr(strstr(ts, "github: {") + 1, "github: {"));
	HAS(ts, "declare function load(key: string): unknown;");
	HAS(ts, "declare function store(key: string, value: unknown): void;");
	free(ts);
}
END_TEST

START_TEST(test_schema_types)
{
	char *ts = render(
		"[{\"name\": \"t\", \"input_schema\": {\"type\": \"object\", \"properties\": {"
		"\"n\": {\"type\": \"integer\", \"description\": \"how many\"},"
		"\"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
		"\"mode\": {\"enum\": [\"fast\", \"slow\", 3]},"
		"\"either\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"number\"}]},"
		"\"both\": {\"allOf\": [{\"type\": \"object\", \"properties\": {\"a\": {}}}, "
		"{\"type\": \"object\", \"properties\": {\"b\": {}}}]},"
		"\"maybe\": {\"type\": [\"string\", \"null\"]},"
		"\"pair\": {\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}, "
		"{\"type\": \"boolean\"}]},"
		"\"map\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"number\"}},"
		"\"any\": {},"
		"\"odd-name\": {\"const\": \"x\"}}, \"required\": [\"n\"]}}]");
	HAS(ts, "/** how many */");
	HAS(ts, "n: number;");
	HAS(ts, "tags?: Array<string>;");
	HAS(ts, "mode?: \"fast\" | \"slow\" | 3;");
	HAS(ts, "either?: (string | number);");
	HAS(ts, "both?: ({");
	HAS(ts, "} & {");
	HAS(ts, "maybe?: string | null;");
	HAS(ts, "pair?: [string, boolean];");
	HAS(ts, "[key: string]: number;");
	HAS(ts, "any?: unknown;");
	HAS(ts, "\"odd-name\"?: \"x\";");
	free(ts);
}
END_TEST

START_TEST(test_refs)
{
	char *ts = render(
		"[{\"name\": \"tree\", \"output_schema\": {\"$ref\": \"#/$defs/Node\", \"$defs\": {"
		"\"Node\": {\"type\": \"object\", \"properties\": {\"label\": {\"$ref\": "
		"\"#/definitions/Label\"}, \"children\": {\"type\": \"array\", \"items\": "
		"{\"$ref\": \"#/$defs/Node\"}}}}}, \"definitions\": {\"Label\": {\"type\": "
		"\"string\"}}}, \"input_schema\": {\"$ref\": "
		"\"https://example.com/remote.json\"}}]");
	HAS(ts, "tree(args: unknown)");	       /* remote */
	HAS(ts, "label?: string;");	       /* a local ref, expanded */
	HAS(ts, "children?: Array<unknown>;"); /* recursion */
	free(ts);
}
END_TEST

START_TEST(test_comment_safety)
{
	char *ts = render("[{\"name\": \"x\", \"description\": \"ends */ here\\nsecond line\"}]");
	ck_assert_ptr_null(strstr(ts, "ends */"));
	HAS(ts, "  /**\n   * ends *\\/ here\n   * second line\n   */\n");
	free(ts);
}
END_TEST

/* A schema whose definitions d0..d(n-1) each refer to the next `fan`
 * times, as properties: its full expansion has fan^n leaves. */
static json_t *chain_schema(int n, int fan)
{
	json_t *defs = json_object();
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "d%d", i);
		json_t *props = json_object();
		for (int k = 0; k < fan; k++) {
			char key[16], ref[48];
			snprintf(key, sizeof key, "p%d", k);
			snprintf(ref, sizeof ref, "#/$defs/d%d", i + 1);
			json_object_set_new(props, key,
					    i + 1 < n ? json_pack("{s:s}", "$ref", ref)
						      : json_pack("{s:s}", "type", "string"));
		}
		json_object_set_new(defs, name,
				    json_pack("{s:s, s:o}", "type", "object", "properties", props));
	}
	return json_pack("[{s:s, s:{s:s, s:o}}]", "name", "t", "input_schema", "$ref", "#/$defs/d0",
			 "$defs", defs);
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Memoised refs render exactly what a full expansion would. */
START_TEST(test_refs_memoised)
{
	json_t *tools = chain_schema(7, 3); /* 3^7 = 2187 leaves */
	enum decl_err err;
	char *ts = decl_render(tools, &err);
	ck_assert_msg(ts != NULL, "failed: %d", err);
	ck_assert_uint_eq(count(ts, ": string;"), 2187);
	/* Every copy sits at its own indentation: the deepest level is 8. */
	HAS(ts, "\n                p0?: string;\n");
	ck_assert_ptr_null(strstr(ts, "?: unknown"));
	free(ts);
	json_decref(tools);
}
END_TEST

/* The case: about 3 KB of schema, exponential to expand. It ends
 * at the output budget, fast. */
START_TEST(test_exponential_schema)
{
	json_t *tools = chain_schema(30, 3);
	char *text = json_dumps(tools, JSON_COMPACT);
	ck_assert_uint_lt(strlen(text), 4096);
	free(text);
	double t0 = cpu_ms();
	enum decl_err err;
	char *ts = decl_render(tools, &err);
	double took = cpu_ms() - t0;
	ck_assert_ptr_null(ts);
	ck_assert_int_eq(err, DECL_ERR_OUTPUT);
	char msg[160];
	decl_describe(err, msg, sizeof msg);
	ck_assert_ptr_nonnull(strstr(msg, "1048576 bytes"));
	printf("exponential schema: budget hit after %.2f ms of CPU\n", took);
	ck_assert_msg(took < 10.0, "took %.2f ms", took);
	json_decref(tools);
}
END_TEST

/* A chain of refs deeper than the depth limit: unknown below it. */
START_TEST(test_deep_schema)
{
	json_t *defs = json_object();
	for (int i = 0; i < 200; i++) {
		char name[16], ref[32];
		snprintf(name, sizeof name, "d%d", i);
		snprintf(ref, sizeof ref, "#/$defs/d%d", i + 1);
		json_object_set_new(
			defs, name,
			json_pack("{s:s, s:{s:s}}", "type", "array", "items", "$ref", ref));
	}
	json_t *tools = json_pack("[{s:s, s:{s:s, s:o}}]", "name", "t", "input_schema", "$ref",
				  "#/$defs/d0", "$defs", defs);
	enum decl_err err;
	char *ts = decl_render(tools, &err);
	ck_assert_msg(ts != NULL, "failed: %d", err);
	size_t arrays = count(ts, "Array<");
	ck_assert_uint_gt(arrays, 5);
	ck_assert_uint_lt(arrays, 40);
	HAS(ts, "Array<unknown>");
	free(ts);
	json_decref(tools);
}
END_TEST

/* Little output, much work: an object with a long required list, reached
 * through refs at ten depths, so that no copy can be reused. */
START_TEST(test_work_budget)
{
	json_t *required = json_array();
	for (int i = 0; i < 20000; i++)
		json_array_append_new(required, json_string("x"));
	json_t *defs = json_object();
	json_object_set_new(defs, "big",
			    json_pack("{s:s, s:{s:{}}, s:o}", "type", "object", "properties", "a",
				      "required", required));
	for (int i = 0; i < 10; i++) {
		char name[16], next[32];
		snprintf(name, sizeof name, "d%d", i);
		snprintf(next, sizeof next, "#/$defs/d%d", i + 1);
		json_object_set_new(defs, name,
				    json_pack("{s:[{s:s}, {s:s}]}", "anyOf", "$ref", "#/$defs/big",
					      "$ref", next));
	}
	json_t *tools = json_pack("[{s:s, s:{s:s, s:o}}]", "name", "t", "input_schema", "$ref",
				  "#/$defs/d0", "$defs", defs);
	double t0 = cpu_ms();
	enum decl_err err;
	char *ts = decl_render(tools, &err);
	double took = cpu_ms() - t0;
	ck_assert_ptr_null(ts);
	ck_assert_int_eq(err, DECL_ERR_WORK);
	char msg[160];
	decl_describe(err, msg, sizeof msg);
	ck_assert_ptr_nonnull(strstr(msg, "work budget"));
	printf("work budget: hit after %.2f ms of CPU\n", took);
	ck_assert_msg(took < 10.0, "took %.2f ms", took);
	json_decref(tools);
}
END_TEST

/* Recursion through a memoised ref still renders as unknown. */
START_TEST(test_recursion_not_memoised_outside)
{
	char *ts = render(
		"[{\"name\": \"t\", \"input_schema\": {\"$ref\": \"#/$defs/A\", \"$defs\": {"
		"\"A\": {\"type\": \"object\", \"properties\": {\"b\": {\"$ref\": \"#/$defs/B\"}, "
		"\"b2\": {\"$ref\": \"#/$defs/B\"}}}, "
		"\"B\": {\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": "
		"\"#/$defs/A\"}}}}}},"
		"{\"name\": \"u\", \"input_schema\": {\"$ref\": \"#/$defs/B\", \"$defs\": {"
		"\"B\": {\"type\": \"string\"}}}}]");
	HAS(ts, "    b?: {\n      a?: unknown;\n    };\n    b2?: {\n      a?: unknown;\n    };\n");
	HAS(ts, "u(args: string)");
	free(ts);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decl");
	TCase *tc = tcase_create("typescript");
	tcase_add_test(tc, test_plain_and_nested);
	tcase_add_test(tc, test_schema_types);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_comment_safety);
	tcase_add_test(tc, test_refs_memoised);
	tcase_add_test(tc, test_exponential_schema);
	tcase_add_test(tc, test_deep_schema);
	tcase_add_test(tc, test_work_budget);
	tcase_add_test(tc, test_recursion_not_memoised_outside);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
