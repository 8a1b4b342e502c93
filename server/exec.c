/* exec.c - an execution's record and its clients; see exec.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/jnum.h"
#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "cache.h"
#include "exec_int.h"
#include "log.h"

static struct list_node live = {&live, &live};
static unsigned live_count;
static unsigned long total;
static bool shutting_down;
static struct exec_settings settings;

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
const struct owner *exec_owner(const struct exec *e) { return &e->owner; }

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
size_t exec_output_escaped(const struct exec *e, int stream) { return e->out_esc[stream ? 1 : 0]; }
json_t *exec_fields(const struct exec *e) { return e->phase == PHASE_DONE ? e->fields : NULL; }
const char *exec_kept(const struct exec *e, size_t *len)
{
	*len = e->phase == PHASE_DONE ? buf_len(&e->kept) : 0;
	return *len ? buf_peek(&e->kept) : "";
}
const struct buf *exec_kept_buf(const struct exec *e) { return &e->kept; }
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

/* Test mode's verdict: its report (the summary as the supervisor counted
 * it), and success only when tests ran and none failed. */
static bool add_test_report(json_t *f, struct exec *e, json_t **error)
{
	const struct ctl_msg *r = &e->result;
	if (!e->have_result || !r->has_test)
		return false;
	const struct ctl_summary *sum = &r->summary;
	json_object_set_new(f, "summary",
			    json_pack("{s:I, s:I, s:I, s:I}", "total", (json_int_t)sum->total,
				      "passed", (json_int_t)sum->passed, "failed",
				      (json_int_t)sum->failed, "skipped",
				      (json_int_t)sum->skipped));
	if (sum->total == 0) {
		*error = json_pack("{s:s, s:s}", "kind", "script", "message",
				   "the tests registered no test: call test(name, fn)");
		return false;
	}
	return sum->failed == 0;
}

/* Appends ,"name":text to the kept members. */
static int keep(struct exec *e, const char *name, const char *text, size_t len)
{
	struct buf *b = &e->kept;
	if (buf_append(b, ",\"", 2) < 0 || buf_append(b, name, strlen(name)) < 0 ||
	    buf_append(b, "\":", 2) < 0 || buf_append(b, text, len) < 0)
		return -1;
	return 0;
}

static int dump_to_buf(const char *p, size_t n, void *data) { return buf_append(data, p, n); }

/* The execution fields, from the worker's verdict: small ones in a tree,
 * the big ones (value, store_writes, tests, calls) as kept text. */
static json_t *build_fields(struct exec *e)
{
	unsigned long oom = msg_alloc_failures();
	json_t *error = NULL;
	e->state = run_verdict(e, &error);
	bool success = e->state == STATE_COMPLETED;
	json_t *f = json_pack("{s:s, s:s}", "execution_id", e->reg.id, "state",
			      request_state_name(e->state));
	const struct ctl_msg *r = &e->result;
	int rc = 0;
	if (e->mode == EXEC_TEST) {
		success = success && add_test_report(f, e, &error);
		if (e->have_result && r->has_test)
			rc |= keep(e, "tests", r->tests, r->tests_len);
	}
	json_object_set_new(f, "success", json_boolean(success));
	if (e->state == STATE_COMPLETED && e->have_result && r->value && e->mode != EXEC_TEST) {
		if (!buf_len(&e->kept) && r->value_borrowed && e->result_text.data) {
			/* The result frame becomes the kept text: from the value
			 * member on, the rest cut off (and given back below). */
			buf_free(&e->kept);
			e->kept = e->result_text;
			e->result_text = (struct buf)BUF_INIT;
			e->kept.start = r->value_member.off;
			e->kept.end = r->value_member.off + r->value_member.len;
			e->kept.data[e->kept.start] = ',';
		} else {
			rc |= keep(e, "value", r->value, r->value_len);
		}
	}
	/* The store's changes count only for a successful script; writes that
	 * change nothing are left out. */
	if (success && e->have_result && r->store_writes &&
	    (e->had_store || strcmp(r->store_writes, "{\"set\":{},\"delete\":[]}") != 0))
		rc |= keep(e, "store_writes", r->store_writes, r->store_writes_len);
	if (e->tool_names) {
		struct buf calls = BUF_INIT;
		if (jnum_dump_callback(e->calls, dump_to_buf, &calls, JSON_COMPACT) < 0)
			rc = -1;
		else
			rc |= keep(e, "calls", buf_peek(&calls), buf_len(&calls));
		buf_free(&calls);
		if (e->calls_dropped)
			json_object_set_new(f, "calls_dropped",
					    json_integer((json_int_t)e->calls_dropped));
	}
	json_decref(e->calls);
	e->calls = NULL;
	if (rc < 0) {
		/* Out of memory keeping the results: say so rather than lie. */
		buf_free(&e->kept);
		json_decref(error);
		error = json_pack("{s:s, s:s}", "kind", "sandbox", "message",
				  "the daemon ran out of memory keeping the result");
		json_object_set_new(f, "success", json_false());
		e->state = STATE_FAILED; /* and its record says failed, not completed */
		json_object_set_new(f, "state", json_string(request_state_name(e->state)));
		json_object_del(f, "summary"); /* a report whose entries are lost */
	}
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
	if (e->have_result && r->heap_peak >= 0)
		json_object_set_new(f, "heap_peak_bytes", json_integer(r->heap_peak));
	if (f && msg_alloc_failures() == oom)
		return f;
	/* A record with holes would tell a lie (a value missing, success
	 * without its state): the result is lost, and the record says so. */
	json_decref(f);
	buf_free(&e->kept);
	e->state = STATE_FAILED;
	return json_pack("{s:s, s:s, s:b, s:{s:s, s:s}}", "execution_id", e->reg.id, "state",
			 request_state_name(e->state), "success", 0, "error", "kind", "sandbox",
			 "message", "out of memory recording the result");
}

/* What an ended execution keeps, in bytes, as retention counts it: its
 * record, its output, its kept text, its small fields (as text, twice
 * over for the tree that holds them) and its tools' names. */
static size_t kept_bytes(struct exec *e)
{
	for (int i = 0; i < 2; i++) {
		/* Give back what the buffers grew beyond their contents. */
		struct buf *b = &e->out[i];
		if (b->data && b->start == 0 && b->cap > b->end) {
			char *p = realloc(b->data, b->end ? b->end : 1);
			if (p) {
				b->data = p;
				b->cap = b->end ? b->end : 1;
			}
		}
	}
	struct buf *k = &e->kept;
	if (k->data && k->cap > k->end && k->end) { /* in place: nothing moves */
		char *p = realloc(k->data, k->end);
		if (p) {
			k->data = p;
			k->cap = k->end;
		}
	}
	size_t n = sizeof *e + e->out[OUT].cap + e->out[ERR].cap + e->kept.cap;
	char *f = jnum_dumps(e->fields, JSON_COMPACT);
	n += f ? 2 * strlen(f) : 0;
	free(f);
	if (e->cached_name)
		n += strlen(e->cached_name) + 1;
	size_t i;
	json_t *t;
	json_array_foreach (e->tool_names, i, t) /* the string and its slot */
		n += json_string_length(t) + 64;
	return n;
}

/* The source copies an execution holds count against --queue-bytes until
 * they are freed, and the replies waiting for room against --reply-bytes
 * until they are out, in all and per owner (a small table: owners with
 * source or replies held, found by their scheduling key). */
static size_t source_bytes;
struct owner_source {
	unsigned long long key;
	size_t bytes;  /* source */
	size_t unsent; /* replies waiting or streaming */
	unsigned held; /* executions waiting to start (see must_hold) */
};
static struct owner_source *owner_sources;
static size_t owner_sources_len, owner_sources_cap;

/* The entry of owner key, created (with 0 bytes) when create is set;
 * NULL when absent or out of memory. */
static struct owner_source *owner_source(unsigned long long key, bool create)
{
	for (size_t i = 0; i < owner_sources_len; i++)
		if (owner_sources[i].key == key)
			return &owner_sources[i];
	if (!create)
		return NULL;
	if (owner_sources_len == owner_sources_cap) {
		size_t cap = owner_sources_cap ? 2 * owner_sources_cap : 16;
		struct owner_source *p = realloc(owner_sources, cap * sizeof *p);
		if (!p)
			return NULL;
		owner_sources = p;
		owner_sources_cap = cap;
	}
	owner_sources[owner_sources_len] = (struct owner_source){key, 0, 0, 0};
	return &owner_sources[owner_sources_len++];
}

/* Forgets o once it holds nothing (the last entry moves into its place). */
static void owner_tidy(struct owner_source *o)
{
	if (!o->bytes && !o->unsent && !o->held)
		*o = owner_sources[--owner_sources_len];
}

/* Gives back n bytes of e's owner's share. */
static void owner_source_drop(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (!o || !n)
		return;
	o->bytes -= n < o->bytes ? n : o->bytes;
	owner_tidy(o);
}

/* e's reply of n bytes waits (add) or is out (drop), for its owner. */
static void owner_unsent_add(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), true);
	if (o)
		o->unsent += n; /* without memory for the entry, the total alone bounds it */
}

static void owner_unsent_drop(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (!o || !n)
		return;
	o->unsent -= n < o->unsent ? n : o->unsent;
	owner_tidy(o);
}

/* Replies waiting for room (their executions ended, their clients slow to
 * read), in bytes. Executions of clients that owe too much wait here
 * instead of starting (see must_hold), so unread replies cannot pile up
 * without end; they hold no worker slot while they wait. */
static size_t unsent_bytes;
/* Records aged out but still streamed from (see exec_unpin), in bytes. */
static size_t evicted_pinned;
static struct list_node held = {&held, &held};
/* Held executions count as waiting, in all and per owner, against --queue
 * and --max-queued-per-owner: holding one gives its worker slot back, and
 * the scheduler's own counts no longer see it. */
static unsigned held_count;
unsigned exec_held(void) { return held_count; }

static void hold(struct exec *e)
{
	e->held = true;
	list_add_tail(&held, &e->held_link);
	held_count++;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), true);
	if (o) /* without memory for the entry, the total alone bounds it */
		o->held++;
}

static void unhold(struct exec *e)
{
	list_del(&e->held_link);
	e->held = false;
	held_count--;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (o && o->held) {
		o->held--;
		owner_tidy(o);
	}
}

/* Should e wait before it starts? When its own client already owes more
 * than its connection's budget; when its owner's replies waiting for room
 * already take their share of the global budget (half of --reply-bytes,
 * so that one owner's unread replies leave room for others'); or when
 * all owners' together take all of it. Replies of executions already
 * running when the budget fills may add one output each (bounded by
 * --max-workers): so unsent replies never pass reply-bytes by more. */
static bool must_hold(const struct exec *e)
{
	if (shutting_down)
		return false;
	/* Records that aged out while replies still stream from them are
	 * freed only once those end: new records (whose arrival ages old
	 * ones out) wait while they hold the reply budget. */
	if (evicted_pinned >= settings.reply_bytes)
		return true;
	if (!e->conn || e->mode == EXEC_ASYNC)
		return false;
	if (conn_owes_too_much(e->conn) || unsent_bytes >= settings.reply_bytes)
		return true;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	return o && o->unsent >= settings.reply_bytes / LIMIT_REPLY_BYTES_OWNER_SHARE;
}

/* Held executions whose clients caught up go back to the scheduler (at
 * the end of the queue: they had their turn). */
static void start_held(void)
{
	static bool starting, asked;
	if (starting) {
		asked = true; /* looked at again once this walk is over */
		return;
	}
	starting = true;
again:
	asked = false;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &held) {
		struct exec *e = LIST_ITEM(n, struct exec, held_link);
		if (must_hold(e))
			continue;
		unhold(e);
		if (sched_submit(&e->sched, owner_sched_key(&e->owner)) !=
		    SCHED_OK) { /* full: later */
			hold(e);
			asked = false; /* the queue is full: a slot's release asks again */
			break;
		}
	}
	if (asked)
		goto again;
	starting = false;
}

void exec_drop_source(struct exec *e, bool keep_code)
{
	free(e->tests);
	free(e->store);
	e->tests = e->store = NULL;
	if (!keep_code) {
		free(e->code);
		e->code = NULL;
	}
	if (!e->code && e->source_bytes) {
		source_bytes -= e->source_bytes;
		owner_source_drop(e, e->source_bytes);
		e->source_bytes = 0;
	}
}

/* The record is final and its reply (if any) sent: it ages out now. */
static void retire(struct exec *e)
{
	if (e->conn)
		conn_unsubscribe(e->conn, &e->sub);
	e->conn = NULL;
	json_decref(e->req_id);
	e->req_id = NULL;
	registry_finished(&e->reg, kept_bytes(e));
}

static void reply_unwait(struct exec *e)
{
	if (!e->reply_waits)
		return;
	e->reply_waits = false;
	unsent_bytes -= e->unsent;
	owner_unsent_drop(e, e->unsent);
	e->unsent = 0;
	start_held();
}

static long reply_fill(struct conn_stream *s, struct buf *out, size_t max)
{
	struct exec *e = container_of(s, struct exec, reply);
	return msg_stream_fill(&e->reply_msg, out, max);
}

/* The final reply is out (or its client gone): the record ages out now. */
static void reply_done(struct conn_stream *s, bool sent)
{
	(void)sent;
	struct exec *e = container_of(s, struct exec, reply);
	msg_stream_free(&e->reply_msg);
	e->streaming = false;
	reply_unwait(e);
	retire(e);
}

/* There is room on the requester's connection: the final reply, the
 * fields, then stdout and stderr escaped and the kept text copied as the
 * client reads them, never the whole reply at once. Until it is out the
 * record is not retired, so it cannot age out under the stream. */
static void on_room(struct conn_pending *p)
{
	struct exec *e = container_of(p, struct exec, room);
	conn_exec_end(e->conn); /* its final reply counts as any other */
	unsigned long oom = msg_alloc_failures();
	json_t *r = msg_reply_ok(e->req_id);
	json_object_update(r, e->fields);
	if (!e->fields || msg_alloc_failures() != oom) {
		/* A reply with holes would lie: the client is told instead. */
		json_decref(r);
		r = msg_reply_error(e->req_id, STATUS_RESOURCE_EXHAUSTED,
				    "out of memory building the reply");
		conn_send(e->conn, r);
		json_decref(r);
		reply_unwait(e);
		retire(e);
		return;
	}
	struct msg_stream *m = &e->reply_msg;
	msg_stream_init(m);
	msg_stream_object(m, r);
	json_decref(r);
	if (e->mode != EXEC_STREAM)
		for (int i = 0; i < 2; i++)
			msg_stream_string(m, i ? "stderr" : "stdout", &e->out[i], 0,
					  buf_len(&e->out[i]), e->out_esc[i]);
	msg_stream_members(m, &e->kept, 0, buf_len(&e->kept));
	if (msg_stream_end(m) < 0) {
		log_err("%s: cannot build its reply (out of memory)", e->reg.id);
		msg_stream_free(m);
		/* The client must not wait for it: an error, or the end. */
		json_t *er = msg_reply_error(e->req_id, STATUS_RESOURCE_EXHAUSTED,
					     "out of memory building the reply");
		conn_send(e->conn, er);
		json_decref(er);
		reply_unwait(e);
		retire(e);
		return;
	}
	e->streaming = true;
	e->reply.total = m->total;
	/* The record is counted as an unsent reply (unsent_bytes) until the
	 * stream ends, so only the bytes queued count as the connections'. */
	e->reply.owed_globally = false;
	e->reply.final = true;
	e->reply.id = e->req_id;
	e->reply.fill = reply_fill;
	e->reply.done = reply_done;
	conn_send_stream(e->conn, &e->reply);
}

/* Final: wakes the watches, replies to the requester once its connection
 * has room, and leaves the record to the registry. */
static void complete(struct exec *e)
{
	e->phase = PHASE_DONE;
	log_info("%s %s %s in %lld ms (pid %d%s)", e->reg.id, mode_names[e->mode],
		 request_state_name(e->state),
		 (long long)json_integer_value(json_object_get(e->fields, "execution_time_ms")),
		 (int)e->pid, e->conn || e->mode == EXEC_ASYNC ? "" : ", client gone");
	exec_drop_source(e, false);
	struct list_node *n;
	while ((n = list_first(&e->watches)) != NULL) {
		struct exec_watch *w = LIST_ITEM(n, struct exec_watch, link);
		list_del(n);
		w->done(w, e);
	}
	if (!e->conn || e->mode == EXEC_ASYNC) {
		retire(e);
		return;
	}
	size_t hint = buf_len(&e->kept) + 4096;
	if (e->mode != EXEC_STREAM)
		hint += e->out_esc[OUT] + e->out_esc[ERR];
	e->reply_waits = true;
	/* One reply counts a quarter of the budget at most, so that a reply
	 * bigger than the budget being read does not hold everything else
	 * back: beyond the budget there are then at most four such. */
	size_t most = settings.reply_bytes / LIMIT_REPLY_COUNTED_SHARE;
	e->unsent = hint < most ? hint : most;
	unsent_bytes += e->unsent;
	owner_unsent_add(e, e->unsent);
	e->room.ready = on_room;
	conn_when_room(e->conn, &e->room, hint);
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

/* Answers the pending call: value (borrowed; or value_json, its compact
 * text when rendered already, off the loop) or error. */
static void answer_call_text(struct exec *e, json_t *value, const char *value_json,
			     size_t value_json_len, const char *error)
{
	unsigned long oom = msg_alloc_failures();
	json_t *m = json_pack("{s:s, s:I}", "type", "tool_result", "call_id", e->pending_call);
	struct buf members = BUF_INIT;
	if (error)
		json_object_set_new(m, "error", json_string(error));
	else if (!value_json)
		json_object_set(m, "value", value);
	else if (buf_append(&members, ",\"value\":", 9) < 0 ||
		 buf_append(&members, value_json, value_json_len) < 0)
		json_object_set_new(
			m, "error",
			json_string("the daemon ran out of memory relaying the result"));
	if (msg_alloc_failures() != oom) {
		/* An answer with holes would be a lie: run_send_raw kills the
		 * worker over an answer it cannot send. */
		json_decref(m);
		m = NULL;
	}
	run_send_raw(e, m, buf_len(&members) ? buf_peek(&members) : NULL, buf_len(&members));
	buf_free(&members);
	json_decref(m);
	finish_call(e, error ? "error" : "ok");
}

static void answer_call(struct exec *e, json_t *value, const char *error)
{
	answer_call_text(e, value, NULL, 0, error);
}

static const char gone_message[] =
	"the client that submitted this execution has gone, so its tools cannot be called";

/* A tool_call event on its way to the client; it owns the arguments. */
struct call_event {
	struct conn_stream stream;
	struct msg_stream msg;
	struct buf args;
};

static long call_event_fill(struct conn_stream *s, struct buf *out, size_t max)
{
	return msg_stream_fill(&container_of(s, struct call_event, stream)->msg, out, max);
}

static void call_event_done(struct conn_stream *s, bool sent)
{
	(void)sent;
	struct call_event *ce = container_of(s, struct call_event, stream);
	msg_stream_free(&ce->msg);
	buf_free(&ce->args);
	free(ce);
}

void exec_tool_call(struct exec *e, json_int_t call_id, const char *name, char *args,
		    size_t args_len)
{
	e->last_call = e->pending_call = call_id;
	e->call_start_us = loop_clock_us();
	/* Past the limit a call never reaches the client: it throws inside
	 * the script, and the record counts it. */
	if (json_array_size(e->calls) >= LIMIT_TOOL_CALLS) {
		e->calls_dropped++;
		json_t *m = json_pack("{s:s, s:I, s:s}", "type", "tool_result", "call_id", call_id,
				      "error",
				      "too many tool calls: an execution may make at "
				      "most " LIMIT_TOOL_CALLS_TEXT);
		run_send(e, m);
		json_decref(m);
		e->pending_call = 0;
		free(args);
		return;
	}
	json_array_append_new(e->calls, json_pack("{s:I, s:s, s:s}", "call_id", call_id, "name",
						  name, "status", "pending"));
	if (!e->conn) {
		free(args);
		answer_call(e, NULL, gone_message);
		return;
	}
	/* A call whose client does not read what it is sent already would
	 * queue its arguments (up to 16 MiB) without end: it fails in the
	 * script at once instead. */
	if (conn_owes_too_much(e->conn) || conn_reply_bytes_queued() > settings.reply_bytes) {
		free(args);
		answer_call(e, NULL,
			    "the client is not reading its replies and events (it owes more than "
			    "its budget): tool call refused");
		return;
	}
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(e->req_id, "tool_call");
	json_object_set_new(ev, "execution_id", json_string(e->reg.id));
	json_object_set_new(ev, "call_id", json_integer(call_id));
	json_object_set_new(ev, "name", json_string(name));
	/* The arguments (up to a control frame's 16 MiB) go out as the client
	 * reads, from the text the worker sent, never copied whole in a turn. */
	struct call_event *ce = calloc(1, sizeof *ce);
	if (ce) {
		ce->args = (struct buf){args, 0, args_len, args_len};
		args = NULL;
		msg_stream_init(&ce->msg);
		msg_stream_object(&ce->msg, ev);
		msg_stream_json(&ce->msg, "args", &ce->args, 0, args_len);
	}
	json_decref(ev);
	/* An event with holes is not sent: the call fails in the script. */
	if (!ce || msg_stream_end(&ce->msg) < 0 || msg_alloc_failures() != oom) {
		if (ce)
			call_event_done(&ce->stream, false);
		free(args);
		answer_call(e, NULL, "the daemon ran out of memory relaying the call");
		return;
	}
	ce->stream.total = ce->msg.total;
	ce->stream.owed_globally = true; /* it holds the arguments */
	ce->stream.final = false;
	ce->stream.id = NULL;
	ce->stream.fill = call_event_fill;
	ce->stream.done = call_event_done;
	conn_send_stream(e->conn, &ce->stream);
}

int exec_tool_result(struct exec *e, struct conn *c, uint64_t call_id, json_t *value,
		     const char *value_json, size_t value_json_len, const char *error,
		     enum status *code, const char **message)
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
	answer_call_text(e, value, value_json, value_json_len, error);
	return 0;
}

void exec_ended(struct exec *e)
{
	if (e->pending_call)
		finish_call(e, "cancelled");
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	run_release(e);
	/* caches: the lowered text the worker made, kept for its owner. */
	if (e->have_result && e->killed != KILL_PROTOCOL)
		lcache_offer(&e->lowered, e->owner.key, e->result.lowered, e->result.lowered_len);
	lcache_slot_clear(&e->lowered);
	ctl_msg_clear(&e->result);
	buf_free(&e->result_text);
	leave_live(e);
	/* New code that ran successfully goes to the cache, and the reply says
	 * where; the write itself goes on after the reply. */
	bool store =
		e->cache && !e->cached_name && e->mode != EXEC_TEST && e->state == STATE_COMPLETED;
	e->phase = PHASE_STORING;
	sched_release(&e->sched);
	json_t *info = store ? cache_store(e->owner.key, e->code, e->code_len) : NULL;
	if (info)
		json_object_set_new(e->fields, "cached", info);
	complete(e);
}

/* Ends an execution that never got a worker. */
static void end_queued(struct exec *e, enum kill_reason why)
{
	sched_remove(&e->sched);
	if (e->held)
		unhold(e);
	e->killed = why;
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	leave_live(e);
	complete(e);
}

static void exec_free(struct registry_entry *r)
{
	struct exec *e = container_of(r, struct exec, reg);
	if (e->pins) {
		/* A reply still streams from it: freed at the last unpin, and
		 * counted meanwhile (see must_hold). */
		e->evicted = true;
		e->evicted_bytes = sizeof *e + e->out[OUT].cap + e->out[ERR].cap + e->kept.cap;
		evicted_pinned += e->evicted_bytes;
		return;
	}
	source_bytes -= e->source_bytes;
	owner_source_drop(e, e->source_bytes);
	json_decref(e->fields);
	json_decref(e->req_id);
	json_decref(e->tool_names);
	free(e->store);
	json_decref(e->calls);
	buf_free(&e->kept);
	ctl_msg_clear(&e->result);
	buf_free(&e->result_text);
	lcache_slot_clear(&e->lowered); /* caches */
	buf_free(&e->out[OUT]);
	buf_free(&e->out[ERR]);
	free(e->cached_name);
	free(e->code);
	free(e->tests);
	free(e);
}

void exec_pin(struct exec *e) { e->pins++; }

void exec_unpin(struct exec *e)
{
	if (--e->pins == 0 && e->evicted) {
		evicted_pinned -= e->evicted_bytes;
		e->evicted = false; /* freed now, for good */
		exec_free(&e->reg);
		start_held();
	}
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
	const struct buf *b = &e->out[i];
	e->out_esc[i] += jstr_escaped_len(buf_peek(b) + from, buf_len(b) - from);
	if (e->mode != EXEC_STREAM || !e->conn)
		return;
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
	if (e->streaming)
		return; /* the stream's done retires it */
	if (e->reply_waits) {
		/* Ended; its reply has no one to go to any more. */
		conn_pending_cancel(&e->room);
		reply_unwait(e);
		retire(e);
		return;
	}
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
	if (e->held)
		start_held();
}

static const struct conn_sub_ops sub_ops = {on_conn_gone, on_conn_drained};

/* The started event of an execute, stream or test request, once: the
 * first frame for its request, so its client can name the execution (to
 * status or cancel) before anything else comes. state is the execution's
 * state now; a queue position goes with pending as status would give it.
 * Sent before the execution starts, since a start that fails answers the
 * request at once. Not counted against the reply budgets, like the other
 * events: there is one per accepted request, and a connection whose
 * frames pile up unread stops being read (conn_owes_too_much). */
static void announce(struct exec *e, enum exec_state state)
{
	if (e->announced)
		return;
	e->announced = true;
	if (!e->conn || e->mode == EXEC_ASYNC)
		return; /* async: its reply carries the id */
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(e->req_id, "started");
	json_object_set_new(ev, "execution_id", json_string(e->reg.id));
	json_object_set_new(ev, "state", json_string(request_state_name(state)));
	unsigned pos = state == STATE_PENDING ? exec_queue_position(e) : 0;
	if (pos)
		json_object_set_new(ev, "queue_position", json_integer(pos));
	conn_send(e->conn, msg_alloc_failures() == oom ? ev : NULL);
	json_decref(ev);
}

/* The execution exec_submit is submitting, and whether it started (and
 * was announced) before sched_submit returned: then it may have ended
 * already, and exec_submit does not look at it again. */
static struct exec *submitting;
static bool submitting_started;

static void on_start(struct sched_entry *s)
{
	struct exec *e = container_of(s, struct exec, sched);
	if (must_hold(e)) {
		/* It gives its slot back and waits, holding only its code. */
		hold(e);
		sched_release(&e->sched);
		return;
	}
	announce(e, STATE_RUNNING); /* it starts now */
	if (e == submitting)
		submitting_started = true;
	run_start(e);
}

/* The queue caps, counting held executions as waiting: SCHED_OK when e
 * may be submitted. */
static enum sched_result held_queue_full(const struct exec *e)
{
	if (!held_count)
		return SCHED_OK;
	if (sched_queued() + held_count >= settings.queue_max)
		return SCHED_QUEUE_FULL;
	uint64_t key = owner_sched_key(&e->owner);
	const struct owner_source *o = owner_source(key, false);
	if (o && o->held && sched_owner_queued(key) + o->held >= sched_per_owner_queued())
		return SCHED_OWNER_FULL;
	return SCHED_OK;
}

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
	static char queue_msg[256];
	*status = STATUS_RESOURCE_EXHAUSTED;
	*message = "out of memory";
	if (shutting_down) {
		*status = STATUS_UNAVAILABLE;
		*message = "the daemon is shutting down";
		return NULL;
	}
	/* What waits to run is bounded in bytes too, not only in number: its
	 * code, tests and store (rendered already when parsed off the loop,
	 * else measured without rendering). */
	size_t store_len = !req->store	     ? 0
			   : req->store_json ? req->store_json_len
					     : jnum_dumpb(req->store, NULL, 0, JSON_COMPACT);
	size_t source = (code ? code_len : 0) + (req->tests ? req->tests_len : 0) + store_len;
	if (source_bytes && source_bytes + source > settings.queue_bytes) {
		snprintf(queue_msg, sizeof queue_msg,
			 "the executions waiting or running already hold %zu bytes of code, "
			 "tests and stores (--queue-bytes %zu)",
			 source_bytes, settings.queue_bytes);
		*message = queue_msg;
		return NULL;
	}
	/* And one owner's share of it is bounded, so that others find room. */
	struct owner_source *mine = owner_source(owner_sched_key(conn_owner(c)), false);
	size_t share = settings.queue_bytes / LIMIT_QUEUE_BYTES_OWNER_SHARE;
	if (mine && mine->bytes + source > share) {
		snprintf(queue_msg, sizeof queue_msg,
			 "your executions waiting or running already hold %zu bytes of code, "
			 "tests and stores, and "
			 "one owner may hold at most %zu (half of --queue-bytes %zu)",
			 mine->bytes, share, settings.queue_bytes);
		*message = queue_msg;
		return NULL;
	}
	struct exec *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->owner = *conn_owner(c);
	e->mode = req->op == OP_STREAM	? EXEC_STREAM
		  : req->op == OP_ASYNC ? EXEC_ASYNC
		  : req->op == OP_TEST	? EXEC_TEST
					: EXEC_EXECUTE;
	if (code && code == req->code && req->code_take && *req->code_take) {
		e->code = *req->code_take; /* copied off the loop already */
		*req->code_take = NULL;
	} else {
		e->code = code ? copy(code, code_len) : NULL;
	}
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
	e->source_bytes = source;
	source_bytes += source;
	/* Looked up again: the table may have moved since. */
	struct owner_source *o = source ? owner_source(owner_sched_key(&e->owner), true) : NULL;
	if (o)
		o->bytes += source;
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
	/* Of the request only what the run needs stays: the tools' names
	 * (not their schemas) and the store as text until the worker has it. */
	if (req->tools) {
		e->tool_names = json_array();
		size_t i;
		json_t *t;
		json_array_foreach (req->tools, i, t)
			json_array_append(e->tool_names, json_object_get(t, "name"));
	}
	if (req->store) {
		/* Rendered already when the request was parsed off the loop. */
		e->store = req->store_json ? copy(req->store_json, req->store_json_len)
					   : jnum_dumps(req->store, JSON_COMPACT);
		e->store_len = e->store ? strlen(e->store) : 0;
		e->had_store = true;
	}
	e->calls = json_array();
	total++;
	/* Counted before it is submitted: it may start, fail to and answer
	 * (conn_exec_end) before sched_submit returns. */
	if (e->mode != EXEC_ASYNC)
		conn_exec_begin(c);
	enum sched_result sr = held_queue_full(e);
	submitting = e;
	submitting_started = false;
	if (sr == SCHED_OK)
		sr = sched_submit(&e->sched, owner_sched_key(&e->owner));
	submitting = NULL;
	if (sr != SCHED_OK) {
		total--;
		if (e->mode != EXEC_ASYNC)
			conn_exec_end(c);
		if (e->conn)
			conn_unsubscribe(e->conn, &e->sub);
		leave_live(e);
		registry_remove(&e->reg);
		exec_free(&e->reg);
		if (sr == SCHED_OWNER_FULL)
			snprintf(queue_msg, sizeof queue_msg,
				 "the per-owner queue limit is reached: %u of your executions are "
				 "already waiting (--max-queued-per-owner)",
				 sched_per_owner_queued());
		else if (sr == SCHED_QUEUE_FULL)
			snprintf(queue_msg, sizeof queue_msg,
				 "the execution queue is full (%u waiting)",
				 sched_queued() + held_count);
		if (sr != SCHED_NO_MEMORY)
			*message = queue_msg;
		return NULL;
	}
	/* Unless it started already (on_start said so): it waits, queued or
	 * held (then without a position, as status says). */
	if (!submitting_started)
		announce(e, exec_state(e));
	return e;
}

void exec_shutdown(void)
{
	shutting_down = true;
	struct sched_entry *s;
	while ((s = sched_first_queued()) != NULL)
		end_queued(container_of(s, struct exec, sched), KILL_SHUTDOWN);
	struct list_node *n;
	while ((n = list_first(&held)) != NULL)
		end_queued(LIST_ITEM(n, struct exec, held_link), KILL_SHUTDOWN);
}

void exec_kill_all(void)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &live)
		run_kill(LIST_ITEM(n, struct exec, link), KILL_SHUTDOWN);
}

void exec_init(const struct exec_settings *s)
{
	settings = *s;
	struct sched_settings ss = {s->max_workers, s->queue_max, s->per_owner_running,
				    s->per_owner_queued};
	sched_init(&ss, on_start);
	struct registry_config rc = {s->retention_ms, s->retain_count, s->retain_bytes, exec_free};
	registry_init(&rc);
}
