/*
 * check_lower.c - the lowering of modern JavaScript and TypeScript, in the
 * engine itself: per-feature cases (tests/data/lowering.txt) whose values
 * must equal what Node returns for the same body, the TypeScript plugin's
 * cases (tests/data/typescript.txt) run inside Duktape, and the positions
 * that errors and stack traces report.
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

START_TEST(test_features) { node_cases("lowering.txt", ENGINE_JAVASCRIPT, 60); }
END_TEST

/* Function names, lengths and which functions are constructors. */
START_TEST(test_names) { node_cases("lowering-names.txt", ENGINE_JAVASCRIPT, 20); }
/* Unicode identifiers (ES2022's ID_Start and ID_Continue, escapes) and the
 * private members of class elements. */
START_TEST(test_unicode) { node_cases("lowering-unicode.txt", ENGINE_JAVASCRIPT, 28); }
/* Destructuring, the iteration protocol, evaluation order, object
 * literals, templates and optional chains (tests/data/lowering-dstr.txt). */
START_TEST(test_dstr) { node_cases("lowering-dstr.txt", ENGINE_JAVASCRIPT, 47); }
/* Classes and super: derived constructors, new.target, home objects,
 * subclassed built-ins. */
START_TEST(test_classes) { node_cases("lowering-classes.txt", ENGINE_JAVASCRIPT, 35); }
/* The temporal dead zone, const and class-name immutability, and per-iteration
 * for-head bindings. */
START_TEST(test_tdz) { node_cases("lowering-tdz.txt", ENGINE_JAVASCRIPT, 50); }
/* Generator parameters bound by the call, the parameters' own scope,
 * arguments objects, and eval and Function lowering their source. */
START_TEST(test_params) { node_cases("lowering-params.txt", ENGINE_JAVASCRIPT, 30); }
/* Async generators, yield* in them and for await (tests/data/lowering-asyncgen.txt). */
START_TEST(test_asyncgen) { node_cases("lowering-asyncgen.txt", ENGINE_JAVASCRIPT, 20); }
END_TEST

/* Node (tests/cases-node.js) must give every lowering case file's values:
 * tests/data/lowering*.txt, so that what the engine is held to is what
 * JavaScript means. Node comes with acorn's package; without it the check
 * says it was not run. */
START_TEST(test_node_agrees)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	dir = dir ? dir : "tests/data";
	char script[4096];
	snprintf(script, sizeof script, "%s/../cases-node.js", dir);
	if (access("/usr/bin/node", X_OK) != 0) {
		printf("not run: the Node comparison of %s/lowering*.txt: no /usr/bin/node\n", dir);
		return;
	}
	char *argv[64];
	int n = 0;
	argv[n++] = "node";
	argv[n++] = script;
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d)) && n < 62) {
		size_t len = strlen(e->d_name);
		if (!strncmp(e->d_name, "lowering", 8) && len > 4 &&
		    !strcmp(e->d_name + len - 4, ".txt")) {
			char *p = malloc(strlen(dir) + len + 2);
			ck_assert_ptr_nonnull(p);
			sprintf(p, "%s/%s", dir, e->d_name);
			argv[n++] = p;
		}
	}
	closedir(d);
	argv[n] = NULL;
	ck_assert_int_ge(n, 3);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv("/usr/bin/node", argv);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "node %s: status %#x: Node gives other values than the case files say (see "
		      "its output)",
		      script, st);
	for (int i = 2; i < n; i++)
		free(argv[i]);
}
END_TEST

/* The lowered code with the line breaks (which follow the source's lines)
 * taken out; NULL when the lowering reported an error. */
static char *lowered(const char *code, enum engine_language lang, char **error)
{
	json_t *r = engine_lower(code, strlen(code), lang, true);
	ck_assert_ptr_nonnull(r);
	const char *c = json_string_value(json_object_get(r, "code"));
	char *out = NULL;
	*error = NULL;
	if (c) {
		out = malloc(strlen(c) + 1);
		ck_assert_ptr_nonnull(out);
		size_t k = 0;
		for (; *c; c++)
			if (*c != '\n')
				out[k++] = *c;
		out[k] = '\0';
	} else {
		const char *m =
			json_string_value(json_object_get(json_object_get(r, "error"), "message"));
		*error = strdup(m ? m : "?");
	}
	json_decref(r);
	return out;
}

/* Each case: TypeScript, and the JavaScript it means; both lowered inside
 * Duktape must print the same. Error cases name a part of the message. */
START_TEST(test_typescript_cases)
{
	node_prepare();
	char *text = node_data("typescript.txt");
	int n = 0, failed = 0;
	char *p = text;
	while ((p = strstr(p, "=== ")) != NULL) {
		char *name = p + 4, *nl = strchr(name, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		char *input = nl + 1, *sep = strstr(input, "\n---");
		ck_assert_msg(sep != NULL, "case %s: no ---", name);
		*sep = '\0';
		char *rest = sep + 4, *next = strstr(rest, "\n=== ");
		if (next)
			*next = '\0';
		bool want_error = strncmp(rest, " error", 6) == 0;
		char *expected = strchr(rest, '\n');
		expected = expected ? expected + 1 : rest + strlen(rest);
		n++;
		char *err = NULL, *got = lowered(input, ENGINE_TYPESCRIPT, &err);
		if (want_error) {
			char *needle = strdup(expected);
			needle[strcspn(needle, "\n")] = '\0';
			/* acorn's " (line:column)" goes into the error's fields. */
			char *pos = strrchr(needle, '(');
			if (pos && pos > needle && pos[-1] == ' ' && strchr(pos, ':'))
				pos[-1] = '\0';
			if (!err || !strstr(err, needle)) {
				fprintf(stderr,
					"typescript.txt: %s: expected an error with \"%s\", got "
					"%s\n",
					name, needle, err ? err : got);
				failed++;
			}
			free(needle);
		} else {
			char *jerr = NULL, *want = lowered(expected, ENGINE_JAVASCRIPT, &jerr);
			/* Both refused alike (the lowering lacks a feature the
			 * plugin parses, as async generators) is a match too. */
			bool same = got && want ? strcmp(got, want) == 0
						: !got && !want && strcmp(err, jerr) == 0;
			if (!same) {
				fprintf(stderr, "typescript.txt: %s:\n  got  %s\n  want %s\n", name,
					got ? got : err, want ? want : jerr);
				failed++;
			}
			free(want);
			free(jerr);
		}
		free(got);
		free(err);
		if (!next)
			break;
		p = next + 1;
	}
	free(text);
	ck_assert_int_ge(n, 60);
	ck_assert_msg(failed == 0, "%d of %d TypeScript cases differ (see stderr)", failed, n);
}
END_TEST

static json_t *error_of(const char *code, enum engine_language lang)
{
	node_prepare();
	json_t *r = engine_run(code, strlen(code), lang);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(!json_is_true(json_object_get(r, "ok")), "%s: did not fail", code);
	json_t *e = json_incref(json_object_get(r, "error"));
	json_decref(r);
	return e;
}

static long long num(json_t *e, const char *key)
{
	return json_integer_value(json_object_get(e, key));
}

/* How many run-time dead-zone checks the lowering of code emits. */
static int tdz_checks(const char *code)
{
	char *error = NULL, *out = lowered(code, ENGINE_JAVASCRIPT, &error);
	ck_assert_msg(out != NULL, "%s: %s", code, error ? error : "?");
	int n = 0;
	for (const char *p = out; (p = strstr(p, "=== $$tdz")) != NULL; p++)
		n++;
	free(out);
	return n;
}

/* Checks only where a use may come before the initialisation: none for
 * uses after it, from functions first named after it, or in the bench's
 * modern script; one where a hoisted function may run first. */
START_TEST(test_tdz_checks)
{
	node_prepare();
	ck_assert_int_eq(tdz_checks("let x = 1; x++; const f = () => x; return f()"), 0);
	ck_assert_int_eq(tdz_checks("const k = 2; function f(n) { return n > 0 ? k + f(n - 1) : 0 }"
				    " return f(3)"),
			 0);
	ck_assert_int_eq(tdz_checks("class C { m() { return C } } return new C().m()"), 0);
	ck_assert_int_eq(tdz_checks("f(); let x = 1; function f() { return x }"), 1);
	ck_assert_int_eq(tdz_checks("const g = () => y; let y = 1; return g()"), 1);
	ck_assert_int_eq(tdz_checks("switch (1) { case 0: let a = 1; case 1: return a }"), 1);
	char *modern = node_data("bench/modern-10.js");
	ck_assert_int_eq(tdz_checks(modern), 0);
	free(modern);
}
END_TEST

/* Errors point at the code as submitted, whatever the lowering moved. */
START_TEST(test_positions)
{
	json_t *e = error_of("const a = 1;\nclass A {\n  m() {\n    return [1].map((x) => x.y.z);\n"
			     "  }\n}\nnew A().m();",
			     ENGINE_ANY);
	ck_assert_int_eq(num(e, "line"), 4);
	const char *stack = json_string_value(json_object_get(e, "stack"));
	ck_assert_ptr_nonnull(strstr(stack, "script.js:4"));
	ck_assert_ptr_nonnull(strstr(stack, "script.js:7"));
	json_decref(e);

	e = error_of("async function f() {\n  await null;\n  throw new Error('late');\n}\n"
		     "await f();",
		     ENGINE_ANY);
	ck_assert_int_eq(num(e, "line"), 3);
	json_decref(e);

	/* TypeScript: the plugin's message and position. */
	e = error_of("interface A { x: number }\nconst a: A = {x: 1};\nlet b: = 2;",
		     ENGINE_TYPESCRIPT);
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "syntax");
	ck_assert_int_eq(num(e, "line"), 3);
	json_decref(e);

	/* Invalid in both: the error of the dialect that got further. */
	e = error_of("const a: number = 1;\nconst b = (;", ENGINE_ANY);
	ck_assert_int_eq(num(e, "line"), 2);
	json_decref(e);
	e = error_of("const a = 1;\nconst b = (;", ENGINE_ANY);
	ck_assert_int_eq(num(e, "line"), 2);
	ck_assert_int_eq(num(e, "column"), 12);
	json_decref(e);
}
END_TEST

/* JavaScript that is also TypeScript-looking stays JavaScript; TypeScript
 * is taken only where JavaScript fails, or when asked for. */
START_TEST(test_dialects)
{
	node_prepare();
	/* Valid JavaScript either way: a < b > (c) is two comparisons. */
	const char *js = "const a = 1, b = 2, c = 3;\nreturn a < b > (c);";
	json_t *r = engine_run(js, strlen(js), ENGINE_ANY);
	ck_assert(json_is_false(json_object_get(r, "value")));
	json_decref(r);
	const char *ts = "function id<T>(x: T): T { return x }\nreturn id<number>(4);";
	r = engine_run(ts, strlen(ts), ENGINE_ANY);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "value")), 4);
	json_decref(r);
	json_t *e = error_of(ts, ENGINE_JAVASCRIPT);
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "syntax");
	ck_assert_int_eq(num(e, "line"), 1);
	json_decref(e);
	const char *en = "enum Color { Red, Green = 5, Blue }\nreturn [Color.Blue, Color[5]];";
	r = engine_run(en, strlen(en), ENGINE_TYPESCRIPT);
	json_t *want = json_pack("[i,s]", 6, "Green");
	ck_assert(json_equal(json_object_get(r, "value"), want));
	json_decref(want);
	json_decref(r);
}
END_TEST

/* The ES5 fast path: code whose ES5.1 and ES2022 readings differ runs as
 * ES2022 (tests/data/lowering-fastpath.txt), and ES2015+ early errors in
 * code the engine's ES5.1 parser accepts are kind "syntax". Node reports
 * all but the last four as SyntaxErrors too; those it defers to run time
 * (a V8 deviation for the web's sake), while ES2022 (AssignmentTargetType)
 * and test262 make them early errors. */
START_TEST(test_fastpath)
{
	node_cases("lowering-fastpath.txt", ENGINE_JAVASCRIPT, 18);
	static const char *const early[] = {
		"const a = 1; const a = 2;",
		"return ~3 ** 2",
		"return -2 ** 2",
		"v\\u0061r x = 1",
		"'use strict'; for (var i = 0 in {});",
		"a + b = 1",
		"this = 1",
		"let let = 1",
		"'use strict'; if (1) function f() {}",
		"while (0) function f() {}",
		"'use strict'; { function f() {} function f() {} }",
		"{ let a; var a; }",
		"var x = {__proto__: 1, __proto__: 2}",
		"var x = {get a(v) { return 1 }}",
		"var x = {set a() {}}",
		"'use strict'; return '\\8'",
		"f() = 1",
		"++f()",
		"f()++",
		"for (f() in {});",
	};
	for (size_t i = 0; i < sizeof early / sizeof early[0]; i++) {
		json_t *e = error_of(early[i], ENGINE_JAVASCRIPT);
		ck_assert_msg(strcmp(json_string_value(json_object_get(e, "kind")), "syntax") == 0,
			      "%s: kind %s", early[i],
			      json_string_value(json_object_get(e, "kind")));
		json_decref(e);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lower");
	TCase *tc = tcase_create("lower");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_unicode);
	tcase_add_test(tc, test_dstr);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_tdz);
	tcase_add_test(tc, test_tdz_checks);
	tcase_add_test(tc, test_params);
	tcase_add_test(tc, test_asyncgen);
	tcase_add_test(tc, test_node_agrees);
	tcase_add_test(tc, test_typescript_cases);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_dialects);
	tcase_add_test(tc, test_fastpath);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
