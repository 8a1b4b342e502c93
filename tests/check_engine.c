/*
 * check_engine.c - script semantics, in-process: the engine as a worker
 * runs it, minus the confinement (check_confine covers that).
 */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../worker/engine.h"

static char out[65536], err[65536];

static void drain(int fd, char *dst, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	while (n < cap - 1 && (r = read(fd, dst + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	dst[n] = '\0';
}

/* Runs code with fds 1 and 2 captured; returns the result message. */
static json_t *run(const char *code)
{
	static bool prepared;
	if (!prepared) {
		ck_assert_int_eq(engine_prepare(), 0);
		prepared = true;
	}
	int po[2], pe[2];
	ck_assert_int_eq(pipe(po), 0);
	ck_assert_int_eq(pipe(pe), 0);
	int saved1 = dup(1), saved2 = dup(2);
	dup2(po[1], 1);
	dup2(pe[1], 2);
	close(po[1]);
	close(pe[1]);
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	drain(po[0], out, sizeof out);
	drain(pe[0], err, sizeof err);
	close(po[0]);
	close(pe[0]);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* The compact JSON of the value a successful script returned. */
static char *value_of(const char *code)
{
	json_t *r = run(code);
	ck_assert_msg(json_is_true(json_object_get(r, "ok")), "%s failed: %s", code,
		      json_string_value(json_object_get(json_object_get(r, "error"), "message")));
	json_t *v = json_object_get(r, "value");
	char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("(undefined)");
	json_decref(r);
	return text;
}

#define ASSERT_VALUE(code, expected)            \
	do {                                    \
		char *v_ = value_of(code);      \
		ck_assert_str_eq(v_, expected); \
		free(v_);                       \
	} while (0)

static json_t *error_of(const char *code, const char *kind)
{
	json_t *r = run(code);
	ck_assert_msg(!json_is_true(json_object_get(r, "ok")), "%s succeeded", code);
	json_t *e = json_incref(json_object_get(r, "error"));
	json_decref(r);
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), kind);
	return e;
}

static const char *msg(json_t *e) { return json_string_value(json_object_get(e, "message")); }

START_TEST(test_values)
{
	ASSERT_VALUE("return 6*7", "42");
	ASSERT_VALUE("return 'hé'", "\"hé\"");
	ASSERT_VALUE("return {a: [1, 'x', null, true], b: {c: 1.5}}",
		     "{\"a\":[1,\"x\",null,true],\"b\":{\"c\":1.5}}");
	ASSERT_VALUE("return null", "null");
	ASSERT_VALUE("var x = 1", "(undefined)");
	ASSERT_VALUE("return undefined", "(undefined)");
	ASSERT_VALUE("return NaN", "null");
	ASSERT_VALUE("return {f: function(){}, u: undefined, n: 1}", "{\"n\":1}");
	ASSERT_VALUE("return {toJSON: function(){ return 'j' }}", "\"j\"");
	ASSERT_VALUE("return '\\ud83d\\ude00'", "\"😀\"");
	ASSERT_VALUE("return '\\ud800x'", "\"\xef\xbf\xbdx\"");
	ASSERT_VALUE("return [1,2,3].map(function(x){return x*x})", "[1,4,9]");
	/* The body is a function body: locals do not leak, this is global. */
	ASSERT_VALUE("var a = 1; return typeof this", "\"object\"");
}
END_TEST

START_TEST(test_unjsonable_values)
{
	json_t *e = error_of("return function(){}", "script");
	ck_assert_ptr_nonnull(strstr(msg(e), "function"));
	json_decref(e);
	e = error_of("var o = {}; o.self = o; return o", "script");
	ck_assert_ptr_nonnull(strstr(msg(e), "JSON"));
	json_decref(e);
}
END_TEST

START_TEST(test_console)
{
	json_t *r = run("console.log('a', 1, true, null, undefined, {x: [1]}, [2, 'y']);"
			"console.info('info'); console.debug('debug');"
			"console.warn('warn'); console.error('error', 2);"
			"console.log(); console.log(function named(){}, function(){});");
	json_decref(r);
	ck_assert_str_eq(out, "a 1 true null undefined { x: [ 1 ] } [ 2, 'y' ]\ninfo\ndebug\n\n"
			      "[Function: named] [Function (anonymous)]\n");
	ck_assert_str_eq(err, "warn\nerror 2\n");
}
END_TEST

START_TEST(test_console_errors_and_cycles)
{
	json_t *r = run("var o = {}; o.o = o; console.log(o);\n"
			"console.error(new TypeError('bad'));");
	json_decref(r);
	ck_assert_str_eq(out, "<ref *1> { o: [Circular *1] }\n");
	ck_assert_ptr_nonnull(strstr(err, "TypeError: bad\n    at [anon] (script.js:2)"));
	ck_assert_ptr_null(strstr(err, "duk_"));
}
END_TEST

START_TEST(test_no_engine_internals)
{
	ASSERT_VALUE("return [typeof Duktape, typeof require]", "[\"undefined\",\"undefined\"]");
	ASSERT_VALUE("return typeof print", "\"undefined\"");
}
END_TEST

START_TEST(test_random_reseeds)
{
	char *a = value_of("return Math.random()");
	char *a2 = value_of("return Math.random()");
	ck_assert_str_ne(a, a2);
	double d = atof(a);
	ck_assert(d >= 0 && d < 1);
	free(a);
	free(a2);
	/* Two workers forked from one prepared engine must differ: that is
	 * what engine_reseed is for. */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	char seen[2][64];
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			engine_reseed();
			char *v = value_of("return Math.random()");
			(void)!write(p[1], v, strlen(v) + 1);
			_exit(0);
		}
		ck_assert_int_gt(read(p[0], seen[i], sizeof seen[i]), 0);
	}
	ck_assert_str_ne(seen[0], seen[1]);
}
END_TEST

START_TEST(test_syntax_error)
{
	json_t *e = error_of("var a = 1;\nvar b = ;\n", "syntax");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 2);
	ck_assert_ptr_nonnull(strstr(msg(e), "SyntaxError"));
	ck_assert_ptr_null(strstr(msg(e), "ES5.1")); /* plain ES5 mistake: no hint */
	json_decref(e);
}
END_TEST

/* Code the engine cannot parse is lowered; the positions of its errors are
 * those of the code as submitted. */
START_TEST(test_modern_code)
{
	ASSERT_VALUE("const f = (a) => a + 1;\nreturn f(1)", "2");
	ASSERT_VALUE("let [a, , b = 3] = [1, 2];\nreturn `${a}-${b}`", "\"1-3\"");
	ASSERT_VALUE("class A { #n = 2; get n() { return this.#n } }\nreturn new A().n", "2");
	json_t *e = error_of("const a = 1;\n\nconst b = a +;\n", "syntax");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "column")), 14);
	ck_assert_ptr_nonnull(strstr(msg(e), "Unexpected token"));
	json_decref(e);
	e = error_of("const a = 1;\nconst f = () => {\n  null.x;\n};\nf();", "script");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 3);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(e, "stack")), "script.js:5"));
	json_decref(e);
}
END_TEST

START_TEST(test_script_error)
{
	json_t *e = error_of(
		"var a = 1;\n\nfunction f() {\n  throw new RangeError('deep');\n}\nf();", "script");
	ck_assert_str_eq(msg(e), "RangeError: deep");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 4);
	const char *stack = json_string_value(json_object_get(e, "stack"));
	ck_assert_ptr_nonnull(strstr(stack, "at f (script.js:4)"));
	ck_assert_ptr_nonnull(strstr(stack, "(script.js:6)"));
	json_decref(e);

	e = error_of("null.x", "script");
	ck_assert_ptr_nonnull(strstr(msg(e), "TypeError"));
	json_decref(e);
	e = error_of("throw 'plain'", "script");
	ck_assert_str_eq(msg(e), "Uncaught plain");
	json_decref(e);
	e = error_of("throw {code: 7}", "script");
	ck_assert_str_eq(msg(e), "Uncaught {\"code\":7}");
	json_decref(e);
}
END_TEST

START_TEST(test_deep_recursion_is_catchable)
{
	ASSERT_VALUE("function f(n) { return 1 + f(n + 1); }\n"
		     "try { f(0); } catch (e) { return e.name; }",
		     "\"RangeError\"");
	json_t *e = error_of("function f(n) { return 1 + f(n + 1); } f(0);", "script");
	ck_assert_ptr_nonnull(strstr(msg(e), "RangeError"));
	json_decref(e);
}
END_TEST

START_TEST(test_heap_accounting)
{
	size_t before = engine_heap_bytes();
	char *v = value_of("var a = []; for (var i = 0; i < 10000; i++) a.push({i: i}); "
			   "return a.length");
	ck_assert_str_eq(v, "10000");
	free(v);
	ck_assert_uint_gt(engine_heap_peak(), before + 100000);
}
END_TEST

static json_t *run_tests(const char *code, const char *tests)
{
	static bool prepared;
	if (!prepared) {
		ck_assert_int_eq(engine_prepare(), 0);
		prepared = true;
	}
	json_t *r =
		engine_run_tests(code, code ? strlen(code) : 0, tests, strlen(tests), ENGINE_ANY);
	ck_assert_ptr_nonnull(r);
	return r;
}

START_TEST(test_harness_report)
{
	json_t *r = run_tests("function sq(x) { return x * x; }",
			      "test('squares', function () { assert.is(sq(3), 9); });\n"
			      "test('deep', function () {\n"
			      "  assert.equal({a: [1, 2], b: 'x'}, {a: [1, 3], b: 'x', c: 1});\n"
			      "});\n"
			      "test.only('only this', function () { assert.ok(true); });\n");
	ck_assert(json_is_true(json_object_get(r, "ok")));
	json_t *report = json_object_get(r, "test");
	json_t *summary = json_object_get(report, "summary");
	/* test.only: the other two are skipped. */
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "total")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "skipped")), 2);
	json_decref(r);
}
END_TEST

START_TEST(test_harness_messages)
{
	json_t *r = run_tests(
		NULL, "test('deep', function () {\n"
		      "  assert.equal({a: [1, 2], b: 'x'}, {a: [1, 3], b: 'x', c: 1});\n"
		      "});\n"
		      "test('throws', function () { assert.throws(function () {}, /x/); });\n"
		      "test('custom', function () { assert.is(1, 2, 'one is not two'); });\n");
	json_t *tests = json_object_get(json_object_get(r, "test"), "tests");
	const char *deep = json_string_value(json_object_get(json_array_get(tests, 0), "error"));
	ck_assert_ptr_nonnull(strstr(deep, ".a[1]: expected 3, found 2"));
	ck_assert_ptr_nonnull(strstr(deep, ".c: expected 1, missing"));
	ck_assert_ptr_nonnull(strstr(deep, "(tests.js:2)"));
	const char *thr = json_string_value(json_object_get(json_array_get(tests, 1), "error"));
	ck_assert_ptr_nonnull(strstr(thr, "Expected function to throw"));
	const char *custom = json_string_value(json_object_get(json_array_get(tests, 2), "error"));
	ck_assert_ptr_eq(strstr(custom, "one is not two"), custom);
	json_decref(r);
}
END_TEST

START_TEST(test_harness_load_errors)
{
	json_t *r = run_tests("function ok() {}\nvar = ;", "test('x', function () {});");
	json_t *e = json_object_get(r, "error");
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "syntax");
	ck_assert_str_eq(json_string_value(json_object_get(e, "source")), "code");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 2);
	json_decref(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("semantics");
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_unjsonable_values);
	tcase_add_test(tc, test_console);
	tcase_add_test(tc, test_console_errors_and_cycles);
	tcase_add_test(tc, test_no_engine_internals);
	tcase_add_test(tc, test_random_reseeds);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_modern_code);
	tcase_add_test(tc, test_script_error);
	tcase_add_test(tc, test_deep_recursion_is_catchable);
	tcase_add_test(tc, test_heap_accounting);
	tcase_add_test(tc, test_harness_report);
	tcase_add_test(tc, test_harness_messages);
	tcase_add_test(tc, test_harness_load_errors);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
