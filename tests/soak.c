/*
 * soak.c - `make soak N=1000000`: N executions through the real daemon,
 * from several concurrent clients, of every kind: execute, stream with
 * output, async then a status long-poll, test mode, a failing script and
 * a script calling a tool the client answers. Then it checks that the
 * daemon has no zombie children, holds exactly the fds it held before the
 * first client, and that its RSS stayed flat after warm-up: it prints the
 * RSS at 1k, 10k, every 100k and at the end, and fails when the end is
 * more than RSS_MARGIN_PCT percent plus RSS_MARGIN_KIB above the largest
 * figure up to the checkpoint at WARMUP executions (by then the retained
 * executions and the script cache are at their caps).
 */
#include <check.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"
#include "testlib.h"

#define CLIENTS 6
#define KINDS 6
#define WARMUP 10000L
#define RSS_MARGIN_PCT 10
#define RSS_MARGIN_KIB 4096L

/* Shared with the client processes. */
struct shared {
	atomic_long done;
	atomic_long failed;
	atomic_long by_kind[KINDS];
};

static const char *const kind_names[KINDS] = {"execute", "stream",  "async+status",
					      "test",	 "failing", "tool call"};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The final reply to request id, answering tool calls on the way and
 * counting output events. NULL when none came. */
static json_t *reply_to(struct client *c, long id, int *events)
{
	for (;;) {
		json_t *m = client_recv(c, 60000);
		if (!m)
			return NULL;
		const char *ev = jstr(m, "event");
		if (strcmp(ev, "tool_call") == 0) {
			json_t *args = json_object_get(m, "args");
			long long sum = jint(args, "a") + jint(args, "b");
			client_sendf(c,
				     "{\"op\":\"tool_result\",\"id\":-1,\"execution_id\":\"%s\","
				     "\"call_id\":%lld,\"value\":%lld}",
				     jstr(m, "execution_id"), jint(m, "call_id"), sum);
		} else if (strcmp(ev, "output") == 0) {
			(*events)++;
		} else if (json_object_get(m, "ok") && jint(m, "id") == id) {
			return m;
		}
		json_decref(m);
	}
}

/* One execution of the given kind; true when it came out as it must. */
static bool one(struct client *c, long id, int kind)
{
	int events = 0;
	json_t *r = NULL;
	bool good = false;
	switch (kind) {
	case 0:
		client_sendf(c, "{\"op\":\"execute\",\"id\":%ld,\"code\":\"return 1 + %ld\"}", id,
			     id % 7);
		r = reply_to(c, id, &events);
		good = jtrue(r, "success") && jint(r, "value") == 1 + id % 7;
		break;
	case 1:
		client_sendf(c,
			     "{\"op\":\"stream\",\"id\":%ld,\"code\":\"console.log('line', 1); "
			     "console.error('two'); return 'ok'\"}",
			     id);
		r = reply_to(c, id, &events);
		good = jtrue(r, "success") && strcmp(jstr(r, "value"), "ok") == 0 && events >= 1;
		break;
	case 2: {
		client_sendf(c,
			     "{\"op\":\"async\",\"id\":%ld,\"code\":\"return [1, 2, 3].length\"}",
			     id);
		json_t *a = reply_to(c, id, &events);
		const char *eid = jstr(a, "execution_id");
		if (jtrue(a, "ok") && *eid) {
			client_sendf(c,
				     "{\"op\":\"status\",\"id\":%ld,\"execution_id\":\"%s\","
				     "\"wait\":true}",
				     id, eid);
			r = reply_to(c, id, &events);
			good = strcmp(jstr(r, "state"), "completed") == 0 && jint(r, "value") == 3;
		}
		json_decref(a);
		break;
	}
	case 3:
		client_sendf(
			c,
			"{\"op\":\"test\",\"id\":%ld,\"code\":\"function sq(x) { return x * x; "
			"}\",\"tests\":\"test('sq', function () { assert.is(sq(3), 9); });\"}",
			id);
		r = reply_to(c, id, &events);
		good = jtrue(r, "success") && jint(json_object_get(r, "summary"), "passed") == 1;
		break;
	case 4:
		client_sendf(c,
			     "{\"op\":\"execute\",\"id\":%ld,\"code\":\"throw new Error('boom')\"}",
			     id);
		r = reply_to(c, id, &events);
		good = jtrue(r, "ok") && !jtrue(r, "success") &&
		       strcmp(jstr(r, "state"), "failed") == 0;
		break;
	case 5:
		client_sendf(c,
			     "{\"op\":\"execute\",\"id\":%ld,\"code\":\"return tools.add({a: 2, b: "
			     "%ld})\",\"tools\":[{\"name\":\"add\"}]}",
			     id, id % 5);
		r = reply_to(c, id, &events);
		good = jtrue(r, "success") && jint(r, "value") == 2 + id % 5;
		break;
	}
	if (!good) {
		char *text = r ? json_dumps(r, JSON_COMPACT) : NULL;
		fprintf(stderr, "soak: %s %ld came out wrong: %.300s\n", kind_names[kind], id,
			text ? text : "(no reply)");
		free(text);
	}
	json_decref(r);
	return good;
}

/* A client process: executions first..end (step CLIENTS), kinds in turn. */
static void client_main(const char *sock, struct shared *sh, long first, long n)
{
	struct client c;
	if (client_open(&c, sock, FRAME_MODE_BINARY) < 0)
		_exit(1);
	for (long id = first; id < n; id += CLIENTS) {
		int kind = (int)(id / CLIENTS % KINDS);
		if (!one(&c, id, kind))
			atomic_fetch_add(&sh->failed, 1);
		atomic_fetch_add(&sh->by_kind[kind], 1);
		atomic_fetch_add(&sh->done, 1);
	}
	client_close(&c);
	_exit(0);
}

static bool checkpoint(long done, long n, long last)
{
	if (done == n)
		return true;
	long marks[] = {1000, 10000};
	for (size_t i = 0; i < 2; i++)
		if (last < marks[i] && done >= marks[i])
			return true;
	return done / 100000 > last / 100000;
}

START_TEST(soak)
{
	const char *ns = getenv("N");
	long n = ns && *ns ? strtol(ns, NULL, 10) : 100000;
	ck_assert_msg(n >= 1, "N must be at least 1");
	struct daemon d;
	const char *args[] = {"--log-level", "warn", NULL};
	daemon_start(&d, args);
	/* Counted with the pool full: a parked worker holds three fds. */
	int parked = daemon_pool_full(&d, 30000);
	/* Right after READY=1 the daemon may still hold the socket it sent
	 * it on: the baseline is the fewest fds seen over a moment. */
	int base_fds = daemon_fd_count(&d);
	for (int i = 0; i < 10; i++) {
		struct timespec tick = {0, 20 * 1000000};
		nanosleep(&tick, NULL);
		int now = daemon_fd_count(&d);
		base_fds = now < base_fds ? now : base_fds;
	}
	long base_rss = proc_status_kib(d.pid, "VmRSS");
	printf("soak: %ld executions from %d clients (execute, stream, async+status, test, "
	       "failing, tool call)\n",
	       n, CLIENTS);
	printf("soak: %-10s RSS %8ld KiB, %d fds\n", "start", base_rss, base_fds);
	fflush(stdout);

	struct shared *sh =
		mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(sh, MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	pid_t kids[CLIENTS];
	double t0 = now_s();
	for (int i = 0; i < CLIENTS; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0)
			client_main(d.sock, sh, i, n);
	}

	long last = 0, warm_rss = 0, rss = 0;
	int running = CLIENTS;
	for (bool more = true; more;) {
		more = running > 0;
		/* Progress is what the clients count; the figures are read as
		 * each checkpoint passes. */
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			running--;
			ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
				      "a client process failed (status %#x)", st);
		}
		long done = atomic_load(&sh->done);
		if (done > last && (checkpoint(done, n, last) || !more)) {
			rss = proc_status_kib(d.pid, "VmRSS");
			if (last < WARMUP && rss > warm_rss)
				warm_rss = rss;
			printf("soak: %-10ld RSS %8ld KiB  (%.0f executions/s, %ld failed)\n", done,
			       rss, (double)done / (now_s() - t0), atomic_load(&sh->failed));
			fflush(stdout);
			last = done;
		}
		if (pid <= 0 && more) {
			struct timespec tick = {0, 20 * 1000000};
			nanosleep(&tick, NULL);
		}
	}
	double secs = now_s() - t0;
	for (int k = 0; k < KINDS; k++)
		printf("soak: %-13s %ld\n", kind_names[k], atomic_load(&sh->by_kind[k]));

	/* Every client has gone: nothing runs, nothing is left over. */
	ck_assert(hostile_wait_idle(d.sock, 30000));
	ck_assert_int_eq(daemon_pool_full(&d, 30000), parked);
	int zombies = 0, children = daemon_child_count(&d, &zombies);
	/* The last connections close on the daemon's next turn. */
	int fds = daemon_fd_count(&d);
	for (int i = 0; i < 250 && fds != base_fds; i++) {
		struct timespec tick = {0, 20 * 1000000};
		nanosleep(&tick, NULL);
		fds = daemon_fd_count(&d);
	}
	long end_rss = proc_status_kib(d.pid, "VmRSS"), peak = proc_status_kib(d.pid, "VmHWM");
	if (warm_rss == 0)
		warm_rss = end_rss; /* N below the warm-up: nothing to compare */
	long allowed = warm_rss + warm_rss * RSS_MARGIN_PCT / 100 + RSS_MARGIN_KIB;
	printf("soak: %ld executions in %.1f s (%.0f/s), %ld failed\n", n, secs, (double)n / secs,
	       atomic_load(&sh->failed));
	printf("soak: children %d (the forkserver and %d parked), zombies %d; fds %d (at start "
	       "%d)\n",
	       children, parked, zombies, fds, base_fds);
	printf("soak: RSS %ld KiB at the end, %ld KiB by %ld, peak %ld KiB; allowed %ld KiB "
	       "(+%d%% + %ld KiB)\n",
	       end_rss, warm_rss, WARMUP, peak, allowed, RSS_MARGIN_PCT, RSS_MARGIN_KIB);
	ck_assert_int_eq(atomic_load(&sh->failed), 0);
	ck_assert_int_eq(zombies, 0);
	ck_assert_int_eq(children, 1 + parked);
	ck_assert_int_eq(fds, base_fds);
	ck_assert_msg(end_rss <= allowed, "RSS grew from %ld KiB to %ld KiB", warm_rss, end_rss);
	ck_assert_int_eq(daemon_stop(&d), 0);
	munmap(sh, sizeof *sh);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("soak");
	TCase *tc = tcase_create("soak");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, soak);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
