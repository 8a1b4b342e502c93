/*
 * fuzz_ctl.c - what a worker sends the supervisor (protocol/ctl.h).
 *
 * The input is the byte stream of a worker's control socket: binary frames
 * of at most CTL_RESULT_BYTES, each either a tool call, checked for the
 * shape the supervisor takes ({"type": "tool_call", "call_id": integer,
 * "name": string, "args": any}), or a result, validated by ctl_result_take.
 * The whole input is also tried as one result payload with
 * ctl_result_parse. A validated result must hold only what ctl.h promises,
 * within its bounds, and must encode back to JSON.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/ctl.h"
#include "../../protocol/frame.h"
#include "fuzz.h"

static void check_string(const json_t *o, const char *key, size_t max, bool required)
{
	const json_t *v = json_object_get(o, key);
	if (!v) {
		if (required)
			abort();
		return;
	}
	if (!json_is_string(v) || json_string_length(v) > max)
		abort();
}

/* What a validated result may hold; frees what ctl.h gives the caller. */
static void check_result(json_t *root, struct ctl_result *res)
{
	if (res->ok) {
		if (res->error)
			abort();
		if (res->test) {
			const json_t *tests = json_object_get(res->test, "tests");
			if (!json_is_object(json_object_get(res->test, "summary")) ||
			    !json_is_array(tests) || json_array_size(tests) > CTL_TESTS_MAX)
				abort();
			size_t i;
			json_t *t;
			json_array_foreach (tests, i, t) {
				check_string(t, "name", CTL_TEST_NAME_BYTES, true);
				check_string(t, "error", CTL_MESSAGE_BYTES, false);
			}
		}
	} else {
		if (!res->error || res->test || res->store_writes || res->value)
			abort();
		check_string(res->error, "kind", 16, true);
		check_string(res->error, "message", CTL_MESSAGE_BYTES, true);
		check_string(res->error, "stack", CTL_STACK_BYTES, false);
	}
	char *text = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!text)
		abort();
	free(text);
	json_decref(res->error);
	json_decref(res->test);
	json_decref(res->store_writes);
	json_decref(root);
}

/* A tool call as the supervisor takes it (run.c), else a result. */
static void one_frame(const char *payload, size_t len)
{
	json_t *m = json_loadb(payload, len, JSON_REJECT_DUPLICATES, NULL);
	const char *type = json_string_value(json_object_get(m, "type"));
	if (type && strcmp(type, "tool_call") == 0) {
		json_t *id = json_object_get(m, "call_id");
		const char *name = json_string_value(json_object_get(m, "name"));
		json_t *args = json_object_get(m, "args");
		if (json_is_integer(id) && name && args) {
			char *text = json_dumps(args, JSON_COMPACT | JSON_ENCODE_ANY);
			if (!text)
				abort();
			free(text);
		}
		json_decref(m);
		return;
	}
	struct ctl_result res;
	const char *why = NULL;
	json_t *root = ctl_result_take(m, &res, &why);
	if (root)
		check_result(root, &res);
	else if (!why)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_result res;
	const char *why = NULL;
	json_t *root = ctl_result_parse((const char *)data, size, &res, &why);
	if (root)
		check_result(root, &res);
	else if (!why)
		abort();

	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, CTL_RESULT_BYTES);
	const char *p = (const char *)data;
	size_t left = size;
	for (;;) {
		const char *payload;
		size_t plen, used;
		if (frame_next(&d, p, left, &payload, &plen, &used) != FRAME_OK)
			break;
		one_frame(payload, plen);
		p += used;
		left -= used;
	}
	return 0;
}
