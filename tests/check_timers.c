/*
 * check_timers.c - timers and the event loop against the real daemon, in
 * confined workers: a sleeping worker spends no CPU (cpu_time_ms against
 * execution_time_ms), an interval never cleared ends at the execution's
 * timeout with its output kept, tool calls made from timers and immediates
 * in the loop's order, an exception thrown by a timer, the CPU budget
 * spent in one, test mode waiting on timers, and Node's unhandled-rejection
 * warnings for an Error (whose stack no output case can compare with
 * Node's). The ordering itself is tests/data/out-timers.txt (check_node).
 *
 * Nothing here sleeps: every wait is for a reply or an event, with a
 * deadline.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define REPLY_MS 20000

static struct daemon shared;

static void shared_up(void)
{
	const char *args[] = {"--max-workers", "4", NULL};
	daemon_start(&shared, args);
}
static void shared_down(void) { daemon_stop(&shared); }

/* One execute of code (ES5, so that no lowering costs CPU) with the given
 * timeout; the final reply. */
static json_t *run_es5(const char *code, int timeout_ms)
{
	return call_once(shared.sock, json_pack("{s:s, s:s, s:i}", "op", "execute", "code", code,
						"timeout_ms", timeout_ms));
}

/* A second of sleeping in a timer: the wall time passes, the CPU time
 * does not. */
START_TEST(test_sleep_spends_no_cpu)
{
	json_t *r = run_es5("var t0 = Date.now();\n"
			    "return new Promise(function (resolve) {\n"
			    "  setTimeout(function () { resolve(Date.now() - t0); }, 1000);\n"
			    "});",
			    10000);
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	long long waited = jint(r, "value"), wall = jint(r, "execution_time_ms");
	long long cpu = jint(r, "cpu_time_ms");
	printf("check_timers: setTimeout(1000): waited %lld ms in the script, execution %lld ms, "
	       "cpu %lld ms\n",
	       waited, wall, cpu);
	ck_assert_int_ge(waited, 1000);
	ck_assert_int_ge(wall, 1000);
	/* A worker's start and the script take a few ms; a busy wait would
	 * take the whole second. */
	ck_assert_msg(cpu < 250, "a sleeping worker spent %lld ms of CPU", cpu);
	json_decref(r);
}
END_TEST

/* An interval never cleared: the execution's timeout ends it, as it ends
 * any loop, and the output it wrote is kept. */
START_TEST(test_endless_interval_times_out)
{
	json_t *r = run_es5("var n = 0;\n"
			    "setInterval(function () { console.log('tick ' + (++n)); }, 50);\n"
			    "return 'never read';",
			    1000);
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert_str_eq(err_kind(r), "timeout");
	const char *out = jstr(r, "stdout");
	int ticks = 0;
	for (const char *p = out; (p = strstr(p, "tick ")) != NULL; p++)
		ticks++;
	long long wall = jint(r, "execution_time_ms"), cpu = jint(r, "cpu_time_ms");
	printf("check_timers: endless interval: %d ticks kept, execution %lld ms, cpu %lld ms\n",
	       ticks, wall, cpu);
	ck_assert_msg(strncmp(out, "tick 1\ntick 2\n", 14) == 0, "stdout: %s", out);
	ck_assert_int_ge(ticks, 3);
	ck_assert_int_le(ticks, 21); /* at most one every 50 ms */
	ck_assert_int_ge(wall, 1000);
	ck_assert_msg(cpu < 500, "an interval every 50 ms spent %lld ms of CPU", cpu);
	json_decref(r);
}
END_TEST

/* Tool calls from the body, an immediate and two timers: each a round
 * trip over the protocol, in the loop's order, with the values each got. */
START_TEST(test_tools_from_timers)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	const char *code = "var log = [];\n"
			   "log.push('sync ' + tools.echo({at: 'sync'}));\n"
			   "setTimeout(function () { log.push('t150 ' + tools.echo({at: 't150'})); "
			   "}, 150);\n"
			   "setImmediate(function () { log.push('imm ' + tools.echo({at: 'imm'})); "
			   "});\n"
			   "return new Promise(function (resolve) {\n"
			   "  setTimeout(function () {\n"
			   "    log.push('t300 ' + tools.echo({at: 't300'}));\n"
			   "    resolve(log);\n"
			   "  }, 300);\n"
			   "});";
	client_request(&c, json_pack("{s:s, s:s, s:s, s:[{s:s}]}", "op", "execute", "id", "x",
				     "code", code, "tools", "name", "echo"));
	json_t *started = client_started(&c, "x", REPLY_MS);
	json_decref(started);
	static const char *const order[] = {"sync", "imm", "t150", "t300"};
	size_t seen = 0;
	json_t *r = NULL;
	while (!r) {
		json_t *m = client_recv(&c, REPLY_MS);
		ck_assert_msg(m != NULL, "no reply");
		const char *ev = jstr(m, "event");
		if (strcmp(ev, "tool_call") == 0) {
			const char *at = jstr(json_object_get(m, "args"), "at");
			ck_assert_uint_lt(seen, 4);
			ck_assert_str_eq(at, order[seen]);
			seen++;
			char value[32];
			snprintf(value, sizeof value, "#%zu", seen);
			client_request(&c,
				       json_pack("{s:s, s:s, s:s, s:I, s:s}", "op", "tool_result",
						 "id", "answer", "execution_id",
						 jstr(m, "execution_id"), "call_id",
						 (json_int_t)jint(m, "call_id"), "value", value));
		} else if (!*ev && strcmp(jstr(m, "id"), "x") == 0) {
			r = m;
			continue;
		} else if (!*ev) {
			ck_assert_msg(jtrue(m, "ok"), "tool_result refused: %s", err_msg(m));
		}
		json_decref(m);
	}
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	ck_assert_uint_eq(seen, 4);
	json_t *want = json_pack("[s,s,s,s]", "sync #1", "imm #2", "t150 #3", "t300 #4");
	ck_assert_msg(json_equal(json_object_get(r, "value"), want), "value: %s",
		      json_dumps(json_object_get(r, "value"), 0));
	json_t *calls = json_object_get(r, "calls");
	ck_assert_uint_eq(json_array_size(calls), 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_str_eq(jstr(json_array_get(calls, i), "status"), "ok");
	json_decref(want);
	json_decref(r);
	client_close(&c);
}
END_TEST

/* An exception a timer throws is the script's: the execution fails with it
 * (as an uncaught exception ends Node), what came before is kept and the
 * timers after it never run. */
START_TEST(test_timer_throws)
{
	json_t *r = run_es5("console.log('before');\n"
			    "setTimeout(function () { throw new TypeError('in timer'); }, 10);\n"
			    "setTimeout(function () { console.log('never'); }, 200);",
			    10000);
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_str_eq(err_msg(r), "TypeError: in timer");
	ck_assert_int_eq(jint(err_obj(r), "line"), 2);
	ck_assert_str_eq(jstr(r, "stdout"), "before\n");
	json_decref(r);
}
END_TEST

/* The CPU budget runs out inside a timer's callback: kind timeout, from
 * the engine, well before the wall-clock timeout. */
START_TEST(test_cpu_budget_in_timer)
{
	json_t *r =
		call_once(shared.sock, json_pack("{s:s, s:s, s:i, s:i}", "op", "execute", "code",
						 "setTimeout(function () { for (;;) {} }, 10);",
						 "timeout_ms", 20000, "max_cpu_ms", 200));
	ck_assert_str_eq(jstr(r, "state"), "timeout");
	ck_assert_str_eq(err_kind(r), "timeout");
	ck_assert_msg(strstr(err_msg(r), "max_cpu_ms") != NULL, "message: %s", err_msg(r));
	ck_assert_int_lt(jint(r, "execution_time_ms"), 15000);
	json_decref(r);
}
END_TEST

/* Test mode runs the loop while a test waits, and after the tests. */
START_TEST(test_test_mode_runs_timers)
{
	json_t *r = call_once(
		shared.sock,
		json_pack("{s:s, s:s}", "op", "test", "tests",
			  "var order = [];\n"
			  "test('waits for a timer', function () {\n"
			  "  return new Promise(function (r) { setTimeout(function () { "
			  "order.push('t'); r(); }, 30); });\n"
			  "});\n"
			  "test('an interval', function () {\n"
			  "  return new Promise(function (r) {\n"
			  "    var n = 0, t = setInterval(function () { if (++n === 3) { "
			  "clearInterval(t); r(); } }, 5);\n"
			  "  });\n"
			  "});\n"
			  "test('saw both', function () { assert.equal(order, ['t']); });\n"
			  "test('never settles', function () { return new Promise(function () "
			  "{}); });\n"
			  "setTimeout(function () { console.log('after the tests'); }, 50);\n"));
	ck_assert_msg(jtrue(r, "ok"), "failed: %s", err_msg(r));
	json_t *summary = json_object_get(r, "summary");
	ck_assert_msg(summary != NULL, "no summary: %s", json_dumps(r, 0));
	ck_assert_int_eq(jint(summary, "passed"), 3);
	ck_assert_int_eq(jint(summary, "failed"), 1);
	json_t *tests = json_object_get(r, "tests");
	const char *why = jstr(json_array_get(tests, 3), "error");
	ck_assert_msg(strstr(why, "never settled") != NULL, "error: %s", why);
	ck_assert_str_eq(jstr(r, "stdout"), "after the tests\n");
	json_decref(r);
}
END_TEST

static const char unhandled_tail[] =
	"(node:1) UnhandledPromiseRejectionWarning: Unhandled promise rejection. This error "
	"originated either by throwing inside of an async function without a catch block, or by "
	"rejecting a promise which was not handled with .catch(). To terminate the node process "
	"on unhandled promise rejection, use the CLI flag `--unhandled-rejections=strict` (see "
	"https://nodejs.org/api/cli.html#cli_unhandled_rejections_mode). (rejection id: 1)\n";

/* An Error rejected with no handler: Node's two warnings, the first with
 * the error's stack, on stderr; the script still returns its value. Handled
 * later: Node's third warning. */
START_TEST(test_unhandled_rejection_text)
{
	json_t *r = run_es5("Promise.reject(new Error('boom'));\nreturn 7;", 10000);
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	ck_assert_int_eq(jint(r, "value"), 7);
	const char *err = jstr(r, "stderr");
	static const char head[] = "(node:1) UnhandledPromiseRejectionWarning: Error: boom\n"
				   "    at [anon] (script.js:1)\n"
				   "(Use `node --trace-warnings ...` to show where the warning was "
				   "created)\n";
	ck_assert_msg(strncmp(err, head, sizeof head - 1) == 0, "stderr: %s", err);
	ck_assert_str_eq(err + sizeof head - 1, unhandled_tail);
	json_decref(r);

	r = run_es5("var p = Promise.reject(new RangeError('later'));\n"
		    "setTimeout(function () { p.catch(function () { console.log('caught'); }); }, "
		    "20);",
		    10000);
	ck_assert_msg(jtrue(r, "success"), "failed: %s", err_msg(r));
	ck_assert_str_eq(jstr(r, "stdout"), "caught\n");
	err = jstr(r, "stderr");
	ck_assert_msg(strncmp(err, "(node:1) UnhandledPromiseRejectionWarning: RangeError: later\n",
			      61) == 0,
		      "stderr: %s", err);
	static const char handled[] = "(node:1) PromiseRejectionHandledWarning: Promise rejection "
				      "was handled asynchronously (rejection id: 1)\n";
	size_t n = strlen(err);
	ck_assert_msg(n > sizeof handled && strcmp(err + n - (sizeof handled - 1), handled) == 0,
		      "stderr: %s", err);
	json_decref(r);
}
END_TEST

/* A returned promise that nothing can settle once the loop is empty, and a
 * returned rejected one, which is the script's error and no warning. */
START_TEST(test_returned_promises)
{
	json_t *r = run_es5("setTimeout(function () {}, 10);\nreturn new Promise(function () {});",
			    10000);
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_msg(strstr(err_msg(r), "nothing can settle") != NULL, "message: %s", err_msg(r));
	json_decref(r);
	r = run_es5("return new Promise(function (_, reject) {\n"
		    "  setTimeout(function () { reject(new Error('late no')); }, 10);\n"
		    "});",
		    10000);
	ck_assert_str_eq(jstr(r, "state"), "failed");
	ck_assert_str_eq(err_msg(r), "Error: late no");
	ck_assert_str_eq(jstr(r, "stderr"), "");
	json_decref(r);
}
END_TEST

static Suite *timers_suite(void)
{
	Suite *s = suite_create("timers");
	TCase *tc = tcase_create("shared");
	tcase_add_unchecked_fixture(tc, shared_up, shared_down);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sleep_spends_no_cpu);
	tcase_add_test(tc, test_endless_interval_times_out);
	tcase_add_test(tc, test_tools_from_timers);
	tcase_add_test(tc, test_timer_throws);
	tcase_add_test(tc, test_cpu_budget_in_timer);
	tcase_add_test(tc, test_test_mode_runs_timers);
	tcase_add_test(tc, test_unhandled_rejection_text);
	tcase_add_test(tc, test_returned_promises);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(timers_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
