/*
 * check_syntax.c - the errors of code the engine or the lowering cannot
 * run, in the engine itself: every case of tests/data/syntax.txt (see
 * tests/syntax-node.js, which checks the file against Node 20) must give
 * its message, line and column, and a stack that shows the offending line
 * with the caret under the column as Node prints it; the run-time errors
 * of the lowering (const, the temporal dead zone) Node's words, with no
 * frame of sandboxd's own JavaScript in their stacks.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "nodecases.h"

struct scase {
	const char *name;
	enum engine_language lang;
	bool syntax;
	long line, column, carets;
	const char *message;
	char *code;
};

/* Line n (1-based) of s, which ends at LF or CRLF; the caller frees it. */
static char *nth_line(const char *s, long n)
{
	for (long i = 1; i < n && s; i++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!s)
		return strdup("");
	size_t len = strcspn(s, "\n");
	return strndup(s, len && s[len - 1] == '\r' ? len - 1 : len);
}

/* What the stack of a syntax error at c's place must be: "script.js:LINE",
 * the line, the caret line (the line's tabs kept before the column, a
 * space for every other character, then the carets), an empty line and
 * the error. The cases' lines are ASCII, so columns are bytes. */
static char *expected_stack(const struct scase *c)
{
	char *src = nth_line(c->code, c->line);
	size_t cap = strlen(src) * 2 + strlen(c->message) + 64 + (size_t)c->carets;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	int k = snprintf(out, cap, "script.js:%ld\n%s\n", c->line, src);
	for (long i = 0; i < c->column - 1 && src[i]; i++)
		out[k++] = src[i] == '\t' ? '\t' : ' ';
	for (long i = 0; i < c->carets; i++)
		out[k++] = '^';
	snprintf(out + k, cap - (size_t)k, "\n\nSyntaxError: %s", c->message);
	free(src);
	return out;
}

/* Every frame of a stack is the script's (no runtime.js, polyfills.js …). */
static bool only_script_frames(const char *stack)
{
	for (const char *p = strstr(stack, "\n    at "); p; p = strstr(p + 1, "\n    at ")) {
		const char *end = strchr(p + 1, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *frame = strndup(p, n);
		bool ok = strstr(frame, "(script.js:") != NULL;
		free(frame);
		if (!ok)
			return false;
	}
	return true;
}

/* Checks one case; returns what differs (malloc'd) or NULL. */
static char *check_case(const struct scase *c)
{
	json_t *r = engine_run(c->code, strlen(c->code), c->lang);
	ck_assert_ptr_nonnull(r);
	char *why = NULL, *dump = json_dumps(r, JSON_COMPACT);
	json_t *e = json_object_get(r, "error");
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	const char *stack = json_string_value(json_object_get(e, "stack"));
	long line = (long)json_integer_value(json_object_get(e, "line"));
	long column = (long)json_integer_value(json_object_get(e, "column"));
	char want[1024];
	if (c->syntax)
		snprintf(want, sizeof want, "SyntaxError: %s (line %ld, column %ld)", c->message,
			 c->line, c->column);
	else
		snprintf(want, sizeof want, "%s", c->message);
	if (json_is_true(json_object_get(r, "ok")) || !kind ||
	    strcmp(kind, c->syntax ? "syntax" : "script") != 0 || !msg || strcmp(msg, want) != 0 ||
	    line != c->line || (c->syntax && column != c->column)) {
		if (asprintf(&why, "want %s at %ld:%ld, got %s", want, c->line, c->column, dump) <
		    0)
			why = NULL;
	} else if (c->syntax) {
		char *ws = expected_stack(c);
		if (!stack || strcmp(stack, ws) != 0)
			if (asprintf(&why, "stack\n%s\nwanted\n%s", stack ? stack : "(none)", ws) <
			    0)
				why = NULL;
		free(ws);
	} else if (!stack || !only_script_frames(stack)) {
		if (asprintf(&why, "a frame that is not the script's: %s",
			     stack ? stack : "(none)") < 0)
			why = NULL;
	}
	free(dump);
	json_decref(r);
	return why;
}

/* tests/data/syntax.txt: name, lang, kind, node, LINE:COLUMN:CARETS,
 * message, code as a JSON string (see tests/syntax-node.js). */
START_TEST(test_cases)
{
	node_prepare();
	char *text = node_data("syntax.txt");
	int n = 0, failed = 0, lineno = 0;
	char *save = NULL;
	for (char *row = strtok_r(text, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (row[0] == '#')
			continue;
		char *f[7];
		int k = 0;
		for (char *p = row; k < 7; k++) {
			f[k] = p;
			char *tab = k < 6 ? strchr(p, '\t') : NULL;
			if (k < 6) {
				ck_assert_msg(tab != NULL, "syntax.txt:%d: not seven fields",
					      lineno);
				*tab = '\0';
				p = tab + 1;
			}
		}
		struct scase c = {.name = f[0], .message = f[5]};
		c.lang = !strcmp(f[1], "ts")   ? ENGINE_TYPESCRIPT
			 : !strcmp(f[1], "js") ? ENGINE_JAVASCRIPT
					       : ENGINE_ANY;
		c.syntax = strcmp(f[2], "syntax") == 0;
		ck_assert_int_eq(sscanf(f[4], "%ld:%ld:%ld", &c.line, &c.column, &c.carets), 3);
		json_t *code = json_loads(f[6], JSON_DECODE_ANY, NULL);
		ck_assert_msg(json_is_string(code), "syntax.txt:%d: the code is not a JSON string",
			      lineno);
		c.code = strdup(json_string_value(code));
		json_decref(code);
		n++;
		char *why = check_case(&c);
		if (why) {
			fprintf(stderr, "syntax.txt:%d: %s: %s\n", lineno, c.name, why);
			failed++;
		}
		free(why);
		free(c.code);
	}
	free(text);
	ck_assert_int_ge(n, 100);
	ck_assert_msg(failed == 0, "%d of %d syntax cases differ (see stderr)", failed, n);
}
END_TEST

static json_t *error_of(json_t *r)
{
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(!json_is_true(json_object_get(r, "ok")), "did not fail");
	json_t *e = json_incref(json_object_get(r, "error"));
	json_decref(r);
	return e;
}

static const char *field(json_t *e, const char *key)
{
	const char *s = json_string_value(json_object_get(e, key));
	ck_assert_msg(s != NULL, "no %s", key);
	return s;
}

/* Line n (0-based) of a stack. */
static char *stack_line(const char *stack, int n) { return nth_line(stack, n + 1); }

/* Code points in the first n bytes of s. */
static size_t code_points(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* The caret stands under the offending character however the line is
 * written: non-ASCII characters before it (the column counts UTF-16
 * units, the caret line one space a character), a line too long to show
 * whole (cut around the column, "..." at the cuts), test mode's files. */
START_TEST(test_places)
{
	node_prepare();
	/* ä is one unit, the emoji two: the ';' is column 29. */
	const char *code = "const s = \"\xc3\xa4\xf0\x9f\x98\x80\"; let q = s +;";
	json_t *e = error_of(engine_run(code, strlen(code), ENGINE_ANY));
	ck_assert_int_eq(json_integer_value(json_object_get(e, "column")), 29);
	char *src = stack_line(field(e, "stack"), 1), *mark = stack_line(field(e, "stack"), 2);
	ck_assert_str_eq(src, code);
	size_t at = (size_t)(strchr(src, ';') - src);
	at = (size_t)(strchr(src + at + 1, ';') - src);
	ck_assert_uint_eq(strlen(mark) - 1, code_points(src, at));
	ck_assert_int_eq(mark[strlen(mark) - 1], '^');
	free(src);
	free(mark);
	json_decref(e);

	/* A 3000-character line, the error in its middle. */
	char *longl = malloc(4096);
	ck_assert_ptr_nonnull(longl);
	strcpy(longl, "const a = [");
	for (int i = 0; i < 300; i++)
		strcat(longl, "1, 2, 3, ");
	strcat(longl, "4 5");
	for (int i = 0; i < 30; i++)
		strcat(longl, ", 6, 7, 8");
	strcat(longl, "];");
	e = error_of(engine_run(longl, strlen(longl), ENGINE_ANY));
	ck_assert_str_eq(field(e, "message"),
			 "SyntaxError: Unexpected number (line 1, column 2714)");
	src = stack_line(field(e, "stack"), 1);
	mark = stack_line(field(e, "stack"), 2);
	ck_assert_ptr_eq(strstr(src, "..."), src);
	ck_assert_str_eq(src + strlen(src) - 3, "...");
	ck_assert_uint_eq(strlen(mark), strspn(mark, " ") + 1);
	ck_assert_int_eq(src[strlen(mark) - 1], '5');
	ck_assert_uint_eq(strlen(src), 3 + 160 + 3);
	free(src);
	free(mark);
	free(longl);
	json_decref(e);

	/* Test mode: each source its own file name. */
	const char *tests = "test('a', () => {\n  assert.is(1, 1;\n});";
	e = error_of(engine_run_tests("", 0, tests, strlen(tests), ENGINE_ANY));
	ck_assert_str_eq(field(e, "source"), "tests");
	ck_assert_str_eq(field(e, "stack"),
			 "tests.js:2\n  assert.is(1, 1;\n"
			 "                ^\n\nSyntaxError: Unexpected token ';'");
	json_decref(e);
	const char *lib = "export function add(a, b) { return a + b }";
	e = error_of(engine_run_tests(lib, strlen(lib), "", 0, ENGINE_ANY));
	ck_assert_str_eq(field(e, "source"), "code");
	ck_assert_str_eq(
		field(e, "stack"),
		"code.js:1\nexport function add(a, b) { return a + b }\n^^^^^^\n\nSyntaxError: "
		"import/export: a script is a function body, not a module");
	json_decref(e);
}
END_TEST

/* eval and Function report their source's errors as a SyntaxError the
 * call throws, in the same words, with no frame of the lowering. */
START_TEST(test_eval)
{
	node_prepare();
	const char *code = "try { eval('let x = (;') } catch (e) { return [e.name, e.message, "
			   "e.stack] }";
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	json_t *v = json_object_get(r, "value");
	ck_assert_msg(json_is_array(v), "%s", json_dumps(r, 0));
	ck_assert_str_eq(json_string_value(json_array_get(v, 0)), "SyntaxError");
	ck_assert_str_eq(json_string_value(json_array_get(v, 1)), "Unexpected token ';'");
	ck_assert(only_script_frames(json_string_value(json_array_get(v, 2))));
	json_decref(r);
	code = "try { new Function('@dec class A {}') } catch (e) { return e.message }";
	r = engine_run(code, strlen(code), ENGINE_ANY);
	ck_assert_str_eq(json_string_value(json_object_get(r, "value")),
			 "decorators are not supported");
	json_decref(r);
}
END_TEST

/* Node (tests/syntax-node.js) must agree with the file; without Node the
 * check says it was not run. */
START_TEST(test_node_agrees)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	dir = dir ? dir : "tests/data";
	char script[4096], data[4096];
	snprintf(script, sizeof script, "%s/../syntax-node.js", dir);
	snprintf(data, sizeof data, "%s/syntax.txt", dir);
	if (access("/usr/bin/node", X_OK) != 0) {
		printf("not run: the Node comparison of %s: no /usr/bin/node\n", data);
		return;
	}
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/usr/bin/node", "node", script, data, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "node %s: status %#x: Node disagrees with %s (see its output)", script, st,
		      data);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("syntax");
	TCase *tc = tcase_create("syntax");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cases);
	tcase_add_test(tc, test_places);
	tcase_add_test(tc, test_eval);
	tcase_add_test(tc, test_node_agrees);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
