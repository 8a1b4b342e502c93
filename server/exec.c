/* exec.c - an execution's record and its clients; see exec.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "cache.h"
#include "exec_int.h"
#include "log.h"

static struct list_node live = {&live, &live};
static unsigned live_count;
static unsigned long total;
static bool shutting_down;

unsigned long exec_total(void) { return total; }
unsigned exec_live(void) { return live_count; }

static const char *const mode_names[] = {"execute", "stream", "async", "test"};

/* ---- accessors */

struct exec *exec_find(const char *id)
{
	struct registry_entry *r = registry_find(id);
	return r ? container_of(r, struct exec, reg) : NULL;
}

const char *exec_id(const struct exec *e) { return e->reg.id; }

enum exec_state exec_state(const struct exec *e)
{
	switch (e->phase) {
	case PHASE_QUEUED: return STATE_PENDING;
	case PHASE_SPAWNING:
	case PHASE_RUNNING:
	/* Not terminal until the record is final: a terminal state always
	 * comes with every execution field. */
	case PHASE_STORING: return STATE_RUNNING;
	case PHASE_DONE: return e->state;
	}
	return STATE_FAILED;
}

unsigned exec_queue_position(const struct exec *e)
{
	return e->phase == PHASE_QUEUED ? sched_position(&e->sched) : 0;
}

const struct buf *exec_output(const struct exec *e, int stream) { return &e->out[stream ? 1 : 0]; }
json_t *exec_fields(const struct exec *e) { return e->phase == PHASE_DONE ? e->fields : NULL; }
uint64_t exec_finished_ms(const struct exec *e)
{
	return e->phase == PHASE_DONE ? e->reg.finished_ms : 0;
}

struct exec *exec_newest(void)
{
	struct registry_entry *r = registry_newest();
	return r ? container_of(r, struct exec, reg) : NULL;
}

struct exec *exec_older(struct exec *e)
{
	struct registry_entry *r = registry_older(&e->reg);
	return r ? container_of(r, struct exec, reg) : NULL;
}

json_t *exec_summary(const struct exec *e)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "execution_id", e->reg.id, "mode",
			      mode_names[e->mode], "state", request_state_name(exec_state(e)),
			      "started_at_ms", (json_int_t)e->reg.created_ms);
	if (e->phase == PHASE_DONE)
		json_object_set_new(o, "finished_at_ms",
				    json_integer((json_int_t)e->reg.finished_ms));
	json_object_set_new(o, "code_preview", json_string(e->preview));
	if (e->cached_name)
		json_object_set_new(o, "cached_name", json_string(e->cached_name));
	return o;
}

/* The first LIMIT_CODE_PREVIEW_CHARS characters (not bytes) of code. */
static void set_preview(struct exec *e, const char *code, size_t len)
{
	size_t n = 0, chars = 0;
	while (n < len && n < sizeof e->preview - 1) {
		if (((unsigned char)code[n] & 0xC0) != 0x80 && chars++ == LIMIT_CODE_PREVIEW_CHARS)
			break;
		n++;
	}
	while (n > 0 && n < len && ((unsigned char)code[n] & 0xC0) == 0x80)
		n--; /* never end inside a character */
	memcpy(e->preview, code, n);
	e->preview[n] = '\0';
}

/* ---- the end of an execution */

static uint64_t tv_ms(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

static void add_output(json_t *o, const struct exec *e)
{
	for (int i = 0; i < 2; i++) {
		const struct buf *b = &e->out[i];
		json_object_set_new(o, i ? "stderr" : "stdout",
				    json_stringn(b->data ? buf_peek(b) : "", buf_len(b)));
	}
}

/* Test mode's verdict: its report, and success only when tests ran and
 * none failed. */
static bool add_test_report(json_t *f, struct exec *e, json_t **error)
{
	json_t *report = e->result.test;
	if (!report)
		return false;
	json_t *summary = json_object_get(report, "summary");
	json_object_set(f, "summary", summary);
	json_object_set(f, "tests", json_object_get(report, "tests"));
	if (json_integer_value(json_object_get(summary, "total")) == 0) {
		*error = json_pack("{s:s, s:s}", "kind", "script", "message",
				   "the tests registered no test: call test(name, fn)");
		return false;
	}
	return json_integer_value(json_object_get(summary, "failed")) == 0;
}

/* The execution fields, from the worker's verdict. */
static json_t *build_fields(struct exec *e)
{
	unsigned long oom = msg_alloc_failures();
	json_t *error = NULL;
	e->state = run_verdict(e, &error);
	bool success = e->state == STATE_COMPLETED;
	json_t *f = json_pack("{s:s, s:s}", "execution_id", e->reg.id, "state",
			      request_state_name(e->state));
	if (e->mode == EXEC_TEST)
		success = success && add_test_report(f, e, &error);
	json_object_set_new(f, "success", json_boolean(success));
	if (e->state == STATE_COMPLETED && e->result.value && e->mode != EXEC_TEST)
		json_object_set(f, "value", e->result.value);
	/* The store's changes count only for a successful script. */
	json_t *writes = e->result.store_writes;
	if (success && writes &&
	    (e->store || json_object_size(json_object_get(writes, "set")) ||
	     json_array_size(json_object_get(writes, "delete"))))
		json_object_set(f, "store_writes", writes);
	if (e->tools)
		json_object_set(f, "calls", e->calls);
	if (error)
		json_object_set_new(f, "error", error);
	json_object_set_new(f, "started_at_ms", json_integer((json_int_t)e->reg.created_ms));
	json_object_set_new(f, "finished_at_ms", json_integer((json_int_t)e->reg.finished_ms));
	uint64_t end = e->t_end_us ? e->t_end_us : loop_clock_us();
	uint64_t elapsed = e->t_start_us ? (end - e->t_start_us) / 1000u : 0;
	json_object_set_new(f, "execution_time_ms", json_integer((json_int_t)elapsed));
	json_object_set_new(
		f, "cpu_time_ms",
		json_integer((json_int_t)(tv_ms(e->ru.ru_utime) + tv_ms(e->ru.ru_stime))));
	json_object_set_new(f, "memory_peak_bytes",
			    json_integer((json_int_t)e->ru.ru_maxrss * 1024));
	if (e->have_result && e->result.heap_peak >= 0)
		json_object_set_new(f, "heap_peak_bytes", json_integer(e->result.heap_peak));
	if (f && msg_alloc_failures() == oom)
		return f;
	/* A record with holes would tell a lie (a value missing, success
	 * without its state): the result is lost, and the record says so. */
	json_decref(f);
	e->state = STATE_FAILED;
	return json_pack("{s:s, s:s, s:b, s:{s:s, s:s}}", "execution_id", e->reg.id, "state",
			 request_state_name(e->state), "success", 0, "error", "kind", "sandbox",
			 "message", "out of memory recording the result");
}

/* Final: replies to the requester, wakes the watches, and leaves the
 * record to the registry. */
static void complete(struct exec *e)
{
	e->phase = PHASE_DONE;
	if (e->conn && e->mode != EXEC_ASYNC) {
		unsigned long oom = msg_alloc_failures();
		json_t *r = msg_reply_ok(e->req_id);
		json_object_update(r, e->fields);
		if (e->mode != EXEC_STREAM)
			add_output(r, e);
		if (!e->fields || msg_alloc_failures() != oom) {
			json_decref(r);
			r = msg_reply_error(e->req_id, STATUS_RESOURCE_EXHAUSTED,
					    "out of memory building the reply");
		}
		conn_send(e->conn, r);
		json_decref(r);
	}
	if (e->conn)
		conn_unsubscribe(e->conn, &e->sub);
	log_info("%s %s %s in %lld ms (pid %d%s)", e->reg.id, mode_names[e->mode],
		 request_state_name(e->state),
		 (long long)json_integer_value(json_object_get(e->fields, "execution_time_ms")),
		 (int)e->pid, e->conn || e->mode == EXEC_ASYNC ? "" : ", client gone");
	e->conn = NULL;
	struct list_node *n;
	while ((n = list_first(&e->watches)) != NULL) {
		struct exec_watch *w = LIST_ITEM(n, struct exec_watch, link);
		list_del(n);
		w->done(w, e);
	}
	free(e->code);
	free(e->tests);
	e->code = e->tests = NULL;
	registry_finished(&e->reg, buf_len(&e->out[OUT]) + buf_len(&e->out[ERR]));
}

static void on_stored(void *arg, json_t *info)
{
	struct exec *e = arg;
	if (info)
		json_object_set(e->fields, "cached", info);
	complete(e);
}

static void leave_live(struct exec *e)
{
	list_del(&e->link);
	live_count--;
}

/* ---- tool calls */

static void finish_call(struct exec *e, const char *status)
{
	json_t *call = json_array_get(e->calls, json_array_size(e->calls) - 1);
	json_object_set_new(call, "status", json_string(status));
	json_object_set_new(
		call, "duration_ms",
		json_integer((json_int_t)((loop_clock_us() - e->call_start_us) / 1000)));
	e->pending_call = 0;
}

/* Answers the pending call: value (borrowed) or error. */
static void answer_call(struct exec *e, json_t *value, const char *error)
{
	unsigned long oom = msg_alloc_failures();
	json_t *m = json_pack("{s:s, s:I}", "type", "tool_result", "call_id", e->pending_call);
	if (error)
		json_object_set_new(m, "error", json_string(error));
	else
		json_object_set(m, "value", value);
	if (msg_alloc_failures() != oom) {
		/* An answer with holes would be a lie: run_send kills the
		 * worker over an answer it cannot send. */
		json_decref(m);
		m = NULL;
	}
	run_send(e, m);
	json_decref(m);
	finish_call(e, error ? "error" : "ok");
}

static const char gone_message[] =
	"the client that submitted this execution has gone, so its tools cannot be called";

void exec_tool_call(struct exec *e, json_int_t call_id, const char *name, json_t *args)
{
	e->last_call = e->pending_call = call_id;
	e->call_start_us = loop_clock_us();
	json_array_append_new(e->calls, json_pack("{s:I, s:s, s:s}", "call_id", call_id, "name",
						  name, "status", "pending"));
	if (!e->conn) {
		answer_call(e, NULL, gone_message);
		return;
	}
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(e->req_id, "tool_call");
	json_object_set_new(ev, "execution_id", json_string(e->reg.id));
	json_object_set_new(ev, "call_id", json_integer(call_id));
	json_object_set_new(ev, "name", json_string(name));
	json_object_set(ev, "args", args);
	/* An event with holes is not sent: conn_send(NULL) cuts the
	 * connection, as for an event it cannot encode. */
	conn_send(e->conn, msg_alloc_failures() == oom ? ev : NULL);
	json_decref(ev);
}

int exec_tool_result(struct exec *e, struct conn *c, uint64_t call_id, json_t *value,
		     const char *error, enum status *code, const char **message)
{
	if (e->phase != PHASE_SPAWNING && e->phase != PHASE_RUNNING) {
		*code = STATUS_FAILED_PRECONDITION;
		*message = "the execution is not running";
		return -1;
	}
	if (!e->pending_call || (uint64_t)e->pending_call != call_id) {
		*code = STATUS_NOT_FOUND;
		*message = "call_id: no such call is waiting for its result";
		return -1;
	}
	if (c != e->conn) {
		*code = STATUS_PERMISSION_DENIED;
		*message = "only the connection that received the call may answer it";
		return -1;
	}
	answer_call(e, value, error);
	return 0;
}

void exec_ended(struct exec *e)
{
	if (e->pending_call)
		finish_call(e, "cancelled");
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	run_release(e);
	json_decref(e->result_root);
	json_decref(e->result.error);
	json_decref(e->result.test);
	json_decref(e->result.store_writes);
	e->result_root = e->result.error = e->result.test = e->result.store_writes = NULL;
	e->result.value = NULL;
	leave_live(e);
	/* New code that ran successfully goes to the cache first, so that the
	 * reply can say where it went. */
	bool store =
		e->cache && !e->cached_name && e->mode != EXEC_TEST && e->state == STATE_COMPLETED;
	e->phase = PHASE_STORING;
	sched_release();
	if (!store || cache_store(e->code, e->code_len, on_stored, e) == 0)
		complete(e);
}

/* Ends an execution that never got a worker. */
static void end_queued(struct exec *e, enum kill_reason why)
{
	sched_remove(&e->sched);
	e->killed = why;
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	leave_live(e);
	complete(e);
}

static void exec_free(struct registry_entry *r)
{
	struct exec *e = container_of(r, struct exec, reg);
	json_decref(e->fields);
	json_decref(e->req_id);
	json_decref(e->tools);
	json_decref(e->store);
	json_decref(e->calls);
	buf_free(&e->out[OUT]);
	buf_free(&e->out[ERR]);
	free(e->cached_name);
	free(e->code);
	free(e->tests);
	free(e);
}

/* ---- clients */

int exec_cancel(struct exec *e)
{
	switch (e->phase) {
	case PHASE_QUEUED: end_queued(e, KILL_CANCEL); return 0;
	case PHASE_SPAWNING:
	case PHASE_RUNNING: run_kill(e, KILL_CANCEL); return 0;
	case PHASE_STORING:
	case PHASE_DONE: break;
	}
	return -1;
}

void exec_watch(struct exec *e, struct exec_watch *w)
{
	if (e->phase == PHASE_DONE) {
		list_init(&w->link);
		w->done(w, e);
		return;
	}
	list_add_tail(&e->watches, &w->link);
}

void exec_unwatch(struct exec_watch *w) { list_del(&w->link); }

void exec_output_added(struct exec *e, int i, size_t from)
{
	if (e->mode != EXEC_STREAM || !e->conn)
		return;
	const struct buf *b = &e->out[i];
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(e->req_id, "output");
	json_object_set_new(ev, "execution_id", json_string(e->reg.id));
	json_object_set_new(ev, "stream", json_string(i == OUT ? "stdout" : "stderr"));
	json_object_set_new(ev, "data", json_stringn(buf_peek(b) + from, buf_len(b) - from));
	json_object_set_new(ev, "ts_ms", json_integer((json_int_t)loop_wall_ms()));
	conn_send(e->conn, msg_alloc_failures() == oom ? ev : NULL);
	json_decref(ev);
	if (conn_backlogged(e->conn))
		run_pause(e, true);
}

static void on_conn_gone(struct conn_sub *s)
{
	struct exec *e = container_of(s, struct exec, sub);
	e->conn = NULL;
	if (e->paused)
		run_pause(e, false); /* drain and drop */
	/* An async execution goes on; only its tools are out of reach. */
	if (e->mode != EXEC_ASYNC)
		exec_cancel(e);
	else if (e->pending_call)
		answer_call(e, NULL, gone_message);
}

static void on_conn_drained(struct conn_sub *s)
{
	struct exec *e = container_of(s, struct exec, sub);
	if (e->paused)
		run_pause(e, false);
}

static const struct conn_sub_ops sub_ops = {on_conn_gone, on_conn_drained};

static void on_start(struct sched_entry *s) { run_start(container_of(s, struct exec, sched)); }

static char *copy(const char *s, size_t len)
{
	char *p = malloc(len + 1);
	if (p) {
		if (len)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

struct exec *exec_submit(struct conn *c, const struct request *req, const char *code,
			 size_t code_len, size_t options_len, const char *cached_name,
			 enum status *status, const char **message)
{
	static char queue_msg[96];
	*status = STATUS_RESOURCE_EXHAUSTED;
	*message = "out of memory";
	if (shutting_down) {
		*status = STATUS_UNAVAILABLE;
		*message = "the daemon is shutting down";
		return NULL;
	}
	struct exec *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->mode = req->op == OP_STREAM	? EXEC_STREAM
		  : req->op == OP_ASYNC ? EXEC_ASYNC
		  : req->op == OP_TEST	? EXEC_TEST
					: EXEC_EXECUTE;
	e->code = code ? copy(code, code_len) : NULL;
	e->code_len = code_len;
	e->options_len = options_len;
	e->tests = req->tests ? copy(req->tests, req->tests_len) : NULL;
	e->tests_len = req->tests_len;
	e->cached_name = cached_name ? strdup(cached_name) : NULL;
	if ((code && !e->code) || (req->tests && !e->tests) || (cached_name && !e->cached_name) ||
	    registry_add(&e->reg) < 0) {
		free(e->code);
		free(e->tests);
		free(e->cached_name);
		free(e);
		return NULL;
	}
	set_preview(e, code ? code : req->tests, code ? code_len : req->tests_len);
	e->cache = req->cache;
	e->timeout_ms = req->timeout_ms;
	e->max_cpu_ms = req->max_cpu_ms;
	e->language = req->typescript ? "typescript" : req->javascript ? "javascript" : NULL;
	e->memory_bytes = req->memory_bytes;
	e->output_bytes = req->output_bytes;
	e->req_id = json_incref(req->id);
	e->pid = -1;
	e->pidfd = e->ctl_fd = e->pipe_fd[OUT] = e->pipe_fd[ERR] = -1;
	e->w_pid = e->w_ctl = e->w_pipe[OUT] = e->w_pipe[ERR] = (struct loop_watch)LOOP_WATCH_INIT;
	e->timer = (struct loop_timer)LOOP_TIMER_INIT;
	list_init(&e->watches);
	e->phase = PHASE_QUEUED;
	list_add_tail(&live, &e->link);
	live_count++;
	/* The requester gets tool calls and, but for async, the reply; an
	 * async execution outlives it (see on_conn_gone). */
	e->conn = c;
	e->sub.ops = &sub_ops;
	conn_subscribe(c, &e->sub);
	e->paused = e->mode == EXEC_STREAM && conn_backlogged(c);
	e->tools = json_incref(req->tools);
	e->store = json_incref(req->store);
	e->calls = json_array();
	total++;
	if (sched_submit(&e->sched) < 0) {
		total--;
		if (e->conn)
			conn_unsubscribe(e->conn, &e->sub);
		leave_live(e);
		registry_remove(&e->reg);
		exec_free(&e->reg);
		snprintf(queue_msg, sizeof queue_msg, "the execution queue is full (%u waiting)",
			 sched_queued());
		*message = queue_msg;
		return NULL;
	}
	return e;
}

void exec_shutdown(void)
{
	shutting_down = true;
	struct sched_entry *s;
	while ((s = sched_first_queued()) != NULL)
		end_queued(container_of(s, struct exec, sched), KILL_SHUTDOWN);
}

void exec_kill_all(void)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &live)
		run_kill(LIST_ITEM(n, struct exec, link), KILL_SHUTDOWN);
}

void exec_init(const struct exec_settings *s)
{
	sched_init(s->max_workers, s->queue_max, on_start);
	struct registry_config rc = {s->retention_ms, s->retain_count, s->retain_bytes, exec_free};
	registry_init(&rc);
}
