/*
 * conn.h - client connections: bytes in, frames out.
 *
 * A connection reads requests, hands each to ops_handle, and queues the
 * frames that answer them. Work that answers later (an execution) holds a
 * conn_sub on the connection: it hears when the client goes away and when a
 * backlog of unread replies has drained.
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

#include "list.h"

struct conn;
struct conn_sub;

struct conn_sub_ops {
	/* The client is gone; the connection forgets the sub before calling. */
	void (*gone)(struct conn_sub *s);
	/* The reply backlog drained below the limit: output may flow again. */
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
};

void conn_init(const struct conn_settings *s);

/* Accepts every pending connection on the listening socket. */
void conn_accept_ready(int listen_fd);

/* Encodes msg in the connection's framing and queues it. When the client
 * is already gone this does nothing. A reply that cannot be encoded is
 * replaced by a RESOURCE_EXHAUSTED error with its id; an event that cannot
 * be, or a NULL msg (one that could not be built), closes the connection. */
void conn_send(struct conn *c, const json_t *msg);

/* True while more than LIMIT_CONN_BACKLOG_BYTES wait for the client. */
bool conn_backlogged(const struct conn *c);

void conn_subscribe(struct conn *c, struct conn_sub *s);
void conn_unsubscribe(struct conn *c, struct conn_sub *s);

/* A number that names the connection in logs. */
unsigned long conn_serial(const struct conn *c);

unsigned conn_count(void);

/* Shutdown: new requests get UNAVAILABLE; each connection closes once
 * nothing is in flight and its replies are flushed. */
void conn_shutdown_all(void);
/* Closes every connection now (end of shutdown). */
void conn_close_all(void);

#endif
