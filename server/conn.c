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
#include "ops.h"

/* Connections over the cap are kept just long enough to be told why. */
#define REJECT_EXTRA 64u

struct conn {
	struct list_node link; /* all connections */
	struct loop_watch w;
	int fd;
	unsigned long serial;
	struct buf in, out;
	struct frame_decoder dec;
	struct list_node subs; /* work that will still answer here */
	bool read_eof;	       /* the client half-closed: it may still read */
	bool closing;	       /* flush what is queued, then close */
	bool broken;	       /* a write failed: close from the loop, not here */
	bool dead;	       /* closed; only conn_close's caller still holds it */
	bool over_cap;	       /* accepted past max_connections: refuse and close */
	bool refused;	       /* not admitted (--allow-*): refuse and close */
	struct owner owner;    /* the peer, from SO_PEERCRED */
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
	struct loop_timer timer;
	uint64_t partial_since; /* a frame has been arriving since then */
	uint64_t last_progress; /* last read or write on the socket */
};

static struct conn_settings settings;
static struct list_node conns = {&conns, &conns};
static unsigned count;
static unsigned long next_serial = 1;
static bool draining;
/* Replies queued and request bytes buffered on all connections. */
static size_t queued_total, partial_total;
/* Connections with work waiting for room to reply whose first one may fit
 * their own queue, in the order they are to be served (see kick). */
static struct list_node ready_conns = {&ready_conns, &ready_conns};
/* Connections not read while the global reply budget is full. */
static struct list_node paused_global = {&paused_global, &paused_global};
static struct loop_task kick_task = LOOP_TASK_INIT(kick_task);
static struct loop_task wake_task = LOOP_TASK_INIT(wake_task);

static void update(struct conn *c);
static void kick(void);
static void resume(struct conn *c);
static void process(struct conn *c);
static void on_wake(struct loop_task *t);

/* Replies up to this size are built whenever their connection owes
 * nothing, the global budget notwithstanding: a client that reads is never
 * held back by those that do not, and one that does not pins at most one
 * such reply. Bigger ones (declarations, long lists, big outputs) wait for
 * room in the global budget too. */
#define SMALL_REPLY_BYTES 16384u

/* Connections held at most, those kept to be refused included. */
static unsigned max_open;
/* Warnings that come with every connection, each at most once a second. */
static struct log_every refused_log, admit_log, peer_log, encode_log;

unsigned conn_init(const struct conn_settings *s)
{
	settings = *s;
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
size_t conn_owed_bytes(const struct conn *c) { return buf_len(&c->out) + c->pending_bytes; }
bool conn_owes_too_much(const struct conn *c)
{
	return conn_owed_bytes(c) > settings.conn_reply_bytes;
}

/* Keeps the global totals in step with c's buffers; a buffer that emptied
 * is given back rather than kept for the connection's life, so an idle
 * connection costs its record and nothing more. */
static void account(struct conn *c)
{
	if (!buf_len(&c->out) && c->out.cap > 4096)
		buf_free(&c->out);
	if (!buf_len(&c->in))
		buf_free(&c->in); /* an idle connection holds no read buffer */
	/* What the buffer really holds, its spare room included. */
	size_t out = buf_len(&c->out) ? c->out.cap : 0;
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
	size_t mine = buf_len(&c->out);
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
	loop_del(&c->w);
	loop_timer_cancel(&c->timer);
	close(c->fd);
	c->fd = -1;
	struct list_node *n;
	while ((n = list_first(&c->subs)) != NULL) {
		struct conn_sub *s = LIST_ITEM(n, struct conn_sub, link);
		list_del(n);
		s->ops->gone(s);
	}
	while ((n = list_first(&c->pendings)) != NULL) {
		list_del(n);
		c->pending_bytes -= LIST_ITEM(n, struct conn_pending, link)->size_hint;
	}
	list_del(&c->ready_link);
	list_del(&c->paused_link);
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

/* Writes what is queued; on a hard error the connection is marked broken
 * and closed from the loop, never from inside a caller's stack. */
static void flush(struct conn *c)
{
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
		c->broken = true;
		buf_clear(&c->out);
		account(c);
		loop_timer_set(&c->timer, 0, on_deferred_close);
		return;
	}
	size_t before = c->out_counted;
	account(c);
	if (c->backlogged && buf_len(&c->out) <= settings.conn_reply_bytes / 2) {
		c->backlogged = false;
		/* A drained callback may unsubscribe: walk safely. */
		struct list_node *n, *tmp;
		LIST_FOREACH_SAFE (n, tmp, &c->subs) {
			struct conn_sub *s = LIST_ITEM(n, struct conn_sub, link);
			s->ops->drained(s);
		}
	}
	if (c->out_counted < before) {
		make_ready(c);
		kick();
		resume(c);
	}
}

void conn_send(struct conn *c, const json_t *msg) { conn_send_raw(c, msg, NULL, 0); }

void conn_send_raw(struct conn *c, const json_t *msg, const char *members, size_t len)
{
	if (c->dead || c->broken)
		return;
	if (c->outstanding > c->executions && json_object_get(msg, "ok")) {
		/* A final reply: one request fewer waits for its answer. */
		if (c->outstanding-- - c->executions == LIMIT_CONN_OUTSTANDING)
			resume(c);
	}
	bool was_empty = buf_len(&c->out) == 0;
	if (msg_encode_raw(&c->out,
			   c->dec.mode == FRAME_MODE_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY,
			   msg, members, len) < 0) {
		unsigned long held;
		if (log_every_pass(&encode_log, &held))
			log_err("conn %lu: cannot encode a reply (out of memory; %lu more since "
				"the last)",
				c->serial, held);
		return;
	}
	if (was_empty)
		c->last_progress = loop_now_ms();
	flush(c);
	account(c);
	if (buf_len(&c->out) > settings.conn_reply_bytes)
		c->backlogged = true;
	if (!c->broken)
		update(c);
}

static void reply_error(struct conn *c, json_t *id, enum status code, const char *message)
{
	json_t *r = msg_reply_error(id, code, message);
	if (r)
		conn_send(c, r);
	json_decref(r);
}

/* Handles one request; false (nothing done, the frame to be handled
 * again later) when its reply may be big and the global budget has no
 * room for it yet. */
static bool handle_frame(struct conn *c, const char *payload, size_t len)
{
	struct request req;
	struct request_error err;
	json_t *bad_root;
	json_t *root = request_parse(payload, len, &ops_limits, &req, &err, &bad_root);
	if (root && !c->refused && !c->over_cap && !draining) {
		size_t bound = ops_reply_bound(&req);
		if (bound > SMALL_REPLY_BYTES && !global_fits(bound)) {
			c->room_wanted = bound;
			json_decref(root);
			return false;
		}
	}
	c->room_wanted = 0;
	c->outstanding++; /* every request gets one final reply */
	if (c->refused) {
		/* Whatever it asked, and however well: a peer not admitted
		 * hears why once, then the connection closes. */
		char why[192] = "not admitted";
		owner_admitted(&c->owner, why, sizeof why);
		reply_error(c, root ? req.id : err.id, STATUS_PERMISSION_DENIED, why);
		c->closing = true;
		if (!root)
			request_error_clear(&err);
		json_decref(root ? root : bad_root);
		return true;
	}
	if (!root) {
		reply_error(c, err.id, err.code, err.message);
		request_error_clear(&err);
		json_decref(bad_root);
		return true;
	}
	if (c->over_cap) {
		reply_error(c, req.id, STATUS_UNAVAILABLE, "too many connections");
		c->closing = true;
	} else if (draining) {
		reply_error(c, req.id, STATUS_UNAVAILABLE, "the daemon is shutting down");
	} else {
		ops_handle(c, &req);
	}
	json_decref(root);
	return true;
}

/*
 * Whether c must not be read now: it has LIMIT_CONN_OUTSTANDING requests
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
	if (c->backlogged || c->outstanding - c->executions >= LIMIT_CONN_OUTSTANDING ||
	    conn_owes_too_much(c))
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

/* What kept c from being read may have gone: frames it buffered are
 * handled next turn, and it is read again (update). */
static void resume(struct conn *c)
{
	if (c->dead || c->broken || c->closing)
		return;
	if (buf_len(&c->in) && !must_pause(c))
		loop_task_next(&c->resume, on_resume);
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
	unsigned handled = 0;
	while (!c->closing && !c->dead && !c->broken && buf_len(&c->in) && !must_pause(c)) {
		if (handled >= LIMIT_FRAMES_PER_TURN || !turn_has_room()) {
			loop_task_next(&c->resume, on_resume);
			break;
		}
		const char *payload;
		size_t plen, used;
		enum frame_status st = frame_next(&c->dec, buf_peek(&c->in), buf_len(&c->in),
						  &payload, &plen, &used);
		if (st == FRAME_MORE) {
			buf_consume(&c->in, used);
			break;
		}
		if (st != FRAME_OK) {
			/* The stream cannot be resynchronised: say why, then close. */
			char msg[128];
			snprintf(msg, sizeof msg, "%s (%zu bytes; the maximum is %zu)",
				 frame_status_str(st), plen, settings.max_frame_bytes);
			if (st == FRAME_ERR_EMPTY)
				snprintf(msg, sizeof msg, "%s", frame_status_str(st));
			reply_error(c, NULL, STATUS_INVALID_ARGUMENT, msg);
			c->closing = true;
			buf_clear(&c->in);
			break;
		}
		if (!handle_frame(c, payload, plen))
			break; /* left whole in the buffer, read again later */
		buf_consume(&c->in, used);
		handled++;
	}
	c->partial_since =
		buf_len(&c->in) ? (c->partial_since ? c->partial_since : loop_now_ms()) : 0;
	account(c);
}

/* Recomputes what c waits for and its deadline; closes it once done. */
static void update(struct conn *c)
{
	if (c->dead || c->broken)
		return;
	bool finished = c->closing || c->read_eof || (draining && !buf_len(&c->in));
	bool idle = list_empty(&c->subs);
	if (finished && idle && buf_len(&c->out) == 0) {
		/* Not from here when inside a callback chain: defer. */
		loop_timer_set(&c->timer, 0, on_deferred_close);
		return;
	}
	bool want_read =
		!c->read_eof && !c->closing && !must_pause(c) && !list_linked(&c->resume.link);
	uint32_t ev = (want_read ? EPOLLIN : 0) | (buf_len(&c->out) ? EPOLLOUT : 0);
	loop_mod(&c->w, ev);

	uint64_t deadline = 0;
	if (buf_len(&c->out))
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
		loop_timer_set(&c->timer, deadline > now ? deadline - now : 0, on_deferred_close);
	} else {
		loop_timer_cancel(&c->timer);
	}
}

static void on_event(struct loop_watch *w, uint32_t events)
{
	struct conn *c = container_of(w, struct conn, w);
	if (events & EPOLLOUT) {
		flush(c);
		/* Requests that waited for the backlog to drain go first. */
		if (buf_len(&c->in) && !list_linked(&c->resume.link))
			process(c);
	}
	if ((events & EPOLLIN) && !c->read_eof && !c->closing && !c->broken && !must_pause(c) &&
	    !list_linked(&c->resume.link)) {
		char *dst = buf_reserve(&c->in, 65536);
		ssize_t n = dst ? recv(c->fd, dst, 65536, 0) : -1;
		if (n > 0) {
			buf_commit(&c->in, (size_t)n);
			c->last_progress = loop_now_ms();
			process(c);
			account(c);
			if (partial_total > settings.partial_bytes && buf_len(&c->in)) {
				/* The connection whose bytes passed the budget goes. */
				char msg[160];
				snprintf(msg, sizeof msg,
					 "the daemon's budget for half-sent requests (%zu bytes "
					 "over "
					 "all connections) is full; send requests whole, or retry",
					 settings.partial_bytes);
				reply_error(c, NULL, STATUS_RESOURCE_EXHAUSTED, msg);
				c->closing = true;
				buf_clear(&c->in);
				c->partial_since = 0;
				account(c);
			}
		} else if (n == 0) {
			c->read_eof = true;
			/* A frame cut off by the end of input is answered too. */
			if (buf_len(&c->in) && !c->closing)
				reply_error(c, NULL, STATUS_INVALID_ARGUMENT,
					    "the connection ended in the middle of a frame");
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
		if (count >= settings.max_connections)
			reap_closed(); /* the dead do not take the living's places */
		if (count >= max_open) {
			close(fd);
			unsigned long held;
			if (log_every_pass(&refused_log, &held))
				log_warn("connection refused: %u open (%lu more since the last)",
					 count, held);
			continue;
		}
		struct conn *c = calloc(1, sizeof *c);
		if (!c) {
			close(fd);
			continue;
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
			continue;
		}
		char why[192];
		c->refused = !owner_admitted(&c->owner, why, sizeof why);
		if (c->refused && log_every_pass(&admit_log, &held))
			log_warn("conn %lu refused: %s (%lu more since the last)", c->serial, why,
				 held);
		c->w = (struct loop_watch)LOOP_WATCH_INIT;
		c->timer = (struct loop_timer)LOOP_TIMER_INIT;
		c->resume = (struct loop_task)LOOP_TASK_INIT(c->resume);
		list_init(&c->pendings);
		list_init(&c->ready_link);
		list_init(&c->paused_link);
		c->over_cap = count >= settings.max_connections;
		c->last_progress = loop_now_ms();
		frame_decoder_init(&c->dec, FRAME_MODE_AUTO, settings.max_frame_bytes);
		if (loop_add(&c->w, fd, EPOLLIN, on_event) < 0) {
			close(fd);
			free(c);
			continue;
		}
		list_init(&c->subs);
		list_add_tail(&conns, &c->link);
		count++;
		log_debug("conn %lu accepted from uid %u gid %u%s%s", c->serial,
			  (unsigned)c->owner.uid, (unsigned)c->owner.gid,
			  c->owner.admin ? " (admin)" : "", c->over_cap ? " over the cap" : "");
		update(c);
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
