/*
 * conn.h - client connections: bytes in, frames out.
 *
 * A connection reads frames and hands each whole one to the callback given
 * at conn_init (settings.frame), which parses it, answers or refuses it;
 * it queues the frames that answer them. It knows nothing of requests but
 * their framing, their count and the budgets of their replies. Work that
 * answers later (an execution) holds a conn_sub on the connection: it
 * hears when the client goes away and when a backlog of unread replies has
 * drained.
 *
 * A client that half-closes (shutdown(SHUT_WR), as `socat` does at the end
 * of its input) still gets every reply; only a full close or a failed write
 * counts as going away.
 */
#ifndef SANDBOXD_CONN_H
#define SANDBOXD_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../protocol/buf.h"
#include "../protocol/frame.h"
#include "list.h"
#include "owner.h"

struct conn;
struct conn_sub;
struct parse_job;
struct request_limits;

/* What a connection hands its frame callback. */
enum conn_frame_kind {
	/* A whole frame: payload[0..len), in the read buffer (valid during
	 * the call only). */
	CONN_FRAME_WHOLE,
	/* A big frame parsed off the loop (parse.h): job's root, req and err;
	 * the connection releases the job after the call. */
	CONN_FRAME_PARSED,
	/* The input cannot go on. The callback says why to the client (a
	 * reply without an id); the connection reads no more and closes once
	 * the work already started on it has answered. */
	CONN_FRAME_BROKEN,    /* the framing broke: status says how, len is the
			       * frame's announced length, limit the largest allowed */
	CONN_FRAME_CUT,	      /* the client ended its input inside a frame */
	CONN_FRAME_NO_MEMORY, /* no memory for the read buffer */
	CONN_FRAME_BUDGET,    /* the half-sent requests of all connections
			       * passed the budget (limit) with this one's */
};

struct conn_frame {
	enum conn_frame_kind kind;
	const char *payload;	  /* CONN_FRAME_WHOLE */
	size_t len;		  /* CONN_FRAME_WHOLE, CONN_FRAME_BROKEN */
	struct parse_job *job;	  /* CONN_FRAME_PARSED */
	enum frame_status status; /* CONN_FRAME_BROKEN */
	size_t limit;		  /* CONN_FRAME_BROKEN, CONN_FRAME_BUDGET */
};

/* What became of a whole or parsed frame. */
enum conn_verdict {
	CONN_HANDLED, /* answered, or will be: it counts as one request */
	CONN_LATER,   /* nothing done: conn_reply_waits said its reply must
		       * wait; it is handed again once there is room */
};

struct conn_sub_ops {
	/* The client is gone; the connection forgets the sub before calling. */
	void (*gone)(struct conn_sub *s);
	/* The reply backlog drained below the limit, or the queue emptied:
	 * output may flow again, held work may start. */
	void (*drained)(struct conn_sub *s);
};

struct conn_sub {
	struct list_node link;
	const struct conn_sub_ops *ops;
};

struct conn_settings {
	size_t max_frame_bytes;
	unsigned max_connections;
	uint64_t frame_timeout_ms; /* a started frame must be whole by then */
	uint64_t idle_timeout_ms;  /* nothing in flight, nothing said */
	unsigned max_fds;	   /* fds all connections may hold; 0: no bound */
	void (*fd_freed)(void);	   /* a connection's fd was closed; may be NULL */
	size_t reply_bytes;	   /* replies queued on all connections */
	size_t conn_reply_bytes;   /* replies queued on one connection */
	size_t partial_bytes;	   /* half-sent requests on all connections */
	/* Every frame read, and every way the input broke, in order (see
	 * enum conn_frame_kind); the result matters for whole and parsed
	 * frames only. A frame handled may send, subscribe, finish or wait;
	 * it must not free the connection (nothing does: it closes from the
	 * loop). */
	enum conn_verdict (*frame)(struct conn *c, const struct conn_frame *f);
	/* What frames parsed off the loop are checked against (borrowed, read
	 * by the parser's thread: it must not change). */
	const struct request_limits *limits;
};

/* Whether the reply to the frame being handled may take bound bytes and
 * the global reply budget has no room for them yet: then the callback
 * returns CONN_LATER, and c is not read again until there is room. Only
 * from inside the frame callback; replies of at most 16 KiB never wait. */
bool conn_reply_waits(struct conn *c, size_t bound);

/* Reads nothing more from c: it closes once the work started on it has
 * answered and its replies are flushed (after a refusal). */
void conn_finish(struct conn *c);

/* Whether c's peer was refused at accept (--allow-users, --allow-groups:
 * owner_admitted says why), or came past --max-connections; and whether the
 * daemon is shutting down. Every request of such a connection is to be
 * refused, and a refused or over-the-cap one finished. */
bool conn_refused(const struct conn *c);
bool conn_over_cap(const struct conn *c);
bool conn_draining(void);

/*
 * Work that will answer on a connection waits for room before it builds
 * its reply: the connection's queue and all connections' together stay
 * within their budgets. ready is called once (maybe at once, from inside
 * conn_when_room) when there is room for about size_hint bytes; it then
 * sends. A reply bigger than a budget goes when the connection's queue is
 * empty and, globally, when the others' replies leave room for it or none
 * are queued, so none starves. Waiting work is served first come, first
 * served; a small reply (16 KiB at most) to a connection that owes
 * nothing goes at once, so that clients that read are not held back. A connection that goes away
 * forgets its pending ones silently: their owners hear it through their conn_sub.
 */
struct conn_pending {
	struct list_node link;
	struct conn *conn;
	size_t size_hint;
	void (*ready)(struct conn_pending *p);
};
void conn_when_room(struct conn *c, struct conn_pending *p, size_t size_hint);
/* Withdraws p if it still waits. */
void conn_pending_cancel(struct conn_pending *p);
/* Replies queued on all connections, in bytes. */
size_t conn_reply_bytes_queued(void);
/* What c owes its client: replies queued plus the size hints of work
 * waiting for room; and whether that is past the connection's budget. */
size_t conn_owed_bytes(const struct conn *c);
bool conn_owes_too_much(const struct conn *c);

/* Requests a connection has unanswered count against LIMIT_CONN_OUTSTANDING
 * (past it the connection is not read), but for executions: those are
 * bounded by the queue's caps, and the tool_results they need from the
 * same connection must still be read. An execution with a final reply to
 * come calls begin once accepted and end just before that reply is sent. */
void conn_exec_begin(struct conn *c);
void conn_exec_end(struct conn *c);

/* Returns how many connections are served at once: max_connections, or
 * fewer when max_fds cannot hold them and the few over the cap that are
 * kept to be told why. */
unsigned conn_init(const struct conn_settings *s);

/* Accepts every pending connection on the listening socket. 0 once none is
 * left; -1 with errno when accept4 failed for another reason than an empty
 * queue (EMFILE, ENFILE, ENOBUFS, ENOMEM...): the caller stops watching
 * the listener for a while, since it stays readable. Connections beyond
 * max_fds are closed as soon as accepted. */
int conn_accept_ready(int listen_fd);
/* Serves fd, a connected stream socket (SOCK_NONBLOCK, SOCK_CLOEXEC), as
 * accepted connections are: the connection owns it from here. 0, or -1
 * when it was closed instead (past the cap kept, no peer credentials, out
 * of memory; logged). */
int conn_adopt(int fd);

/* Encodes msg in the connection's framing and queues it. When the client
 * is already gone this does nothing. A reply that cannot be encoded is
 * replaced by a RESOURCE_EXHAUSTED error with its id; an event that cannot
 * be, or a NULL msg (one that could not be built), closes the connection. */
void conn_send(struct conn *c, const json_t *msg);
/* The same with pre-encoded members spliced into msg (see msg_encode_raw):
 * kept JSON text goes out without being rebuilt as a tree. */
void conn_send_raw(struct conn *c, const json_t *msg, const char *members, size_t len);

/*
 * A reply produced as the client reads it, for one too big to encode in a
 * turn of the loop: the connection writes the frame's header (total bytes
 * of JSON, known up front), then asks fill for the next bytes whenever
 * less than a chunk is queued, at most a chunk per turn, and frames sent
 * meanwhile on the connection wait behind it. fill appends at most max
 * bytes to out and returns how many (at least one while any are owed), -1
 * when out of memory. done is called once: sent true when every byte is
 * queued, false when the connection went away first (after its subs heard
 * it); the stream is the caller's again and may be freed. A stream counts
 * against its connection's reply budget with what it has queued and what
 * it still owes, and against the global one with what it has queued (and
 * what it owes when owed_globally).
 */
struct conn_stream {
	struct list_node link;
	size_t total;
	/* What it still owes counts against the global budget too (it pins
	 * memory nothing else counts); otherwise only its connection's. */
	bool owed_globally;
	/* It is the final reply to a request (not an event): queuing it
	 * answers that request (see LIMIT_CONN_OUTSTANDING). */
	bool final;
	/* The request's id (the owner's, alive until done): should the
	 * stream not start for want of memory, an error with this id is
	 * sent instead. NULL for an event, which cannot be replaced. */
	json_t *id;
	long (*fill)(struct conn_stream *s, struct buf *out, size_t max);
	void (*done)(struct conn_stream *s, bool sent);
	/* the connection's */
	size_t produced;
	bool started;
	struct buf after; /* frames sent behind it */
};
/* Queues s on c; it may be done (and done called) before this returns.
 * When c is already gone, done(s, false) at once. */
void conn_send_stream(struct conn *c, struct conn_stream *s);

/* True while more than the connection's reply budget waits for the
 * client. */
bool conn_backlogged(const struct conn *c);

void conn_subscribe(struct conn *c, struct conn_sub *s);
void conn_unsubscribe(struct conn *c, struct conn_sub *s);

/* Who is at the other end (SO_PEERCRED at accept); borrowed, valid while
 * the connection is. */
const struct owner *conn_owner(const struct conn *c);

/* A number that names the connection in logs. */
unsigned long conn_serial(const struct conn *c);

unsigned conn_count(void);

/* Shutdown: new requests get UNAVAILABLE; each connection closes once
 * nothing is in flight and its replies are flushed. */
void conn_shutdown_all(void);
/* Closes every connection now (end of shutdown). */
void conn_close_all(void);

#endif
