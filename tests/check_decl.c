/* check_decl.c - TypeScript declarations from tool schemas. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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
	char *ts = render("[{\"name\": \"read\", \"description\": \"Read a file\", \"input_schema\": "
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
		"\"string\"}}}, \"input_schema\": {\"$ref\": \"https://example.com/remote.json\"}}]");
	HAS(ts, "tree(args: unknown)"); /* remote */
	HAS(ts, "label?: string;");      /* a local ref, expanded */
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

int main(void)
{
	Suite *s = suite_create("decl");
	TCase *tc = tcase_create("typescript");
	tcase_add_test(tc, test_plain_and_nested);
	tcase_add_test(tc, test_schema_types);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_comment_safety);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
