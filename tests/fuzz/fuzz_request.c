/*
 * fuzz_request.c - request validation (protocol/request.c) with the
 * default limits, on any bytes as one frame's payload.
 *
 * Whatever comes in, request_parse either accepts it, with every field the
 * op takes inside the limits, or refuses it with a status and a message
 * that can be sent back as JSON (an error reply is built and encoded, as
 * the daemon does).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/buf.h"
#include "../../protocol/frame.h"
#include "../../protocol/limits.h"
#include "../../protocol/msg.h"
#include "../../protocol/request.h"
#include "fuzz.h"

/* Encodes msg as the daemon would send it; the reply must be framable. */
static void encode(const json_t *msg)
{
	struct buf b = BUF_INIT;
	if (!msg || msg_encode(&b, FRAME_MODE_LINE, msg) < 0)
		abort();
	buf_free(&b);
}

static void check_accepted(const struct request *req, const struct request_limits *lim)
{
	if (!req->op_name)
		abort();
	switch (req->op) {
	case OP_EXECUTE:
	case OP_STREAM:
	case OP_ASYNC:
	case OP_TEST:
		if (!req->code && !req->cached && req->op != OP_TEST)
			abort();
		/* Every limit within its bounds, whatever the request said. */
		for (size_t i = 0; i < exec_limit_count; i++) {
			const struct exec_limit_field *f = &exec_limit_fields[i];
			uint64_t v = exec_limit_get(&req->limits, f);
			if (v < exec_limit_get(&lim->min, f) || v > exec_limit_get(&lim->max, f))
				abort();
		}
		if (req->tools && json_array_size(req->tools) > LIMIT_TOOLS)
			abort();
		break;
	case OP_STATUS:
		if (!req->execution_id || req->wait_ms > lim->wait_ms_max)
			abort();
		break;
	case OP_CANCEL:
	case OP_TOOL_RESULT:
		if (!req->execution_id)
			abort();
		break;
	case OP_LIST:
		if (req->limit > LIMIT_LIST_MAX)
			abort();
		break;
	case OP_DECLARATIONS:
		if (!json_is_array(req->tools))
			abort();
		break;
	default: break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct request_limits lim;
	static bool have_lim;
	if (!have_lim) {
		request_limits_default(&lim);
		have_lim = true;
	}
	struct request req;
	struct request_error err;
	json_t *bad_root;
	json_t *root = request_parse((const char *)data, size, &lim, &req, &err, &bad_root);
	if (root) {
		check_accepted(&req, &lim);
		json_t *r = msg_reply_ok(req.id);
		encode(r);
		json_decref(r);
		json_decref(root);
		return 0;
	}
	if (err.code < STATUS_INVALID_ARGUMENT || err.code > STATUS_INTERNAL)
		abort();
	json_t *r = msg_reply_error(err.id, err.code, err.message);
	encode(r);
	json_decref(r);
	request_error_clear(&err);
	json_decref(bad_root);
	return 0;
}
