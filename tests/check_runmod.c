/*
 * check_runmod.c - server/run.c alone: one run driven through its
 * interface (run.h) and its callbacks, with spawn_worker replaced by a
 * fork of this test whose child plays the worker on the worker's fds: it
 * writes output, calls tools, sends results (honest ones and lies), exits
 * early or late or never. What is checked is what run.c tells its owner
 * and when: the output relayed, the calls answered, the verdict, kills,
 * timeouts, and the early end (the verdict on the result frame, before
 * the worker is reaped, which comes after).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/ctl.h"
#include "../protocol/limits.h"
#include "../protocol/request.h"
#include "../server/log.h"
#include "../server/loop.h"
#include "../server/run.h"
#include "../server/spawn.h"

/* ---- the fake worker */

typedef void (*behaviour)(int ctl, int out, int err);
static behaviour worker_does;
static struct run R;
static uint64_t spawn_delay_ms; /* the forkserver's answer comes this late */
static bool spawn_fails;
static spawn_done_cb spawned_cb;
static void *spawned_arg;
static pid_t spawned_pid;
static struct loop_timer spawned_timer = LOOP_TIMER_INIT;

static void on_spawned_later(struct loop_timer *t)
{
	(void)t;
	spawned_cb(spawned_arg, spawned_pid, 0);
}

int spawn_worker(uint64_t memory_bytes, uint64_t timeout_ms, int fds[FORKSERVER_FDS],
		 spawn_done_cb done, void *arg)
{
	(void)memory_bytes;
	(void)timeout_ms;
	if (spawn_fails) {
		for (int i = 0; i < FORKSERVER_FDS; i++)
			close(fds[i]);
		return -1;
	}
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Only the worker's ends, as a real worker has. */
		close(R.ctl_fd);
		close(R.pipe_fd[RUN_OUT]);
		close(R.pipe_fd[RUN_ERR]);
		signal(SIGPIPE, SIG_DFL);
		worker_does(fds[0], fds[1], fds[2]);
		_exit(0);
	}
	for (int i = 0; i < FORKSERVER_FDS; i++)
		close(fds[i]);
	spawned_cb = done;
	spawned_arg = arg;
	spawned_pid = pid;
	loop_timer_set(&spawned_timer, spawn_delay_ms, on_spawned_later);
	return 0;
}

/* The fake spawner hands out no worker ids. */
void spawn_reaped(pid_t pid) { (void)pid; }

static void send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			_exit(3);
		}
		c += k;
		n -= (size_t)k;
	}
}

static void put_frame(char *dst, const char *payload, size_t n)
{
	dst[0] = (char)(n >> 24);
	dst[1] = (char)(n >> 16);
	dst[2] = (char)(n >> 8);
	dst[3] = (char)n;
	memcpy(dst + 4, payload, n);
}

static void send_frame(int fd, const char *payload)
{
	size_t n = strlen(payload);
	char *f = malloc(n + 4);
	put_frame(f, payload, n);
	send_all(fd, f, n + 4);
	free(f);
}

/* Reads one frame's payload (NUL-terminated, malloc'd), or exits. */
static char *read_frame(int fd)
{
	unsigned char hdr[4];
	size_t got = 0;
	while (got < 4) {
		ssize_t k = read(fd, hdr + got, 4 - got);
		if (k <= 0)
			_exit(4);
		got += (size_t)k;
	}
	size_t n = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	char *p = malloc(n + 1);
	for (got = 0; got < n;) {
		ssize_t k = read(fd, p + got, n - got);
		if (k <= 0)
			_exit(4);
		got += (size_t)k;
	}
	p[n] = '\0';
	return p;
}

static void write_all(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		_exit(5);
}

/* Output on both streams, then its result, then it exits. */
static void honest(int ctl, int out, int err)
{
	free(read_frame(ctl)); /* the job */
	write_all(out, "hello ");
	write_all(out, "world\n");
	write_all(err, "careful\n");
	send_frame(ctl, "{\"type\":\"result\",\"ok\":true,\"value\":42,\"heap_peak_bytes\":1000,"
			"\"cpu_ms\":2}");
}

/* Its result, then it stays: only the supervisor's kill ends it. */
static void lingers(int ctl, int out, int err)
{
	(void)err;
	free(read_frame(ctl));
	write_all(out, "before\n");
	send_frame(ctl, "{\"type\":\"result\",\"ok\":true,\"value\":1}");
	for (;;)
		pause();
}

/* Writes on after its result, once the supervisor has hung up on it. */
static void writes_after_result(int ctl, int out, int err)
{
	(void)err;
	free(read_frame(ctl));
	write_all(out, "early\n");
	send_frame(ctl, "{\"type\":\"result\",\"ok\":true,\"value\":1}");
	char c;
	while (read(ctl, &c, 1) > 0) /* EOF: the supervisor stopped reading */
		;
	signal(SIGPIPE, SIG_IGN);
	(void)!write(out, "late\n", 5);
	_exit(0);
}

/* Calls tool t twice, returning what the second answer said. */
static void calls_tools(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	char *answer = NULL;
	for (int id = 1; id <= 2; id++) {
		char call[128];
		snprintf(call, sizeof call,
			 "{\"type\":\"tool_call\",\"call_id\":%d,\"name\":\"t\",\"args\":{\"n\":%d}"
			 "}",
			 id, id);
		send_frame(ctl, call);
		free(answer);
		answer = read_frame(ctl);
	}
	json_t *a = json_loads(answer, 0, NULL);
	char result[256];
	snprintf(result, sizeof result, "{\"type\":\"result\",\"ok\":true,\"value\":%lld}",
		 (long long)json_integer_value(json_object_get(a, "value")));
	send_frame(ctl, result);
}

static void sleeps(int ctl, int out, int err)
{
	(void)ctl;
	(void)out;
	(void)err;
	for (;;)
		pause();
}

/* Claims more CPU time than a worker can have. */
static void lies_cpu_out_of_range(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	char f[128];
	snprintf(f, sizeof f, "{\"type\":\"result\",\"ok\":true,\"cpu_ms\":%u}",
		 LIMIT_RESULT_CPU_MS_MAX + 1u);
	send_frame(ctl, f);
}

/* Claims a CPU time in range, but more than the run's wall time. */
static void lies_cpu_in_range(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	send_frame(ctl, "{\"type\":\"result\",\"ok\":true,\"cpu_ms\":100000}");
	for (;;)
		pause();
}

/* A result, then exits with a status that would mean a failure. */
static void exits_badly_after_result(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	send_frame(ctl, "{\"type\":\"result\",\"ok\":true,\"value\":7}");
	_exit(CTL_EXIT_FATAL);
}

/* A result and another frame in the same write. */
static void frame_after_result(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	const char *a = "{\"type\":\"result\",\"ok\":true,\"value\":1}";
	const char *b = "{\"type\":\"result\",\"ok\":true,\"value\":2}";
	char both[256];
	put_frame(both, a, strlen(a));
	put_frame(both + 4 + strlen(a), b, strlen(b));
	send_all(ctl, both, 8 + strlen(a) + strlen(b));
	for (;;)
		pause();
}

/* No result: a crash. */
static void crashes(int ctl, int out, int err)
{
	(void)out;
	(void)err;
	free(read_frame(ctl));
	raise(SIGSEGV);
}

/* ---- the owner, as exec.c is one */

static int outputs[2], tool_calls, job_sent, ended, reaped;
static bool reaped_before_end, spawning_at_end;
static uint64_t ended_us, reaped_us;
static void on_output(struct run *r, int i, size_t from)
{
	(void)r;
	(void)from;
	outputs[i]++;
}

static void on_tool_call(struct run *r, int64_t call_id, const char *name, char *args,
			 size_t args_len)
{
	tool_calls++;
	ck_assert_str_eq(name, "t");
	json_t *a = json_loadb(args, args_len, 0, NULL);
	ck_assert_ptr_nonnull(a);
	/* The answer: ten times the argument. */
	json_t *m = json_pack("{s:s, s:I, s:I}", "type", "tool_result", "call_id", call_id, "value",
			      json_integer_value(json_object_get(a, "n")) * 10);
	run_send(r, m);
	json_decref(m);
	json_decref(a);
	free(args);
}

static void on_job_sent(struct run *r)
{
	(void)r;
	job_sent++;
}

static void on_ended(struct run *r)
{
	ended++;
	ended_us = loop_clock_us();
	reaped_before_end = r->reaped;
	spawning_at_end = r->spawning;
}

static void on_reaped(struct run *r)
{
	(void)r;
	reaped++;
	reaped_us = loop_clock_us();
	loop_stop();
}

static const struct run_ops ops = {on_output, on_tool_call, on_job_sent, on_ended, on_reaped};
static const char tools_json[] = "[\"t\"]";

/* Runs one worker doing b with a timeout of timeout_ms; returns once it is
 * reaped (run_clear is the caller's). */
static void run_with(behaviour b, uint64_t timeout_ms)
{
	log_init(LOG_LEVEL_ERR);
	ck_assert_int_eq(loop_init(), 0);
	struct request_limits lim;
	request_limits_default(&lim);
	run_init(&R, &ops, "exec_test");
	R.limits = lim.def;
	R.limits.timeout_ms = timeout_ms;
	static const char code[] = "return 1";
	R.job.code = code;
	R.job.code_len = sizeof code - 1;
	R.job.tool_names = json_loads(tools_json, 0, NULL);
	worker_does = b;
	run_start(&R);
	if (!reaped)
		ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(ended, 1);
	ck_assert_int_eq(reaped, 1);
	ck_assert(R.ended);
	ck_assert(R.reaped);
	/* Nothing is left open once reaped. */
	ck_assert_int_eq(R.pidfd, -1);
	ck_assert_int_eq(R.ctl_fd, -1);
	ck_assert_int_eq(R.pipe_fd[RUN_OUT], -1);
	ck_assert_int_eq(R.pipe_fd[RUN_ERR], -1);
}

static const char *err_kind(void) { return json_string_value(json_object_get(R.error, "kind")); }
static const char *err_message(void)
{
	return json_string_value(json_object_get(R.error, "message"));
}
/* The returned value (borrowed from the result frame, not terminated). */
static const char *value_text(void)
{
	static char s[64];
	snprintf(s, sizeof s, "%.*s", (int)R.result.value_len, R.result.value);
	return s;
}

static const char *out_text(int i)
{
	static char s[2][256];
	snprintf(s[i], sizeof s[i], "%.*s", (int)buf_len(&R.out[i]), buf_peek(&R.out[i]));
	return s[i];
}

START_TEST(output_and_result)
{
	run_with(honest, 10000);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert_ptr_null(R.error);
	ck_assert_str_eq(out_text(RUN_OUT), "hello world\n");
	ck_assert_str_eq(out_text(RUN_ERR), "careful\n");
	ck_assert_int_ge(outputs[RUN_OUT], 1);
	ck_assert_int_ge(outputs[RUN_ERR], 1);
	ck_assert_int_eq(job_sent, 1);
	ck_assert(R.have_result);
	ck_assert_str_eq(value_text(), "42");
	ck_assert_int_eq(R.result.heap_peak, 1000);
	/* Its own report stands in for the rusage, within the wall time. */
	ck_assert(R.cpu_reported);
	ck_assert_uint_le(R.cpu_ms, 2);
	run_clear(&R);
}
END_TEST

/* The verdict on the result, the kill and the reap after it. */
START_TEST(early_end)
{
	run_with(lingers, 10000);
	printf("runmod: result to verdict before the reap; verdict at %.3f ms, reaped %.3f ms "
	       "later\n",
	       (double)(ended_us - R.t_start_us) / 1e3, (double)(reaped_us - ended_us) / 1e3);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert(R.early);
	ck_assert(!reaped_before_end);
	ck_assert_uint_le(ended_us, reaped_us);
	ck_assert_str_eq(out_text(RUN_OUT), "before\n");
	/* It was the supervisor's SIGKILL that ended it, and it changed
	 * nothing. */
	ck_assert_int_eq(R.status.si_code, CLD_KILLED);
	ck_assert_int_eq(R.status.si_status, SIGKILL);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert_uint_eq(R.rss_peak, 0); /* not known at the verdict */
	run_clear(&R);
}
END_TEST

START_TEST(output_after_result_discarded)
{
	run_with(writes_after_result, 10000);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert_str_eq(out_text(RUN_OUT), "early\n");
	run_clear(&R);
}
END_TEST

START_TEST(tool_calls_answered)
{
	run_with(calls_tools, 10000);
	ck_assert_int_eq(tool_calls, 2);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert_str_eq(value_text(), "20");
	run_clear(&R);
}
END_TEST

START_TEST(timeout_kills)
{
	run_with(sleeps, 200);
	ck_assert_int_eq(R.state, STATE_TIMEOUT);
	ck_assert_str_eq(err_kind(), "timeout");
	ck_assert_ptr_nonnull(strstr(err_message(), "200 ms"));
	ck_assert(!R.early);
	ck_assert(reaped_before_end);
	ck_assert_uint_gt(R.rss_peak, 0); /* reaped first: the rusage is known */
	run_clear(&R);
}
END_TEST

static void cancel_soon(struct loop_timer *t)
{
	(void)t;
	run_kill(&R, RUN_KILL_CANCEL);
}

START_TEST(cancel_running)
{
	static struct loop_timer t = LOOP_TIMER_INIT;
	log_init(LOG_LEVEL_ERR);
	ck_assert_int_eq(loop_init(), 0);
	struct request_limits lim;
	request_limits_default(&lim);
	run_init(&R, &ops, "exec_test");
	R.limits = lim.def;
	R.job.code = "1";
	R.job.code_len = 1;
	worker_does = sleeps;
	run_start(&R);
	loop_timer_set(&t, 20, cancel_soon);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_int_eq(R.state, STATE_CANCELLED);
	ck_assert_str_eq(err_kind(), "cancelled");
	ck_assert_int_eq(R.status.si_status, SIGKILL);
	run_clear(&R);
}
END_TEST

START_TEST(lie_cpu_out_of_range)
{
	run_with(lies_cpu_out_of_range, 10000);
	ck_assert_int_eq(R.state, STATE_FAILED);
	ck_assert_str_eq(err_kind(), "sandbox");
	ck_assert_ptr_nonnull(strstr(err_message(), "cpu_ms"));
	run_clear(&R);
}
END_TEST

START_TEST(lie_cpu_clamped)
{
	run_with(lies_cpu_in_range, 10000);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	uint64_t wall = (R.t_end_us - R.t_start_us) / 1000u + 1;
	printf("runmod: a worker claiming 100000 ms of CPU after %llu ms: %llu ms kept\n",
	       (unsigned long long)wall, (unsigned long long)R.cpu_ms);
	ck_assert_uint_le(R.cpu_ms, wall);
	ck_assert_uint_lt(R.cpu_ms, 100000);
	run_clear(&R);
}
END_TEST

START_TEST(exit_after_result_not_rejudged)
{
	run_with(exits_badly_after_result, 10000);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert_ptr_null(R.error);
	ck_assert_str_eq(value_text(), "7");
	run_clear(&R);
}
END_TEST

START_TEST(frame_after_result_breaks_protocol)
{
	run_with(frame_after_result, 10000);
	ck_assert_int_eq(R.state, STATE_FAILED);
	ck_assert_str_eq(err_kind(), "sandbox");
	ck_assert_ptr_nonnull(strstr(err_message(), "after the result"));
	run_clear(&R);
}
END_TEST

START_TEST(crash_judged_on_reap)
{
	run_with(crashes, 10000);
	ck_assert_int_eq(R.state, STATE_FAILED);
	ck_assert_ptr_nonnull(strstr(err_message(), "SIGSEGV"));
	ck_assert(!R.early);
	run_clear(&R);
}
END_TEST

START_TEST(no_worker)
{
	spawn_fails = true;
	run_with(honest, 10000);
	ck_assert_int_eq(R.state, STATE_FAILED);
	ck_assert_ptr_nonnull(strstr(err_message(), "could not start a worker"));
	run_clear(&R);
}
END_TEST

/* The result can come before the forkserver says which pid the worker
 * has: the verdict is given then, and the worker killed once known. */
START_TEST(result_before_pid)
{
	spawn_delay_ms = 200;
	run_with(lingers, 10000);
	ck_assert_int_eq(R.state, STATE_COMPLETED);
	ck_assert(spawning_at_end);
	ck_assert_int_eq(R.status.si_status, SIGKILL);
	run_clear(&R);
}
END_TEST

static Suite *runmod_suite(void)
{
	Suite *s = suite_create("runmod");
	TCase *tc = tcase_create("run");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, output_and_result);
	tcase_add_test(tc, early_end);
	tcase_add_test(tc, output_after_result_discarded);
	tcase_add_test(tc, tool_calls_answered);
	tcase_add_test(tc, timeout_kills);
	tcase_add_test(tc, cancel_running);
	tcase_add_test(tc, lie_cpu_out_of_range);
	tcase_add_test(tc, lie_cpu_clamped);
	tcase_add_test(tc, exit_after_result_not_rejudged);
	tcase_add_test(tc, frame_after_result_breaks_protocol);
	tcase_add_test(tc, crash_judged_on_reap);
	tcase_add_test(tc, no_worker);
	tcase_add_test(tc, result_before_pid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(runmod_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
