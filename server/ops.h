/*
 * ops.h - what each request op does.
 */
#ifndef SANDBOXD_OPS_H
#define SANDBOXD_OPS_H

#include <jansson.h>

#include "../protocol/request.h"

struct conn;

/* The per-execution bounds requests are validated against. */
extern struct request_limits ops_limits;

/* Daemon facts health reports. */
void ops_init(const struct request_limits *limits, const char *version);

/* Answers req (parsed from root) from connection c, now or later. */
void ops_handle(struct conn *c, json_t *root, const struct request *req);

#endif
