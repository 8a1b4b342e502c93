/*
 * check_faults.c - the daemon under injected failures (bin/sandboxd-fault,
 * see tests/fault.c).
 *
 * A first run of a fixed workload without faults counts the calls of each
 * kind it makes. Then, for each kind, a sweep of counts across that range
 * (SANDBOXD_FAULT_POINTS of them, default 12; `make faults` uses more):
 * a fresh daemon is started with that one call failing, the workload runs,
 * and the run is held to:
 *   - every request gets a final reply, a well-formed one: a success that
 *     says what it did (and says it truly: 6 * 7 is 42), or an error with a
 *     code and a message. Two ends other than a reply are accepted, because
 *     they are what the daemon does when it cannot do better: a connection
 *     it cannot allocate is closed before it reads anything (the client
 *     connects again), and one whose event or streamed reply cannot be
 *     produced is cut (a gap in a stream would be a lie), each only when
 *     the daemon's log says so;
 *   - afterwards the daemon still serves: a health and an execute succeed;
 *   - nothing leaks: its fd count returns to what a fault-free run leaves,
 *     its only children are the forkserver and its full pool of parked
 *     workers, and no child is a zombie;
 *   - it stops cleanly (exit 0) on SIGTERM.
 * A second sweep aims at cancel: its calls are counted from accepting the
 * connection that sends it (SANDBOXD_FAULT_AFTER_ACCEPTS), and one run
 * must fail the allocation of its wait and be answered RESOURCE_EXHAUSTED
 * with nothing done.
 * Every problem of every run is collected and printed before the test
 * fails, so one run shows them all. SANDBOXD_FAULT_SPEC=kind:N reruns one
 * case with the daemon's debug log; SANDBOXD_FAULT_KINDS=a,b sweeps only
 * those kinds.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/msg.h"
#include "testlib.h"

#define N_KINDS 9
static const char *const kinds[N_KINDS] = {
	"malloc", "pipe2", "socketpair", "accept4", "write", "send", "fsync", "rename", "clone",
};

/* A reply that does not come within this long counts as never. */
#define REPLY_MS 15000

static struct buf problems = BUF_INIT;
static unsigned n_problems;
static const char *current; /* the run's SANDBOXD_FAULT */

__attribute__((format(printf, 1, 2))) static void problem(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	char head[128];
	snprintf(head, sizeof head, "  [%s] ", current);
	buf_append(&problems, head, strlen(head));
	buf_append(&problems, line, strlen(line));
	buf_append(&problems, "\n", 1);
	n_problems++;
	if (getenv("SANDBOXD_FAULT_TRACE"))
		fprintf(stderr, "problem: %s%s\n", head, line);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *const codes[] = {
	"INVALID_ARGUMENT",
	"NOT_FOUND",
	"FAILED_PRECONDITION",
	"RESOURCE_EXHAUSTED",
	"PERMISSION_DENIED",
	"UNAVAILABLE",
	"INTERNAL",
	NULL,
};

/* NULL when r is a well-formed final reply, else what is wrong with it.
 * An execution's success names its state; a failed one has an error
 * with a kind. */
static const char *malformed(json_t *r, bool execution, bool test_mode)
{
	if (!r)
		return "no reply (timeout or connection closed)";
	json_t *ok = json_object_get(r, "ok");
	if (!json_is_boolean(ok))
		return "reply without an ok flag";
	if (json_is_false(ok)) {
		const char *code = err_code(r);
		bool known = false;
		for (const char *const *c = codes; *c; c++)
			known = known || strcmp(*c, code) == 0;
		if (!known || !json_is_string(json_object_get(err_obj(r), "message")))
			return "error reply without a known code and a message";
		return NULL;
	}
	if (!execution)
		return NULL;
	const char *state = jstr(r, "state");
	if (!json_is_string(json_object_get(r, "execution_id")) || !*state)
		return "execution reply without execution_id or state";
	bool success = jtrue(r, "success");
	/* Test mode completes with success false when a test fails. */
	bool done = strcmp(state, "completed") == 0;
	if (success ? !done : done && !test_mode)
		return "execution reply whose success disagrees with its state";
	if (done && test_mode && !json_is_object(json_object_get(r, "summary")))
		return "test reply without its summary";
	/* A status may answer before the end (a wait it cannot hold). */
	bool live = strcmp(state, "pending") == 0 || strcmp(state, "running") == 0;
	if (!done && !live && !*err_kind(r))
		return "failed execution without an error kind";
	return NULL;
}

/* The connection the workload talks on; requests carry ids so that
 * answers to tool calls can be told from final replies. */
struct session {
	const char *sock;
	struct client c;
	bool open;
	int next_id;
	bool answered; /* a reply came on this connection */
};

static bool session_open(struct session *s, const char *sock)
{
	s->sock = sock;
	s->answered = false;
	s->open = client_open(&s->c, sock, FRAME_MODE_BINARY) == 0;
	if (!s->open)
		problem("cannot connect");
	return s->open;
}

static void session_close(struct session *s)
{
	if (s->open)
		client_close(&s->c);
	s->open = false;
}

/* Sends msg; false when the daemon has closed the connection (it may
 * close one it cannot take before the client has written anything). */
static bool try_send(struct client *c, const json_t *msg)
{
	struct buf out = BUF_INIT;
	ck_assert_int_eq(msg_encode(&out, c->mode, msg), 0);
	const char *p = buf_peek(&out);
	size_t n = buf_len(&out);
	while (n > 0) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	buf_free(&out);
	return n == 0;
}

/* Connections the daemon closed at once, before reading a request: what
 * it does when it cannot allocate a new connection's state. */
static unsigned refused, run_refused;
/* Connections cut while a request with events was in flight: what the
 * daemon does when an event cannot be encoded. */
static unsigned cut, run_cut;
/* Runs in which a streamed reply (an execution's final reply, a status)
 * could not be produced, out of memory, and its connection was cut. */
static unsigned stream_cuts;

/* Sends req (stolen) and returns its final reply, answering tool calls
 * (add: a + b) on the way; output events are appended to out when given.
 * NULL (and a problem noted) when no reply comes: the connection is then
 * closed. A connection closed before it ever answered is opened again,
 * once: the client sees a refusal, not a hang. One cut while a request
 * that has events is in flight is opened again too. Either must be what
 * the daemon's log says it did (run_one checks). */
static json_t *call(struct session *s, json_t *req, struct buf *out, const char *what, bool events)
{
	char id[32];
	snprintf(id, sizeof id, "r%d", ++s->next_id);
	json_object_set_new(req, "id", json_string(id));
	bool sent = try_send(&s->c, req);
	long long deadline = now_ms() + REPLY_MS;
	bool retried = false;
	for (;;) {
		long long left = deadline - now_ms();
		json_t *m = sent && left > 0 ? client_recv(&s->c, (int)left) : NULL;
		if (!m && !s->answered && !retried && now_ms() < deadline) {
			run_refused++;
			retried = true;
			client_close(&s->c);
			if (client_open(&s->c, s->sock, FRAME_MODE_BINARY) == 0) {
				sent = try_send(&s->c, req);
				continue;
			}
			s->open = false;
		}
		if (!m && events && now_ms() < deadline) {
			run_cut++;
			session_close(s);
			session_open(s, s->sock);
			json_decref(req);
			return NULL;
		}
		if (!m) {
			problem("%s: no reply (%s)", what,
				now_ms() < deadline ? "connection closed" : "timeout");
			if (s->open)
				session_close(s);
			json_decref(req);
			return NULL;
		}
		s->answered = true;
		const char *mid = jstr(m, "id");
		const char *ev = jstr(m, "event");
		if (strcmp(mid, id) == 0 && strcmp(ev, "tool_call") == 0) {
			json_t *args = json_object_get(m, "args");
			json_int_t sum = json_integer_value(json_object_get(args, "a")) +
					 json_integer_value(json_object_get(args, "b"));
			char tid[32];
			snprintf(tid, sizeof tid, "t%d", ++s->next_id);
			json_t *answer = json_pack("{s:s, s:s, s:O, s:O, s:I}", "id", tid, "op",
						   "tool_result", "execution_id",
						   json_object_get(m, "execution_id"), "call_id",
						   json_object_get(m, "call_id"), "value", sum);
			try_send(&s->c, answer); /* a closed connection shows next */
			json_decref(answer);
		} else if (strcmp(mid, id) == 0 && strcmp(ev, "output") == 0) {
			if (out)
				buf_append(out, jstr(m, "data"), strlen(jstr(m, "data")));
		} else if ((strcmp(mid, id) == 0 || !*mid) && json_object_get(m, "ok")) {
			/* A request that could not be read is answered without its
			 * id: one request is in flight at a time. */
			json_decref(req);
			return m;
		} else if (mid[0] == 't' && json_object_get(m, "ok")) {
			/* A tool_result's own reply: well-formed, whatever it says
			 * (the call may have ended by then). */
			const char *why = malformed(m, false, false);
			if (why)
				problem("%s: tool_result reply: %s", what, why);
		}
		json_decref(m);
	}
}

/* Runs req and checks its reply's shape; the reply when it is a success. */
static json_t *step(struct session *s, const char *what, json_t *req, bool execution,
		    struct buf *out)
{
	if (!s->open) {
		json_decref(req);
		return NULL;
	}
	/* An execution's final reply and a status are streamed: one the daemon
	 * cannot produce is cut as an event is. */
	json_t *r =
		call(s, req, out, what, out != NULL || execution || strstr(what, "tool") != NULL);
	if (!r)
		return NULL;
	const char *why = malformed(r, execution, strcmp(what, "test") == 0);
	if (why) {
		char *text = json_dumps(r, JSON_COMPACT);
		problem("%s: %s: %.200s", what, why, text ? text : "?");
		free(text);
	}
	if (why || !jtrue(r, "ok")) {
		/* An error that says the connection closes (out of memory
		 * reading requests): the rest goes on a new one. */
		if (!why && strstr(err_msg(r), "closing the connection")) {
			session_close(s);
			session_open(s, s->sock);
		}
		json_decref(r);
		return NULL;
	}
	return r;
}

static bool completed(json_t *r) { return r && strcmp(jstr(r, "state"), "completed") == 0; }

/* A success must be the truth. */
static void expect(bool cond, const char *what, json_t *r)
{
	if (cond)
		return;
	char *text = json_dumps(r, JSON_COMPACT);
	problem("%s: a success with the wrong content: %.300s", what, text ? text : "?");
	free(text);
}

#define ID_SIZE 32

/* An execution that runs until it is cancelled (or its timeout, should no
 * cancel get through: then the leak checks would see it still running). */
static json_t *spin_req(void)
{
	return json_pack("{s:s, s:s, s:i}", "op", "async", "code", "for (;;) {}", "timeout_ms",
			 4000);
}

/* Cancels that were answered RESOURCE_EXHAUSTED, "was not cancelled". */
static unsigned oom_cancels, run_oom_cancels;

/* Cancels the spinning execution id on s: every cancel must get its
 * answer, a success saying "cancelled", or an error; after an error
 * (out of memory: nothing was done) it asks once more, on a new
 * connection, which must succeed, since only one call fails. Then a status must show it
 * cancelled. An execution whose spawn failed has ended by itself:
 * FAILED_PRECONDITION, saying so, is the truth then. */
static void cancel_spin(struct session *s, const char *id)
{
	bool done = false, ended = false;
	for (int attempt = 0; attempt < 2 && !done && !ended; attempt++) {
		if (attempt > 0) {
			/* The daemon may close a connection after an out of
			 * memory error: ask on a new one. */
			session_close(s);
			if (!session_open(s, s->sock))
				return;
		}
		json_t *r = call(s, json_pack("{s:s, s:s}", "op", "cancel", "execution_id", id),
				 NULL, "cancel", false);
		if (!r)
			break; /* call noted it */
		const char *why = malformed(r, false, false);
		if (why) {
			problem("cancel: %s", why);
		} else if (jtrue(r, "ok")) {
			expect(strcmp(jstr(r, "state"), "cancelled") == 0 &&
				       strcmp(jstr(r, "execution_id"), id) == 0,
			       "cancel", r);
			done = true;
		} else if (strcmp(err_code(r), "RESOURCE_EXHAUSTED") == 0 &&
			   strstr(err_msg(r), "was not cancelled")) {
			run_oom_cancels++;
		} else if (strcmp(err_code(r), "FAILED_PRECONDITION") == 0 &&
			   strstr(err_msg(r), "has already ended")) {
			/* It never ran: its spawn was what failed. */
			ended = true;
		} else if (attempt > 0) {
			problem("cancel again: %s: %s", err_code(r), err_msg(r));
		}
		json_decref(r);
	}
	if (ended)
		return;
	if (!done) {
		if (s->open)
			problem("cancel: no attempt cancelled %s", id);
		return;
	}
	json_t *st =
		step(s, "status after cancel",
		     json_pack("{s:s, s:s, s:b}", "op", "status", "execution_id", id, "wait", 1),
		     true, NULL);
	if (st)
		expect(strcmp(jstr(st, "state"), "cancelled") == 0, "status after cancel", st);
	json_decref(st);
}

/* The fixed workload: every kind of request the daemon serves. */
static void workload(const char *sock, const char *tag)
{
	struct session s = {.next_id = 0};
	if (!session_open(&s, sock))
		return;
	json_t *r;

	r = step(&s, "health", json_pack("{s:s}", "op", "health"), false, NULL);
	json_decref(r);

	r = step(
		&s, "execute",
		json_pack("{s:s, s:s}", "op", "execute", "code", "console.log('hi'); return 6 * 7"),
		true, NULL);
	if (completed(r))
		expect(jint(r, "value") == 42 && strcmp(jstr(r, "stdout"), "hi\n") == 0, "execute",
		       r);
	json_decref(r);

	struct buf out = BUF_INIT;
	r = step(&s, "stream",
		 json_pack("{s:s, s:s}", "op", "stream", "code",
			   "for (let i = 0; i < 3; i++) console.log('line' + i); return 'done'"),
		 true, &out);
	buf_append(&out, "", 1);
	if (completed(r))
		expect(strcmp(jstr(r, "value"), "done") == 0 &&
			       strcmp(out.data, "line0\nline1\nline2\n") == 0,
		       "stream", r);
	buf_free(&out);
	json_decref(r);

	r = step(&s, "async", json_pack("{s:s, s:s}", "op", "async", "code", "return 5"), false,
		 NULL);
	if (r) {
		const char *id = jstr(r, "execution_id");
		expect(*id != '\0', "async", r);
		json_t *st = step(
			&s, "status",
			json_pack("{s:s, s:s, s:b}", "op", "status", "execution_id", id, "wait", 1),
			true, NULL);
		if (completed(st))
			expect(jint(st, "value") == 5, "status", st);
		json_decref(st);
	}
	json_decref(r);

	r = step(&s, "tool call",
		 json_pack("{s:s, s:s, s:[{s:s}]}", "op", "execute", "code",
			   "return tools.add({a: 2, b: 3})", "tools", "name", "add"),
		 true, NULL);
	if (completed(r))
		expect(jint(r, "value") == 5, "tool call", r);
	json_decref(r);

	r = step(&s, "test",
		 json_pack("{s:s, s:s, s:s}", "op", "test", "code",
			   "function add(a, b) { return a + b }", "tests",
			   "test('adds', () => assert.is(add(1, 2), 3))"),
		 true, NULL);
	if (completed(r))
		expect(jint(json_object_get(r, "summary"), "passed") == 1 && jtrue(r, "success"),
		       "test", r);
	json_decref(r);

	char code[128];
	snprintf(code, sizeof code, "// fault sweep %s\nreturn 9", tag);
	r = step(&s, "cache store", json_pack("{s:s, s:s}", "op", "execute", "code", code), true,
		 NULL);
	const char *name = jstr(json_object_get(r, "cached"), "name");
	if (completed(r) && *name) {
		json_t *c =
			step(&s, "cached", json_pack("{s:s, s:s}", "op", "execute", "cached", name),
			     true, NULL);
		if (completed(c))
			expect(jint(c, "value") == 9, "cached", c);
		json_decref(c);
	}
	json_decref(r);

	r = step(&s, "declarations",
		 json_pack("{s:s, s:[{s:s, s:s, s:{s:s, s:{s:{s:s, s:{s:{s:s}}}}}}]}", "op",
			   "declarations", "tools", "name", "math.add", "description", "Adds.",
			   "input_schema", "$ref", "#/$defs/P", "$defs", "P", "type", "object",
			   "properties", "a", "type", "number"),
		 false, NULL);
	if (r)
		expect(strstr(jstr(r, "typescript"), "a?: number") != NULL, "declarations", r);
	json_decref(r);

	char spin[ID_SIZE] = "";
	r = step(&s, "async spin", spin_req(), false, NULL);
	if (r)
		snprintf(spin, sizeof spin, "%s", jstr(r, "execution_id"));
	json_decref(r);
	if (*spin)
		cancel_spin(&s, spin);

	r = step(&s, "list", json_pack("{s:s, s:i}", "op", "list", "limit", 20), false, NULL);
	if (r)
		expect(json_is_array(json_object_get(r, "executions")), "list", r);
	json_decref(r);
	r = step(&s, "cache_list", json_pack("{s:s}", "op", "cache_list"), false, NULL);
	if (r)
		expect(json_is_array(json_object_get(r, "scripts")), "cache_list", r);
	json_decref(r);
	r = step(&s, "cache_clear", json_pack("{s:s}", "op", "cache_clear"), false, NULL);
	if (r)
		expect(json_is_integer(json_object_get(r, "removed")), "cache_clear", r);
	json_decref(r);
	session_close(&s);
}

/* The targeted cancel workload: a spinning execution started on a first
 * connection, cancelled from a second, on which the daemon's counting of
 * calls begins (SANDBOXD_FAULT_AFTER_ACCEPTS=2), so that a sweep of its
 * counts fails each allocation of accepting that connection and of
 * serving its cancel, in turn. */
static void cancel_workload(const char *sock, const char *tag)
{
	(void)tag;
	struct session s1 = {.next_id = 0}, s2 = {.next_id = 0};
	if (!session_open(&s1, sock))
		return;
	char spin[ID_SIZE] = "";
	json_t *r = step(&s1, "async spin", spin_req(), false, NULL);
	if (r)
		snprintf(spin, sizeof spin, "%s", jstr(r, "execution_id"));
	json_decref(r);
	if (!*spin) {
		problem("the spinning execution did not start (no fault is counted yet)");
		session_close(&s1);
		return;
	}
	if (session_open(&s2, sock)) {
		cancel_spin(&s2, spin);
		session_close(&s2);
	}
	session_close(&s1);
}

/* The daemon still serves: health and an execute succeed, each within a
 * few tries on a connection of its own (the injected call may come late
 * and fail one of them cleanly, closing its connection). */
static void still_serving(const char *sock)
{
	bool healthy = false, executed = false;
	for (int i = 0; i < 6 && !(healthy && executed); i++) {
		struct session s = {.next_id = 0};
		if (!session_open(&s, sock))
			return;
		json_t *r;
		if (!healthy) {
			r = step(&s, "health after", json_pack("{s:s}", "op", "health"), false,
				 NULL);
			healthy = r != NULL;
		} else {
			r = step(&s, "execute after",
				 json_pack("{s:s, s:s, s:b}", "op", "execute", "code",
					   "return 1 + 1", "cache", 0),
				 true, NULL);
			executed = completed(r) && jint(r, "value") == 2;
		}
		json_decref(r);
		session_close(&s);
	}
	if (!healthy || !executed)
		problem("the daemon stopped serving (health %s, execute %s)",
			healthy ? "ok" : "failed", executed ? "ok" : "failed");
}

/* The daemon's fds once a fault-free workload is over and its connections
 * closed: the fewest seen in the second after it (the count at READY may
 * still hold the sd_notify socket, and closes follow the client's). */
static int steady_fds = -1;

/* The daemon's warm pool (--pool): its parked workers are children too,
 * each holding three fds, once a refill a fault failed has been retried. */
#define POOL 2
#define POOL_ARG "2"

/* Whether POOL workers are parked: children of the daemon that still hold
 * the largest job's backstops (the default --max-timeout-ms's 121 s of
 * CPU), so no running worker and none still being reaped. Told from /proc
 * alone: a connection would be an accept, and faults count from the
 * first. */
static bool pool_parked(const struct daemon *d)
{
	pid_t parked[POOL + 1];
	return daemon_workers_by_timeout(d, 120000, parked, POOL + 1) == POOL;
}

/* Waits until the daemon holds no more fds than a fault-free run and only
 * the forkserver and a full pool as children; notes what is left over
 * after a few seconds. The fault-free run itself sets the count (at most
 * start_fds), with the pool full. */
static void nothing_leaked(const struct daemon *d, int start_fds, bool calibrate)
{
	long long deadline = now_ms() + (calibrate ? 1000 : 5000);
	int fds, children, zombies, least = start_fds;
	for (;;) {
		fds = daemon_fd_count(d);
		children = daemon_child_count(d, &zombies);
		bool pool_full = children == 1 + POOL && pool_parked(d);
		if (fds < least && pool_full)
			least = fds;
		bool settled = !calibrate && fds <= steady_fds && pool_full && zombies == 0;
		if (settled || now_ms() > deadline)
			break;
		/* Closing and reaping happen on the daemon's loop: give it the
		 * CPU rather than spin against it. */
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (calibrate)
		steady_fds = least;
	else if (fds > steady_fds)
		problem("fds: %d open, %d after a fault-free workload", fds, steady_fds);
	if (children != 1 + POOL || zombies)
		problem("children: %d (%d zombies), expected the forkserver and %d parked",
			children, zombies, POOL);
}

/* Counts of each kind that one fault-free workload reached. */
static unsigned long reached[N_KINDS];

/* One daemon run with spec ("" for none): the workload and the checks.
 * Returns whether the fault was hit (its log says so). */
typedef void workload_fn(const char *sock, const char *tag);
static workload_fn *run_workload = workload;
static const char *run_after_accepts; /* SANDBOXD_FAULT_AFTER_ACCEPTS, or NULL */

static bool run_one(const char *spec, bool calibrate)
{
	current = *spec ? spec : "no fault";
	if (getenv("SANDBOXD_FAULT_TRACE"))
		fprintf(stderr, "run: %s\n", current);
	setenv("SANDBOXD_FAULT", spec, 1);
	if (run_after_accepts)
		setenv("SANDBOXD_FAULT_AFTER_ACCEPTS", run_after_accepts, 1);
	struct daemon d;
	static const char *const debug[] = {"--log-level", "debug", "--pool", POOL_ARG, NULL};
	static const char *const plain[] = {"--pool", POOL_ARG, NULL};
	daemon_start(&d, getenv("SANDBOXD_FAULT_VERBOSE") ? debug : plain);
	unsetenv("SANDBOXD_FAULT");
	unsetenv("SANDBOXD_FAULT_AFTER_ACCEPTS");
	/* The fds at start are counted with the pool full (three a parked
	 * worker); faults count from the first accept, so none is hit yet. */
	for (long long deadline = now_ms() + REPLY_MS; !pool_parked(&d) && now_ms() < deadline;) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	int start_fds = daemon_fd_count(&d);
	run_workload(d.sock, spec);
	still_serving(d.sock);
	nothing_leaked(&d, start_fds, calibrate);
	/* Stopped by hand: daemon_stop removes the log with the directory. */
	kill(d.pid, SIGTERM);
	int st = daemon_wait(&d, 30000);
	char *log = daemon_log(&d);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		problem("the daemon did not stop cleanly (status %#x)", st);
		size_t len = strlen(log);
		fprintf(stderr, "--- the end of the log of %s\n%s\n", current,
			log + (len > 4000 ? len - 4000 : 0));
	}
	if (calibrate) {
		const char *counted = strstr(log, "sandboxd-fault: counted");
		ck_assert_msg(counted != NULL, "the fault build did not report its counts: %s",
			      log);
		for (int k = 0; k < N_KINDS; k++) {
			char key[32];
			snprintf(key, sizeof key, " %s=", kinds[k]);
			const char *at = strstr(counted, key);
			reached[k] = at ? strtoul(at + strlen(key), NULL, 10) : 0;
		}
	}
	/* A fresh connection cut for a streamed reply counts as refused:
	 * the client cannot tell the two apart. */
	bool stream_cut = strstr(log, "cannot produce a reply") != NULL;
	if (stream_cut)
		stream_cuts++;
	/* So does a connection whose first event (an execution's "started")
	 * could not be encoded: the client saw no reply on it either. */
	bool first_event_cut = strstr(log, "cannot encode an event") != NULL;
	if (run_refused && !strstr(log, "connection refused: out of memory") && !stream_cut &&
	    !first_event_cut)
		problem("%u connections closed before a reply, and the log says nothing of it",
			run_refused);
	if (run_cut && !strstr(log, "cannot encode an event") && !stream_cut)
		problem("%u connections cut while events flowed, and the log says nothing of it",
			run_cut);
	refused += run_refused;
	cut += run_cut;
	oom_cancels += run_oom_cancels;
	run_refused = run_cut = run_oom_cancels = 0;
	bool hit = strstr(log, "sandboxd-fault: failing") != NULL;
	if (getenv("SANDBOXD_FAULT_VERBOSE"))
		fprintf(stderr, "--- log of %s\n%s\n", current, log);
	free(log);
	daemon_stop(&d); /* removes the directory */
	return hit;
}

START_TEST(test_fault_sweep)
{
	const char *p = getenv("SANDBOXD_FAULT_POINTS");
	unsigned points = p ? (unsigned)strtoul(p, NULL, 10) : 12;
	if (points < 1)
		points = 1;
	const char *only = getenv("SANDBOXD_FAULT_KINDS");
	setvbuf(stdout, NULL, _IOLBF, 0);
	long long t0 = now_ms();
	run_one("", true);
	buf_append(&problems, "", 1);
	ck_assert_msg(n_problems == 0, "the workload fails without any fault:\n%s", problems.data);
	buf_clear(&problems);
	/* The forkserver's clones are not the supervisor's calls: one per
	 * execution (the workload starts 7, still_serving 1). */
	if (reached[N_KINDS - 1] == 0)
		reached[N_KINDS - 1] = 8;
	printf("fault sweep: one workload makes");
	for (int k = 0; k < N_KINDS; k++)
		printf(" %s=%lu", kinds[k], reached[k]);
	printf(" (calls after the first accept)\n");
	unsigned runs = 0, hits = 0;
	const char *one = getenv("SANDBOXD_FAULT_SPEC");
	if (one) {
		setenv("SANDBOXD_FAULT_VERBOSE", "1", 1);
		hits += run_one(one, false);
		runs++;
	}
	for (int k = 0; k < N_KINDS && !one; k++) {
		if (only && !strstr(only, kinds[k]))
			continue;
		if (reached[k] == 0) {
			printf("fault sweep: %s is never called by the workload: not swept\n",
			       kinds[k]);
			continue;
		}
		unsigned long last = 0;
		unsigned kind_hits = 0, kind_runs = 0;
		for (unsigned i = 0; i < points; i++) {
			/* 1, 2, 3, then spread up to the count reached. */
			unsigned long n =
				points == 1 ? 1 : 1 + (i * (reached[k] - 1)) / (points - 1);
			if (i < 3 && n < i + 1)
				n = i + 1;
			if (n <= last || n > reached[k])
				continue;
			last = n;
			char spec[64];
			snprintf(spec, sizeof spec, "%s:%lu", kinds[k], n);
			kind_hits += run_one(spec, false);
			kind_runs++;
		}
		printf("fault sweep: %s: %u runs (counts 1..%lu), %u hit the fault\n", kinds[k],
		       kind_runs, reached[k], kind_hits);
		runs += kind_runs;
		hits += kind_hits;
	}
	printf("fault sweep: %u runs (%u hit the fault) in %lld s, %u connections refused at "
	       "accept, %u cut in a stream, %u runs cut a streamed reply, %u problems\n",
	       runs, hits, (now_ms() - t0) / 1000, refused, cut, stream_cuts, n_problems);
	buf_append(&problems, "", 1);
	ck_assert_msg(n_problems == 0, "%u problems under injected faults:\n%s", n_problems,
		      problems.data);
}
END_TEST

/* cancel under allocation failure: the malloc counts from accepting the
 * connection that sends the cancel to the daemon's exit, swept (the first
 * CANCEL_DENSE all, then SANDBOXD_FAULT_POINTS spread over the rest).
 * Every cancel is answered, and one of the runs failed the wait's own
 * allocation: answered RESOURCE_EXHAUSTED with nothing done, the cancel
 * asked again went through. */
#define CANCEL_DENSE 64
#define CANCEL_PASSES 8
#define STR_(x) #x
#define STR(x) STR_(x)

/* One run of the cancel workload with malloc call n failed. */
static void cancel_run(unsigned long n, unsigned *hits, unsigned *runs)
{
	char spec[64];
	snprintf(spec, sizeof spec, "malloc:%lu", n);
	unsigned before = oom_cancels;
	*hits += run_one(spec, false);
	(*runs)++;
	if (oom_cancels > before)
		printf("fault sweep, cancel: %s failed the cancel's wait: answered "
		       "RESOURCE_EXHAUSTED, nothing done; asked again, cancelled\n",
		       spec);
}

START_TEST(test_fault_cancel)
{
	const char *p = getenv("SANDBOXD_FAULT_POINTS");
	unsigned points = p ? (unsigned)strtoul(p, NULL, 10) : 12;
	if (points < 1)
		points = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	long long t0 = now_ms();
	run_workload = cancel_workload;
	run_after_accepts = "2";
	run_one("", true);
	buf_append(&problems, "", 1);
	ck_assert_msg(n_problems == 0, "the cancel workload fails without any fault:\n%s",
		      problems.data);
	buf_clear(&problems);
	unsigned long total = reached[0];
	ck_assert_uint_gt(total, 0);
	unsigned runs = 0, hits = 0;
	const char *one = getenv("SANDBOXD_FAULT_SPEC");
	if (one) {
		setenv("SANDBOXD_FAULT_VERBOSE", "1", 1);
		hits += run_one(one, false);
		runs++;
	}
	/* Every count up to CANCEL_DENSE (accepting the connection, reading
	 * and parsing the cancel, and its own allocations are there), then a
	 * spread of the rest (its answer, the checks after, the stop). */
	for (unsigned long n = 1; n <= total && !one; n++) {
		bool spread = false;
		for (unsigned i = 0; i < points && !spread; i++)
			spread = n == (points == 1 ? 1 : 1 + (i * (total - 1)) / (points - 1));
		if (n > CANCEL_DENSE && !spread)
			continue;
		cancel_run(n, &hits, &runs);
	}
	/* Which count the cancel's own allocation falls at varies with how
	 * the running execution's events interleave with it: when no run hit
	 * it, the dense counts are swept again, a few times at most. */
	for (int pass = 1; pass < CANCEL_PASSES && !one && oom_cancels == 0; pass++)
		for (unsigned long n = 1; n <= total && n <= CANCEL_DENSE; n++)
			cancel_run(n, &hits, &runs);
	bool every = runs >= total;
	printf("fault sweep, cancel: %lu allocations from the cancel's connection on; %u runs "
	       "(%s), %u hit the fault, %u cancels answered RESOURCE_EXHAUSTED (nothing done) and "
	       "asked again, %u connections refused at accept, %u runs cut a streamed reply, %u "
	       "problems, %lld s\n",
	       total, runs,
	       every ? "every count" : "the first " STR(CANCEL_DENSE) ", then a spread", hits,
	       oom_cancels, refused, stream_cuts, n_problems, (now_ms() - t0) / 1000);
	buf_append(&problems, "", 1);
	ck_assert_msg(n_problems == 0, "%u problems cancelling under injected faults:\n%s",
		      n_problems, problems.data);
	if (!one)
		ck_assert_msg(oom_cancels > 0,
			      "none of the first %d counts failed the cancel's own allocation",
			      CANCEL_DENSE);
}
END_TEST

int main(void)
{
	/* The suite drives the fault build of the daemon. */
	const char *bin = getenv("SANDBOXD_FAULT_BIN");
	if (!bin) {
		fprintf(stderr, "SANDBOXD_FAULT_BIN is not set (run through make check)\n");
		return EXIT_FAILURE;
	}
	setenv("SANDBOXD_BIN", bin, 1);
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("sweep");
	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, test_fault_sweep);
	suite_add_tcase(s, tc);
	TCase *tc_cancel = tcase_create("cancel");
	tcase_set_timeout(tc_cancel, 1800);
	tcase_add_test(tc_cancel, test_fault_cancel);
	suite_add_tcase(s, tc_cancel);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
