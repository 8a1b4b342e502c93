/* worker.c - one execution in a confined process; see worker.h. */
#include "worker.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/io.h"
#include "../protocol/frame.h"
#include "engine.h"

/* Reads the one job frame from fd 0; returns its parsed JSON or NULL. */
static json_t *read_job(size_t max)
{
	struct buf in = BUF_INIT;
	struct frame_decoder dec;
	frame_decoder_init(&dec, FRAME_MODE_BINARY, max);
	json_t *job = NULL;
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st =
			frame_next(&dec, buf_peek(&in), buf_len(&in), &payload, &plen, &used);
		if (st == FRAME_OK) {
			job = json_loadb(payload, plen, JSON_ALLOW_NUL, NULL);
			break;
		}
		if (st != FRAME_MORE)
			break;
		char *dst = buf_reserve(&in, 65536);
		if (!dst)
			break;
		ssize_t r = read(0, dst, 65536);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		buf_commit(&in, (size_t)r);
	}
	buf_free(&in);
	return job;
}

static void send_result(json_t *result)
{
	struct buf out = BUF_INIT;
	char *text = json_dumps(result, JSON_COMPACT);
	if (!text || frame_append(&out, FRAME_MODE_BINARY, text, strlen(text)) < 0)
		_exit(CTL_EXIT_MEMORY);
	if (io_write_all(0, buf_peek(&out), buf_len(&out)) < 0)
		_exit(CTL_EXIT_PROTOCOL);
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
	json_t *job = read_job(max_job_bytes);
	json_t *code = json_object_get(job, "code");
	json_t *tests = json_object_get(job, "tests");
	engine_set_limits((uint64_t)json_integer_value(json_object_get(job, "memory_bytes")),
			  (uint64_t)json_integer_value(json_object_get(job, "max_cpu_ms")));
	size_t heap_base = engine_heap_bytes();
	json_t *result;
	if (tests) {
		if (!json_is_string(tests) || (code && !json_is_string(code)))
			_exit(CTL_EXIT_PROTOCOL);
		result = engine_run_tests(json_string_value(code), json_string_length(code),
					  json_string_value(tests), json_string_length(tests));
	} else {
		if (!json_is_string(code))
			_exit(CTL_EXIT_PROTOCOL);
		result = engine_run(json_string_value(code), json_string_length(code));
	}
	if (!result)
		_exit(CTL_EXIT_MEMORY);
	json_object_set_new(result, "heap_peak_bytes",
			    json_integer((json_int_t)(engine_heap_peak() - heap_base)));
	send_result(result);
	_exit(CTL_EXIT_OK);
}
