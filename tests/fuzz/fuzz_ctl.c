/*
 * fuzz_ctl.c - what a worker sends the supervisor (protocol/ctl.h).
 *
 * The input is the byte stream of a worker's control socket: binary frames
 * of at most CTL_RESULT_BYTES, each either a tool call, checked for the
 * shape the supervisor takes ({"type": "tool_call", "call_id": integer,
 * "name": string, "args": any}) or a result, each checked by ctl_parse
 * (jsonv's validation, then the fields' bounds). The whole input is also
 * tried as one payload. A valid message must hold only what ctl.h
 * promises: its texts parse as JSON within their bounds, and a test
 * report's summary is the count of its entries.
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

/* Compact JSON text the message owns: it must parse (NUL inside strings
 * allowed, as a returned value may hold one) and be of the given type. */
static void check_text(const char *text, size_t len, size_t max, int type)
{
	if (!text)
		abort();
	if (len > max || strlen(text) > len)
		abort();
	json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (!v || (type >= 0 && json_typeof(v) != (json_type)type))
		abort();
	json_decref(v);
}

/* What a validated message may hold, as ctl.h promises. */
static void check_msg(const struct ctl_msg *m)
{
	if (m->type == CTL_TOOL_CALL) {
		if (!m->name || m->call_id < 1)
			abort();
		check_text(m->args, m->args_len, CTL_RESULT_BYTES, -1);
		return;
	}
	if (m->type != CTL_RESULT)
		abort();
	if (m->ok) {
		if (m->error)
			abort();
		if (m->value)
			check_text(m->value, m->value_len, CTL_VALUE_BYTES, -1);
		if (m->store_writes)
			check_text(m->store_writes, m->store_writes_len, CTL_STORE_WRITES_BYTES,
				   JSON_OBJECT);
		if (m->has_test) {
			check_text(m->tests, m->tests_len, CTL_RESULT_BYTES, JSON_ARRAY);
			json_t *tests = json_loadb(m->tests, m->tests_len, JSON_ALLOW_NUL, NULL);
			const struct ctl_summary *s = &m->summary;
			if (json_array_size(tests) > CTL_TESTS_MAX ||
			    s->total != json_array_size(tests) ||
			    s->passed + s->failed + s->skipped != s->total)
				abort();
			size_t i;
			json_t *t;
			json_array_foreach (tests, i, t) {
				check_string(t, "name", CTL_TEST_NAME_BYTES, true);
				check_string(t, "error", CTL_MESSAGE_BYTES, false);
			}
			json_decref(tests);
		}
	} else {
		if (!m->error || m->has_test || m->store_writes || m->value)
			abort();
		check_string(m->error, "kind", 16, true);
		check_string(m->error, "message", CTL_MESSAGE_BYTES, true);
		check_string(m->error, "stack", CTL_STACK_BYTES, false);
	}
}

/* One frame's payload as the supervisor checks it: a verdict, and with a
 * valid message only what ctl.h promises. */
static void one_frame(const char *payload, size_t len)
{
	struct ctl_msg m;
	const char *why = NULL;
	if (ctl_parse(payload, len, &m, &why) == 0) {
		check_msg(&m);
		ctl_msg_clear(&m);
	} else if (!why) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The whole input as one payload, then as a stream of frames. */
	one_frame((const char *)data, size);
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
