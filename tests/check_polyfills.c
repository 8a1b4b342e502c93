/*
 * check_polyfills.c - the polyfills against the behaviour the specification
 * gives them. Each case in tests/data/polyfills.txt is a function body and
 * the value Node 20 returns for it; the engine must return the same.
 */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "nodecases.h"

START_TEST(test_cases) { node_cases("polyfills.txt", ENGINE_ANY, 30); }
END_TEST

/* ES2017-ES2023's built-ins (worker/js/builtins.js and the polyfills):
 * at, findLast, the copying methods, typed arrays' methods, Error cause,
 * AggregateError, captureStackTrace, WeakRef, Math. */
START_TEST(test_es2023) { node_cases("polyfills-es2023.txt", ENGINE_ANY, 120); }
END_TEST

/* ES2024's Object.groupBy, Map.groupBy and Promise.withResolvers, which
 * Node 22 has (their values are Node 22's). */
START_TEST(test_es2024) { node_cases("polyfills-es2024.txt", ENGINE_ANY, 20); }
END_TEST

/* String.prototype.normalize in its four forms, Hangul, canonical order,
 * blocked composition, exclusions, and random strings of marks. */
START_TEST(test_normalize) { node_cases("polyfills-normalize.txt", ENGINE_ANY, 25); }
END_TEST

/* EventTarget, Event, AbortController and AbortSignal (worker/js/abort.js). */
START_TEST(test_abort) { node_cases("polyfills-abort.txt", ENGINE_ANY, 50); }
END_TEST

/* Runs tests/cases-node.js under node on the files; false when node
 * gives other values than they say. */
static bool node_agrees(const char *node, char **files, int n)
{
	char script[4096];
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	snprintf(script, sizeof script, "%s/../cases-node.js", dir ? dir : "tests/data");
	char *argv[16];
	int k = 0;
	argv[k++] = (char *)node;
	argv[k++] = script;
	for (int i = 0; i < n && k < 15; i++)
		argv[k++] = files[i];
	argv[k] = NULL;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv(node, argv);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Node 20 must give every value of tests/data/polyfills*.txt but the
 * ES2024 file's, which a Node 22 named by $SANDBOXD_NODE22 must give;
 * without either Node the check says it was not run. */
START_TEST(test_node_agrees)
{
	const char *env = getenv("SANDBOXD_TEST_DATA");
	const char *dir = env ? env : "tests/data";
	static const char *const node20[] = {"polyfills.txt", "polyfills-es2023.txt",
					     "polyfills-abort.txt", "polyfills-normalize.txt"};
	char *files[4];
	for (int i = 0; i < 4; i++) {
		files[i] = malloc(strlen(dir) + strlen(node20[i]) + 2);
		ck_assert_ptr_nonnull(files[i]);
		sprintf(files[i], "%s/%s", dir, node20[i]);
	}
	if (access("/usr/bin/node", X_OK) != 0)
		printf("not run: the Node comparison of %s/polyfills*.txt: no /usr/bin/node\n",
		       dir);
	else
		ck_assert_msg(node_agrees("/usr/bin/node", files, 4),
			      "Node gives other values than %s/polyfills*.txt say (see its output)",
			      dir);
	for (int i = 0; i < 4; i++)
		free(files[i]);
	const char *node22 = getenv("SANDBOXD_NODE22");
	char *es2024 = malloc(strlen(dir) + 32);
	ck_assert_ptr_nonnull(es2024);
	sprintf(es2024, "%s/polyfills-es2024.txt", dir);
	if (!node22 || access(node22, X_OK) != 0)
		printf("not run: the Node 22 comparison of %s: set SANDBOXD_NODE22 to a Node 22\n",
		       es2024);
	else
		ck_assert_msg(node_agrees(node22, &es2024, 1),
			      "Node 22 (%s) gives other values "
			      "than %s says (see its output)",
			      node22, es2024);
	free(es2024);
}
END_TEST

/* A listener that throws does not stop the others; its error ends the
 * script, as an uncaught exception ends Node. */
START_TEST(test_listener_error)
{
	node_prepare();
	const char *code =
		"const t = new EventTarget(); const log = [];\n"
		"t.addEventListener('e', () => { throw new RangeError('in listener') });\n"
		"t.addEventListener('e', () => log.push('second'));\n"
		"t.dispatchEvent(new Event('e'));\n"
		"log.push('after');\n"
		"return log";
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	ck_assert(!json_is_true(json_object_get(r, "ok")));
	const char *msg =
		json_string_value(json_object_get(json_object_get(r, "error"), "message"));
	ck_assert_str_eq(msg, "RangeError: in listener");
	json_decref(r);
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
	tcase_add_test(tc, test_es2023);
	tcase_add_test(tc, test_es2024);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_node_agrees);
	tcase_add_test(tc, test_listener_error);
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
