/*
 * check_prescan.c - the ES5 fast path's pre-scan (worker/prescan.c) alone:
 * each construct whose ES5.1 and ES2022 readings differ sends the code to
 * the lowering, naming the construct; ES5 code that means the same either
 * way stays on the fast path, however it is laid out.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../protocol/limits.h"
#include "../worker/prescan.h"

struct routed {
	const char *code;
	const char *reason; /* a part of the reason given */
};

/* Code that must be lowered, and a part of why. */
static const struct routed routed[] = {
	/* destructuring assignment and other invalid targets */
	{"var a = 1, b = 2; [a, b] = [b, a]", "assignment to something other"},
	{"({x: o.y} = v)", "assignment to something other"},
	{"x = 1;\n[a, b] = c", "assignment to something other"},
	{"return\n[a, b] = c", "assignment to something other"},
	{"f() = 1", "assignment to something other"},
	{"f() += 1", "assignment to something other"},
	{"a + b = 1", "assignment to something other"},
	{"!a = 1", "assignment to something other"},
	{"typeof a = 1", "assignment to something other"},
	{"a || b = 1", "assignment to something other"},
	{"this = 1", "assignment to something other"},
	{"1 = 2", "assignment to something other"},
	{"(a) = 1", "assignment to something other"},
	{"new a.b = 1", "assignment to something other"},
	{"++a = 1", "assignment to something other"},
	{"f(function(){} = 1)", "assignment to something other"},
	{"++f()", "++ or --"},
	{"f()++", "++ or --"},
	{"++this", "++ or --"},
	{"++-a", "++ or --"},
	{"++a++", "++ or --"},
	{"++(a)", "++ or --"},
	{"x = [1]--", "++ or --"},
	/* let and const, and the other ES2015 keywords */
	{"let [x] = v", "keyword"},
	{"let x = 1", "keyword"},
	{"const a = 1; a = 2", "keyword"},
	{"var c = class {}", "keyword"},
	{"function f() { return super.x }", "keyword"},
	{"import('x')", "keyword"},
	/* ** and its early errors */
	{"return 2 ** 3", "**"},
	{"++x ** 2", "**"},
	{"~3 ** 2", "**"},
	{"x **= 2", "**"},
	/* function declarations in blocks and statement positions */
	{"{ function f(){} }", "function declaration in a block"},
	{"if (x) function f(){}", "function declaration"},
	{"if (x) {} else function f(){}", "function declaration"},
	{"while (0) function f(){}", "function declaration"},
	{"for (;;) function f(){}", "function declaration"},
	{"do function f(){} while (0)", "function declaration"},
	{"l: function f(){}", "function declaration"},
	{"switch (x) { case 1: function f(){} }", "function declaration"},
	{"try { function f(){} } catch (e) {}", "function declaration"},
	{"function g() { if (a) { function f(){} } }", "function declaration"},
	{"function(){}", "without a name"},
	/* anonymous functions that ES2022 names */
	{"var f = function(){}", "names it"},
	{"f = function(){}", "names it"},
	{"var f = (function(){})", "names it"},
	{"a = b = function(){}", "names it"},
	{"for (var f = function(){};;) break", "names it"},
	{"x = {m: function(){}}", "names it"},
	{"x = {'a b': function(){}}", "names it"},
	{"x = {1: function(){}}", "names it"},
	{"x = {a: 1, b: (function(){})}", "names it"},
	/* object literals */
	{"x = {__proto__: null}", "__proto__"},
	{"x = {'__proto__': null}", "__proto__"},
	{"x = {'\\u005f_proto__': null}", "__proto__"},
	{"x = {get a() { return 1 }}", "accessor"},
	{"x = {set a(v) {}}", "accessor"},
	{"x = {get a(v) { return 1 }}", "accessor"},
	{"x = {a}", "shorthand"},
	{"x = {a() {}}", "shorthand"},
	{"x = {[k]: 1}", "computed"},
	/* escapes and characters the engine may read otherwise */
	{"v\\u0061r x = 1", "escaped identifier"},
	{"var a\\u0062 = 1", "escaped identifier"},
	{"var \xc3\xa9 = 1", "non-ASCII"},
	{"var x\xe2\x84\x98 = 1", "non-ASCII"},
	{"var\xc2\xa0x = 1", "non-ASCII"},
	{"x = '\\8'", "\\8"},
	{"x = '\\07'", "octal escape"},
	{"x = '\\1'", "octal escape"},
	{"x = '\\u{41}'", "\\u escape"},
	{"x = '\\x4'", "\\x escape"},
	{"x = 010", "octal"},
	{"x = 08", "octal"},
	{"x = 0b11", "a number followed by a letter"},
	{"x = 1n", "a number followed by a letter"},
	{"x = 1_000", "a number followed by a letter"},
	{"x = /a/y", "flag"},
	{"x = /a/u", "flag"},
	{"x = /(?<n>a)/", "named group"},
	{"x = /\\u{61}/", "\\u{...}"},
	{"x <!-- y", "HTML-like comment"},
	/* for-in heads */
	{"for (var i = 0 in x);", "for-in head"},
	{"for (f() in x);", "for-in head"},
	{"for ([a, b] in x);", "for-in head"},
	{"for ((a) in x);", "for-in head"},
	/* syntax the engine lacks */
	{"x = `t`", "template literal"},
	{"f(...a)", "spread"},
	{"x = a => a", "ES2015+ operator"},
	{"x = a ?? b", "??"},
	{"x = a?.b", "??"},
	{"a &&= b", "ES2015+ operator"},
	{"class C { #x }", "keyword"},
	{"x.#y", "private name"},
	{"@dec class C {}", "decorator"},
	/* what the scan cannot read goes to the lowering, which says why */
	{"x = 'abc", "unterminated string"},
	{"x = /abc", "unterminated regular expression"},
	{"/* abc", "unterminated comment"},
	{"f(", "unbalanced"},
	{"}", "unbalanced"},
	{"f(]", "unbalanced"},
};

/* ES5 code that means the same in ES2022: it stays on the fast path. */
static const char *const fast[] = {
	"return 1+1",
	"",
	"// only a comment",
	"var a = 1, b = 2, t = a; a = b; b = t; return [a, b]",
	"var o = {}; o.x = 1; o['y'] = 2; o.z.w = 3; a[0] = a[1] = 4",
	"this.x = 1; f().x = 2; (a || b).c = 3; [1, 2].x = 4; new F().x",
	"x += 1; x -= 1; x *= 2; x /= 2; x %= 3; x <<= 1; x >>= 1; x >>>= 1; x &= 1; x |= 1; x ^= "
	"1",
	"i++; i--; ++i; --i; a.b++; ++a[0]; --a.b.c; x = -i++ + ++j",
	"x = 1\n++y", /* ASI: ++ starts the next statement */
	"x = a ? b : c; a ? b = 1 : c = 2; x = a ? .5 : 1",
	"for (var i = 0, n = a.length; i < n; i++) s += a[i];",
	"for (var k in o) if (o.hasOwnProperty(k)) out.push(k);",
	"for (k in o) {} for (o.p in q) {} for (a[0] in q) {}",
	"for (;;) { break } for (var i = ('a' in o) ? 1 : 0; i < 2; i++) {}",
	"while (i < 10) i++; do { i-- } while (i > 0)",
	"label: for (;;) { for (;;) { continue label } }",
	"switch (x) { case 1: y = 2; break; case 2: case 3: y = a ? 1 : 2; break; default: y = 3 }",
	"try { f() } catch (e) { g(e) } finally { h() }",
	"function f(a, b) { function g() { return a } return g() + b }",
	"function f() {} function g() { var h = f; return h }",
	"var o = {a: 1, 'b': [1, 2], 3: {c: null}, get: 2, set: 3, if: 4, class: 5}",
	"o.f = function () {}; exports.g = function (x) { return x }",
	"arr.forEach(function (x) { s += x }); setTimeout(function () {}, 1)",
	"(function () { return 1 })(); !function () {}(); new function () {}()",
	"var f = function g() {}; var h = (0, function () {})",
	"x = cond ? function () {} : null",
	"x += function () {}",
	"var re = /ab+c/gi; return re.test(s) && /[/]/.test(t) && /\\//m.exec(u)",
	"return a / b / c",
	"if (a) /x/.test(b)",
	"x = (a) / 2; y = a[0] / 2; z = {} / 2; w = [function () {} / 2]",
	"x = /=/g; x /= 2",
	"x = 'it\\'s \"q\" \\n \\t \\u00e9 \\x41 \\0 \\\\'; y = \"\\\n\"",
	"x = 'é ☃ 😀'; // é\n/* ☃ */",
	"x = 0x1F + 0.5 + .5 + 5. + 1e3 + 1.5E-3 + 0 + 5..toString()",
	"x = a.if + a.class + a.let + a.const + a.function + a.__proto__",
	"x = typeof a === 'undefined' ? 0 : a.length; delete o.p; void 0",
	"x = a instanceof B && 'k' in o",
	"throw new Error('x')",
	"return\n{ a: 1 }",
	"var let_ = 1, yield = 2, static = 3, of = 4, async = 5, await = 6, get = 7",
	"a\n(b)",
	"x = 1\n[a, b] = c", /* no ASI before [: x = (1[a, b] = c) */
	"a = b\n/c/g",
	"if (x) { y() } else if (z) { w() } else { v() }",
	"x = [[1, 2], [3, [4]]]; y = {a: {b: {c: [{}]}}}",
	"'use strict'; var x = 1; return x",
};

START_TEST(test_routed)
{
	for (size_t i = 0; i < sizeof routed / sizeof routed[0]; i++) {
		const char *code = routed[i].code;
		const char *why = prescan_reason(code, strlen(code));
		ck_assert_msg(why != NULL, "kept on the fast path: %s", code);
		ck_assert_msg(strstr(why, routed[i].reason) != NULL, "%s: %s, not %s", code, why,
			      routed[i].reason);
	}
}
END_TEST

START_TEST(test_fast)
{
	for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++) {
		const char *why = prescan_reason(fast[i], strlen(fast[i]));
		ck_assert_msg(why == NULL, "lowered (%s): %s", why, fast[i]);
	}
}
END_TEST

/* The length given is what is read: a NUL is no end, and a cut is one. */
START_TEST(test_length)
{
	static const char code[] = "x = 1; [a, b] = c";
	ck_assert_ptr_null(prescan_reason(code, 6));
	ck_assert_ptr_nonnull(prescan_reason(code, sizeof code - 1));
	static const char nul[] = "x = 1;\0[a] = b";
	ck_assert_ptr_nonnull(prescan_reason(nul, sizeof nul - 1));
}
END_TEST

/* Brackets nested up to the limit are read; deeper, the code is lowered. */
START_TEST(test_depth)
{
	size_t n = LIMIT_PRESCAN_DEPTH;
	char *code = malloc(2 * n + 8);
	ck_assert_ptr_nonnull(code);
	size_t k = 0;
	code[k++] = 'x';
	code[k++] = '=';
	for (size_t i = 0; i < n - 2; i++)
		code[k++] = '[';
	for (size_t i = 0; i < n - 2; i++)
		code[k++] = ']';
	ck_assert_ptr_null(prescan_reason(code, k));
	k = 2;
	for (size_t i = 0; i < n; i++)
		code[k++] = '[';
	for (size_t i = 0; i < n; i++)
		code[k++] = ']';
	const char *why = prescan_reason(code, k);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "LIMIT_PRESCAN_DEPTH"));
	free(code);
}
END_TEST

/* One pass over the text: 4 MiB (a whole frame) of ES5 is read in well
 * under the time the engine takes to compile it. */
START_TEST(test_linear)
{
	static const char line[] = "for (var i = 0; i < n; i++) { s += a[i] * 2; o.x = f(i) }\n";
	size_t n = (4u << 20) / (sizeof line - 1), len = n * (sizeof line - 1);
	char *code = malloc(len);
	ck_assert_ptr_nonnull(code);
	for (size_t i = 0; i < n; i++)
		memcpy(code + i * (sizeof line - 1), line, sizeof line - 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_ptr_null(prescan_reason(code, len));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("prescan: %zu bytes of ES5 in %.1f ms (%.0f MB/s)\n", len, ms,
	       (double)len / 1e3 / (ms > 0 ? ms : 1e-3));
	free(code);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("prescan");
	TCase *tc = tcase_create("prescan");
	tcase_add_test(tc, test_routed);
	tcase_add_test(tc, test_fast);
	tcase_add_test(tc, test_length);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_linear);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
