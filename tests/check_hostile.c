/*
 * check_hostile.c - requests from the hostile corpus (tests/data/hostile)
 * through the real daemon, with the event loop's latency measured by the
 * daemon itself (health's loop object) while they run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "../protocol/ctl.h"
#include "../protocol/limits.h"
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
		long long turn = hostile_max_turn_cpu_us(h);
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
	ck_assert_msg(best < TURN_TARGET_US, "longest loop turn in CPU time %lld us", best);
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
	long long turn = hostile_max_turn_cpu_us(h);
	long long slow = jint(json_object_get(h, "loop"), "turns_over_10ms_cpu");
	json_decref(h);
	long rss = proc_status_kib(d.pid, "VmRSS");
	printf("hostile: %d pipelined health answered in %.1f ms beside %d x %d long-polls and "
	       "%d x %d unread declarations; longest loop turn in CPU time %.2f ms (%lld over 10 "
	       "ms), RSS "
	       "%ld KiB\n",
	       burst->body_lines, took, polls->conns, polls->body_lines, decl->conns,
	       decl->body_lines, (double)turn / 1000, slow, rss);
	ck_assert_msg(turn < 50000, "longest loop turn in CPU time %lld us", turn);
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

/* ---- loop turns under big replies and big requests
 *
 * The 10 ms target is what make bench's hostile phase shows; here the bound
 * is generous enough for a loaded CI machine (the best of up to three fresh
 * daemons is taken, as a wall-clock turn can be stretched by a busy
 * machine), yet far below the 45-400 ms turns these cases took when replies
 * were encoded and requests parsed in one turn. */
#define TURN_BOUND_US 25000
#define TURN_ATTEMPTS 3

/* Plain executions on a connection of their own while a case runs: each
 * must succeed; returns the slowest round trip in ms. */
static double plain_executions(const char *sock, int n)
{
	double worst = 0;
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();
		json_t *x = exec_once(sock, "{\"op\":\"execute\",\"code\":\"return %d\"}", i);
		ck_assert_msg(jtrue(x, "success"), "a plain execution failed: %s", err_msg(x));
		ck_assert_int_eq(jint(x, "value"), i);
		json_decref(x);
		double took = now_ms() - t0;
		worst = took > worst ? took : worst;
	}
	return worst;
}

/* Runs the named case on a fresh daemon started with args, plain clients
 * beside it; checks every reply came (errors as expected) and the longest
 * loop turn, and prints it. */
static long long run_case_once(const struct hostile_case *hc, const char *const *args,
			       int want_errors, const char *error_needle)
{
	const char *name = hc->name;
	struct daemon d;
	daemon_start(&d, args);
	static struct hostile_run r;
	double t0 = now_ms();
	hostile_start(&r, d.sock, hc);
	double plain = plain_executions(d.sock, 20);
	hostile_finish(&r, 120000);
	double took = now_ms() - t0;
	ck_assert_int_eq(r.replies, hc->conns);
	ck_assert_msg(r.errors == want_errors, "%d errors (%s)", r.errors, r.first_error);
	if (error_needle)
		ck_assert_msg(strstr(r.first_error, error_needle), "got %s", r.first_error);
	ck_assert(hostile_wait_idle(d.sock, 60000));
	json_t *h = hostile_health(d.sock);
	long long turn = hostile_max_turn_cpu_us(h);
	json_decref(h);
	long rss = proc_status_kib(d.pid, "VmHWM");
	printf("hostile: %s x%d answered in %.0f ms beside 20 plain executions (slowest %.1f "
	       "ms); longest loop turn in CPU time %.2f ms (bound %d ms), RSS peak %.1f MiB\n",
	       name, hc->conns, took, plain, (double)turn / 1000, TURN_BOUND_US / 1000,
	       (double)rss / 1024);
	ck_assert_int_eq(daemon_stop(&d), 0);
	return turn;
}

static void run_case(const char *name, const char *const *args, int want_errors,
		     const char *error_needle)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	const struct hostile_case *hc = find_case(cases, n, name);
	long long best = -1;
	for (int i = 0; i < TURN_ATTEMPTS && (best < 0 || best >= TURN_BOUND_US); i++) {
		long long turn = run_case_once(hc, args, want_errors, error_needle);
		best = best < 0 || turn < best ? turn : best;
	}
	ck_assert_msg(best < TURN_BOUND_US, "%s: longest loop turn in CPU time %lld us", name,
		      best);
	hostile_free(cases, n);
}

/*
 * Test mode with many tests: the worker's report (up to a 16 MiB frame for
 * 10000 tests of 1 KiB names and 4 KiB errors) is checked entry by entry
 * and its summary recounted, and no loop turn may come near 10 ms while
 * it is (1000 tests: 82 ms, 3000: 127 ms, 10000 big ones: 129 ms when
 * each entry went through a jansson tree).
 */
static void run_tests_case(const char *name)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	const struct hostile_case *hc = find_case(cases, n, name);
	long long best = -1;
	for (int i = 0; i < TURN_ATTEMPTS && (best < 0 || best >= TURN_TARGET_US); i++) {
		long long turn = run_case_once(hc, NULL, 0, NULL);
		best = best < 0 || turn < best ? turn : best;
	}
	ck_assert_msg(best < TURN_TARGET_US, "%s: longest loop turn in CPU time %lld us", name,
		      best);
	hostile_free(cases, n);
}

START_TEST(test_tests_1000) { run_tests_case("test-many-1000"); }
END_TEST

START_TEST(test_tests_3000) { run_tests_case("test-many-3000"); }
END_TEST

START_TEST(test_tests_10000_big) { run_tests_case("test-many-10000"); }
END_TEST

START_TEST(test_output_7mb_reply) { run_case("output-7mb", NULL, 0, NULL); }
END_TEST

START_TEST(test_output_64mb_reply)
{
	const char *args[] = {"--max-output-bytes", "64M", NULL};
	run_case("output-64mb", args, 0, NULL);
}
END_TEST

START_TEST(test_request_4mb_code) { run_case("frame-4mb-code", NULL, 0, NULL); }
END_TEST

START_TEST(test_request_4mb_nodes)
{
	/* Parsed whole (126,000 values are within the node limit), then
	 * refused for its unknown member. */
	run_case("frame-4mb-nodes", NULL, 2, "padding: unknown field");
}
END_TEST

/* A streamed reply is the reply: the whole 63 MiB of output, escapes and
 * all, in the one final frame, in both framings; and a status of the same
 * execution streams its chunk and the fields after it. */
START_TEST(test_streamed_reply_exact)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	const struct hostile_case *hc = find_case(cases, n, "output-64mb");
	struct daemon d;
	const char *args[] = {"--max-output-bytes", "64M", NULL};
	daemon_start(&d, args);
	for (int mode = 0; mode < 2; mode++) {
		struct client c;
		ck_assert_int_eq(
			client_open(&c, d.sock, mode ? FRAME_MODE_LINE : FRAME_MODE_BINARY), 0);
		json_error_t je;
		json_t *req = json_loads(hc->body, 0, &je);
		ck_assert_ptr_nonnull(req);
		json_object_set_new(req, "id", json_string("big\n\"one\""));
		client_request(&c, req);
		json_t *r = client_reply(&c, NULL, 120000);
		ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
		ck_assert_str_eq(jstr(r, "id"), "big\n\"one\"");
		const char *out = jstr(r, "stdout");
		size_t len = json_string_length(json_object_get(r, "stdout"));
		const size_t line = 1015 + 4 + 1;
		ck_assert_uint_eq(len, (size_t)63 * 1024 * line);
		ck_assert(memcmp(out + len - 5, "\t\"\\\x01\n", 5) == 0);
		ck_assert(memcmp(out, "xxxx", 4) == 0 && out[line - 1] == '\n');
		ck_assert_str_eq(jstr(r, "stderr"), "");
		ck_assert_int_eq(jint(r, "value"), 1);
		ck_assert_str_eq(jstr(r, "state"), "completed");
		/* Its status: a chunk of the output, then the fields. */
		json_t *st = client_call(&c, json_pack("{s:s, s:s, s:I}", "op", "status",
						       "execution_id", jstr(r, "execution_id"),
						       "stdout_offset", (json_int_t)line));
		ck_assert_msg(jtrue(st, "ok"), "%s", err_msg(st));
		ck_assert_int_eq(jint(st, "stdout_length"), (long long)len);
		ck_assert(jtrue(st, "output_more"));
		ck_assert_int_eq(jint(st, "value"), 1);
		ck_assert(memcmp(jstr(st, "stdout"), out + line, 1000) == 0);
		json_decref(st);
		json_decref(r);
		json_decref(req);
		/* The connection goes on after it. */
		json_t *x = client_call(
			&c, json_pack("{s:s, s:s}", "op", "execute", "code", "return 'after'"));
		ck_assert_str_eq(jstr(x, "value"), "after");
		json_decref(x);
		client_close(&c);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	hostile_free(cases, n);
}
END_TEST

/* A tool's 4 MiB result, parsed off the loop and relayed to the worker as
 * the text rendered there: the script gets it whole, and no loop turn
 * comes near the bound. */
START_TEST(test_tool_result_4mb)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	client_request(&c, json_pack("{s:s, s:s, s:s, s:[{s:s}]}", "op", "execute", "id", "run",
				     "code", "var v = tools.t(); return [v.length, v.slice(-3)]",
				     "tools", "name", "t"));
	json_decref(client_started(&c, "run", 30000));
	json_t *ev = client_recv(&c, 30000);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "tool_call");
	size_t n = 4000000;
	char *big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\0';
	client_request(&c, json_pack("{s:s, s:s, s:s, s:I, s:s}", "op", "tool_result", "id",
				     "answer", "execution_id", jstr(ev, "execution_id"), "call_id",
				     (json_int_t)jint(ev, "call_id"), "value", big));
	json_decref(ev);
	free(big);
	json_t *ack = client_recv(&c, 30000);
	ck_assert_msg(jtrue(ack, "ok"), "%s", err_msg(ack));
	ck_assert_str_eq(jstr(ack, "id"), "answer");
	json_decref(ack);
	json_t *r = client_reply(&c, NULL, 30000);
	ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
	json_t *v = json_object_get(r, "value");
	ck_assert_int_eq(json_integer_value(json_array_get(v, 0)), (json_int_t)n);
	ck_assert_str_eq(json_string_value(json_array_get(v, 1)), "bcd");
	json_decref(r);
	client_close(&c);
	json_t *h = hostile_health(d.sock);
	long long turn = hostile_max_turn_cpu_us(h);
	json_decref(h);
	printf("hostile: a 4 MB tool result relayed; longest loop turn in CPU time %.2f ms (bound "
	       "%d ms)\n",
	       (double)turn / 1000, TURN_BOUND_US / 1000);
	ck_assert_msg(turn < TURN_BOUND_US, "longest loop turn in CPU time %lld us", turn);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A tool call whose arguments are 8 MiB: the event streams from the text
 * the worker sent, so no loop turn copies it whole (27 ms for 15 MB when
 * it did). */
START_TEST(test_tool_call_8mb_args)
{
	struct daemon d;
	daemon_start(&d, NULL);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_request(&c, json_pack("{s:s, s:s, s:s, s:[{s:s}], s:I}", "op", "execute", "id",
				     "run", "code",
				     "var b = 'x\"'; while (b.length < 8388608) b += b;\n"
				     "return tools.t({b: b})",
				     "tools", "name", "t", "memory_bytes",
				     (json_int_t)256 * 1024 * 1024));
	json_decref(client_started(&c, "run", 60000));
	json_t *ev = client_recv(&c, 60000);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(jstr(ev, "event"), "tool_call");
	ck_assert_str_eq(jstr(ev, "id"), "run");
	json_t *b = json_object_get(json_object_get(ev, "args"), "b");
	ck_assert_uint_eq(json_string_length(b), 8388608);
	ck_assert(memcmp(json_string_value(b), "x\"x\"", 4) == 0);
	client_request(&c, json_pack("{s:s, s:s, s:s, s:I, s:i}", "op", "tool_result", "id",
				     "answer", "execution_id", jstr(ev, "execution_id"), "call_id",
				     (json_int_t)jint(ev, "call_id"), "value", 7));
	json_decref(ev);
	json_t *ack = client_recv(&c, 30000);
	ck_assert_msg(jtrue(ack, "ok"), "%s", err_msg(ack));
	json_decref(ack);
	json_t *r = client_reply(&c, NULL, 30000);
	ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
	ck_assert_int_eq(jint(r, "value"), 7);
	json_decref(r);
	client_close(&c);
	json_t *h = hostile_health(d.sock);
	long long turn = hostile_max_turn_cpu_us(h);
	json_decref(h);
	printf("hostile: a tool call of 8 MiB of arguments relayed; longest loop turn in CPU time "
	       "%.2f ms "
	       "(bound %d ms)\n",
	       (double)turn / 1000, TURN_BOUND_US / 1000);
	ck_assert_msg(turn < TURN_BOUND_US, "longest loop turn in CPU time %lld us", turn);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A client that leaves in the middle of a streamed reply, or with its big
 * request still being parsed, costs nothing: the daemon goes on. */
START_TEST(test_leave_mid_stream_and_parse)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	struct daemon d;
	daemon_start(&d, NULL);
	for (int round = 0; round < 3; round++) {
		const char *names[] = {"output-7mb", "frame-4mb-code", "frame-4mb-nodes"};
		for (int k = 0; k < 3; k++) {
			const struct hostile_case *hc = find_case(cases, n, names[k]);
			struct client c;
			ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
			client_send_raw(&c, hc->body, strlen(hc->body));
			if (k == 0) {
				/* Read a little of the reply, then leave. */
				char buf[4096];
				ssize_t got = recv(c.fd, buf, sizeof buf, 0);
				ck_assert(got > 0 || round > 0);
			}
			client_close(&c);
		}
	}
	ck_assert(hostile_wait_idle(d.sock, 60000));
	json_t *x = exec_once(d.sock, "{\"op\":\"execute\",\"code\":\"return 5\"}");
	ck_assert_int_eq(jint(x, "value"), 5);
	json_decref(x);
	ck_assert_int_eq(daemon_stop(&d), 0);
	hostile_free(cases, n);
}
END_TEST

/* ---- the worst-case memory formula (README.md, "Memory"), held under the
 * whole corpus at once
 *
 * The daemon below runs with small budgets; the formula is evaluated for
 * exactly these options, term by term as the README writes it, and the
 * daemon's peak RSS (VmHWM: the high-water mark over its whole life, so no
 * moment can be missed) must stay under it. */
static const char *const formula_args[] = {"--max-workers",
					   "2",
					   "--max-running-per-owner",
					   "2",
					   "--retain-bytes",
					   "8M",
					   "--reply-bytes",
					   "8M",
					   "--conn-reply-bytes",
					   "1M",
					   "--partial-bytes",
					   "32M",
					   "--queue-bytes",
					   "8M",
					   "--max-connections",
					   "128",
					   "--output-bytes",
					   "4M",
					   "--max-output-bytes",
					   "4M",
					   "--cache-max-bytes",
					   "4M",
					   NULL};

/* The value of option name in args (sizes with a K, M or G suffix), or dflt. */
static double formula_opt(const char *name, double dflt)
{
	for (const char *const *a = formula_args; *a && a[1]; a += 2)
		if (strcmp(*a, name) == 0) {
			static const char units[] = "KMG";
			char *end;
			double v = strtod(a[1], &end);
			const char *u = *end ? strchr(units, *end) : NULL;
			for (const char *k = units; u && k <= u; k++)
				v *= 1024;
			return v;
		}
	return dflt;
}

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* The README's formula for formula_args, in bytes, with base b measured:
 * its terms in its order. The sizes of records are what the code allocates
 * for them (see the README for each). */
static double formula_bytes(double b)
{
	double W = formula_opt("--max-workers", 0);
	double C = formula_opt("--max-connections", LIMIT_CONNECTIONS_DEFAULT);
	double F = formula_opt("--max-frame-bytes", LIMIT_FRAME_BYTES_DEFAULT);
	double O = formula_opt("--max-output-bytes", (double)LIMIT_OUTPUT_BYTES_MAX_DEFAULT);
	double Q = formula_opt("--queue", LIMIT_QUEUE_DEFAULT);
	double E = formula_opt("--cache-max-entries", LIMIT_CACHE_ENTRIES_DEFAULT);
	double conns = C + 64; /* and those kept past the cap to be told why */
	double retain = formula_opt("--retain-bytes", (double)LIMIT_RETAIN_BYTES_DEFAULT);
	double reply = formula_opt("--reply-bytes", LIMIT_REPLY_BYTES_DEFAULT);
	const double terms[] = {
		b,
		retain,		   /* ended executions, their tools' names included */
		(Q + W) * 4 * KIB, /* live records */
		reply,		   /* replies queued */
		reply + LIMIT_REPLY_COUNTED_SHARE * (O + CTL_RESULT_BYTES), /* replies waiting */
		reply + retain,		      /* aged-out records status replies stream from */
		conns * (16 * KIB + 1 * KIB), /* record, small reply */
		C * LIMIT_CONN_OUTSTANDING * 1.2 * KIB, /* waiters */
		2 * formula_opt("--partial-bytes", LIMIT_PARTIAL_BYTES_DEFAULT),
		conns * 64 * KIB, /* read buffers */
		2 * formula_opt("--queue-bytes", LIMIT_QUEUE_BYTES_DEFAULT),
		W * (O + F + CTL_RESULT_BYTES + LIMIT_CTL_BACKLOG_BYTES + LIMIT_TOOL_CALLS * 512.0),
		F + LIMIT_PARSE_INLINE_BYTES + 2 * LIMIT_REQUEST_NODES * 80.0, /* parsing */
		LIMIT_DECL_OUTPUT_BYTES + LIMIT_DECL_MEMO_ENTRIES * 32 * 2,    /* declarations */
		formula_opt("--cache-max-bytes", (double)LIMIT_CACHE_BYTES_DEFAULT),
		E * 1.2 * KIB,			    /* cache index */
		1 * MIB + LIMIT_JSON_RESERVE_BYTES, /* small tables, reserve */
	};
	double sum = 0;
	for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
		sum += terms[i];
	return sum;
}

/* Reads the replies of every read-mode run at once, a little of each
 * connection in turn, so that none waits long enough behind the others
 * to be cut off as a reader that does not read; fails when one is missing
 * after timeout_ms in all. Closes those connections. Returns how many
 * replies were read. */
static int drain_all(struct hostile_run *runs, int n, int timeout_ms)
{
	static int left[HOSTILE_MAX_CASES][HOSTILE_MAX_CONNS];
	int remaining = 0, replies = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < runs[i].n; k++) {
			left[i][k] = runs[i].hc->mode == HOSTILE_READ ? runs[i].hc->body_lines : 0;
			remaining += left[i][k];
		}
	double deadline = now_ms() + timeout_ms;
	while (remaining > 0) {
		for (int i = 0; i < n; i++)
			for (int k = 0; k < runs[i].n; k++) {
				if (!left[i][k])
					continue;
				ck_assert_msg(now_ms() < deadline, "%s: reply %d of %d missing",
					      runs[i].hc->name,
					      runs[i].hc->body_lines - left[i][k] + 1,
					      runs[i].hc->body_lines);
				json_t *m = client_recv(&runs[i].c[k], 1);
				if (m && json_object_get(m, "ok")) {
					left[i][k]--;
					remaining--;
					replies++;
				}
				json_decref(m);
			}
	}
	for (int i = 0; i < n; i++)
		if (runs[i].hc->mode == HOSTILE_READ) {
			for (int k = 0; k < runs[i].n; k++)
				client_close(&runs[i].c[k]);
			runs[i].n = 0;
		}
	return replies;
}

START_TEST(test_memory_formula)
{
	static struct hostile_case cases[HOSTILE_MAX_CASES];
	int n = hostile_load(HOSTILE_DIR, cases, HOSTILE_MAX_CASES);
	struct daemon d;
	daemon_start(&d, formula_args);
	long base = proc_status_kib(d.pid, "VmRSS");
	ck_assert_int_gt(base, 0);
	static struct hostile_run runs[HOSTILE_MAX_CASES];
	/* Those whose replies are read first, so that the executions among
	 * them find room in the owner's queue; then the others, all running
	 * at once. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if ((cases[i].mode == HOSTILE_READ) == (pass == 0))
				hostile_start(&runs[i], d.sock, &cases[i]);
	int replies = drain_all(runs, n, 240000);
	long during = proc_status_kib(d.pid, "VmHWM");
	for (int i = 0; i < n; i++)
		if (cases[i].mode != HOSTILE_READ)
			hostile_finish(&runs[i], 1000);
	ck_assert(hostile_wait_idle(d.sock, 120000));
	/* Still serving. */
	json_t *x = exec_once(d.sock, "{\"op\":\"execute\",\"code\":\"return 2\"}");
	ck_assert_msg(jtrue(x, "success"), "%s", err_msg(x));
	json_decref(x);
	long peak = proc_status_kib(d.pid, "VmHWM");
	ck_assert_int_ge(peak, during);
	double bound = formula_bytes((double)base * KIB);
	printf("hostile: all %d classes at once (%d replies read): daemon RSS %.1f MiB at start, "
	       "peak %.1f MiB; the README's formula for these options %.1f MiB\n",
	       n, replies, (double)base / KIB, (double)peak / KIB, bound / MIB);
	ck_assert_msg((double)peak * KIB < bound, "peak RSS %ld KiB is over the formula's %.0f KiB",
		      peak, bound / KIB);
	ck_assert_int_eq(daemon_stop(&d), 0);
	hostile_free(cases, n);
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
	TCase *big = tcase_create("turns");
	tcase_set_timeout(big, 600);
	tcase_add_test(big, test_output_7mb_reply);
	tcase_add_test(big, test_output_64mb_reply);
	tcase_add_test(big, test_request_4mb_code);
	tcase_add_test(big, test_request_4mb_nodes);
	tcase_add_test(big, test_streamed_reply_exact);
	tcase_add_test(big, test_tool_result_4mb);
	tcase_add_test(big, test_tool_call_8mb_args);
	tcase_add_test(big, test_leave_mid_stream_and_parse);
	suite_add_tcase(s, big);
	TCase *mem = tcase_create("memory");
	tcase_set_timeout(mem, 600);
	tcase_add_test(mem, test_memory_formula);
	suite_add_tcase(s, mem);
	TCase *tr = tcase_create("test-reports");
	tcase_set_timeout(tr, 600);
	tcase_add_test(tr, test_tests_1000);
	tcase_add_test(tr, test_tests_3000);
	tcase_add_test(tr, test_tests_10000_big);
	suite_add_tcase(s, tr);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
