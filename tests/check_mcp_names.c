/*
 * check_mcp_names.c - upstream names as identifiers (the documented rule,
 * collisions, reserved words, independence of order) and the unwrapping
 * of upstream tool results.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../client/mcp_names.h"
#include "../protocol/limits.h"

static void base_is(const char *name, const char *want)
{
	char *got = mname_base(name);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_base)
{
	base_is("search", "search");
	base_is("get-issue", "get_issue");
	base_is("fs.read", "fs_read");
	base_is("a b/c", "a_b_c");
	base_is("$ok_1", "$ok_1");
	base_is("1password", "_1password");
	base_is("", "_");
	base_is("caf\xc3\xa9", "caf_"); /* one character, one "_" */
	base_is("\xe2\x82\xac-x", "__x");
	char longname[200];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	char *b = mname_base(longname);
	ck_assert_uint_eq(strlen(b), LIMIT_MCP_IDENT_BYTES);
	free(b);
	ck_assert(mname_reserved("delete"));
	ck_assert(mname_reserved("__proto__"));
	ck_assert(mname_reserved("then")); /* await would call it */
	ck_assert(!mname_reserved("remove"));
}
END_TEST

/* Assigns names and checks the result against want (same order). */
static void assign_is(const char *const *names, size_t n, const char *const *want)
{
	char *out[16];
	ck_assert_int_eq(mname_assign(names, n, out), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(strcmp(out[i], want[i]) == 0, "%s: got %s, want %s", names[i], out[i],
			      want[i]);
		free(out[i]);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_collisions)
{
	/* The exact identifier keeps its name, whatever the order. */
	const char *a[] = {"get-issue", "get_issue", "get.issue"};
	const char *wa[] = {"get_issue_2", "get_issue", "get_issue_3"};
	assign_is(a, 3, wa);
	const char *b[] = {"get.issue", "get_issue", "get-issue"};
	const char *wb[] = {"get_issue_3", "get_issue", "get_issue_2"};
	assign_is(b, 3, wb);
	/* A suffix never takes a name that exists already. */
	const char *c[] = {"x-y", "x_y", "x_y_2"};
	const char *wc[] = {"x_y_3", "x_y", "x_y_2"};
	assign_is(c, 3, wc);
	/* Reserved words are suffixed. */
	const char *d[] = {"delete", "new", "class-x", "__proto__"};
	const char *wd[] = {"delete_2", "new_2", "class_x", "__proto___2"};
	assign_is(d, 4, wd);
	/* Duplicates (two servers both called "a") still differ. */
	const char *e[] = {"a", "a"};
	const char *we[] = {"a", "a_2"};
	assign_is(e, 2, we);
	/* Long names cut to the limit still get distinct suffixes in it. */
	char l1[100], l2[100];
	memset(l1, 'q', 99);
	l1[99] = '\0';
	memcpy(l2, l1, sizeof l2);
	l2[98] = 'r';
	const char *f[] = {l1, l2};
	char *out[2];
	ck_assert_int_eq(mname_assign(f, 2, out), 0);
	ck_assert_uint_eq(strlen(out[0]), LIMIT_MCP_IDENT_BYTES);
	ck_assert_uint_eq(strlen(out[1]), LIMIT_MCP_IDENT_BYTES);
	ck_assert_str_ne(out[0], out[1]);
	ck_assert_str_eq(out[1] + LIMIT_MCP_IDENT_BYTES - 2, "_2");
	free(out[0]);
	free(out[1]);
	ck_assert_int_eq(mname_assign(NULL, 0, out), 0);
}
END_TEST

/* Thousands of names an upstream server lists that all cut to the same
 * 63-byte base: each gets its own identifier, and the whole assignment
 * stays a matter of milliseconds (a scan of every earlier name for each
 * suffix tried took minutes, the bridge's loop blocked all along). */
START_TEST(test_collisions_many)
{
	enum { N = 5000 };
	static char names[N][80];
	static const char *ptr[N];
	static char *out[N];
	for (size_t i = 0; i < N; i++) {
		memset(names[i], 'x', 63);
		snprintf(names[i] + 63, sizeof names[i] - 63, "-%zu", i);
		ptr[i] = names[i];
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(mname_assign(ptr, N, out), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	fprintf(stderr, "mname_assign: %d names of one base in %.1f ms\n", N, ms);
	ck_assert_msg(ms < 2000, "%d colliding names took %.0f ms", N, ms);
	/* All distinct, all within the bound: sorted, no two alike. */
	qsort(out, N, sizeof *out, cmp_str);
	for (size_t i = 0; i < N; i++) {
		ck_assert_uint_le(strlen(out[i]), LIMIT_MCP_IDENT_BYTES);
		if (i)
			ck_assert_str_ne(out[i - 1], out[i]);
	}
	for (size_t i = 0; i < N; i++)
		free(out[i]);
}
END_TEST

static json_t *parse(const char *s)
{
	json_error_t je;
	json_t *v = json_loads(s, JSON_DECODE_ANY, &je);
	ck_assert_msg(v != NULL, "%s: %s", s, je.text);
	return v;
}

/* Unwraps a result: the value (as compact JSON) or the error. */
static void unwraps_to(const char *result, int rc, const char *want)
{
	json_t *r = parse(result), *v = NULL;
	char *error = NULL;
	ck_assert_int_eq(mname_unwrap(r, &v, &error), rc);
	if (rc == 0) {
		char *got = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
		ck_assert_msg(strcmp(got, want) == 0, "%s: got %s, want %s", result, got, want);
		free(got);
		ck_assert_ptr_null(error);
	} else {
		ck_assert_ptr_null(v);
		ck_assert_msg(strstr(error, want) != NULL, "%s: error %s", result, error);
	}
	json_decref(v);
	free(error);
	json_decref(r);
}

START_TEST(test_unwrap)
{
	/* structuredContent is the value, whatever the text says. */
	unwraps_to("{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"a\\\": 1}\"}],"
		   " \"structuredContent\": {\"a\": 2}}",
		   0, "{\"a\":2}");
	/* Text that is JSON is parsed; text that is not stays a string. */
	unwraps_to("{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"n\\\": [1, 2]}\"}]}", 0,
		   "{\"n\":[1,2]}");
	unwraps_to("{\"content\": [{\"type\": \"text\", \"text\": \"42\"}]}", 0, "42");
	unwraps_to("{\"content\": [{\"type\": \"text\", \"text\": \"hello world\"}]}", 0,
		   "\"hello world\"");
	unwraps_to("{\"content\": [{\"type\": \"text\", \"text\": \"\"}]}", 0, "\"\"");
	/* Several blocks: an array, other kinds as their objects. */
	unwraps_to(
		"{\"content\": [{\"type\": \"text\", \"text\": \"a\"},"
		" {\"type\": \"image\", \"data\": \"AAAA\", \"mimeType\": \"image/png\"},"
		" {\"type\": \"text\", \"text\": \"true\"}]}",
		0,
		"[\"a\",{\"data\":\"AAAA\",\"mimeType\":\"image/png\",\"type\":\"image\"},true]");
	unwraps_to("{\"content\": [{\"type\": \"resource\", \"resource\": {\"uri\": \"file:///x\","
		   " \"text\": \"t\"}}]}",
		   0,
		   "{\"resource\":{\"text\":\"t\",\"uri\":\"file:///x\"},\"type\":\"resource\"}");
	unwraps_to("{\"content\": []}", 0, "null");
	unwraps_to("{}", 0, "null");
	unwraps_to("{\"isError\": false, \"content\": [{\"type\": \"text\", \"text\": \"x\"}]}", 0,
		   "\"x\"");
	/* isError: an error carrying the text. */
	unwraps_to("{\"isError\": true, \"content\": [{\"type\": \"text\", \"text\": \"no such "
		   "repo\"},"
		   " {\"type\": \"text\", \"text\": \"try again\"}]}",
		   1, "no such repo\ntry again");
	unwraps_to("{\"isError\": true, \"structuredContent\": {\"code\": 7}}", 1, "{\"code\":7}");
	unwraps_to("{\"isError\": true}", 1, "without a message");
	/* Malformed results. */
	unwraps_to("[1]", -1, "not an object");
	unwraps_to("{\"content\": \"x\"}", -1, "content is not an array");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mcp_names");
	TCase *tc = tcase_create("mcp_names");
	tcase_add_test(tc, test_base);
	tcase_add_test(tc, test_collisions);
	tcase_add_test(tc, test_collisions_many);
	tcase_add_test(tc, test_unwrap);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
