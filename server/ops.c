/* ops.c - what each request op does; see ops.h. */
#include "ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/source.h"
#include "cache.h"
#include "conn.h"
#include "decl.h"
#include "exec.h"
#include "lcache.h"
#include "log.h"
#include "loop.h"
#include "parse.h"
#include "spawn.h"

struct request_limits ops_limits;
uint64_t ops_retention_ms;
static const char *version;
static uint64_t started_ms;

void ops_init(const struct request_limits *limits, const char *v, uint64_t retention_ms)
{
	ops_limits = *limits;
	ops_retention_ms = retention_ms;
	version = v;
	started_ms = loop_now_ms();
}

static void reply_error(struct conn *c, json_t *id, enum status code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void reply_error(struct conn *c, json_t *id, enum status code, const char *fmt, ...)
{
	char msg[1536]; /* room for an ambiguous name's list of matches */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *r = msg_reply_error(id, code, msg);
	conn_send(c, r);
	json_decref(r);
}

/* msg_alloc_failures() when the reply being built was begun: a request
 * being handled, or a wait ending. */
static unsigned long oom_mark;

/* Sends r (consumed), built since oom_mark, unless an allocation failed on
 * the way: a reply with holes is no success, so RESOURCE_EXHAUSTED goes
 * instead. */
static void send_reply(struct conn *c, json_t *id, json_t *r)
{
	if (!r || msg_alloc_failures() != oom_mark) {
		json_decref(r);
		r = msg_reply_error(id, STATUS_RESOURCE_EXHAUSTED,
				    "out of memory building the reply");
	}
	conn_send(c, r);
	json_decref(r);
}

/* ---- replies that wait: status long-polls, cancel, cache_clear */

enum wait_kind { WAIT_STATUS, WAIT_CANCEL, WAIT_CLEAR };

struct waiter {
	enum wait_kind kind;
	struct exec_watch watch;
	struct conn_sub sub;
	struct conn *conn; /* NULL once the client is gone */
	json_t *id;
	uint64_t offset[2];
	struct loop_timer timer;
	struct exec *e;
	/* status: the reply waits for room on the connection, and finds its
	 * execution again by id then (it may have aged out meanwhile) */
	struct conn_pending room;
	char exec_id[32];
	/* status: the reply streams from the execution, pinned meanwhile */
	struct conn_stream stream;
	struct msg_stream msg;
	struct exec *pinned;
};

static void waiter_free(struct waiter *w)
{
	loop_timer_cancel(&w->timer);
	conn_pending_cancel(&w->room);
	if (w->conn)
		conn_unsubscribe(w->conn, &w->sub);
	json_decref(w->id);
	free(w);
}

static void on_waiter_gone(struct conn_sub *s)
{
	struct waiter *w = container_of(s, struct waiter, sub);
	w->conn = NULL;
	if (w->pinned)
		return; /* its stream's done frees it */
	/* A cache_clear goes on without its client; the others stop here. */
	if (w->kind != WAIT_CLEAR) {
		exec_unwatch(&w->watch);
		waiter_free(w);
	}
}

static void on_waiter_drained(struct conn_sub *s) { (void)s; }

static const struct conn_sub_ops waiter_ops = {on_waiter_gone, on_waiter_drained};

static struct waiter *waiter_new(struct conn *c, json_t *id, enum wait_kind kind)
{
	struct waiter *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->kind = kind;
	w->conn = c;
	w->id = json_incref(id);
	w->timer = (struct loop_timer)LOOP_TIMER_INIT;
	w->sub.ops = &waiter_ops;
	list_init(&w->watch.link);
	list_init(&w->room.link);
	conn_subscribe(c, &w->sub);
	return w;
}

/* ---- status */

/* Checks an output offset: within what was written, on a character. */
static const char *bad_offset(const struct buf *b, uint64_t off)
{
	if (off > buf_len(b))
		return "is past the end of the output so far";
	if (off < buf_len(b) && ((unsigned char)buf_peek(b)[off] & 0xC0) == 0x80)
		return "is inside a character (use a length this daemon returned)";
	return NULL;
}

/* The end of a chunk of b from off of at most max bytes, on a character. */
static size_t chunk_end(const struct buf *b, size_t off, size_t max)
{
	size_t end = buf_len(b) - off > max ? off + max : buf_len(b);
	while (end > off && end < buf_len(b) && ((unsigned char)buf_peek(b)[end] & 0xC0) == 0x80)
		end--;
	return end;
}

static long status_fill(struct conn_stream *s, struct buf *out, size_t max)
{
	return msg_stream_fill(&container_of(s, struct waiter, stream)->msg, out, max);
}

static void status_done(struct conn_stream *s, bool sent)
{
	(void)sent;
	struct waiter *w = container_of(s, struct waiter, stream);
	msg_stream_free(&w->msg);
	exec_unpin(w->pinned);
	w->pinned = NULL;
	waiter_free(w);
}

/* The members of a status reply the execution's fields add: those the
 * reply does not already have. */
static bool status_has(const char *key)
{
	static const char *const own[] = {
		"id",
		"ok",
		"execution_id",
		"state",
		"queue_position",
		"stdout",
		"stdout_length",
		"stdout_next",
		"stderr",
		"stderr_length",
		"stderr_next",
		"output_more",
	};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (strcmp(key, own[i]) == 0)
			return true;
	return false;
}

/* A status reply: output from the offsets, at most LIMIT_STATUS_OUTPUT_BYTES
 * of it in all (stdout first), and the fields once done. It streams from
 * the execution (w->pinned) as the client reads it, so neither the output
 * chunk nor a big kept value is encoded in one turn; w is freed once it is
 * out. -1 when out of memory (w is the caller's still). */
static int send_status(struct waiter *w, struct exec *e)
{
	struct msg_stream *m = &w->msg;
	msg_stream_init(m);
	json_t *r = msg_reply_ok(w->id);
	json_object_set_new(r, "execution_id", json_string(exec_id(e)));
	json_object_set_new(r, "state", json_string(request_state_name(exec_state(e))));
	unsigned pos = exec_queue_position(e);
	if (pos)
		json_object_set_new(r, "queue_position", json_integer(pos));
	msg_stream_object(m, r);
	json_decref(r);
	size_t room = LIMIT_STATUS_OUTPUT_BYTES;
	bool more = false;
	for (int i = 0; i < 2; i++) {
		const struct buf *b = exec_output(e, i);
		size_t off = (size_t)w->offset[i];
		size_t end = chunk_end(b, off, room);
		room -= end - off;
		more = more || end < buf_len(b);
		size_t esc = end - off == buf_len(b)
				     ? exec_output_escaped(e, i)
				     : jstr_escaped_len(buf_peek(b) + off, end - off);
		msg_stream_string(m, i ? "stderr" : "stdout", b, off, end - off, esc);
		json_t *o = json_pack("{s:I, s:I}", i ? "stderr_length" : "stdout_length",
				      (json_int_t)buf_len(b), i ? "stderr_next" : "stdout_next",
				      (json_int_t)end);
		msg_stream_object(m, o);
		json_decref(o);
	}
	json_t *tail = json_pack("{s:b}", "output_more", more);
	json_t *fields = exec_fields(e);
	const char *key;
	json_t *v;
	if (fields)
		json_object_foreach (fields, key, v)
			if (!status_has(key))
				json_object_set(tail, key, v);
	msg_stream_object(m, tail);
	json_decref(tail);
	size_t len;
	exec_kept(e, &len);
	if (len)
		msg_stream_members(m, exec_kept_buf(e), 0, len);
	if (msg_stream_end(m) < 0) {
		msg_stream_free(m);
		return -1;
	}
	exec_pin(e);
	w->pinned = e;
	w->stream.total = m->total;
	w->stream.owed_globally = true; /* the pinned record may age out */
	w->stream.final = true;
	w->stream.id = w->id;
	w->stream.fill = status_fill;
	w->stream.done = status_done;
	conn_send_stream(w->conn, &w->stream);
	return 0;
}

static void on_status_room(struct conn_pending *p)
{
	struct waiter *w = container_of(p, struct waiter, room);
	struct exec *e = exec_find(w->exec_id);
	if (e) {
		if (send_status(w, e) == 0)
			return;
		reply_error(w->conn, w->id, STATUS_RESOURCE_EXHAUSTED,
			    "out of memory building the status reply");
	} else
		reply_error(
			w->conn, w->id, STATUS_NOT_FOUND,
			"execution_id: execution \"%s\" aged out before its status could be sent",
			w->exec_id);
	waiter_free(w);
}

/* A status reply is built only once the connection has room for it. */
static void status_when_room(struct waiter *w, struct exec *e)
{
	size_t hint = 4096, room = LIMIT_STATUS_OUTPUT_BYTES, kept;
	for (int i = 0; i < 2; i++) {
		size_t left = buf_len(exec_output(e, i)) - (size_t)w->offset[i];
		size_t n = left < room ? left : room;
		room -= n;
		hint += n + n / 8; /* escapes */
	}
	exec_kept(e, &kept);
	hint += kept;
	/* Whatever woke it, the wait is over: only room is waited for now. */
	loop_timer_cancel(&w->timer);
	exec_unwatch(&w->watch);
	w->kind = WAIT_STATUS;
	snprintf(w->exec_id, sizeof w->exec_id, "%s", exec_id(e));
	w->room.ready = on_status_room;
	conn_when_room(w->conn, &w->room, hint);
}

static void waiter_reply(struct waiter *w, struct exec *e)
{
	oom_mark = msg_alloc_failures();
	if (w->conn) {
		if (w->kind == WAIT_STATUS) {
			status_when_room(w, e);
			return;
		} else {
			json_t *r = msg_reply_ok(w->id);
			json_object_set_new(r, "execution_id", json_string(exec_id(e)));
			json_object_set_new(r, "state",
					    json_string(request_state_name(exec_state(e))));
			send_reply(w->conn, w->id, r);
		}
	}
	waiter_free(w);
}

static void on_watch_done(struct exec_watch *watch, struct exec *e)
{
	waiter_reply(container_of(watch, struct waiter, watch), e);
}

static void on_wait_over(struct loop_timer *t)
{
	struct waiter *w = container_of(t, struct waiter, timer);
	exec_unwatch(&w->watch);
	waiter_reply(w, w->e);
}

/* The execution the request names, when the caller may see it. Another
 * owner's is answered exactly as an id that does not exist, so that
 * existence does not leak. */
static struct exec *find(struct conn *c, const struct request *req)
{
	struct exec *e = exec_find(req->execution_id);
	if (e && !owner_sees(conn_owner(c), exec_owner(e)))
		e = NULL;
	if (!e)
		reply_error(c, req->id, STATUS_NOT_FOUND,
			    "execution_id: no execution \"%.64s\" (finished ones are kept for %llu "
			    "s)",
			    req->execution_id, (unsigned long long)(ops_retention_ms / 1000));
	return e;
}

static void status(struct conn *c, const struct request *req)
{
	struct exec *e = find(c, req);
	if (!e)
		return;
	const uint64_t offset[2] = {req->stdout_offset, req->stderr_offset};
	for (int i = 0; i < 2; i++) {
		const char *why = bad_offset(exec_output(e, i), offset[i]);
		if (why) {
			reply_error(c, req->id, STATUS_INVALID_ARGUMENT, "%s: %llu %s (%zu bytes)",
				    i ? "stderr_offset" : "stdout_offset",
				    (unsigned long long)offset[i], why, buf_len(exec_output(e, i)));
			return;
		}
	}
	struct waiter *w = waiter_new(c, req->id, WAIT_STATUS);
	if (!w) {
		reply_error(c, req->id, STATUS_RESOURCE_EXHAUSTED, "out of memory");
		return;
	}
	w->e = e;
	w->offset[0] = offset[0];
	w->offset[1] = offset[1];
	if (!req->wait || exec_fields(e)) {
		status_when_room(w, e);
		return;
	}
	w->watch.done = on_watch_done;
	if (loop_timer_set(&w->timer, req->wait_ms, on_wait_over) < 0) {
		/* A wait that nothing would end: answer now instead. */
		waiter_reply(w, e);
		return;
	}
	exec_watch(e, &w->watch);
}

/* ---- cancel */

static void cancel(struct conn *c, const struct request *req)
{
	struct exec *e = find(c, req);
	if (!e)
		return;
	/* The waiter first: out of memory, nothing is done and the client
	 * hears so (every request gets its reply; the connection counts
	 * them). */
	struct waiter *w = waiter_new(c, req->id, WAIT_CANCEL);
	if (!w) {
		reply_error(c, req->id, STATUS_RESOURCE_EXHAUSTED,
			    "out of memory: %s was not cancelled", exec_id(e));
		return;
	}
	enum exec_state before = exec_state(e);
	if (exec_cancel(e) < 0) {
		waiter_free(w);
		reply_error(c, req->id, STATUS_FAILED_PRECONDITION,
			    "execution %s has already ended%s%s%s", exec_id(e),
			    request_state_terminal(before) ? " (" : "",
			    request_state_terminal(before) ? request_state_name(before) : "",
			    request_state_terminal(before) ? ")" : "");
		return;
	}
	/* The reply comes once the worker is reaped and the state final. */
	w->e = e;
	w->watch.done = on_watch_done;
	exec_watch(e, &w->watch);
}

/* ---- list */

static void list(struct conn *c, const struct request *req)
{
	json_t *items = json_array();
	uint64_t now = loop_wall_ms();
	for (struct exec *e = exec_newest(); e && json_array_size(items) < req->limit;
	     e = exec_older(e)) {
		if (!owner_sees(conn_owner(c), exec_owner(e)))
			continue;
		enum exec_state st = exec_state(e);
		if (req->states && !(req->states & (1u << st)))
			continue;
		uint64_t finished = exec_finished_ms(e);
		if (request_state_terminal(st) && req->has_within &&
		    (!finished || now - finished > req->within_ms))
			continue;
		json_t *item = exec_summary(e);
		/* An admin sees everyone's, so it is told whose. */
		if (conn_owner(c)->admin)
			json_object_set_new(item, "owner", json_string(exec_owner(e)->key));
		json_array_append_new(items, item);
	}
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "executions", items);
	send_reply(c, req->id, r);
}

/* ---- requesters: the connection an execution answers to
 *
 * Each execute, stream, async or test request makes a requester, the
 * execution's exec_client: it sends the started event, the output events
 * (stream mode), the tool calls and the final reply on the connection, and
 * tells the execution when the client goes or catches up. It lives until
 * the final reply is out (async: until the execution is done) or the
 * connection is gone. */

struct requester {
	struct exec_client client;
	struct conn *conn; /* NULL once gone */
	struct conn_sub sub;
	json_t *id;	/* the request's (a reference) */
	bool counted;	/* a final reply is to come (conn_exec_begin) */
	bool stream;	/* stream mode: the output went as events */
	struct exec *e; /* set at its first news, or once exec_submit returned */
	bool dead;	/* freed once exec_submit returns */
	struct conn_pending room;
	/* The final reply, produced as its client reads it (see on_room). */
	struct conn_stream reply;
	struct msg_stream reply_msg;
	bool streaming;
};

/* The requester exec_submit is submitting for: it is not freed under it. */
static struct requester *submitting;

static struct requester *requester_of(const struct exec_client *c)
{
	return container_of(c, struct requester, client);
}

static void requester_free(struct requester *q)
{
	if (q == submitting) {
		q->dead = true;
		return;
	}
	if (q->conn)
		conn_unsubscribe(q->conn, &q->sub);
	conn_pending_cancel(&q->room);
	json_decref(q->id);
	free(q);
}

/* The execution is answered (or no one is left to answer): it ages out. */
static void requester_end(struct requester *q)
{
	struct exec *e = q->e;
	requester_free(q);
	exec_replied(e);
}

/* The started event: the first frame for its request, so its client can
 * name the execution (to status or cancel) before anything else comes. A
 * queue position goes with pending as status would give it. Not counted
 * against the reply budgets, like the other events: there is one per
 * accepted request, and a connection whose frames pile up unread stops
 * being read (conn_owes_too_much). */
static void on_started(struct exec_client *c, struct exec *e, enum exec_state state, unsigned pos)
{
	struct requester *q = requester_of(c);
	q->e = e;
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(q->id, "started");
	json_object_set_new(ev, "execution_id", json_string(exec_id(e)));
	json_object_set_new(ev, "state", json_string(request_state_name(state)));
	if (pos)
		json_object_set_new(ev, "queue_position", json_integer(pos));
	conn_send(q->conn, msg_alloc_failures() == oom ? ev : NULL);
	json_decref(ev);
}

static bool on_output(struct exec_client *c, struct exec *e, int i, size_t from)
{
	struct requester *q = requester_of(c);
	const struct buf *b = exec_output(e, i);
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(q->id, "output");
	json_object_set_new(ev, "execution_id", json_string(exec_id(e)));
	json_object_set_new(ev, "stream", json_string(i ? "stderr" : "stdout"));
	json_object_set_new(ev, "data", json_stringn(buf_peek(b) + from, buf_len(b) - from));
	json_object_set_new(ev, "ts_ms", json_integer((json_int_t)loop_wall_ms()));
	conn_send(q->conn, msg_alloc_failures() == oom ? ev : NULL);
	json_decref(ev);
	return conn_backlogged(q->conn);
}

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

static int on_tool_call(struct exec_client *c, struct exec *e, int64_t call_id, const char *name,
			char *args, size_t args_len, const char **refusal)
{
	struct requester *q = requester_of(c);
	/* A call whose client does not read what it is sent already would
	 * queue its arguments (up to 16 MiB) without end: it fails in the
	 * script at once instead. */
	struct exec_stats st;
	exec_stats(&st);
	if (conn_owes_too_much(q->conn) || conn_reply_bytes_queued() > st.reply_bytes) {
		free(args);
		*refusal = "the client is not reading its replies and events (it owes more than "
			   "its budget): tool call refused";
		return -1;
	}
	unsigned long oom = msg_alloc_failures();
	json_t *ev = msg_event(q->id, "tool_call");
	json_object_set_new(ev, "execution_id", json_string(exec_id(e)));
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
		*refusal = "the daemon ran out of memory relaying the call";
		return -1;
	}
	ce->stream.total = ce->msg.total;
	ce->stream.owed_globally = true; /* it holds the arguments */
	ce->stream.final = false;
	ce->stream.id = NULL;
	ce->stream.fill = call_event_fill;
	ce->stream.done = call_event_done;
	conn_send_stream(q->conn, &ce->stream);
	return 0;
}

static long reply_fill(struct conn_stream *s, struct buf *out, size_t max)
{
	return msg_stream_fill(&container_of(s, struct requester, reply)->reply_msg, out, max);
}

/* The final reply is out (or its client gone). */
static void reply_done(struct conn_stream *s, bool sent)
{
	(void)sent;
	struct requester *q = container_of(s, struct requester, reply);
	msg_stream_free(&q->reply_msg);
	q->streaming = false;
	requester_end(q);
}

/* There is room on the connection: the final reply, the fields, then
 * stdout and stderr escaped and the kept text copied as the client reads
 * them, never the whole reply at once. Until it is out the record is not
 * retired, so it cannot age out under the stream. */
static void on_room(struct conn_pending *p)
{
	struct requester *q = container_of(p, struct requester, room);
	struct exec *e = q->e;
	conn_exec_end(q->conn); /* its final reply counts as any other */
	q->counted = false;
	unsigned long oom = msg_alloc_failures();
	json_t *fields = exec_fields(e);
	json_t *r = msg_reply_ok(q->id);
	json_object_update(r, fields);
	struct msg_stream *m = &q->reply_msg;
	msg_stream_init(m);
	if (fields && msg_alloc_failures() == oom) {
		msg_stream_object(m, r);
		if (!q->stream)
			for (int i = 0; i < 2; i++)
				msg_stream_string(m, i ? "stderr" : "stdout", exec_output(e, i), 0,
						  buf_len(exec_output(e, i)),
						  exec_output_escaped(e, i));
		size_t kept;
		exec_kept(e, &kept);
		msg_stream_members(m, exec_kept_buf(e), 0, kept);
	}
	json_decref(r);
	/* A reply with holes would lie: the client is told instead. */
	if (!fields || msg_alloc_failures() != oom || msg_stream_end(m) < 0) {
		log_err("%s: cannot build its reply (out of memory)", exec_id(e));
		msg_stream_free(m);
		json_t *er = msg_reply_error(q->id, STATUS_RESOURCE_EXHAUSTED,
					     "out of memory building the reply");
		conn_send(q->conn, er);
		json_decref(er);
		requester_end(q);
		return;
	}
	q->streaming = true;
	q->reply.total = m->total;
	/* The record is counted as an unsent reply (exec.c's unsent_bytes)
	 * until the stream ends, so only the bytes queued count as the
	 * connections'. */
	q->reply.owed_globally = false;
	q->reply.final = true;
	q->reply.id = q->id;
	q->reply.fill = reply_fill;
	q->reply.done = reply_done;
	conn_send_stream(q->conn, &q->reply);
}

static void on_done(struct exec_client *c, struct exec *e, size_t size_hint)
{
	struct requester *q = requester_of(c);
	q->e = e;
	if (!q->counted) { /* async: its reply went at once */
		requester_end(q);
		return;
	}
	q->room.ready = on_room;
	conn_when_room(q->conn, &q->room, size_hint);
}

static bool on_owes_too_much(const struct exec_client *c)
{
	return conn_owes_too_much(requester_of(c)->conn);
}

static bool on_backlogged(const struct exec_client *c)
{
	return conn_backlogged(requester_of(c)->conn);
}

static const struct exec_client_ops requester_ops = {
	on_started, on_output, on_tool_call, on_done, on_owes_too_much, on_backlogged,
};

static void on_requester_gone(struct conn_sub *s)
{
	struct requester *q = container_of(s, struct requester, sub);
	q->conn = NULL;
	if (q->streaming)
		return; /* the stream's done ends it */
	struct exec *e = q->e;
	requester_free(q);
	exec_client_gone(e);
}

static void on_requester_drained(struct conn_sub *s)
{
	struct requester *q = container_of(s, struct requester, sub);
	if (q->e)
		exec_client_drained(q->e);
}

static const struct conn_sub_ops requester_sub_ops = {on_requester_gone, on_requester_drained};

/* Submits req's execution for c, answering to a new requester: the
 * execution, or NULL when it was refused (the client is told). */
static struct exec *submit_exec(struct conn *c, const struct request *req, const char *code,
				size_t len, size_t options_len, const char *cached_name)
{
	struct requester *q = calloc(1, sizeof *q);
	if (!q) {
		reply_error(c, req->id, STATUS_RESOURCE_EXHAUSTED, "out of memory");
		return NULL;
	}
	q->client.ops = &requester_ops;
	q->conn = c;
	q->id = json_incref(req->id);
	q->counted = req->op != OP_ASYNC;
	q->stream = req->op == OP_STREAM;
	list_init(&q->room.link);
	q->sub.ops = &requester_sub_ops;
	conn_subscribe(c, &q->sub);
	/* Counted before it is submitted: it may start, fail to and answer
	 * (conn_exec_end) before exec_submit returns. */
	if (q->counted)
		conn_exec_begin(c);
	enum status code_err;
	const char *why;
	submitting = q;
	struct exec *e = exec_submit(&q->client, conn_owner(c), req, code, len, options_len,
				     cached_name, &code_err, &why);
	submitting = NULL;
	if (!e) {
		if (q->counted)
			conn_exec_end(c);
		requester_free(q);
		reply_error(c, req->id, code_err, "%s", why);
		return NULL;
	}
	if (q->dead)
		requester_free(q); /* answered already */
	else
		q->e = e;
	return e;
}

/* ---- executions */

/* The part of the cache the caller sees: its own scripts, or (NULL) all of
 * them for an admin. */
static const char *cache_scope(struct conn *c)
{
	const struct owner *o = conn_owner(c);
	return o->admin ? NULL : o->key;
}

static void submit(struct conn *c, const struct request *req)
{
	const char *code = req->code, *cached_name = NULL;
	size_t len = req->code_len;
	if (req->cached) {
		char *matches = NULL;
		switch (cache_lookup(cache_scope(c), req->cached, &code, &len, &cached_name,
				     &matches)) {
		case CACHE_FOUND: break;
		case CACHE_NOT_FOUND:
			reply_error(c, req->id, STATUS_NOT_FOUND,
				    "cached: no cached script matches \"%.128s\"", req->cached);
			return;
		case CACHE_AMBIGUOUS:
			/* Nothing is picked: the matches are listed, an admin's
			 * across owners as OWNER/NAME (no name has a slash),
			 * with how to pick one. */
			reply_error(c, req->id, STATUS_INVALID_ARGUMENT,
				    "cached: \"%.128s\" matches several scripts: %s%s", req->cached,
				    matches ? matches : "(out of memory listing them)",
				    matches && strchr(matches, '/')
					    ? " (OWNER/NAME names one owner's script)"
					    : "");
			free(matches);
			return;
		}
	}
	/* The options line, for what it sets (test mode has none). */
	struct request with = *req;
	struct source_options opts = {0, 0};
	char *bad = NULL;
	if (req->op != OP_TEST && source_options(code, len, &opts, &bad) < 0) {
		reply_error(c, req->id, STATUS_INVALID_ARGUMENT, "%s", bad ? bad : "@options");
		free(bad);
		return;
	}
	if (opts.timeout_ms) {
		if (opts.timeout_ms > ops_limits.max.timeout_ms) {
			reply_error(
				c, req->id, STATUS_INVALID_ARGUMENT,
				"@options.timeout: %llu ms is over the daemon's maximum of %llu ms",
				(unsigned long long)opts.timeout_ms,
				(unsigned long long)ops_limits.max.timeout_ms);
			return;
		}
		exec_limits_set(&with.limits, req->limits_given, exec_limit_find("timeout_ms"),
				opts.timeout_ms);
	}
	struct exec *e = submit_exec(c, &with, code, len, opts.line_len, cached_name);
	if (!e)
		return;
	if (req->op != OP_ASYNC)
		return; /* the final reply comes when it ends */
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "execution_id", json_string(exec_id(e)));
	json_object_set_new(r, "state", json_string(request_state_name(exec_state(e))));
	unsigned pos = exec_queue_position(e);
	if (pos)
		json_object_set_new(r, "queue_position", json_integer(pos));
	send_reply(c, req->id, r);
}

/* ---- the cache */

static void on_cleared(void *arg, unsigned removed, bool complete)
{
	struct waiter *w = arg;
	oom_mark = msg_alloc_failures();
	if (w->conn && !complete)
		reply_error(w->conn, w->id, STATUS_RESOURCE_EXHAUSTED,
			    "out of memory: %u scripts removed, others remain (ask again)",
			    removed);
	else if (w->conn) {
		json_t *r = msg_reply_ok(w->id);
		json_object_set_new(r, "removed", json_integer(removed));
		send_reply(w->conn, w->id, r);
	}
	waiter_free(w);
}

static void cache_op(struct conn *c, const struct request *req)
{
	if (req->op == OP_CACHE_CLEAR) {
		struct waiter *w = waiter_new(c, req->id, WAIT_CLEAR);
		if (w)
			cache_clear(cache_scope(c), on_cleared, w);
		else
			reply_error(c, req->id, STATUS_RESOURCE_EXHAUSTED, "out of memory");
		return;
	}
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "scripts", cache_list(cache_scope(c), req->filter));
	send_reply(c, req->id, r);
}

/* ---- tools */

static void tool_result(struct conn *c, const struct request *req)
{
	struct exec *e = find(c, req);
	if (!e)
		return;
	/* Only the connection the call went to may answer it. */
	struct exec_client *client = exec_client(e);
	const struct exec_client *from = client && requester_of(client)->conn == c ? client : NULL;
	enum status code;
	const char *why;
	if (exec_tool_result(e, from, req->call_id, req->value, req->value_json,
			     req->value_json_len, req->error, &code, &why) < 0) {
		reply_error(c, req->id, code, "%s", why);
		return;
	}
	send_reply(c, req->id, msg_reply_ok(req->id));
}

static void declarations(struct conn *c, const struct request *req)
{
	enum decl_err err;
	char *ts = decl_render(req->tools, &err);
	if (!ts) {
		char why[160];
		decl_describe(err, why, sizeof why);
		reply_error(c, req->id, STATUS_RESOURCE_EXHAUSTED, "%s", why);
		return;
	}
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "typescript", json_string(ts));
	free(ts);
	send_reply(c, req->id, r);
}

/* ---- health */

static void health(struct conn *c, const struct request *req)
{
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "version", json_string(version));
	json_object_set_new(r, "uptime_ms", json_integer((json_int_t)(loop_now_ms() - started_ms)));
	struct exec_stats st;
	exec_stats(&st);
	json_object_set_new(r, "workers_running", json_integer(st.running));
	json_object_set_new(r, "workers_max", json_integer(st.max_workers));
	json_object_set_new(r, "queued", json_integer(st.queued));
	json_object_set_new(r, "held", json_integer(st.held));
	json_object_set_new(r, "executions_total", json_integer((json_int_t)st.total));
	json_object_set_new(r, "executions_retained", json_integer(st.retained));
	json_object_set_new(r, "connections", json_integer(conn_count()));
	json_t *sandbox = json_object();
	spawn_describe_sandbox(sandbox);
	json_object_set_new(r, "sandbox", sandbox);
	/* The cache's counts are the caller's own (all, for an admin): how
	 * many scripts another user holds, and how big the one they just
	 * stored is, are not the caller's to learn. */
	json_object_set_new(r, "cache", cache_describe(cache_scope(c)));
	/* A member lost to a failed allocation is counted: send_reply sees it. */
	json_t *limits = json_object();
	request_limits_to_json(&ops_limits, limits);
	/* caches: the cache of lowered code, the caller's own (all, for an admin). */
	json_object_set_new(json_object_get(r, "cache"), "lowered",
			    lcache_describe(cache_scope(c)));
	json_object_set_new(r, "limits", limits);
	struct loop_stats ls;
	loop_get_stats(&ls);
	json_object_set_new(r, "loop",
			    json_pack("{s:I, s:I, s:I, s:I, s:I}", "turns", (json_int_t)ls.turns,
				      "max_turn_us", (json_int_t)ls.max_turn_us, "turns_over_10ms",
				      (json_int_t)ls.turns_over_10ms, "max_turn_cpu_us",
				      (json_int_t)ls.max_turn_cpu_us, "turns_over_10ms_cpu",
				      (json_int_t)ls.turns_over_10ms_cpu));
	send_reply(c, req->id, r);
}

size_t ops_reply_bound(const struct request *req)
{
	/* Every character may be a control character JSON writes as \u00XX. */
	switch (req->op) {
	case OP_DECLARATIONS: return 6u * LIMIT_DECL_OUTPUT_BYTES + 4096u;
	case OP_LIST: return (size_t)req->limit * (6u * 4u * LIMIT_CODE_PREVIEW_CHARS + 512u);
	case OP_CACHE_LIST: /* as big as the cache's default size allows */
		return (size_t)LIMIT_CACHE_ENTRIES_DEFAULT *
		       (6u * 4u * LIMIT_CACHE_DESCRIPTION_CHARS + 512u);
	default: return 4096u;
	}
}

void ops_handle(struct conn *c, const struct request *req)
{
	oom_mark = msg_alloc_failures();
	switch (req->op) {
	case OP_HEALTH: health(c, req); return;
	case OP_EXECUTE:
	case OP_STREAM:
	case OP_ASYNC:
	case OP_TEST: submit(c, req); return;
	case OP_STATUS: status(c, req); return;
	case OP_CANCEL: cancel(c, req); return;
	case OP_LIST: list(c, req); return;
	case OP_CACHE_LIST:
	case OP_CACHE_CLEAR: cache_op(c, req); return;
	case OP_TOOL_RESULT: tool_result(c, req); return;
	case OP_DECLARATIONS: declarations(c, req); return;
	}
}

/* ---- frames: parsing and refusals
 *
 * The connection hands over every frame it reads (conn_init's frame
 * callback); here it becomes a request, or a refusal: of a frame that is
 * not a request, of a peer that is not admitted or over the connection
 * cap, of any request while the daemon shuts down, and of input that
 * cannot go on. */

static void refuse(struct conn *c, json_t *id, enum status code, const char *message)
{
	json_t *r = msg_reply_error(id, code, message);
	if (r)
		conn_send(c, r);
	json_decref(r);
}

/* Answers one parsed request, or refuses it (see request_parse for what
 * root, req and err are; root NULL: it failed). CONN_LATER, with nothing
 * done, when its reply may be big and the global budget has no room for
 * it yet. */
static enum conn_verdict frame_request(struct conn *c, json_t *root, const struct request *req,
				       const struct request_error *err)
{
	if (conn_refused(c)) {
		/* Whatever it asked, and however well: a peer not admitted
		 * hears why once, then the connection closes. */
		char why[192] = "not admitted";
		owner_admitted(conn_owner(c), why, sizeof why);
		refuse(c, root ? req->id : err->id, STATUS_PERMISSION_DENIED, why);
		conn_finish(c);
		return CONN_HANDLED;
	}
	if (!root) {
		refuse(c, err->id, err->code, err->message);
		return CONN_HANDLED;
	}
	if (conn_over_cap(c)) {
		refuse(c, req->id, STATUS_UNAVAILABLE, "too many connections");
		conn_finish(c);
	} else if (conn_draining()) {
		refuse(c, req->id, STATUS_UNAVAILABLE, "the daemon is shutting down");
	} else if (conn_reply_waits(c, ops_reply_bound(req))) {
		return CONN_LATER;
	} else {
		ops_handle(c, req);
	}
	return CONN_HANDLED;
}

enum conn_verdict ops_frame(struct conn *c, const struct conn_frame *f)
{
	char msg[192];
	switch (f->kind) {
	case CONN_FRAME_WHOLE: {
		struct request req = {0};
		struct request_error err;
		json_t *bad_root;
		json_t *root =
			request_parse(f->payload, f->len, &ops_limits, &req, &err, &bad_root);
		enum conn_verdict v = frame_request(c, root, &req, &err);
		if (!root)
			request_error_clear(&err);
		json_decref(root ? root : bad_root);
		return v;
	}
	case CONN_FRAME_PARSED: {
		struct parse_job *j = f->job;
		return frame_request(c, j->root, &j->req, &j->err);
	}
	case CONN_FRAME_BROKEN:
		if (f->status == FRAME_ERR_EMPTY)
			snprintf(msg, sizeof msg, "%s", frame_status_str(f->status));
		else
			snprintf(msg, sizeof msg, "%s (%zu bytes; the maximum is %zu)",
				 frame_status_str(f->status), f->len, f->limit);
		refuse(c, NULL, STATUS_INVALID_ARGUMENT, msg);
		break;
	case CONN_FRAME_CUT:
		refuse(c, NULL, STATUS_INVALID_ARGUMENT,
		       "the connection ended in the middle of a frame");
		break;
	case CONN_FRAME_NO_MEMORY:
		refuse(c, NULL, STATUS_RESOURCE_EXHAUSTED,
		       "out of memory reading requests: closing the connection");
		break;
	case CONN_FRAME_BUDGET:
		snprintf(msg, sizeof msg,
			 "the daemon's budget for half-sent requests (%zu bytes over all "
			 "connections) is full; send requests whole, or retry",
			 f->limit);
		refuse(c, NULL, STATUS_RESOURCE_EXHAUSTED, msg);
		break;
	}
	return CONN_HANDLED;
}
