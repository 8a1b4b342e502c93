/*
 * check_polyfills.c - the polyfills against the behaviour the specification
 * gives them. Each case in tests/data/polyfills.txt is a function body and
 * the value Node 20 returns for it; the engine must return the same.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../worker/engine.h"

static const char *data_path(void)
{
	static char path[4096];
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	snprintf(path, sizeof path, "%s/polyfills.txt", dir ? dir : "tests/data");
	return path;
}

START_TEST(test_cases)
{
	ck_assert_int_eq(engine_prepare(), 0);
	FILE *f = fopen(data_path(), "r");
	ck_assert_msg(f != NULL, "cannot open %s", data_path());
	char line[8192];
	int n = 0, failed = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *name = line, *expected = strchr(name, '\t');
		ck_assert_msg(expected != NULL, "line %d: no tab", lineno);
		*expected++ = '\0';
		char *body = strchr(expected, '\t');
		ck_assert_msg(body != NULL, "line %d: no second tab", lineno);
		*body++ = '\0';
		n++;
		json_t *want = json_loads(expected, JSON_DECODE_ANY, NULL);
		ck_assert_msg(want != NULL, "line %d: bad expected JSON", lineno);
		json_t *r = engine_run(body, strlen(body), ENGINE_ANY);
		json_t *got = json_object_get(r, "value");
		if (!json_is_true(json_object_get(r, "ok")) || !got || !json_equal(got, want)) {
			char *text = json_dumps(r, JSON_COMPACT);
			fprintf(stderr, "polyfills.txt:%d %s: expected %s, got %s\n", lineno, name,
				expected, text ? text : "?");
			free(text);
			failed++;
		}
		json_decref(want);
		json_decref(r);
	}
	fclose(f);
	ck_assert_int_ge(n, 30);
	ck_assert_msg(failed == 0, "%d of %d cases differ from Node (see stderr)", failed, n);
}
END_TEST

/* A promise nothing can settle is an error at once, not a hang. */
START_TEST(test_unsettled_promise)
{
	ck_assert_int_eq(engine_prepare(), 0);
	const char *code = "return new Promise(function () {})";
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	ck_assert(!json_is_true(json_object_get(r, "ok")));
	const char *msg =
		json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	ck_assert_ptr_nonnull(strstr(msg, "nothing can settle"));
	json_decref(r);
}
END_TEST

START_TEST(test_rejected_promise)
{
	ck_assert_int_eq(engine_prepare(), 0);
	const char *code =
		"\nreturn Promise.resolve().then(function () { throw new RangeError('late') })";
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	json_t *e = json_object_get(r, "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "script");
	ck_assert_str_eq(json_string_value(json_object_get(e, "message")), "RangeError: late");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 2);
	json_decref(r);
}
END_TEST

/* The internals stay out of reach, and built-ins behave as built-ins. */
START_TEST(test_no_leaks_into_scripts)
{
	ck_assert_int_eq(engine_prepare(), 0);
	const char *code = "return [typeof internals, typeof drain, typeof notify, "
			   "Object.getOwnPropertyNames(Map.prototype).indexOf('set') >= 0, "
			   "Object.keys(Array.prototype).length, typeof Promise.prototype.then]";
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	char *text = json_dumps(json_object_get(r, "value"), JSON_COMPACT);
	ck_assert_str_eq(text, "[\"undefined\",\"undefined\",\"undefined\",true,0,\"function\"]");
	free(text);
	json_decref(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("polyfills");
	TCase *tc = tcase_create("spec");
	tcase_add_test(tc, test_cases);
	tcase_add_test(tc, test_unsettled_promise);
	tcase_add_test(tc, test_rejected_promise);
	tcase_add_test(tc, test_no_leaks_into_scripts);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
