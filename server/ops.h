/*
 * ops.h - what each request op does.
 */
#ifndef SANDBOXD_OPS_H
#define SANDBOXD_OPS_H

#include <jansson.h>

#include "../protocol/request.h"
#include "conn.h"

/* The per-execution bounds requests are validated against. */
extern struct request_limits ops_limits;
/* How long finished executions stay queryable (for messages). */
extern uint64_t ops_retention_ms;

void ops_init(const struct request_limits *limits, const char *version, uint64_t retention_ms);

/* The most bytes the immediate reply to req may take (an estimate from
 * above): the connection reads a request whose reply may be big only when
 * the global reply budget has room for it (see conn.c's must_pause).
 * Replies that wait for room themselves (status, executions) count small
 * here. */
size_t ops_reply_bound(const struct request *req);

/* Answers req from connection c, now or later. */
void ops_handle(struct conn *c, const struct request *req);

/* The connections' frame callback (conn_settings.frame): parses the frame
 * and answers it through ops_handle, or refuses it. */
enum conn_verdict ops_frame(struct conn *c, const struct conn_frame *f);

#endif
