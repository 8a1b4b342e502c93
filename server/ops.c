/* ops.c - request dispatch; see ops.h. */
#include "ops.h"

#include "conn.h"
#include "exec.h"
#include "loop.h"
#include "../protocol/msg.h"
#include "sched.h"
#include "spawn.h"

struct request_limits ops_limits;
static const char *version;
static uint64_t started_ms;

void ops_init(const struct request_limits *limits, const char *v)
{
	ops_limits = *limits;
	version = v;
	started_ms = loop_now_ms();
}

static void health(struct conn *c, const struct request *req)
{
	json_t *r = msg_reply_ok(req->id);
	json_object_set_new(r, "version", json_string(version));
	json_object_set_new(r, "uptime_ms", json_integer((json_int_t)(loop_now_ms() - started_ms)));
	json_object_set_new(r, "workers_running", json_integer(sched_running()));
	json_object_set_new(r, "workers_max", json_integer(sched_max_workers()));
	json_object_set_new(r, "queued", json_integer(sched_queued()));
	json_object_set_new(r, "executions_total", json_integer((json_int_t)exec_total()));
	json_object_set_new(r, "connections", json_integer(conn_count()));
	json_t *sandbox = json_object();
	spawn_describe_sandbox(sandbox);
	json_object_set_new(r, "sandbox", sandbox);
	json_t *limits = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "timeout_ms",
				   (json_int_t)ops_limits.timeout_ms_default, "timeout_ms_max",
				   (json_int_t)ops_limits.timeout_ms_max, "memory_bytes",
				   (json_int_t)ops_limits.memory_bytes_default, "memory_bytes_max",
				   (json_int_t)ops_limits.memory_bytes_max, "output_bytes",
				   (json_int_t)ops_limits.output_bytes_default, "output_bytes_max",
				   (json_int_t)ops_limits.output_bytes_max);
	json_object_set_new(r, "limits", limits);
	conn_send(c, r);
	json_decref(r);
}

void ops_handle(struct conn *c, json_t *root, const struct request *req)
{
	switch (req->op) {
	case OP_HEALTH: health(c, req); return;
	case OP_EXECUTE:
	case OP_STREAM: exec_submit(c, root, req); return;
	}
}
