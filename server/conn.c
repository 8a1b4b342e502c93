/* conn.c - client connections; see conn.h. */
#include "conn.h"

#include <errno.h>
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
	unsigned pass;			/* the kick() pass that found it full */
	struct loop_timer timer;
	uint64_t partial_since; /* a frame has been arriving since then */
	uint64_t last_progress; /* last read or write on the socket */
};

static struct conn_settings settings;
static struct list_node conns = {&conns, &conns};
static unsigned count;
static unsigned long next_serial = 1;
static bool draining;
/* Replies queued and request bytes buffered on all connections, and the
 * work waiting for room to reply, first come first served. */
static size_t queued_total, partial_total;
static struct list_node waiting = {&waiting, &waiting};

static void update(struct conn *c);
static void kick(void);

/* Connections held at most, those kept to be refused included. */
static unsigned max_open;
static struct log_every refused_log;

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
	queued_total = queued_total - c->out_counted + out;
	c->out_counted = out;
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

/* Lets waiting work reply while there is room, in order: work on a full
 * connection waits without holding up other connections; global room is
 * served strictly first come, first served. */
static void kick(void)
{
	static bool kicking, asked;
	static unsigned pass;
	if (kicking) {
		/* Room made while serving: served in a new pass below, where
		 * no connection is still taken for full. */
		asked = true;
		return;
	}
	kicking = true;
	asked = false;
	pass++;
again:;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &waiting) {
		struct conn_pending *p = LIST_ITEM(n, struct conn_pending, link);
		struct conn *c = p->conn;
		if (c->pass == pass)
			continue; /* an earlier reply of c waits: keep c's order */
		if (!conn_fits(c, p->size_hint)) {
			c->pass = pass;
			continue;
		}
		if (!global_fits(p->size_hint))
			break;
		list_del(&p->link);
		c->pending_bytes -= p->size_hint;
		p->ready(p);
		goto again; /* ready may have queued, cancelled or closed anything */
	}
	if (asked) {
		asked = false;
		pass++;
		goto again;
	}
	kicking = false;
}

void conn_when_room(struct conn *c, struct conn_pending *p, size_t size_hint)
{
	p->conn = c;
	p->size_hint = size_hint;
	if (list_empty(&waiting) && conn_fits(c, size_hint) && global_fits(size_hint)) {
		list_init(&p->link);
		p->ready(p);
		return;
	}
	list_add_tail(&waiting, &p->link);
	c->pending_bytes += size_hint;
	kick();
}

void conn_pending_cancel(struct conn_pending *p)
{
	if (list_linked(&p->link)) {
		list_del(&p->link);
		p->conn->pending_bytes -= p->size_hint;
	}
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
	struct list_node *tmp;
	LIST_FOREACH_SAFE (n, tmp, &waiting) {
		struct conn_pending *p = LIST_ITEM(n, struct conn_pending, link);
		if (p->conn == c)
			conn_pending_cancel(p);
	}
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
		defer_close(c);
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
	if (c->out_counted < before)
		kick();
}

void conn_send(struct conn *c, const json_t *msg) { conn_send_raw(c, msg, NULL, 0); }

void conn_send_raw(struct conn *c, const json_t *msg, const char *members, size_t len)
{
	if (c->dead || c->broken)
		return;
	bool was_empty = buf_len(&c->out) == 0;
	enum frame_mode mode = c->dec.mode == FRAME_MODE_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	if (!msg || msg_encode_raw(&c->out, mode, msg, members, len) < 0) {
		/* The client must not wait for an answer that is not coming: a
		 * reply becomes a RESOURCE_EXHAUSTED error with its id; an
		 * event, a reply that is not there to take the id from, or one
		 * whose error cannot be built either cuts the connection, so
		 * the client sees the end rather than a gap. */
		bool event = !msg || json_object_get(msg, "event");
		log_err("conn %lu: cannot encode %s (out of memory)%s", c->serial,
			event ? "an event" : "a reply", event ? ": closing the connection" : "");
		json_t *r = !event ? msg_reply_error(json_object_get(msg, "id"),
						     STATUS_RESOURCE_EXHAUSTED,
						     "out of memory building the reply")
				   : NULL;
		if (!r || msg_encode(&c->out, mode, r) < 0) {
			json_decref(r);
			c->broken = true;
			buf_clear(&c->out);
			account(c);
			defer_close(c);
			return;
		}
		json_decref(r);
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

static void handle_frame(struct conn *c, const char *payload, size_t len)
{
	struct request req;
	struct request_error err;
	json_t *bad_root;
	json_t *root = request_parse(payload, len, &ops_limits, &req, &err, &bad_root);
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
		return;
	}
	if (!root) {
		reply_error(c, err.id, err.code, err.message);
		request_error_clear(&err);
		json_decref(bad_root);
		return;
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
}

/* Decodes and handles every whole frame buffered, unless replies back up. */
static void process(struct conn *c)
{
	while (!c->closing && !c->backlogged && !c->dead && !c->broken) {
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
		handle_frame(c, payload, plen);
		buf_consume(&c->in, used);
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
		defer_close(c);
		return;
	}
	bool want_read = !c->read_eof && !c->closing && !c->backlogged;
	uint32_t ev = (want_read ? EPOLLIN : 0) | (buf_len(&c->out) ? EPOLLOUT : 0);
	loop_mod(&c->w, ev);

	uint64_t deadline = 0;
	if (buf_len(&c->out))
		deadline = c->last_progress + LIMIT_WRITE_STALL_MS;
	else if (c->partial_since)
		deadline = c->partial_since + settings.frame_timeout_ms;
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

static void on_event(struct loop_watch *w, uint32_t events)
{
	struct conn *c = container_of(w, struct conn, w);
	if (events & EPOLLOUT) {
		flush(c);
		/* Requests that waited for the backlog to drain go first. */
		if (!c->backlogged && buf_len(&c->in))
			process(c);
	}
	if ((events & EPOLLIN) && !c->read_eof && !c->closing && !c->broken) {
		char *dst = buf_reserve(&c->in, 65536);
		ssize_t n = dst ? recv(c->fd, dst, 65536, 0) : -1;
		if (!dst) {
			/* Nothing more can be read: say so, and close once the
			 * work already started here has answered. */
			reply_error(c, NULL, STATUS_RESOURCE_EXHAUSTED,
				    "out of memory reading requests: closing the connection");
			c->closing = true;
			buf_clear(&c->in);
			c->partial_since = 0;
		} else if (n > 0) {
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

int conn_accept_ready(int listen_fd)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return errno == EAGAIN ? 0 : -1;
		}
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
			log_warn("connection refused: out of memory");
			continue;
		}
		c->fd = fd;
		c->serial = next_serial++;
		if (owner_from_socket(&c->owner, fd) < 0) {
			/* No owner, no access: nothing could be scoped to it. */
			log_warn("conn %lu: cannot tell who the peer is (SO_PEERCRED: %s): closed",
				 c->serial, strerror(errno));
			close(fd);
			free(c);
			continue;
		}
		char why[192];
		c->refused = !owner_admitted(&c->owner, why, sizeof why);
		if (c->refused)
			log_warn("conn %lu refused: %s", c->serial, why);
		c->w = (struct loop_watch)LOOP_WATCH_INIT;
		c->timer = (struct loop_timer)LOOP_TIMER_INIT;
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
