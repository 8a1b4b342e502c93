/* worker.c - one execution in a confined process; see worker.h. */
#include "worker.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/io.h"
#include "../protocol/frame.h"
#include "../protocol/jnum.h"
#include "engine.h"
#include "store.h"

/* The control channel, fd 0: frames both ways, read and written whole. */
static struct buf chan_in = BUF_INIT;
static struct frame_decoder chan_dec;

/* The next frame's JSON; exits when the supervisor breaks the protocol. */
static json_t *chan_read(void)
{
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st = frame_next(&chan_dec, buf_peek(&chan_in), buf_len(&chan_in),
						  &payload, &plen, &used);
		if (st == FRAME_OK) {
			json_t *msg = engine_json_load(payload, plen);
			buf_consume(&chan_in, used);
			if (!msg)
				_exit(CTL_EXIT_PROTOCOL);
			return msg;
		}
		if (st != FRAME_MORE)
			_exit(CTL_EXIT_PROTOCOL);
		char *dst = buf_reserve(&chan_in, 65536);
		if (!dst)
			_exit(CTL_EXIT_MEMORY);
		ssize_t r = read(0, dst, 65536);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(CTL_EXIT_PROTOCOL);
		buf_commit(&chan_in, (size_t)r);
	}
}

/* Sends msg as one frame. A result over the frame's limit (which the
 * engine's own bounds should never let happen) is sent as a failure
 * saying so, not as a frame the supervisor would refuse. */
static void chan_write(json_t *msg)
{
	struct buf out = BUF_INIT;
	char *text = jnum_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY);
	if (text && strlen(text) > CTL_RESULT_BYTES) {
		free(text);
		text = NULL;
		char why[128];
		snprintf(why, sizeof why,
			 "the result is over the control frame's limit of %u bytes",
			 CTL_RESULT_BYTES);
		json_t *small = json_pack("{s:s, s:b, s:{s:s, s:s}}", "type", "result", "ok", 0,
					  "error", "kind", "script", "message", why);
		if (small)
			text = jnum_dumps(small, JSON_COMPACT);
		json_decref(small);
	}
	if (!text || frame_append(&out, FRAME_MODE_BINARY, text, strlen(text)) < 0)
		_exit(CTL_EXIT_MEMORY);
	free(text);
	if (io_write_all(0, buf_peek(&out), buf_len(&out)) < 0)
		_exit(CTL_EXIT_PROTOCOL);
	buf_free(&out);
}

/* A tool call: ask the supervisor, wait for its answer. Calls are
 * synchronous, one at a time, so the next frame must be this answer. */
static json_t *call_tool(const char *name, json_t *args, char **error)
{
	static json_int_t next_id;
	json_int_t id = ++next_id;
	json_t *call = json_pack("{s:s, s:I, s:s, s:o}", "type", "tool_call", "call_id", id, "name",
				 name, "args", args);
	if (!call)
		_exit(CTL_EXIT_MEMORY);
	chan_write(call);
	json_decref(call);
	json_t *answer = chan_read();
	const char *type = json_string_value(json_object_get(answer, "type"));
	if (!type || strcmp(type, "tool_result") != 0 ||
	    json_integer_value(json_object_get(answer, "call_id")) != id)
		_exit(CTL_EXIT_PROTOCOL);
	const char *err = json_string_value(json_object_get(answer, "error"));
	json_t *value = NULL;
	if (err)
		*error = strdup(err);
	else
		value = json_incref(json_object_get(answer, "value"));
	json_decref(answer);
	return value;
}

void worker_main(const struct confine_params *p, const struct sock_fprog *filter,
		 size_t max_job_bytes)
{
	const char *step = "?";
	if (confine_apply(p, filter, &step) < 0) {
		/* stderr may not be the worker's pipe yet; say it once if it is. */
		char msg[160];
		int n = snprintf(msg, sizeof msg, "sandboxd worker: confinement failed at %s: %s\n",
				 step, strerror(errno));
		if (n > 0)
			(void)write(2, msg, (size_t)n);
		_exit(CTL_EXIT_CONFINE);
	}
	/* From here on the process is confined: what follows handles the
	 * untrusted script and may be assumed compromised. */
	engine_reseed();
	frame_decoder_init(&chan_dec, FRAME_MODE_BINARY, max_job_bytes);
	json_t *job = chan_read();
	json_t *code = json_object_get(job, "code");
	json_t *tests = json_object_get(job, "tests");
	engine_set_limits((uint64_t)json_integer_value(json_object_get(job, "memory_bytes")),
			  (uint64_t)json_integer_value(json_object_get(job, "max_cpu_ms")));
	store_init(json_incref(json_object_get(job, "store")));
	engine_set_tools(json_object_get(job, "tools"), call_tool);
	size_t heap_base = engine_heap_bytes();
	const char *language = json_string_value(json_object_get(job, "language"));
	enum engine_language lang = !language				  ? ENGINE_ANY
				    : strcmp(language, "typescript") == 0 ? ENGINE_TYPESCRIPT
									  : ENGINE_JAVASCRIPT;
	json_t *result;
	if (tests) {
		if (!json_is_string(tests) || (code && !json_is_string(code)))
			_exit(CTL_EXIT_PROTOCOL);
		result =
			engine_run_tests(json_string_value(code), json_string_length(code),
					 json_string_value(tests), json_string_length(tests), lang);
	} else {
		if (!json_is_string(code))
			_exit(CTL_EXIT_PROTOCOL);
		/* The cache of lowered code: the text an earlier run of this code
		 * was lowered to, when the lowering is this one. */
		json_t *lowered = json_object_get(job, "lowered");
		if (json_is_string(lowered) &&
		    json_integer_value(json_object_get(job, "lowering")) == CTL_LOWERING_VERSION)
			engine_use_lowered(json_string_value(lowered), json_string_length(lowered));
		result = engine_run(json_string_value(code), json_string_length(code), lang);
		size_t made_len;
		const char *made = engine_lowered(&made_len);
		if (result && made)
			json_object_set_new(result, "lowered", json_stringn(made, made_len));
	}
	if (!result)
		_exit(CTL_EXIT_MEMORY);
	json_object_set_new(result, "heap_peak_bytes",
			    json_integer((json_int_t)(engine_heap_peak() - heap_base)));
	/* The supervisor replies before it reaps this process, so its rusage
	 * is not known then: the process's own CPU clock (allowed by the
	 * filter, answered without leaving the process) stands in, as a
	 * diagnostic the supervisor bounds and never trusts. */
	struct timespec cpu;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
		json_object_set_new(result, "cpu_ms",
				    json_integer((json_int_t)cpu.tv_sec * 1000 +
						 (json_int_t)(cpu.tv_nsec / 1000000)));
	chan_write(result);
	_exit(CTL_EXIT_OK);
}
