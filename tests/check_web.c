/*
 * check_web.c - the web globals of worker/js/web.js: structuredClone,
 * DOMException, atob/btoa, crypto, the text coders and performance. The
 * cases in tests/data/web-clone.txt are function bodies and the values Node
 * 20 returns for them; the engine must return the same, and Node must
 * still give them (tests/cases-node.js). The randomness of
 * crypto, which no case can pin to a value, is measured here: distinct
 * UUIDs with their version and variant bits, and bytes spread over their
 * range.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "nodecases.h"

START_TEST(test_cases) { node_cases("web-clone.txt", ENGINE_ANY, 150); }
END_TEST

/* Node (tests/cases-node.js) must give every value web-clone.txt says, so
 * that what the engine is held to is what Node does; without /usr/bin/node
 * the check says it was not run. */
START_TEST(test_node_agrees)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	dir = dir ? dir : "tests/data";
	char script[4096], file[4096];
	snprintf(script, sizeof script, "%s/../cases-node.js", dir);
	snprintf(file, sizeof file, "%s/web-clone.txt", dir);
	if (access("/usr/bin/node", X_OK) != 0) {
		printf("not run: the Node comparison of %s: no /usr/bin/node\n", file);
		return;
	}
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/usr/bin/node", "node", script, file, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "node %s %s: status %#x: Node gives other values than the file says (see "
		      "its output)",
		      script, file, st);
}
END_TEST

/* Runs code and returns its value (the caller owns it); fails the test on
 * an error. */
static json_t *run_value(const char *code)
{
	node_prepare();
	json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
	json_t *v = json_object_get(r, "value");
	char *text = json_dumps(r, JSON_COMPACT);
	ck_assert_msg(json_is_true(json_object_get(r, "ok")) && v, "script failed: %s", text);
	free(text);
	json_incref(v);
	json_decref(r);
	return v;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 2000 UUIDs: each of RFC 9562's version 4 form, all distinct, and their
 * 122 random bits balanced (each bit position set in about half of them;
 * for a fair source, 1000 +- 5 standard deviations of 22.4). */
START_TEST(test_uuids)
{
	enum { N = 2000 };
	json_t *v = run_value("const a = [];\n"
			      "for (let i = 0; i < 2000; i++) a.push(crypto.randomUUID());\n"
			      "return a");
	ck_assert_uint_eq(json_array_size(v), N);
	static int ones[128];
	memset(ones, 0, sizeof ones);
	for (size_t i = 0; i < N; i++) {
		const char *u = json_string_value(json_array_get(v, i));
		ck_assert_ptr_nonnull(u);
		ck_assert_uint_eq(strlen(u), 36);
		int bit = 0;
		for (int k = 0; k < 36; k++) {
			if (k == 8 || k == 13 || k == 18 || k == 23) {
				ck_assert_int_eq(u[k], '-');
				continue;
			}
			int d = hex_digit(u[k]);
			ck_assert_msg(d >= 0, "%s: not lower-case hex", u);
			for (int b = 3; b >= 0; b--, bit++)
				ones[bit] += (d >> b) & 1;
		}
		ck_assert_msg(u[14] == '4', "%s: version is not 4", u);
		ck_assert_msg(strchr("89ab", u[19]) != NULL, "%s: variant is not RFC 9562's", u);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(u, json_string_value(json_array_get(v, j))) != 0,
				      "%s: repeated", u);
	}
	int lo = N, hi = 0;
	for (int b = 0; b < 128; b++) {
		bool fixed = (b >= 48 && b < 52) || b == 64 || b == 65;
		if (fixed)
			continue;
		lo = ones[b] < lo ? ones[b] : lo;
		hi = ones[b] > hi ? ones[b] : hi;
	}
	printf("check_web: 2000 UUIDs distinct; each random bit set in %d to %d of them\n", lo, hi);
	ck_assert_int_gt(lo, 1000 - 112);
	ck_assert_int_lt(hi, 1000 + 112);
	json_decref(v);
}
END_TEST

/* 65536 bytes from getRandomValues: every value occurs, and their spread
 * passes a chi-square test over the 256 values (255 degrees of freedom:
 * a fair source exceeds 350, or falls under 180, about once in ten
 * thousand runs each). Two fills of the same array differ. */
START_TEST(test_bytes_spread)
{
	json_t *v = run_value("const a = crypto.getRandomValues(new Uint8Array(65536));\n"
			      "const counts = new Array(256).fill(0);\n"
			      "for (const b of a) counts[b]++;\n"
			      "const first = Array.from(a.subarray(0, 32));\n"
			      "crypto.getRandomValues(a);\n"
			      "return {counts, same: first.every((b, i) => b === a[i])}");
	json_t *counts = json_object_get(v, "counts");
	ck_assert_uint_eq(json_array_size(counts), 256);
	double chi = 0, expected = 65536.0 / 256;
	long min = 65536;
	for (size_t i = 0; i < 256; i++) {
		long c = (long)json_integer_value(json_array_get(counts, i));
		min = c < min ? c : min;
		chi += ((double)c - expected) * ((double)c - expected) / expected;
	}
	printf("check_web: 65536 random bytes: chi-square %.1f over 255 degrees of freedom, "
	       "rarest value %ld times\n",
	       chi, min);
	ck_assert_int_gt(min, 0);
	ck_assert_msg(chi > 180 && chi < 350, "chi-square %.1f", chi);
	ck_assert(!json_is_true(json_object_get(v, "same")));
	json_decref(v);
}
END_TEST

/* Every integer kind is filled over its whole width: the top byte of
 * 32-bit values is not always zero, and Int8 values go negative. */
START_TEST(test_widths)
{
	json_t *v = run_value("const u = crypto.getRandomValues(new Uint32Array(256));\n"
			      "const i = crypto.getRandomValues(new Int8Array(256));\n"
			      "const some = (a, f) => Array.prototype.some.call(a, f);\n"
			      "return [some(u, (x) => x > 0xffffff), some(i, (x) => x < 0),\n"
			      "        some(i, (x) => x > 0)]");
	for (size_t k = 0; k < 3; k++)
		ck_assert(json_is_true(json_array_get(v, k)));
	json_decref(v);
}
END_TEST

/* Runs code in a child of this process (as workers are children of the
 * prepared forkserver, not reseeded here) and returns its value's JSON. */
static char *run_in_child(const char *code)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		json_t *r = engine_run(code, strlen(code), ENGINE_ANY);
		char *text = json_dumps(json_object_get(r, "value"), JSON_COMPACT);
		ssize_t n = text ? write(fds[1], text, strlen(text)) : -1;
		_exit(n > 0 ? 0 : 1);
	}
	close(fds[1]);
	static char got[2][256];
	static int which;
	char *out = got[which++ % 2];
	size_t len = 0;
	ssize_t n;
	while (len < 255 && (n = read(fds[0], out + len, 255 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(fds[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return out;
}

/* crypto's bytes come from the kernel, not from Math.random's generator:
 * two children of one prepared engine share that generator's state (each
 * worker reseeds it, these do not), yet their UUIDs differ. */
START_TEST(test_not_math_random)
{
	node_prepare();
	const char *code = "return [Math.random(), crypto.randomUUID()]";
	json_t *a = json_loads(run_in_child(code), 0, NULL);
	json_t *b = json_loads(run_in_child(code), 0, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert(json_number_value(json_array_get(a, 0)) ==
		  json_number_value(json_array_get(b, 0)));
	ck_assert_str_ne(json_string_value(json_array_get(a, 1)),
			 json_string_value(json_array_get(b, 1)));
	json_decref(a);
	json_decref(b);
}
END_TEST

/* performance.now counts milliseconds from the process's first use, and
 * timeOrigin is the wall clock then: their sum is the time now. */
START_TEST(test_clock)
{
	json_t *v = run_value(
		"const t0 = performance.now(); let x = 0;\n"
		"while (performance.now() - t0 < 20) x++;\n"
		"return [performance.now() - t0, performance.timeOrigin + performance.now() "
		"- Date.now()]");
	double spent = json_number_value(json_array_get(v, 0));
	double skew = json_number_value(json_array_get(v, 1));
	ck_assert(spent >= 20 && spent < 5000);
	ck_assert_msg(fabs(skew) < 50, "timeOrigin + now() is %.3f ms from Date.now()", skew);
	json_decref(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("web");
	TCase *tc = tcase_create("node");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cases);
	tcase_add_test(tc, test_node_agrees);
	tcase_add_test(tc, test_uuids);
	tcase_add_test(tc, test_bytes_spread);
	tcase_add_test(tc, test_widths);
	tcase_add_test(tc, test_not_math_random);
	tcase_add_test(tc, test_clock);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
