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
#include "nodecases.h"

START_TEST(test_cases) { node_cases("polyfills.txt", ENGINE_ANY, 30); }
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
