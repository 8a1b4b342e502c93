/*
 * check_hostile.c - requests from the hostile corpus (tests/data/hostile)
 * through the real daemon, with the event loop's latency measured by the
 * daemon itself (health's loop object) while they run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostile.h"
#include "testlib.h"

#define TURN_TARGET_US 10000

static const struct hostile_case *find_case(struct hostile_case *cases, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	ck_abort_msg("no case %s in the corpus", name);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The exponential declarations schema, from four clients at once: each
 * gets RESOURCE_EXHAUSTED naming the output budget, at once, and no loop
 * turn comes near 10 ms. A wall-clock turn can be stretched by a busy
 * machine, so the measure is taken on up to three fresh daemons.
 */
START_TEST(test_declarations_exponential)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	const struct hostile_case *hc = find_case(cases, n, "decl-exponential");
	long long best = -1;
	for (int attempt = 0; attempt < 3 && (best < 0 || best >= TURN_TARGET_US); attempt++) {
		struct daemon d;
		daemon_start(&d, NULL);
		static struct hostile_run r;
		double t0 = now_ms();
		hostile_start(&r, d.sock, hc);
		hostile_finish(&r, 10000);
		double took = now_ms() - t0;
		ck_assert_int_eq(r.replies, hc->conns);
		ck_assert_int_eq(r.errors, hc->conns);
		ck_assert_msg(strstr(r.first_error, "RESOURCE_EXHAUSTED") &&
				      strstr(r.first_error, "1048576 bytes"),
			      "got %s", r.first_error);
		json_t *h = hostile_health(d.sock);
		long long turn = hostile_max_turn_us(h);
		json_decref(h);
		printf("hostile: %d exponential declarations answered in %.1f ms; longest loop "
		       "turn "
		       "%.2f ms\n",
		       hc->conns, took, (double)turn / 1000);
		if (best < 0 || turn < best)
			best = turn;
		/* Still serving. */
		json_t *x = exec_once(d.sock, "{\"op\":\"execute\",\"code\":\"return 1\"}");
		ck_assert(jtrue(x, "success"));
		json_decref(x);
		ck_assert_int_eq(daemon_stop(&d), 0);
	}
	ck_assert_msg(best < TURN_TARGET_US, "longest loop turn %lld us", best);
	hostile_free(cases, n);
}
END_TEST

/*
 * Pipelined requests a connection sent in one write are handled a bounded
 * share per loop turn: 4096 health in one 64 KiB write (one turn of 126 ms
 * before) all answered, and the longest turn measured while they ran. The
 * unread classes bounded by the connection's caps (long-polls past 64
 * unanswered, big declarations while the reply budget is full) are
 * replayed alongside, with health answering meanwhile.
 */
START_TEST(test_pipelined_turns)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	const struct hostile_case *burst = find_case(cases, n, "health-burst");
	const struct hostile_case *polls = find_case(cases, n, "long-poll-flood");
	const struct hostile_case *decl = find_case(cases, n, "decl-unread");
	struct daemon d;
	daemon_start(&d, NULL);
	static struct hostile_run rp, rd, rb;
	hostile_start(&rp, d.sock, polls);
	hostile_start(&rd, d.sock, decl);
	double t0 = now_ms();
	hostile_start(&rb, d.sock, burst);
	hostile_finish(&rb, 30000);
	double took = now_ms() - t0;
	ck_assert_int_eq(rb.replies, burst->body_lines);
	ck_assert_int_eq(rb.errors, 0);
	json_t *h = hostile_health(d.sock);
	long long turn = hostile_max_turn_us(h);
	long long slow = jint(json_object_get(h, "loop"), "turns_over_10ms");
	json_decref(h);
	long rss = proc_status_kib(d.pid, "VmRSS");
	printf("hostile: %d pipelined health answered in %.1f ms beside %d x %d long-polls and "
	       "%d x %d unread declarations; longest loop turn %.2f ms (%lld over 10 ms), RSS "
	       "%ld KiB\n",
	       burst->body_lines, took, polls->conns, polls->body_lines, decl->conns,
	       decl->body_lines, (double)turn / 1000, slow, rss);
	ck_assert_msg(turn < 50000, "longest loop turn %lld us", turn);
	hostile_finish(&rp, 1000);
	hostile_finish(&rd, 1000);
	ck_assert_int_eq(daemon_stop(&d), 0);
	hostile_free(cases, n);
}
END_TEST

/* A normal schema with refs still renders through the daemon. */
START_TEST(test_declarations_refs_render)
{
	struct daemon d;
	daemon_start(&d, NULL);
	json_t *r = call_once(
		d.sock, json_pack("{s:s, s:[{s:s, s:{s:s, s:{s:{s:s, s:{s:{s:s}, s:{s:s}}}}}}]}",
				  "op", "declarations", "tools", "name", "t", "input_schema",
				  "$ref", "#/$defs/P", "$defs", "P", "type", "object", "properties",
				  "a", "$ref", "#/$defs/S", "b", "$ref", "#/$defs/S"));
	ck_assert_msg(jtrue(r, "ok"), "%s", err_msg(r));
	const char *ts = jstr(r, "typescript");
	ck_assert_ptr_nonnull(strstr(ts, "t(args: {"));
	/* S is not defined: unknown, twice, from one expansion reused. */
	ck_assert_ptr_nonnull(strstr(ts, "a?: unknown;"));
	ck_assert_ptr_nonnull(strstr(ts, "b?: unknown;"));
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("declarations");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_declarations_exponential);
	tcase_add_test(tc, test_declarations_refs_render);
	tcase_add_test(tc, test_pipelined_turns);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
