/* conn.c - client connections; see conn.h. */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/frame.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/request.h"
#include "log.h"
#include "loop.h"
#include "parse.h"

/* Connections over the cap are kept just long enough to be told why. */
#define REJECT_EXTRA 64u
/* A streamed reply is produced in chunks of this many bytes at most, one
 * a turn, as the queue drains below it. */
#define STREAM_CHUNK LIMIT_STREAM_CHUNK_BYTES

struct conn {
	struct list_node link; /* all connections */
	struct loop_watch w;
	int fd;
	unsigned long serial;
	struct buf in, out;
	struct frame_decoder dec;
	struct list_node subs;	     /* work that will still answer here */
	struct list_node streams;    /* replies produced as the client reads */
	struct parse_job *parsing;   /* its frame being parsed off the loop */
	struct list_node parse_link; /* waiting for the parser's budget */
	bool read_eof;		     /* the client half-closed: it may still read */
	bool closing;		     /* flush what is queued, then close */
	bool broken;		     /* a write failed: close from the loop, not here */
	bool dead;		     /* closed; only conn_close's caller still holds it */
	bool over_cap;		     /* accepted past max_connections: refuse and close */
	bool refused;		     /* not admitted (--allow-*): refuse and close */
	struct owner owner;	     /* the peer, from SO_PEERCRED */
	bool backlogged;
	size_t out_counted, in_counted; /* what the global totals hold of it */
	size_t pending_bytes;		/* size hints of its work waiting for room */
	struct list_node pendings;	/* that work, first come first served */
	struct list_node ready_link;	/* on ready_conns */
	struct list_node paused_link;	/* on paused_global */
	unsigned outstanding;		/* requests read and not yet answered */
	unsigned executions;		/* of them, executions (see conn_exec_begin) */
	size_t room_wanted;		/* a big reply's bound: read on once it fits */
	struct loop_task resume;	/* frames buffered: handle more next turn */
	uint64_t cost_us;		/* loop time its last frames took */
	struct list_node flush_link;	/* on flush_waiting */
	struct parse_job *parked;	/* parsed, its big reply waiting for room */
	struct loop_timer timer;
	struct loop_timer retry; /* reading again once memory may be back */
	uint64_t partial_since;	 /* a frame has been arriving since then */
	uint64_t last_progress;	 /* last read or write on the socket */
};

static struct conn_settings settings;
static struct list_node conns = {&conns, &conns};
static unsigned count;
static unsigned long next_serial = 1;
static bool draining;
/* Replies queued and request bytes buffered on all connections. */
static size_t queued_total, partial_total;
/* Connections whose next frame waits for room in the parser's budget. */
static struct list_node parse_waiting = {&parse_waiting, &parse_waiting};
/* Connections with work waiting for room to reply whose first one may fit
 * their own queue, in the order they are to be served (see kick). */
static struct list_node ready_conns = {&ready_conns, &ready_conns};
/* Connections not read while the global reply budget is full. */
static struct list_node paused_global = {&paused_global, &paused_global};
static struct loop_task kick_task = LOOP_TASK_INIT(kick_task);
/* Connections whose socket took more while the turn had no room left to
 * write to it: written next turn, in the order they came (flush_task). */
static struct list_node flush_waiting = {&flush_waiting, &flush_waiting};
static struct loop_task flush_task = LOOP_TASK_INIT(flush_task);
static struct loop_task wake_task = LOOP_TASK_INIT(wake_task);

static void update(struct conn *c);
static void kick(void);
static void resume(struct conn *c);
static void process(struct conn *c);
static void on_wake(struct loop_task *t);
static void resume_later(struct conn *c);
static void on_parse_room(void);
static void on_parsed(struct parse_job *j);
static bool deliver(struct conn *c, const struct conn_frame *f);
static void input_broke(struct conn *c, struct conn_frame f);

/* Replies up to this size are built whenever their connection owes
 * nothing, the global budget notwithstanding: a client that reads is never
 * held back by those that do not, and one that does not pins at most one
 * such reply. Bigger ones (declarations, long lists, big outputs) wait for
 * room in the global budget too. */
#define SMALL_REPLY_BYTES 16384u

/* Connections held at most, those kept to be refused included. */
static unsigned max_open;
/* Warnings that come with every connection, each at most once a second. */
static struct log_every refused_log, admit_log, peer_log, encode_log, read_log;

unsigned conn_init(const struct conn_settings *s)
{
	settings = *s;
	parse_set_room(on_parse_room);
	max_open = settings.max_connections + REJECT_EXTRA;
	if (settings.max_fds && max_open > settings.max_fds) {
		max_open = settings.max_fds;
		unsigned extra = max_open / 8 < REJECT_EXTRA ? max_open / 8 : REJECT_EXTRA;
		if (settings.max_connections > max_open - extra)
			settings.max_connections = max_open - extra;
	}
	return settings.max_connections;
}
unsigned conn_count(void) { return count; }
unsigned long conn_serial(const struct conn *c) { return c->serial; }
const struct owner *conn_owner(const struct conn *c) { return &c->owner; }
bool conn_backlogged(const struct conn *c) { return c->backlogged; }
size_t conn_reply_bytes_queued(void) { return queued_total; }
/* What c's streams still owe (all, or those owed globally), and the
 * frames waiting behind them. */
static size_t owed_by_streams(const struct conn *c, bool global)
{
	size_t n = 0;
	const struct list_node *l;
	for (l = c->streams.next; l != &c->streams; l = l->next) {
		const struct conn_stream *s = LIST_ITEM(l, struct conn_stream, link);
		n += buf_len(&s->after);
		if (!global || s->owed_globally)
			n += s->total - s->produced;
	}
	return n;
}
static size_t stream_owed(const struct conn *c) { return owed_by_streams(c, false); }
/* Replies queued on c, streams counted with what they still owe. */
static size_t queued(const struct conn *c) { return buf_len(&c->out) + stream_owed(c); }
size_t conn_owed_bytes(const struct conn *c) { return queued(c) + c->pending_bytes; }
bool conn_owes_too_much(const struct conn *c)
{
	return conn_owed_bytes(c) > settings.conn_reply_bytes;
}

/* Keeps the global totals in step with c's buffers; a buffer that emptied
 * is given back rather than kept for the connection's life, so an idle
 * connection costs its record and nothing more. */
static void account(struct conn *c)
{
	if (!buf_len(&c->out) && c->out.cap > 4096 && list_empty(&c->streams))
		buf_free(&c->out); /* kept while streaming: see pump */
	if (!buf_len(&c->in))
		buf_free(&c->in); /* an idle connection holds no read buffer */
	/* What the buffer really holds, its spare room included. */
	size_t out = (buf_len(&c->out) || !list_empty(&c->streams) ? c->out.cap : 0) +
		     owed_by_streams(c, true);
	bool fell = out < c->out_counted;
	queued_total = queued_total - c->out_counted + out;
	c->out_counted = out;
	if (fell && !list_empty(&paused_global))
		loop_task_next(&wake_task, on_wake);
	/* Request bytes as sent (the buffers may hold up to twice as much as
	 * they grow): a frame of --max-frame-bytes alone always fits. */
	partial_total = partial_total - c->in_counted + buf_len(&c->in);
	c->in_counted = buf_len(&c->in);
}

/* Room on c for a reply of about hint bytes: one bigger than the budget
 * goes once c's queue is empty. */
static bool conn_fits(const struct conn *c, size_t hint)
{
	size_t mine = queued(c);
	return c->broken || mine == 0 || mine + hint <= settings.conn_reply_bytes;
}

/* Room among all connections: one bigger than half the budget counts as
 * half of it, so that it goes once the queues are half empty. */
static bool global_fits(size_t hint)
{
	if (hint > settings.reply_bytes / 2)
		hint = settings.reply_bytes / 2;
	return queued_total == 0 || queued_total + hint <= settings.reply_bytes;
}

/* Whether the turn has room for more work: not once it has run
 * LIMIT_TURN_WORK_US. Work deferred goes on in a task, and tasks run first
 * in the next turn, so each turn makes progress. */
static bool turn_has_room(void) { return loop_turn_us() <= LIMIT_TURN_WORK_US; }

static void on_kick(struct loop_task *t)
{
	(void)t;
	kick();
}

/* Puts c among the connections whose waiting work may go (at the end). */
static void make_ready(struct conn *c)
{
	if (!list_empty(&c->pendings) && !list_linked(&c->ready_link))
		list_add_tail(&ready_conns, &c->ready_link);
}

/*
 * Lets waiting work reply while there is room, in order: each connection's
 * own work first come first served, connections in turn (one reply each,
 * then to the back). A connection whose next reply does not fit its own
 * queue leaves the ready list until its client reads (flush puts it back),
 * so it holds up no one; global room is served strictly in order. Each
 * reply costs O(1) here, and a turn builds replies only until it has run
 * LIMIT_TURN_WORK_US: the rest go next turn.
 */
static void kick(void)
{
	static bool kicking;
	if (kicking)
		return;
	kicking = true;
	struct list_node *n;
	while ((n = list_first(&ready_conns)) != NULL) {
		struct conn *c = LIST_ITEM(n, struct conn, ready_link);
		struct list_node *pn = list_first(&c->pendings);
		if (!pn) {
			list_del(n);
			continue;
		}
		struct conn_pending *p = LIST_ITEM(pn, struct conn_pending, link);
		if (!conn_fits(c, p->size_hint)) {
			list_del(n); /* back once its client reads */
			continue;
		}
		if (!global_fits(p->size_hint))
			break;
		if (!turn_has_room()) {
			loop_task_next(&kick_task, on_kick);
			break;
		}
		list_del(pn);
		c->pending_bytes -= p->size_hint;
		list_del(n);
		make_ready(c);
		p->ready(p); /* may queue, cancel or close anything */
		resume(c);
	}
	kicking = false;
}

void conn_when_room(struct conn *c, struct conn_pending *p, size_t size_hint)
{
	p->conn = c;
	p->size_hint = size_hint;
	bool small = size_hint <= SMALL_REPLY_BYTES && conn_owed_bytes(c) == 0;
	if (small || (list_empty(&c->pendings) && list_empty(&ready_conns) &&
		      conn_fits(c, size_hint) && global_fits(size_hint))) {
		list_init(&p->link);
		p->ready(p);
		return;
	}
	list_add_tail(&c->pendings, &p->link);
	c->pending_bytes += size_hint;
	make_ready(c);
	kick();
}

void conn_pending_cancel(struct conn_pending *p)
{
	if (list_linked(&p->link)) {
		list_del(&p->link);
		p->conn->pending_bytes -= p->size_hint;
		resume(p->conn);
	}
}

/* c's requests unanswered, its executions not counted. */
static unsigned unanswered(const struct conn *c)
{
	return c->outstanding > c->executions ? c->outstanding - c->executions : 0;
}

void conn_exec_begin(struct conn *c) { c->executions++; }
void conn_exec_end(struct conn *c)
{
	if (c->executions)
		c->executions--; /* its final reply then counts as any other */
}

void conn_subscribe(struct conn *c, struct conn_sub *s) { list_add_tail(&c->subs, &s->link); }

void conn_unsubscribe(struct conn *c, struct conn_sub *s)
{
	list_del(&s->link);
	if (!c->dead)
		update(c);
}

/* Closes c now and tells the work still attached that the client is gone. */
static void conn_close(struct conn *c, const char *why)
{
	c->dead = true;
	if (c->parsing)
		parse_cancel(c->parsing); /* its result is dropped when back */
	c->parsing = NULL;
	if (list_linked(&c->parse_link))
		list_del(&c->parse_link);
	if (c->parked)
		parse_release(c->parked);
	c->parked = NULL;
	loop_del(&c->w);
	loop_timer_cancel(&c->timer);
	loop_timer_cancel(&c->retry);
	close(c->fd);
	c->fd = -1;
	struct list_node *n;
	while ((n = list_first(&c->subs)) != NULL) {
		struct conn_sub *s = LIST_ITEM(n, struct conn_sub, link);
		list_del(n);
		s->ops->gone(s);
	}
	while ((n = list_first(&c->streams)) != NULL) {
		struct conn_stream *s = LIST_ITEM(n, struct conn_stream, link);
		list_del(n);
		buf_free(&s->after);
		s->done(s, false);
	}
	while ((n = list_first(&c->pendings)) != NULL) {
		list_del(n);
		c->pending_bytes -= LIST_ITEM(n, struct conn_pending, link)->size_hint;
	}
	list_del(&c->ready_link);
	list_del(&c->paused_link);
	list_del(&c->flush_link);
	loop_task_cancel(&c->resume);
	list_del(&c->link);
	count--;
	log_debug("conn %lu closed: %s", c->serial, why);
	buf_free(&c->in);
	buf_free(&c->out);
	account(c);
	free(c);
	if (settings.fd_freed)
		settings.fd_freed();
	kick();
}

static void on_deferred_close(struct loop_timer *t)
{
	struct conn *c = container_of(t, struct conn, timer);
	bool done = c->closing || c->read_eof || draining;
	conn_close(c, c->broken ? "write failed" : done ? "done" : "timed out");
}

/* Closes c from the loop, never from inside a caller's stack: through a
 * 0 ms timer or, when no timer can be armed, through the next event of its
 * socket (EPOLLOUT is ready at once; on_event closes a broken connection
 * and re-runs update for a finished one). */
static void defer_close(struct conn *c)
{
	if (loop_timer_set(&c->timer, 0, on_deferred_close) < 0)
		loop_mod(&c->w, EPOLLIN | EPOLLOUT);
}

/* On a hard error the connection is marked broken and closed from the
 * loop, never from inside a caller's stack. */
static void broke(struct conn *c)
{
	c->broken = true;
	buf_clear(&c->out);
	account(c);
	defer_close(c);
}

/* Produces the next chunk of c's streams while less than a chunk is
 * queued: at most STREAM_CHUNK bytes a call, so one turn never builds
 * more. A finished stream's frames behind it follow it, then the next
 * stream. Whether anything was queued. */
/* A stream that could not start for want of memory: its client gets an
 * error with the request's id in its place, then the frames queued
 * behind it; an event (no id) cannot be replaced, so the connection is
 * cut. */
static void refuse_stream(struct conn *c, struct conn_stream *s)
{
	list_del(&s->link);
	enum frame_mode mode = c->dec.mode == FRAME_MODE_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	json_t *r = s->id ? msg_reply_error(s->id, STATUS_RESOURCE_EXHAUSTED,
					    "out of memory building the reply")
			  : NULL;
	bool ok = r && msg_encode(&c->out, mode, r) == 0 &&
		  buf_append(&c->out, buf_peek(&s->after), buf_len(&s->after)) == 0;
	json_decref(r);
	buf_free(&s->after);
	log_err("conn %lu: cannot start a reply (out of memory)%s", c->serial,
		ok ? ": an error went instead" : ": closing the connection");
	s->done(s, false);
	if (!ok)
		broke(c);
}

static bool pump(struct conn *c)
{
	bool any = false;
	size_t budget = STREAM_CHUNK;
	struct list_node *n;
	while (!c->dead && !c->broken && budget && buf_len(&c->out) < STREAM_CHUNK &&
	       (n = list_first(&c->streams)) != NULL) {
		struct conn_stream *s = LIST_ITEM(n, struct conn_stream, link);
		bool line = c->dec.mode == FRAME_MODE_LINE;
		size_t want = 4 + (s->total < STREAM_CHUNK ? s->total : STREAM_CHUNK) +
			      buf_len(&s->after) + 16;
		if (!s->started && !buf_reserve(&c->out, want)) {
			/* The whole stream's room is had before its first
			 * byte (and kept until it ends; see account), so
			 * once started it never fails for want of memory.
			 * No more than it needs: a small reply asking for a
			 * whole chunk would cost an mmap and an munmap. */
			refuse_stream(c, s);
			any = true;
			continue;
		}
		if (!s->started) {
			unsigned char hdr[4];
			frame_put_header(hdr, (uint32_t)s->total);
			if (!line && buf_append(&c->out, hdr, 4) < 0) {
				broke(c);
				break;
			}
			s->started = true;
		}
		if (s->produced < s->total) {
			size_t room = STREAM_CHUNK - buf_len(&c->out);
			long k = s->fill(s, &c->out, room < budget ? room : budget);
			if (k <= 0 || (size_t)k > s->total - s->produced) {
				log_err("conn %lu: cannot produce a reply (%s)", c->serial,
					k < 0 ? "out of memory" : "its length was wrong");
				broke(c);
				break;
			}
			s->produced += (size_t)k;
			budget -= (size_t)k < budget ? (size_t)k : budget;
			any = true;
			if (s->produced < s->total)
				continue;
		}
		if ((line && buf_append(&c->out, "\n", 1) < 0) ||
		    buf_append(&c->out, buf_peek(&s->after), buf_len(&s->after)) < 0) {
			broke(c);
			break;
		}
		buf_free(&s->after);
		list_del(&s->link);
		any = true;
		s->done(s, true);
	}
	return any;
}

/* Writes what is queued, the next chunk of a stream too; whatever room it
 * made goes to the work waiting for it (kick, held work, buffered
 * requests). */
static void flush(struct conn *c)
{
	size_t owed = queued(c);
	for (int round = 0; round < 2; round++) {
		while (buf_len(&c->out) > 0) {
			ssize_t n = send(c->fd, buf_peek(&c->out), buf_len(&c->out), MSG_NOSIGNAL);
			if (n > 0) {
				buf_consume(&c->out, (size_t)n);
				c->last_progress = loop_now_ms();
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			broke(c);
			return;
		}
		/* The next chunk of a streamed reply, sent at once if the
		 * socket takes it. */
		if (round > 0 || !pump(c) || c->broken)
			break;
	}
	if (c->broken)
		return;
	size_t before = c->out_counted;
	account(c);
	/* Room made on c (its queue shrank: a stream's bytes it owes count
	 * there though not globally) or among all connections (what the
	 * global total holds of c fell): waiting work may go. */
	bool fell = queued(c) < owed || c->out_counted < before;
	if (fell) {
		make_ready(c);
		kick();
	}
	/* Drained below half the budget after a backlog, or below it at all
	 * when it owed anything: work held while its client owed (see exec.c's
	 * must_hold) may go on. Told after kick(), so that replies which were
	 * waiting for room count as what they now are. */
	bool was_backlogged = c->backlogged;
	if (!c->dead && !c->broken && (was_backlogged || owed) &&
	    queued(c) <= settings.conn_reply_bytes / 2) {
		c->backlogged = false;
		/* A drained callback may unsubscribe: walk safely. */
		struct list_node *n, *tmp;
		LIST_FOREACH_SAFE (n, tmp, &c->subs) {
			struct conn_sub *s = LIST_ITEM(n, struct conn_sub, link);
			s->ops->drained(s);
		}
	}
	/* Requests read while it was held back wait in the buffer: they go
	 * on from the loop next turn (this may be deep inside another
	 * request's handling). */
	if (fell || was_backlogged)
		resume(c);
}

void conn_send(struct conn *c, const json_t *msg) { conn_send_raw(c, msg, NULL, 0); }

/* A final reply to one of c's requests is being queued: one request fewer
 * waits for its answer. Whether that may let c be read again. */
static bool answered(struct conn *c)
{
	if (c->outstanding <= c->executions)
		return false; /* executions count once they end (conn_exec_end) */
	return c->outstanding-- - c->executions == LIMIT_CONN_OUTSTANDING;
}

/* After something was queued on c: send what the socket takes, and note a
 * backlog. */
static void queued_more(struct conn *c, bool was_empty)
{
	if (was_empty)
		c->last_progress = loop_now_ms();
	flush(c);
	if (c->broken)
		return;
	account(c);
	if (queued(c) > settings.conn_reply_bytes)
		c->backlogged = true;
	update(c);
}

void conn_send_raw(struct conn *c, const json_t *msg, const char *members, size_t len)
{
	if (c->dead || c->broken)
		return;
	bool room = msg && json_object_get(msg, "ok") && answered(c);
	bool was_empty = queued(c) == 0;
	/* Behind a stream, a frame waits for it to end. */
	struct list_node *last = list_empty(&c->streams) ? NULL : c->streams.prev;
	struct buf *to = last ? &LIST_ITEM(last, struct conn_stream, link)->after : &c->out;
	enum frame_mode mode = c->dec.mode == FRAME_MODE_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	if (!msg || msg_encode_raw(to, mode, msg, members, len) < 0) {
		/* The client must not wait for an answer that is not coming: a
		 * reply becomes a RESOURCE_EXHAUSTED error with its id; an
		 * event, a reply that is not there to take the id from, or one
		 * whose error cannot be built either cuts the connection, so
		 * the client sees the end rather than a gap. */
		bool event = !msg || json_object_get(msg, "event");
		unsigned long held;
		if (log_every_pass(&encode_log, &held))
			log_err("conn %lu: cannot encode %s (out of memory)%s (%lu more since "
				"the last)",
				c->serial, event ? "an event" : "a reply",
				event ? ": closing the connection" : "", held);
		json_t *r = !event ? msg_reply_error(json_object_get(msg, "id"),
						     STATUS_RESOURCE_EXHAUSTED,
						     "out of memory building the reply")
				   : NULL;
		if (!r || msg_encode(to, mode, r) < 0) {
			json_decref(r);
			broke(c);
			return;
		}
		json_decref(r);
	}
	queued_more(c, was_empty);
	if (room)
		resume(c);
}

void conn_send_stream(struct conn *c, struct conn_stream *s)
{
	s->produced = 0;
	s->started = false;
	s->after = (struct buf)BUF_INIT;
	if (c->dead || c->broken || s->total > UINT32_MAX) {
		s->done(s, false);
		return;
	}
	bool room = s->final && answered(c);
	bool was_empty = queued(c) == 0;
	list_add_tail(&c->streams, &s->link);
	queued_more(c, was_empty);
	if (room)
		resume(c);
}

bool conn_reply_waits(struct conn *c, size_t bound)
{
	if (bound > SMALL_REPLY_BYTES && !global_fits(bound)) {
		c->room_wanted = bound;
		return true;
	}
	c->room_wanted = 0;
	return false;
}

void conn_finish(struct conn *c) { c->closing = true; }
bool conn_refused(const struct conn *c) { return c->refused; }
bool conn_over_cap(const struct conn *c) { return c->over_cap; }
bool conn_draining(void) { return draining; }

/* Hands f, a whole or parsed frame, to the callback as one request (every
 * request gets one final reply, which answered() counts); false when the
 * callback wants it again later (CONN_LATER: nothing was done). */
static bool deliver(struct conn *c, const struct conn_frame *f)
{
	c->room_wanted = 0;
	c->outstanding++;
	if (settings.frame(c, f) == CONN_HANDLED)
		return true;
	c->outstanding--;
	return false;
}

/* The input cannot go on (f says why; the callback tells the client): c
 * reads no more, and closes once the work started on it has answered. */
static void input_broke(struct conn *c, struct conn_frame f)
{
	settings.frame(c, &f);
	c->closing = true;
	buf_clear(&c->in);
	c->partial_since = 0;
}

/* A frame parsed off the loop is back: handed over now (or, when its reply
 * may be big and there is no room for it, kept until there is: see
 * process), its tree freed off the loop, and the frames behind it go on. */
static void on_parsed(struct parse_job *j)
{
	struct conn *c = j->arg;
	c->parsing = NULL;
	if (!c->broken && !deliver(c, &(struct conn_frame){.kind = CONN_FRAME_PARSED, .job = j})) {
		c->parked = j;
		update(c); /* must_pause puts it among those woken by room */
		return;
	}
	parse_release(j);
	process(c);
	update(c);
}

/* The parser gave budget back: connections waiting for it go on, in the
 * order they came. */
static void on_parse_room(void)
{
	struct list_node batch = {&batch, &batch};
	struct list_node *n;
	while ((n = list_first(&parse_waiting)) != NULL) {
		list_del(n);
		list_add_tail(&batch, n);
	}
	while ((n = list_first(&batch)) != NULL) {
		struct conn *c = LIST_ITEM(n, struct conn, parse_link);
		list_del(n);
		list_init(n);
		process(c);
		update(c);
	}
}

/*
 * Whether c must not be read now: a frame of it is with the parser or
 * waits for the parser's budget (the socket holds what follows, so that
 * requests keep their order), or it has LIMIT_CONN_OUTSTANDING requests
 * unanswered, or owes its client more than its reply budget (replies
 * queued and the size hints of replies waiting for room), or the replies
 * queued on all connections are over the global budget and it owes
 * anything at all. Every reply is so checked against both budgets before
 * the request that asks for it is read: a client that never reads pins at
 * most about its budget and one reply, and a client that reads (owing
 * nothing) is never held back by those that do not.
 */
static bool must_pause(struct conn *c)
{
	if (c->parsing || list_linked(&c->parse_link))
		return true; /* on_parsed or on_parse_room goes on */
	if (c->backlogged || unanswered(c) >= LIMIT_CONN_OUTSTANDING || conn_owes_too_much(c))
		return true;
	if ((queued_total > settings.reply_bytes && conn_owed_bytes(c) > 0) ||
	    (c->room_wanted && !global_fits(c->room_wanted))) {
		if (!list_linked(&c->paused_link))
			list_add_tail(&paused_global, &c->paused_link);
		return true;
	}
	return false;
}

static void on_resume(struct loop_task *t)
{
	struct conn *c = container_of(t, struct conn, resume);
	process(c);
	update(c);
}

/* Queues the handling of c's buffered frames for the next turn: behind
 * the light work when its last frames took LIMIT_HEAVY_WORK_US of the
 * loop or more (see loop_task_heavy), so that a client whose requests are
 * cheap is not made to wait behind a crowd of expensive ones. */
static void resume_later(struct conn *c)
{
	if (c->cost_us >= LIMIT_HEAVY_WORK_US)
		loop_task_heavy(&c->resume, on_resume);
	else
		loop_task_next(&c->resume, on_resume);
}

/* What kept c from being read may have gone: frames it buffered are
 * handled next turn, and it is read again (update). */
static void resume(struct conn *c)
{
	if (c->dead || c->broken || c->closing)
		return;
	if ((buf_len(&c->in) || c->parked) && !must_pause(c))
		resume_later(c);
	update(c);
}

/* The global reply budget may have room again: the connections it
 * paused look again (those that still must wait go back on the list), at
 * most once a turn. */
static void on_wake(struct loop_task *t)
{
	(void)t;
	struct list_node was = paused_global;
	if (list_empty(&paused_global))
		return;
	was.next->prev = &was;
	was.prev->next = &was;
	list_init(&paused_global);
	struct list_node *n;
	while ((n = list_first(&was)) != NULL) {
		list_del(n);
		resume(LIST_ITEM(n, struct conn, paused_link));
	}
}

/* Decodes and handles the whole frames buffered, unless c must pause (see
 * must_pause); at most LIMIT_FRAMES_PER_TURN in one turn, and none once
 * the turn has run LIMIT_TURN_WORK_US (all connections together): the rest
 * are handled next turn (epoll would not wake for bytes already read). */
static void process(struct conn *c)
{
	uint64_t cpu0 = loop_clock_us(); /* wall time: a cheap clock, and close enough */
	bool worked = false;
	if (c->parked) {
		/* A request parsed off the loop waited for room for its reply
		 * (see on_parsed): it goes first, once there is. */
		if (c->dead || c->broken || must_pause(c))
			return;
		struct parse_job *j = c->parked;
		if (!deliver(c, &(struct conn_frame){.kind = CONN_FRAME_PARSED, .job = j}))
			return; /* still no room: parked on */
		c->parked = NULL;
		parse_release(j);
		worked = true;
	}
	unsigned handled = 0;
	bool partial = false;
	while (!c->closing && !c->dead && !c->broken && buf_len(&c->in) && !must_pause(c)) {
		if (handled >= LIMIT_FRAMES_PER_TURN || !turn_has_room()) {
			resume_later(c);
			break;
		}
		const char *payload;
		size_t plen, used;
		enum frame_status st = frame_next(&c->dec, buf_peek(&c->in), buf_len(&c->in),
						  &payload, &plen, &used);
		if (st == FRAME_MORE) {
			buf_consume(&c->in, used);
			partial = true;
			break;
		}
		if (st != FRAME_OK) {
			/* The stream cannot be resynchronised: the callback says
			 * why, then it closes. */
			input_broke(c, (struct conn_frame){.kind = CONN_FRAME_BROKEN,
							   .len = plen,
							   .status = st,
							   .limit = settings.max_frame_bytes});
			break;
		}
		if (parse_wanted(plen)) {
			/* Big: parsed off the loop, the connection's next frames
			 * wait for it (or for room in the parser's budget). */
			if (!parse_has_room(plen)) {
				list_add_tail(&parse_waiting, &c->parse_link);
				break;
			}
			/* The read buffer goes with the frame (nothing is read
			 * meanwhile); bytes after the frame stay in a new one. */
			struct buf rest = BUF_INIT;
			if (buf_append(&rest, buf_peek(&c->in) + used, buf_len(&c->in) - used) ==
			    0) {
				c->parsing = parse_submit(c->in.data, payload, plen,
							  settings.limits, on_parsed, c);
				if (c->parsing) {
					c->in = rest;
					break;
				}
			}
			buf_free(&rest);
		}
		if (!deliver(c, &(struct conn_frame){
					.kind = CONN_FRAME_WHOLE, .payload = payload, .len = plen}))
			break; /* left whole in the buffer, read again later */
		buf_consume(&c->in, used);
		handled++;
	}
	if (worked || handled)
		c->cost_us = loop_clock_us() - cpu0;
	c->partial_since =
		buf_len(&c->in) ? (c->partial_since ? c->partial_since : loop_now_ms()) : 0;
	account(c);
	/* A frame half-sent while the half-sent requests of all connections
	 * are over their budget: this connection goes, whether the read that
	 * brought its bytes found it so or a later turn that reached them
	 * (whole frames before it were left for that turn). Frames left whole
	 * (a turn's share handled, or the connection paused) are requests
	 * read, not half-sent ones: no reason to cut it for them. */
	if (partial && !c->closing && partial_total > settings.partial_bytes) {
		input_broke(c, (struct conn_frame){.kind = CONN_FRAME_BUDGET,
						   .limit = settings.partial_bytes});
		account(c);
	}
}

/* Recomputes what c waits for and its deadline; closes it once done. */
static void update(struct conn *c)
{
	if (c->dead || c->broken)
		return;
	bool finished = c->closing || c->read_eof || (draining && !buf_len(&c->in));
	bool idle = list_empty(&c->subs) && list_empty(&c->streams) && !c->parsing &&
		    !list_linked(&c->parse_link) && !c->parked;
	if (finished && idle && buf_len(&c->out) == 0) {
		/* Not from here when inside a callback chain: defer. */
		defer_close(c);
		return;
	}
	/* Not while a frame is parsed, waits for the parser or for room for
	 * its reply, nor while frames already read wait for the next turn:
	 * the socket holds what follows. */
	bool want_read = !c->read_eof && !c->closing && !must_pause(c) && !c->parked &&
			 !list_linked(&c->resume.link) && !loop_timer_armed(&c->retry);
	bool sending = buf_len(&c->out) || !list_empty(&c->streams);
	/* Not polled for room while a write is already due (flush_task). */
	bool poll_out = sending && !list_linked(&c->flush_link);
	uint32_t ev = (want_read ? EPOLLIN : 0) | (poll_out ? EPOLLOUT : 0);
	loop_mod(&c->w, ev);

	uint64_t deadline = 0;
	if (sending)
		deadline = c->last_progress + LIMIT_WRITE_STALL_MS;
	else if (c->partial_since && want_read)
		deadline = c->partial_since + settings.frame_timeout_ms;
	else if (c->partial_since)
		/* The time the daemon itself holds the rest back does not
		 * count against the frame. */
		c->partial_since = loop_now_ms();
	else if (idle)
		/* A peer that is not admitted holds a connection no longer
		 * than a frame may take. */
		deadline = c->last_progress +
			   (c->refused ? settings.frame_timeout_ms : settings.idle_timeout_ms);
	if (deadline) {
		uint64_t now = loop_now_ms();
		/* Without a timer the deadline is armed again at the next
		 * update (the connection's next event). */
		if (loop_timer_set(&c->timer, deadline > now ? deadline - now : 0,
				   on_deferred_close) < 0)
			log_warn("conn %lu: cannot arm its deadline (out of memory)", c->serial);
	} else {
		loop_timer_cancel(&c->timer);
	}
}

static void on_read_retry(struct loop_timer *t)
{
	struct conn *c = container_of(t, struct conn, retry);
	update(c);
}

/* c's socket has room: what is queued is written, and requests that
 * waited for the backlog to drain go first. */
static void write_ready(struct conn *c)
{
	flush(c);
	if (buf_len(&c->in) && !list_linked(&c->resume.link))
		process(c);
}

/* Writes to the connections whose sockets drained while a turn had no
 * room left, first come first served, until this turn has run
 * LIMIT_TURN_WORK_US (one at least); the rest keep their place. */
static void on_flush_task(struct loop_task *t)
{
	(void)t;
	bool one = false;
	struct list_node *n;
	while ((n = list_first(&flush_waiting)) != NULL && (!one || turn_has_room())) {
		struct conn *c = LIST_ITEM(n, struct conn, flush_link);
		list_del(n);
		one = true;
		write_ready(c);
		update(c); /* a broken one is closed from its timer */
	}
	if (!list_empty(&flush_waiting))
		loop_task_next(&flush_task, on_flush_task);
}

static void on_event(struct loop_watch *w, uint32_t events)
{
	unsigned long held;
	struct conn *c = container_of(w, struct conn, w);
	if ((events & EPOLLOUT) && !turn_has_room()) {
		/* Written next turn, in turn with the others (see
		 * on_flush_task): one turn does not write to every
		 * connection whose socket drained. */
		if (!list_linked(&c->flush_link))
			list_add_tail(&flush_waiting, &c->flush_link);
		loop_task_next(&flush_task, on_flush_task);
	} else if (events & EPOLLOUT) {
		write_ready(c);
	}
	if ((events & EPOLLIN) && !c->read_eof && !c->closing && !c->broken && !must_pause(c) &&
	    !c->parked && !list_linked(&c->resume.link) && !loop_timer_armed(&c->retry)) {
		char *dst = buf_reserve(&c->in, 65536);
		ssize_t n = dst ? recv(c->fd, dst, 65536, 0) : -1;
		if (!dst && loop_timer_set(&c->retry, LIMIT_READ_RETRY_MS, on_read_retry) == 0) {
			/* No memory for the read buffer now: what the client
			 * sent waits in the socket until the retry. */
			if (log_every_pass(&read_log, &held))
				log_warn(
					"conn %lu: no memory for its read buffer; reading again in "
					"%u ms (%lu more since the last)",
					c->serial, LIMIT_READ_RETRY_MS, held);
		} else if (!dst) {
			/* Nothing more can be read: the callback says so, and it
			 * closes once the work already started here has answered. */
			input_broke(c, (struct conn_frame){.kind = CONN_FRAME_NO_MEMORY});
		} else if (n > 0) {
			buf_commit(&c->in, (size_t)n);
			c->last_progress = loop_now_ms();
			/* The connection whose bytes pass the half-sent budget
			 * goes (see process). */
			process(c);
			account(c);
		} else if (n == 0) {
			c->read_eof = true;
			/* A frame cut off by the end of input is answered too. */
			if (buf_len(&c->in) && !c->closing)
				settings.frame(c, &(struct conn_frame){.kind = CONN_FRAME_CUT});
			buf_clear(&c->in);
			c->partial_since = 0;
			account(c);
		} else if (errno != EAGAIN && errno != EINTR) {
			c->broken = true;
		}
	}
	/* HUP: the peer closed both ways (half-close is RDHUP only), so no
	 * reply can reach it any more. */
	if (c->broken || (events & (EPOLLHUP | EPOLLERR))) {
		conn_close(c, c->broken ? "read failed" : "client closed the connection");
		return;
	}
	update(c);
}

/*
 * The table is full: closes, at once, the connections whose peers have
 * closed (POLLHUP: gone both ways; a half-close is only POLLRDHUP) but
 * whose hang-up the loop has not handled yet, so that a flood of
 * connect-and-close does not keep the table full of the dead. One poll(2)
 * over all of them, at most once a millisecond (a knock a refused client
 * repeats in a tight loop costs the daemon an accept, not a sweep).
 */
static void reap_closed(void)
{
	static uint64_t last_ms = (uint64_t)-1;
	static struct pollfd *pfd;
	static struct conn **who;
	static unsigned cap;
	uint64_t now = loop_clock_us() / 1000u;
	if (now == last_ms)
		return;
	last_ms = now;
	if (count > cap) {
		struct pollfd *p = realloc(pfd, count * sizeof *p);
		if (p)
			pfd = p;
		struct conn **w = realloc(who, count * sizeof *w);
		if (w)
			who = w;
		if (!p || !w)
			return;
		cap = count;
	}
	unsigned n = 0;
	struct list_node *l;
	for (l = conns.next; l != &conns && n < cap; l = l->next) {
		struct conn *c = LIST_ITEM(l, struct conn, link);
		pfd[n] = (struct pollfd){.fd = c->fd, .events = 0};
		who[n++] = c;
	}
	if (poll(pfd, n, 0) <= 0)
		return;
	for (unsigned i = 0; i < n; i++)
		if (pfd[i].revents & (POLLHUP | POLLERR))
			conn_close(who[i], "client closed the connection");
}

int conn_adopt(int fd)
{
	if (count >= settings.max_connections)
		reap_closed(); /* the dead do not take the living's places */
	if (count >= max_open) {
		close(fd);
		unsigned long held;
		if (log_every_pass(&refused_log, &held))
			log_warn("connection refused: %u open (%lu more since the last)", count,
				 held);
		return -1;
	}
	struct conn *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		log_warn("connection refused: out of memory");
		return -1;
	}
	c->fd = fd;
	c->serial = next_serial++;
	unsigned long held;
	if (owner_from_socket(&c->owner, fd) < 0) {
		/* No owner, no access: nothing could be scoped to it. */
		if (log_every_pass(&peer_log, &held))
			log_warn("conn %lu: cannot tell who the peer is (SO_PEERCRED: %s): "
				 "closed (%lu more since the last)",
				 c->serial, strerror(errno), held);
		close(fd);
		free(c);
		return -1;
	}
	char why[192];
	c->refused = !owner_admitted(&c->owner, why, sizeof why);
	if (c->refused && log_every_pass(&admit_log, &held))
		log_warn("conn %lu refused: %s (%lu more since the last)", c->serial, why, held);
	c->w = (struct loop_watch)LOOP_WATCH_INIT;
	c->timer = (struct loop_timer)LOOP_TIMER_INIT;
	c->retry = (struct loop_timer)LOOP_TIMER_INIT;
	c->resume = (struct loop_task)LOOP_TASK_INIT(c->resume);
	list_init(&c->pendings);
	list_init(&c->ready_link);
	list_init(&c->paused_link);
	list_init(&c->flush_link);
	c->over_cap = count >= settings.max_connections;
	c->last_progress = loop_now_ms();
	frame_decoder_init(&c->dec, FRAME_MODE_AUTO, settings.max_frame_bytes);
	if (loop_add(&c->w, fd, EPOLLIN, on_event) < 0) {
		close(fd);
		free(c);
		return -1;
	}
	list_init(&c->subs);
	list_init(&c->streams);
	list_init(&c->parse_link);
	list_add_tail(&conns, &c->link);
	count++;
	log_debug("conn %lu accepted from uid %u gid %u%s%s", c->serial, (unsigned)c->owner.uid,
		  (unsigned)c->owner.gid, c->owner.admin ? " (admin)" : "",
		  c->over_cap ? " over the cap" : "");
	update(c);
	return 0;
}

int conn_accept_ready(int listen_fd)
{
	/* A bounded number each turn; the listener stays readable, and the
	 * events of the connections open (their hang-ups too) come first. */
	for (unsigned accepted = 0; accepted < LIMIT_ACCEPTS_PER_TURN; accepted++) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
		conn_adopt(fd);
	}
	return 0;
}

void conn_shutdown_all(void)
{
	draining = true;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &conns)
		update(LIST_ITEM(n, struct conn, link));
}

void conn_close_all(void)
{
	struct list_node *n;
	while ((n = list_first(&conns)) != NULL)
		conn_close(LIST_ITEM(n, struct conn, link), "daemon stopped");
}
