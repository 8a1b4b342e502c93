/*
 * check_run.c - the supervisor's side of the control channel (server/run.c
 * and server/exec.c) against compromised workers: the real code reads a
 * worker's frames, validates them and gives its verdict, but the worker is
 * a process of this test that sends what native code planted in a real
 * worker could send. spawn_worker is replaced (a fork running the hostile
 * behaviour on the worker's fds); the executions are async with no client
 * (exec.c knows no connection). The supervisor's memory is this process's (VmRSS, VmHWM),
 * and a 1 ms timer measures the longest loop turn (in CPU time, so that a
 * shared machine's scheduling does not count) while a worker is read.
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
#include "../server/cache.h"
#include "../server/exec.h"
#include "../server/lcache.h"
#include "../server/log.h"
#include "../server/loop.h"
#include "../server/owner.h"
#include "../server/spawn.h"

#define MIB (1024L * 1024L)

/* ---- the fake worker */

typedef void (*behaviour)(int ctl);
static behaviour worker_does;
static spawn_done_cb spawned_cb;
static void *spawned_arg;
static pid_t spawned_pid;
static int *child_fds; /* in the fake worker: its fds 0-2 (control, stdout, stderr) */
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
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		child_fds = fds;
		worker_does(fds[0]);
		_exit(0);
	}
	for (int i = 0; i < FORKSERVER_FDS; i++)
		close(fds[i]);
	spawned_cb = done;
	spawned_arg = arg;
	spawned_pid = pid;
	loop_timer_set(&spawned_timer, 0, on_spawned_later);
	return 0;
}

static void send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			_exit(3); /* the supervisor cut us off */
		}
		c += k;
		n -= (size_t)k;
	}
}

static void send_frame(int fd, const char *payload, size_t n)
{
	unsigned char hdr[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16),
				(unsigned char)(n >> 8), (unsigned char)n};
	send_all(fd, hdr, 4);
	send_all(fd, payload, n);
}

/* A 16 MiB frame of [{},{},...]: 1.26 GB as a tree before. */
static void node_bomb(int ctl)
{
	size_t n = CTL_VALUE_BYTES;
	char *s = malloc(n + 64);
	size_t i = (size_t)sprintf(s, "{\"type\":\"result\",\"ok\":true,\"value\":[");
	while (i + 8 < n) {
		memcpy(s + i, "{},", 3);
		i += 3;
	}
	memcpy(s + i, "{}]}", 4);
	send_frame(ctl, s, i + 4);
}

/* The same bomb in a frame that is not a result: a broken protocol. */
static void node_bomb_call(int ctl)
{
	size_t n = CTL_VALUE_BYTES;
	char *s = malloc(n + 128);
	size_t i = (size_t)sprintf(s, "{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\","
				      "\"args\":[");
	while (i + 8 < n) {
		memcpy(s + i, "{},", 3);
		i += 3;
	}
	memcpy(s + i, "{}]}", 4);
	send_frame(ctl, s, i + 4);
}

/* The largest value there may be: a 16 MiB string. */
static void big_value(int ctl)
{
	size_t n = CTL_VALUE_BYTES - 2;
	char *s = malloc(n + 64);
	size_t i = (size_t)sprintf(s, "{\"type\":\"result\",\"ok\":true,\"value\":\"");
	memset(s + i, 'v', n);
	i += n;
	memcpy(s + i, "\"}", 2);
	send_frame(ctl, s, i + 2);
}

/* 8 MiB of bytes that are not UTF-8 on stdout (as much as the default
 * output cap lets through), then a result: each would become U+FFFD, three
 * bytes, 24 MiB kept. */
static void invalid_output(int ctl)
{
	static char junk[64 * 1024];
	memset(junk, 0xff, sizeof junk);
	for (int i = 0; i < 128; i++)
		if (write(child_fds[1], junk, sizeof junk) != (ssize_t)sizeof junk)
			_exit(4);
	static const char r[] = "{\"type\":\"result\",\"ok\":true,\"value\":1}";
	send_frame(ctl, r, sizeof r - 1);
}

/* Calls and calls, never reading an answer. */
static void never_reads(int ctl)
{
	char frame[128];
	for (long id = 1; id < 10000000; id++) {
		int n = snprintf(
			frame, sizeof frame,
			"{\"type\":\"tool_call\",\"call_id\":%ld,\"name\":\"t\",\"args\":{}}", id);
		send_frame(ctl, frame, (size_t)n);
	}
	pause();
}

/* No result, and an exit status claiming memory ran out. */
static void claims_memory(int ctl)
{
	(void)ctl;
	_exit(CTL_EXIT_MEMORY);
}

static void forged_summary(int ctl)
{
	const char *f = "{\"type\":\"result\",\"ok\":true,\"test\":{\"summary\":{\"total\":3,"
			"\"passed\":3,\"failed\":0,\"skipped\":0},\"tests\":[{\"name\":\"a\","
			"\"passed\":true,\"duration_ms\":1},{\"name\":\"b\",\"passed\":false,"
			"\"error\":\"boom\",\"duration_ms\":1}]}}";
	send_frame(ctl, f, strlen(f));
}

static void store_over_limit(int ctl)
{
	size_t big = LIMIT_STORE_VALUE_BYTES + 1;
	char *f = malloc(big + 128);
	int n = sprintf(f, "{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{\"k\":\"");
	memset(f + n, 'z', big);
	strcpy(f + n + big, "\"},\"delete\":[]}}");
	send_frame(ctl, f, strlen(f));
}

/* Reads the job: a frame on the control channel. The caller frees it. */
static json_t *read_job(int ctl)
{
	unsigned char hdr[4];
	size_t got = 0;
	while (got < 4) {
		ssize_t k = read(ctl, hdr + got, 4 - got);
		if (k <= 0)
			_exit(5);
		got += (size_t)k;
	}
	size_t n = (size_t)hdr[0] << 24 | (size_t)hdr[1] << 16 | (size_t)hdr[2] << 8 | hdr[3];
	char *p = malloc(n);
	for (got = 0; got < n;) {
		ssize_t k = read(ctl, p + got, n - got);
		if (k <= 0)
			_exit(5);
		got += (size_t)k;
	}
	json_t *job = json_loadb(p, n, 0, NULL);
	free(p);
	return job;
}

/* The cache of lowered code, against a worker that lies: it returns as
 * its value the lowered text its job carried (null for none), with the
 * version the job named, and offers "lowered" text that is poison
 * (lowered_poison, its owner's mark) for the next run of the code. */
static const char *lowered_poison;

static void poisoner(int ctl)
{
	json_t *job = read_job(ctl);
	json_t *seen = json_pack("{s:O?, s:O?}", "lowered", json_object_get(job, "lowered"),
				 "lowering", json_object_get(job, "lowering"));
	json_t *r = json_pack("{s:s, s:b, s:o, s:s}", "type", "result", "ok", 1, "value", seen,
			      "lowered", lowered_poison);
	char *text = json_dumps(r, JSON_COMPACT);
	send_frame(ctl, text, strlen(text));
	_exit(0);
}

static void lowered_not_string(int ctl)
{
	static const char r[] = "{\"type\":\"result\",\"ok\":true,\"lowered\":{\"a\":1}}";
	send_frame(ctl, r, sizeof r - 1);
}

static void lowered_too_big(int ctl)
{
	size_t n = CTL_LOWERED_BYTES;
	char *f = malloc(n + 128);
	int k = sprintf(f, "{\"type\":\"result\",\"ok\":true,\"lowered\":\"");
	memset(f + k, 'p', n);
	strcpy(f + k + n, "\"}");
	send_frame(ctl, f, strlen(f));
}

/* ---- the supervisor, driven */

static json_t *fields;
static char *kept;
static double longest_turn_ms; /* CPU time of this process between ticks */
static struct timespec last_tick;
static struct loop_timer tick = LOOP_TIMER_INIT;

/* The loop's own work, not time the shared CPU spent elsewhere. */
static double ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static void on_tick(struct loop_timer *t)
{
	double gap = ms_since(&last_tick);
	if (gap > longest_turn_ms)
		longest_turn_ms = gap;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &last_tick);
	loop_timer_set(t, 1, on_tick);
}

static size_t out_kept; /* stdout and stderr the record keeps */

static void on_done(struct exec_watch *w, struct exec *e)
{
	(void)w;
	fields = json_incref(exec_fields(e));
	size_t len;
	const char *k = exec_kept(e, &len);
	kept = strndup(k, len);
	out_kept = buf_len(exec_output(e, 0)) + buf_len(exec_output(e, 1));
	loop_timer_cancel(&tick);
	loop_stop();
}

static long vm(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10) * 1024;
	if (f)
		fclose(f);
	return v;
}

/* Runs one execution of req (JSON) against a worker doing b; returns its
 * fields (the caller frees them). */
static bool started;
static uid_t as_uid = (uid_t)-1; /* the submitter's uid, when set */

static json_t *run_with(const char *req_json, behaviour b)
{
	/* Several runs in one test share the supervisor, as a daemon's do. */
	if (!started) {
		log_init(LOG_LEVEL_ERR);
		ck_assert_int_eq(loop_init(), 0);
	}
	struct exec_settings es = {.max_workers = 1,
				   .queue_max = 4,
				   .per_owner_running = 1,
				   .per_owner_queued = 4,
				   .retention_ms = 60000,
				   .retain_count = 10,
				   .retain_bytes = 64 * MIB,
				   .reply_bytes = 32 * MIB,
				   .queue_bytes = 32 * MIB};
	if (!started)
		exec_init(&es);
	started = true;
	struct request_limits lim;
	request_limits_default(&lim);
	struct request req;
	struct request_error err;
	json_t *bad;
	json_t *root = request_parse(req_json, strlen(req_json), &lim, &req, &err, &bad);
	ck_assert_msg(root != NULL, "%s", err.message);
	worker_does = b;
	enum status st;
	const char *why;
	struct owner me;
	if (as_uid != (uid_t)-1)
		owner_unix(&me, as_uid, as_uid);
	else
		owner_unix(&me, getuid(), getgid());
	struct exec *e = exec_submit(NULL, &me, &req, req.code, req.code_len, 0, NULL, &st, &why);
	ck_assert_msg(e != NULL, "%s", why);
	json_decref(root);
	struct exec_watch w = {{NULL, NULL}, on_done};
	exec_watch(e, &w);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &last_tick);
	loop_timer_set(&tick, 1, on_tick);
	ck_assert_int_eq(loop_run(), 0);
	ck_assert_ptr_nonnull(fields);
	return fields;
}

static const char *kind(json_t *f)
{
	return json_string_value(json_object_get(json_object_get(f, "error"), "kind"));
}
static const char *message(json_t *f)
{
	return json_string_value(json_object_get(json_object_get(f, "error"), "message"));
}

static const char async_req[] =
	"{\"op\":\"async\",\"code\":\"1\",\"cache\":false,\"tools\":[{\"name\":\"t\"}]}";

START_TEST(node_bomb_frame)
{
	long base = vm("VmHWM");
	json_t *f = run_with(async_req, node_bomb);
	long grew = vm("VmHWM") - base;
	printf("run: 16 MiB [{},...] result: %s (%s); peak grew %ld KiB, longest loop turn %.2f "
	       "ms\n",
	       kind(f), message(f), grew / 1024, longest_turn_ms);
	ck_assert_str_eq(kind(f), "script");
	ck_assert_ptr_nonnull(strstr(message(f), "too large"));
	/* the frame is held as compact text while it arrives, never as a tree */
	ck_assert_int_lt(grew, 24 * MIB);
	ck_assert_msg(longest_turn_ms < 10.0, "a loop turn took %.2f ms", longest_turn_ms);
	json_decref(f);
}
END_TEST

START_TEST(invalid_output_capped)
{
	json_t *f = run_with(async_req, invalid_output);
	printf("run: 8 MiB of invalid UTF-8 on stdout: %s (%s), %zu bytes kept\n", kind(f),
	       message(f), out_kept);
	ck_assert_uint_le(out_kept, 8 * MIB);
	ck_assert_uint_ge(out_kept, 8 * MIB - 4);
	ck_assert_str_eq(kind(f), "output_limit");
	json_decref(f);
}
END_TEST

START_TEST(largest_value_kept)
{
	long base = vm("VmHWM");
	json_t *f = run_with(async_req, big_value);
	long grew = vm("VmHWM") - base;
	printf("run: a 16 MiB value: %s; peak grew %ld KiB, longest loop turn %.2f ms\n",
	       json_string_value(json_object_get(f, "state")), grew / 1024, longest_turn_ms);
	ck_assert(json_is_true(json_object_get(f, "success")));
	ck_assert_uint_eq(strlen(kept), strlen(",\"value\":\"\"") + CTL_VALUE_BYTES - 2 +
						strlen(",\"calls\":[]"));
	/* the frame as it arrives, the value cut out of it, and that kept */
	ck_assert_int_lt(grew, 56 * MIB);
	ck_assert_msg(longest_turn_ms < 10.0, "a loop turn took %.2f ms", longest_turn_ms);
	json_decref(f);
}
END_TEST

START_TEST(node_bomb_tool_call)
{
	long base = vm("VmHWM");
	json_t *f = run_with(async_req, node_bomb_call);
	long grew = vm("VmHWM") - base;
	printf("run: 16 MiB [{},...] tool call: %s (%s); peak grew %ld KiB, longest loop turn "
	       "%.2f ms\n",
	       kind(f), message(f), grew / 1024, longest_turn_ms);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "too many values"));
	ck_assert_int_lt(grew, 24 * MIB);
	ck_assert_msg(longest_turn_ms < 10.0, "a loop turn took %.2f ms", longest_turn_ms);
	json_decref(f);
}
END_TEST

START_TEST(worker_never_reads_answers)
{
	long base = vm("VmHWM");
	json_t *f = run_with(async_req, never_reads);
	long grew = vm("VmHWM") - base;
	printf("run: a worker that never reads: %s (%s); peak grew %ld KiB\n", kind(f), message(f),
	       grew / 1024);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "does not read its answers"));
	ck_assert_int_lt(grew, 16 * MIB);
	/* the record stopped at the limit and counted the rest */
	ck_assert_int_gt(json_integer_value(json_object_get(f, "calls_dropped")), 0);
	json_t *calls = json_loads(strstr(kept, "\"calls\":") + 8, JSON_DISABLE_EOF_CHECK, NULL);
	ck_assert_uint_eq(json_array_size(calls), LIMIT_TOOL_CALLS);
	json_decref(calls);
	json_decref(f);
}
END_TEST

START_TEST(exit_status_never_picks_the_kind)
{
	json_t *f = run_with(async_req, claims_memory);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "status 71"));
	ck_assert_ptr_nonnull(strstr(message(f), "claimed to be out of memory"));
	json_decref(f);
}
END_TEST

START_TEST(forged_test_summary)
{
	json_t *f = run_with("{\"op\":\"test\",\"tests\":\"x\"}", forged_summary);
	json_t *sum = json_object_get(f, "summary");
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "total")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "failed")), 1);
	ck_assert(json_is_false(json_object_get(f, "success")));
	ck_assert_ptr_nonnull(strstr(kept, "\"tests\":[{\"name\":\"a\""));
	json_decref(f);
}
END_TEST

/* The value a poisoner returned: what its job carried, as compact JSON. */
static char *job_saw(void)
{
	const char *v = strstr(kept, "\"value\":");
	ck_assert_ptr_nonnull(v);
	json_error_t err;
	json_t *seen = json_loads(v + 8, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_ptr_nonnull(seen);
	char *out = json_dumps(seen, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(seen);
	return out;
}

/* One run of code as uid against a poisoner marking its text with mark;
 * what the job carried. */
static char *poisoned_run(uid_t uid, const char *mark)
{
	as_uid = uid;
	lowered_poison = mark;
	json_t *f = run_with("{\"op\":\"async\",\"code\":\"let x = 1; return x\","
			     "\"cache\":false}",
			     poisoner);
	ck_assert(json_is_true(json_object_get(f, "success")));
	json_decref(f);
	char *saw = job_saw();
	free(kept);
	kept = NULL;
	return saw;
}

static void ck_saw(char *saw, const char *want)
{
	ck_assert_str_eq(saw, want);
	free(saw);
}

/* A worker's lowered text only ever reaches its own owner's later runs:
 * another owner running the very same code never gets it, and a text
 * offered by a run that was given one is not kept. */
START_TEST(poisoned_lowering_stays_with_its_owner)
{
	static const char none[] = "{\"lowered\":null,\"lowering\":null}";
	ck_saw(poisoned_run(1000, "poison of A"), none);
	ck_saw(poisoned_run(2000, "poison of B"), none);
	ck_saw(poisoned_run(1000, "A again"), "{\"lowered\":\"poison of A\",\"lowering\":1}");
	ck_saw(poisoned_run(2000, "B again"), "{\"lowered\":\"poison of B\",\"lowering\":1}");
	ck_saw(poisoned_run(3000, "poison of C"), none);
	/* A's entry is still its first text: a run given one offers nothing. */
	ck_saw(poisoned_run(1000, "A once more"), "{\"lowered\":\"poison of A\",\"lowering\":1}");
	json_t *a = lcache_describe("uid-1000"), *all = lcache_describe(NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "hits")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "stores")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(all, "entries")), 3);
	json_decref(a);
	json_decref(all);
	as_uid = (uid_t)-1;
}
END_TEST

/* Lowered text is a string of bounded size, or the worker broke the
 * protocol. */
START_TEST(lowered_text_checked)
{
	json_t *f = run_with(async_req, lowered_not_string);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "not a string"));
	json_decref(f);
	f = run_with(async_req, lowered_too_big);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "over its limit"));
	json_decref(f);
}
END_TEST

START_TEST(store_writes_checked)
{
	json_t *f = run_with(async_req, store_over_limit);
	ck_assert_str_eq(kind(f), "sandbox");
	ck_assert_ptr_nonnull(strstr(message(f), "per-value limit"));
	json_decref(f);
}
END_TEST

/* The fake spawner hands out no worker ids. */
void spawn_reaped(pid_t pid) { (void)pid; }
json_t *cache_store(const char *owner, const char *code, size_t len)
{
	(void)owner;
	(void)code;
	(void)len;
	return NULL;
}

static Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("compromised worker");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, node_bomb_frame);
	tcase_add_test(tc, largest_value_kept);
	tcase_add_test(tc, invalid_output_capped);
	tcase_add_test(tc, node_bomb_tool_call);
	tcase_add_test(tc, worker_never_reads_answers);
	tcase_add_test(tc, exit_status_never_picks_the_kind);
	tcase_add_test(tc, forged_test_summary);
	tcase_add_test(tc, store_writes_checked);
	tcase_add_test(tc, poisoned_lowering_stays_with_its_owner);
	tcase_add_test(tc, lowered_text_checked);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(run_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
