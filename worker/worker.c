/* worker.c - one execution in a confined process; see worker.h. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/io.h"
#include "../protocol/frame.h"
#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "engine.h"
#include "store.h"

/* The control channel, fd 0: frames both ways, read and written whole. */
static struct buf chan_in = BUF_INIT;
static struct frame_decoder chan_dec;

/* Set in the forkserver's probe (worker_probe_pages): a worker that is
 * not confined, and that waits to be looked at once it has sent its
 * result rather than exit. The fd it says so on. */
static bool probing;
static int probe_fd = -1;
static void probe_hold(void);

/* The pages a trivial job copies on write, found by the probe: every
 * parked worker writes to them while it waits for its job (pretouch). */
static uintptr_t touch_pages[LIMIT_POOL_PRETOUCH_PAGES];
static size_t n_touch;

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
		/* Room for the rest of the frame once its header is in (the
		 * decoder has refused a length over the limit by then), else
		 * for a small frame whole: a 64 KiB buffer for a 100-byte job
		 * cost a break and page faults in every worker. */
		size_t want = 4096, have = buf_len(&chan_in);
		if (have >= 4) {
			const unsigned char *h = (const unsigned char *)buf_peek(&chan_in);
			size_t total = 4 + ((size_t)h[0] << 24 | (size_t)h[1] << 16 |
					    (size_t)h[2] << 8 | (size_t)h[3]);
			if (total > have)
				want = total - have;
		}
		char *dst = buf_reserve(&chan_in, want);
		if (!dst)
			_exit(CTL_EXIT_MEMORY);
		ssize_t r = read(0, dst, want);
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
	if (probing)
		probe_hold();
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

/* The job's memory_bytes and timeout_ms, which the worker's backstops are
 * lowered to: exits on a job without them or a backstop that would rise. */
static void lower_limits(const struct confine_params *p, json_t *job)
{
	json_t *mem = json_object_get(job, "memory_bytes");
	json_t *timeout = json_object_get(job, "timeout_ms");
	if (!json_is_integer(mem) || !json_is_integer(timeout) || json_integer_value(mem) <= 0 ||
	    json_integer_value(timeout) <= 0)
		_exit(CTL_EXIT_PROTOCOL);
	uint64_t as = confine_as_bytes(p->baseline_bytes, (uint64_t)json_integer_value(mem));
	uint64_t cpu = confine_cpu_seconds((uint64_t)json_integer_value(timeout));
	if (confine_lower_limits(as, cpu) < 0)
		_exit(CTL_EXIT_CONFINE);
}

/* Writes to each page the probe found a trivial job copies, so that the
 * copy is made now, while the worker is parked, not on the job's path.
 * Each byte is written back as it was. */
static void pretouch(void)
{
	for (size_t i = 0; i < n_touch; i++) {
		volatile unsigned char *b = (volatile unsigned char *)touch_pages[i];
		*b = *b;
	}
}

void worker_main(const struct confine_params *p, const struct sock_fprog *filter,
		 size_t max_job_bytes)
{
	const char *step = "?";
	if (!probing && confine_apply(p, filter, &step) < 0) {
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
	pretouch();
	engine_reseed();
	frame_decoder_init(&chan_dec, FRAME_MODE_BINARY, max_job_bytes);
	json_t *job = chan_read();
	lower_limits(p, job);
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

/* ---- the probe: which pages does a worker copy? */

/* The probe's result is sent: it tells the forkserver and waits to be
 * killed, its pages as a worker's are when it is done. */
static void probe_hold(void)
{
	char c = 'd';
	(void)!write(probe_fd, &c, 1);
	for (;;)
		pause();
}

/* Collects the pages of [lo, hi) that pid's pagemap shows present and
 * exclusively its own (copied on write or first touched since the fork). */
static void collect(int pagemap, uintptr_t lo, uintptr_t hi, size_t *found)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (uintptr_t a = lo; a < hi; a += page) {
		uint64_t e;
		if (pread(pagemap, &e, sizeof e, (off_t)(a / page * sizeof e)) != sizeof e)
			return;
		if (!(e >> 63 & 1) || !(e >> 56 & 1))
			continue;
		(*found)++;
		if (n_touch < LIMIT_POOL_PRETOUCH_PAGES)
			touch_pages[n_touch++] = a;
	}
}

/* The forkserver's /proc/self/maps, read without malloc: the probe must
 * leave the forkserver's heap as every clone finds it. */
static char maps_text[64 * 1024];

size_t worker_probe_pages(const struct confine_params *p, size_t max_job_bytes)
{
	static const char job[] = "{\"code\":\"return 1\",\"memory_bytes\":67108864,"
				  "\"max_cpu_ms\":1000,\"timeout_ms\":1000,\"tools\":[]}";
	int sv[2] = {-1, -1}, ready[2] = {-1, -1}, pagemap = -1, mapsfd = -1;
	size_t found = 0;
	n_touch = 0;
	unsigned char hdr[4];
	frame_put_header(hdr, (uint32_t)(sizeof job - 1));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(ready, O_CLOEXEC) < 0 || io_write_all(sv[0], hdr, 4) < 0 ||
	    io_write_all(sv[0], job, sizeof job - 1) < 0)
		goto out;
	pid_t pid = fork();
	if (pid == 0) {
		if (dup2(sv[1], 0) < 0)
			_exit(CTL_EXIT_CONFINE);
		probing = true;
		probe_fd = ready[1];
		worker_main(p, NULL, max_job_bytes);
	}
	if (pid < 0)
		goto out;
	close(ready[1]);
	ready[1] = -1;
	struct pollfd pfd = {ready[0], POLLIN, 0};
	char c, path[64];
	snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
	size_t len = 0;
	if (poll(&pfd, 1, 10000) == 1 && read(ready[0], &c, 1) == 1 &&
	    (pagemap = open(path, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    (mapsfd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t r;
		while (len + 1 < sizeof maps_text &&
		       (r = read(mapsfd, maps_text + len, sizeof maps_text - 1 - len)) > 0)
			len += (size_t)r;
	}
	maps_text[len] = '\0';
	/* Our own mappings as they were at the fork: the probe's copies of
	 * their pages are what every worker would copy. */
	for (char *line = maps_text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && strcmp(perms, "rw-p") == 0)
			collect(pagemap, lo, hi, &found);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
out:;
	int fds[] = {sv[0], sv[1], ready[0], ready[1], pagemap, mapsfd};
	for (size_t i = 0; i < 6; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return found;
}
