/* engine.c - Duktape set-up and script execution; see engine.h. */
#include "engine.h"

#include <duktape.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/io.h"
#include "../protocol/jnum.h"
#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/utf8.h"
#include "js.h"
#include "prescan.h"
#include "store.h"

static duk_context *heap_ctx;

/* ---- allocator: counts live bytes, caps the script's heap */

static size_t heap_now, heap_peak;
static bool alloc_failed;
/* The script's limit: the heap may grow to heap_cap (0: no cap). */
static size_t heap_cap;
/* After an allocation over the cap, a little room so the engine can build
 * the error it throws; cleared once it has. */
static bool oom_grace;
#define OOM_GRACE_BYTES (256u * 1024u)
static size_t memory_limit; /* for messages */

static bool over_cap(size_t grow)
{
	if (!heap_cap)
		return false;
	size_t limit = heap_cap + (oom_grace ? OOM_GRACE_BYTES : 0);
	if (heap_now + grow <= limit)
		return false;
	alloc_failed = oom_grace = true;
	return true;
}

static void *eng_alloc(void *udata, duk_size_t size)
{
	(void)udata;
	if (over_cap(size))
		return NULL;
	void *p = malloc(size);
	if (!p && size)
		alloc_failed = true;
	if (p) {
		heap_now += malloc_usable_size(p);
		if (heap_now > heap_peak)
			heap_peak = heap_now;
	}
	return p;
}

static void *eng_realloc(void *udata, void *ptr, duk_size_t size)
{
	(void)udata;
	size_t old = ptr ? malloc_usable_size(ptr) : 0;
	if (size > old && over_cap(size - old))
		return NULL; /* ptr is still valid and still counted */
	void *p = realloc(ptr, size);
	if (!p && size) {
		alloc_failed = true;
		return NULL;
	}
	heap_now -= old;
	if (p) {
		heap_now += malloc_usable_size(p);
		if (heap_now > heap_peak)
			heap_peak = heap_now;
	}
	return p;
}

static void eng_free(void *udata, void *ptr)
{
	(void)udata;
	if (ptr)
		heap_now -= malloc_usable_size(ptr);
	free(ptr);
}

/* ---- the CPU budget, checked by the engine's interrupt counter */

static uint64_t cpu_budget_ns; /* 0: none */
static bool cpu_spent;

/* Called by Duktape every so many bytecode instructions (see
 * scripts/duk-config.sh). Once the budget is spent it stays spent, so that
 * a script catching the RangeError is interrupted again in its handler. */
unsigned int engine_interrupt(void *udata)
{
	(void)udata;
	if (cpu_spent)
		return 1;
	if (!cpu_budget_ns)
		return 0;
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	uint64_t used = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	cpu_spent = used >= cpu_budget_ns;
	return cpu_spent;
}

void engine_set_limits(uint64_t memory_bytes, uint64_t max_cpu_ms)
{
	/* The prepared engine's own heap does not count against the script. */
	memory_limit = (size_t)memory_bytes;
	heap_cap = memory_bytes ? heap_now + (size_t)memory_bytes : 0;
	heap_peak = heap_now;
	cpu_budget_ns = max_cpu_ms * 1000000u;
}

size_t engine_heap_bytes(void) { return heap_now; }
size_t engine_heap_peak(void) { return heap_peak; }

/* Duktape's fatal errors cannot be recovered from and leave the heap in an
 * unknown state: leave at once with a status the supervisor understands. */
static void eng_fatal(void *udata, const char *msg)
{
	(void)udata;
	(void)msg;
	_exit(alloc_failed ? CTL_EXIT_MEMORY : CTL_EXIT_FATAL);
}

/* ---- output */

/* Appends the engine string at idx to out as UTF-8. */
static void append_string(duk_context *ctx, duk_idx_t idx, struct buf *out)
{
	duk_size_t n;
	const char *s = duk_get_lstring(ctx, idx, &n);
	if (s && utf8_from_cesu(out, s, n) < 0)
		(void)duk_error(ctx, DUK_ERR_RANGE_ERROR, "alloc failed");
}

/* Whether a frame's place ("FILE:LINE", n bytes) is in sandboxd's own
 * JavaScript (runtime.js, polyfills.js, the harness …): every file of ours
 * is named NAME.js, the submitted code's are the three below, eval code's
 * is "input". */
static bool internal_place(const char *place, size_t n)
{
	static const char *const user[] = {ENGINE_SCRIPT_NAME, ENGINE_CODE_NAME, ENGINE_TESTS_NAME};
	const char *colon = NULL;
	for (size_t k = n; k > 0; k--)
		if (place[k - 1] == ':') {
			colon = place + k - 1;
			break;
		}
	size_t len = colon ? (size_t)(colon - place) : n;
	if (len < 3 || memcmp(place + len - 3, ".js", 3) != 0)
		return false;
	for (size_t i = 0; i < sizeof user / sizeof *user; i++)
		if (strlen(user[i]) == len && memcmp(place, user[i], len) == 0)
			return false;
	return true;
}

/* Duktape's stack lists C frames and call flags after each frame; a
 * script's author needs neither, nor the frames of sandboxd's own
 * JavaScript. Keeps the first line and each "at" line of the script's
 * code cut after its ')'. */
static void clean_stack(const char *s, size_t n, struct buf *out)
{
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - s) : n;
		const char *line = s + i;
		size_t len = end - i;
		bool frame = len > 7 && memcmp(line, "    at ", 7) == 0;
		if (frame) {
			const char *close = NULL, *open = NULL;
			for (size_t k = len; k > 0; k--)
				if (line[k - 1] == ')') {
					close = line + k;
					break;
				}
			if (close)
				len = (size_t)(close - line);
			for (size_t k = len; k > 0 && close; k--)
				if (line[k - 1] == '(') {
					open = line + k;
					break;
				}
			/* The engine's own C frames ("(duk_js_compiler.c:4954)", a
			 * binding's "(worker/engine.c:410)") mean nothing to the
			 * author: the place is the last parenthesis, after the
			 * function's name (which the script chooses). */
			if (open && memmem(open, (size_t)(close - open), ".c:", 3))
				len = 0;
			/* The lowering's runtime and the polyfills are the
			 * engine's as much as its C is. */
			if (open && internal_place(open, (size_t)(close - open - 1)))
				len = 0;
		}
		if (len) {
			if (buf_len(out))
				buf_append(out, "\n", 1);
			buf_append(out, line, len);
		}
		i = end + 1;
	}
}

/* Error.prototype.stack's getter, in place of the engine's: what that
 * gives, cleaned as above, so that no script reads the engine's C file
 * names and call flags either. */
static duk_ret_t stack_getter(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "stackGetter");
	duk_push_this(ctx);
	duk_call_method(ctx, 0);
	if (!duk_is_string(ctx, -1))
		return 1;
	duk_size_t n;
	const char *raw = duk_get_lstring(ctx, -1, &n);
	struct buf clean = BUF_INIT;
	clean_stack(raw, n, &clean);
	duk_push_lstring(ctx, clean.data ? buf_peek(&clean) : "", buf_len(&clean));
	buf_free(&clean);
	return 1;
}

/* Replaces the getter of Error.prototype.stack by stack_getter, keeping
 * the engine's in the stash. Before the polyfills and the harness, which
 * capture it. */
static void replace_stack_getter(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	duk_get_global_string(ctx, "Object");
	duk_get_prop_string(ctx, -1, "getOwnPropertyDescriptor");
	duk_get_global_string(ctx, "Error");
	duk_get_prop_string(ctx, -1, "prototype");
	duk_remove(ctx, -2);
	duk_push_string(ctx, "stack");
	duk_call(ctx, 2); /* [stash Object desc] */
	duk_get_prop_string(ctx, -1, "get");
	duk_put_prop_string(ctx, -4, "stackGetter");
	duk_pop_3(ctx);
	duk_get_global_string(ctx, "Error");
	duk_get_prop_string(ctx, -1, "prototype");
	duk_push_string(ctx, "stack");
	duk_push_c_function(ctx, stack_getter, 0);
	duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_GETTER);
	duk_pop_2(ctx);
}

/* Pushes the cleaned stack of the error at idx; false (nothing pushed)
 * when it has none. */
static bool push_stack(duk_context *ctx, duk_idx_t idx)
{
	duk_get_prop_string(ctx, idx, "stack");
	if (!duk_is_string(ctx, -1)) {
		duk_pop(ctx);
		return false;
	}
	duk_size_t n;
	const char *raw = duk_get_lstring(ctx, -1, &n);
	struct buf clean = BUF_INIT;
	clean_stack(raw, n, &clean);
	duk_push_lstring(ctx, clean.data ? buf_peek(&clean) : "", buf_len(&clean));
	buf_free(&clean);
	duk_remove(ctx, -2);
	return true;
}

static duk_ret_t json_encode_top(duk_context *ctx, void *udata)
{
	(void)udata;
	duk_json_encode(ctx, -1);
	return 1;
}

/* Leaves ctx's value at idx formatted the way console.log prints it on top of
 * the stack: strings as they are, objects and arrays as compact JSON, errors
 * by their stack, functions by name, everything else by String(). */
static void push_formatted(duk_context *ctx, duk_idx_t idx)
{
	if (duk_is_symbol(ctx, idx)) {
		duk_push_string(ctx, "Symbol()");
		return;
	}
	if (duk_is_string(ctx, idx)) {
		duk_dup(ctx, idx);
		return;
	}
	if (duk_is_undefined(ctx, idx)) {
		duk_push_string(ctx, "undefined");
		return;
	}
	if (duk_is_function(ctx, idx)) {
		duk_get_prop_string(ctx, idx, "name");
		const char *name = duk_is_string(ctx, -1) ? duk_get_string(ctx, -1) : "";
		if (*name)
			duk_push_sprintf(ctx, "[Function: %s]", name);
		else
			duk_push_string(ctx, "[Function (anonymous)]");
		duk_remove(ctx, -2);
		return;
	}
	if (duk_is_error(ctx, idx)) {
		if (!push_stack(ctx, idx)) {
			duk_dup(ctx, idx);
			duk_safe_to_string(ctx, -1);
		}
		return;
	}
	if (duk_is_object(ctx, idx) && !duk_is_buffer_data(ctx, idx)) {
		duk_dup(ctx, idx);
		if (duk_safe_call(ctx, json_encode_top, NULL, 1, 1) == DUK_EXEC_SUCCESS &&
		    duk_is_string(ctx, -1))
			return;
		duk_pop(ctx); /* cyclic, or no JSON form: fall back to String() */
	}
	duk_dup(ctx, idx);
	duk_safe_to_string(ctx, -1);
}

/* ---- console.js: the console object over two primitives */

/* write(fd, s): s to stdout (fd 1) or stderr (2) as UTF-8; handed to
 * console.js alone, which keeps it in a closure. */
static duk_ret_t console_emit(duk_context *ctx)
{
	int fd = duk_get_int(ctx, 0) == 2 ? 2 : 1;
	struct buf out = BUF_INIT;
	duk_safe_to_string(ctx, 1);
	append_string(ctx, 1, &out);
	/* A broken pipe means the supervisor is gone; the worker dies with it. */
	(void)io_write_all(fd, buf_peek(&out), buf_len(&out));
	buf_free(&out);
	return 0;
}

/* clock(): milliseconds on the monotonic clock, for console.time. */
static duk_ret_t console_clock(duk_context *ctx)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	duk_push_number(ctx, (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
	return 1;
}

/* ---- Math.random: xoshiro256**, reseeded per worker */

static uint64_t rng[4] = {0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull,
			  0x2545F4914F6CDD1Dull};

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(void)
{
	uint64_t result = rotl(rng[1] * 5, 7) * 9;
	uint64_t t = rng[1] << 17;
	rng[2] ^= rng[0];
	rng[3] ^= rng[1];
	rng[1] ^= rng[2];
	rng[0] ^= rng[3];
	rng[2] ^= t;
	rng[3] = rotl(rng[3], 45);
	return result;
}

static void web_clock_start(void);

void engine_reseed(void)
{
	uint64_t seed[4];
	if (getrandom(seed, sizeof seed, 0) == (ssize_t)sizeof seed &&
	    (seed[0] | seed[1] | seed[2] | seed[3]) != 0)
		memcpy(rng, seed, sizeof rng);
	web_clock_start();
}

static duk_ret_t math_random(duk_context *ctx)
{
	/* 53 random bits scaled into [0, 1). */
	duk_push_number(ctx, (double)(rng_next() >> 11) * 0x1.0p-53);
	return 1;
}

/* ---- web.js's primitives (see prepare_web): random bytes and the clock
 * performance reads, started when the worker starts (engine_reseed), or
 * at first use in a process that runs no worker. */

static struct timespec web_mono0;
static double web_wall0; /* ms since the epoch */
static bool web_started;

static void web_clock_start(void)
{
	struct timespec wall;
	clock_gettime(CLOCK_MONOTONIC, &web_mono0);
	clock_gettime(CLOCK_REALTIME, &wall);
	web_wall0 = (double)wall.tv_sec * 1e3 + (double)wall.tv_nsec / 1e6;
	web_started = true;
}

/* prim.fill(view): the view's bytes from getrandom; returns the view. The
 * caller (web.js) has checked it is an integer typed array of at most
 * 65536 bytes. */
static duk_ret_t web_fill(duk_context *ctx)
{
	duk_size_t size = 0;
	unsigned char *p = duk_get_buffer_data(ctx, 0, &size);
	for (duk_size_t done = 0; p && done < size;) {
		ssize_t n = getrandom(p + done, size - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return duk_error(ctx, DUK_ERR_ERROR, "getrandom failed");
		done += (duk_size_t)n;
	}
	duk_dup(ctx, 0);
	return 1;
}

/* prim.now(): milliseconds since the worker started, to the nanosecond. */
static duk_ret_t web_now(duk_context *ctx)
{
	if (!web_started)
		web_clock_start();
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	duk_push_number(ctx, (double)(t.tv_sec - web_mono0.tv_sec) * 1e3 +
				     (double)(t.tv_nsec - web_mono0.tv_nsec) / 1e6);
	return 1;
}

/* prim.origin(): the wall-clock time the worker started at, in ms. */
static duk_ret_t web_origin(duk_context *ctx)
{
	if (!web_started)
		web_clock_start();
	duk_push_number(ctx, web_wall0);
	return 1;
}

static json_t *result_error(const char *kind, const char *message)
{
	return json_pack("{s:s, s:b, s:{s:s, s:s}}", "type", "result", "ok", 0, "error", "kind",
			 kind, "message", message);
}

/* ---- JSON with NUL in object keys
 *
 * jansson holds keys of any bytes but its parser refuses a NUL in a key.
 * The engine's JSON is loaded with every \u0000 escape replaced by a
 * marker the text does not contain, and the marker turned back into NUL
 * in the tree's keys and strings. */

/* A copy of v (a new reference) with every occurrence of mark in its keys
 * and strings replaced by a NUL byte; NULL without memory. */
static json_t *unmark(json_t *v, const char *mark, size_t mlen)
{
	if (json_is_string(v)) {
		const char *str = json_string_value(v);
		size_t n = json_string_length(v);
		if (!memmem(str, n, mark, mlen))
			return json_incref(v);
		struct buf b = BUF_INIT;
		for (size_t i = 0; i < n;) {
			if (i + mlen <= n && memcmp(str + i, mark, mlen) == 0) {
				buf_append(&b, "", 1);
				i += mlen;
			} else {
				buf_append(&b, str + i, 1);
				i++;
			}
		}
		json_t *r = b.data ? json_stringn(buf_peek(&b), buf_len(&b)) : NULL;
		buf_free(&b);
		return r;
	}
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *c = unmark(json_array_get(v, i), mark, mlen);
			if (!c || json_array_set_new(v, i, c) < 0)
				return NULL;
		}
		return json_incref(v);
	}
	if (!json_is_object(v))
		return json_incref(v);
	json_t *o = json_object();
	const char *key;
	size_t klen;
	json_t *val;
	json_object_keylen_foreach(v, key, klen, val)
	{
		json_t *k = unmark(json_stringn_nocheck(key, klen), mark, mlen);
		json_t *c = unmark(val, mark, mlen);
		int rc = k && c && o ? json_object_setn_new_nocheck(o, json_string_value(k),
								    json_string_length(k), c)
				     : -1;
		if (rc < 0)
			json_decref(c);
		json_decref(k);
		if (rc < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* Loads text (JSON as the engine writes it) whose object keys hold NUL:
 * a new reference, or NULL. */
static json_t *load_nul_keys(const char *text, size_t len)
{
	/* U+E000, a name and a counter, until the text does not hold it. */
	char mark[32];
	size_t mlen = 0;
	for (unsigned i = 0;; i++) {
		int m = snprintf(mark, sizeof mark, "\xee\x80\x80nul%u\xee\x80\x80", i);
		mlen = (size_t)m;
		if (!memmem(text, len, mark, mlen))
			break;
	}
	struct buf b = BUF_INIT;
	bool in_string = false;
	for (size_t i = 0; i < len;) {
		if (in_string && text[i] == '\\' && i + 1 < len) {
			if (i + 6 <= len && memcmp(text + i + 1, "u0000", 5) == 0) {
				buf_append(&b, mark, mlen);
				i += 6;
			} else {
				buf_append(&b, text + i, 2);
				i += 2;
			}
			continue;
		}
		if (text[i] == '"')
			in_string = !in_string;
		buf_append(&b, text + i, 1);
		i++;
	}
	json_t *marked =
		b.data ? jnum_loadb(buf_peek(&b), buf_len(&b), JSON_DECODE_ANY, NULL) : NULL;
	buf_free(&b);
	json_t *r = marked ? unmark(marked, mark, mlen) : NULL;
	json_decref(marked);
	return r;
}

/* Counts the values of v into *n, stopping once it passes max. */
static bool nodes_over(json_t *v, size_t max, size_t *n)
{
	if (++*n > max)
		return true;
	size_t i;
	json_t *c;
	const char *k;
	if (json_is_array(v)) {
		json_array_foreach (v, i, c)
			if (nodes_over(c, max, n))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach (v, k, c)
			if (nodes_over(c, max, n))
				return true;
	}
	return false;
}

json_t *engine_json_load(const char *text, size_t len)
{
	json_error_t jerr;
	json_t *v = jnum_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!v && json_error_code(&jerr) == json_error_null_byte_in_key)
		v = load_nul_keys(text, len);
	return v;
}

/* True when v holds more than max values (scalars, arrays, objects). */
static bool json_nodes_over(json_t *v, size_t max)
{
	size_t n = 0;
	return nodes_over(v, max, &n);
}

/*
 * The value at idx as JSON (a JSON round trip, as for everything that leaves
 * the engine). 1 with *out set; 0 when it has no JSON form at all
 * (undefined, or a toJSON giving undefined); -1 with why filled when it
 * cannot be converted (a function, a symbol, a cycle, too big, no memory).
 */
static int to_json(duk_context *ctx, duk_idx_t idx, const char *what, json_t **out, char *why,
		   size_t why_len)
{
	idx = duk_normalize_index(ctx, idx);
	if (duk_is_undefined(ctx, idx))
		return 0;
	if (duk_is_function(ctx, idx) || duk_is_symbol(ctx, idx)) {
		snprintf(why, why_len, "%s is a %s, which JSON cannot hold", what,
			 duk_is_function(ctx, idx) ? "function" : "symbol");
		return -1;
	}
	duk_dup(ctx, idx);
	if (duk_safe_call(ctx, json_encode_top, NULL, 1, 1) != DUK_EXEC_SUCCESS) {
		snprintf(why, why_len, "%s cannot be converted to JSON (%s)", what,
			 alloc_failed ? "out of memory" : duk_safe_to_string(ctx, -1));
		duk_pop(ctx);
		return -1;
	}
	if (!duk_is_string(ctx, -1)) { /* toJSON gave undefined */
		duk_pop(ctx);
		return 0;
	}
	struct buf text = BUF_INIT;
	append_string(ctx, -1, &text);
	duk_pop(ctx);
	if (buf_len(&text) > CTL_VALUE_BYTES) {
		buf_free(&text);
		snprintf(why, why_len, "%s is over %u bytes as JSON", what, CTL_VALUE_BYTES);
		return -1;
	}
	*out = engine_json_load(text.data ? buf_peek(&text) : "", buf_len(&text));
	buf_free(&text);
	if (!*out) {
		snprintf(why, why_len, "%s could not be converted to JSON (%s)", what,
			 alloc_failed ? "out of memory" : "invalid JSON");
		return -1;
	}
	/* The supervisor refuses a frame holding more; said here, it is
	 * the script's failure, not a broken protocol. */
	if (json_nodes_over(*out, CTL_VALUE_NODES)) {
		json_decref(*out);
		*out = NULL;
		snprintf(why, why_len, "%s is too large for JSON: more than %u values", what,
			 CTL_VALUE_NODES);
		return -1;
	}
	return 1;
}

/* Pushes the UTF-8 s[0..n) as an engine string (CESU-8 inside). */
static void push_utf8(duk_context *ctx, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0xF0) { /* a 4-byte sequence: two surrogates */
			struct buf b = BUF_INIT;
			if (utf8_to_cesu(&b, s, n) < 0) {
				buf_free(&b);
				(void)duk_error(ctx, DUK_ERR_RANGE_ERROR, "out of memory");
			}
			duk_push_lstring(ctx, buf_peek(&b), buf_len(&b));
			buf_free(&b);
			return;
		}
	duk_push_lstring(ctx, s, n);
}

/* Pushes a copy of v, the value JSON.parse of its text gives (members
 * defined, not set: a "__proto__" key is an own property), with numbers
 * pushed as the doubles they are: the engine's own reading of number text
 * is off in the last digit for some (1e23, 47987173000000000000). */
static void push_json(duk_context *ctx, const json_t *v)
{
	duk_require_stack(ctx, 4);
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		duk_push_object(ctx);
		const char *key;
		size_t klen;
		json_t *val;
		json_object_keylen_foreach((json_t *)v, key, klen, val)
		{
			push_utf8(ctx, key, klen);
			push_json(ctx, val);
			duk_def_prop(ctx, -3,
				     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE |
					     DUK_DEFPROP_SET_ENUMERABLE |
					     DUK_DEFPROP_SET_CONFIGURABLE);
		}
		break;
	}
	case JSON_ARRAY:
		duk_push_array(ctx);
		for (size_t i = 0; i < json_array_size(v); i++) {
			push_json(ctx, json_array_get(v, i));
			duk_put_prop_index(ctx, -2, (duk_uarridx_t)i);
		}
		break;
	case JSON_STRING: push_utf8(ctx, json_string_value(v), json_string_length(v)); break;
	case JSON_INTEGER: duk_push_number(ctx, (double)json_integer_value(v)); break;
	case JSON_REAL: duk_push_number(ctx, json_real_value(v)); break;
	case JSON_TRUE: duk_push_true(ctx); break;
	case JSON_FALSE: duk_push_false(ctx); break;
	case JSON_NULL: duk_push_null(ctx); break;
	}
}

static json_t *result_ok(json_t *value)
{
	json_t *r = json_pack("{s:s, s:b}", "type", "result", "ok", 1);
	if (value)
		json_object_set_new(r, "value", value);
	/* What the script stored counts only when it succeeded. */
	json_object_set_new(r, "store_writes", store_writes());
	return r;
}

static json_t *result_value(duk_context *ctx)
{
	json_t *value = NULL;
	char why[256];
	/* The value is what JSON.stringify gives, which is nothing for a
	 * function or a symbol, as for undefined. */
	if (duk_is_function(ctx, -1) || duk_is_symbol(ctx, -1))
		return result_ok(NULL);
	int rc = to_json(ctx, -1, "the returned value", &value, why, sizeof why);
	if (rc < 0)
		return result_error(alloc_failed ? "memory" : "script", why);
	return result_ok(value);
}

/* ---- tools and the store */

static const char **tool_names;
static size_t n_tools;
static engine_tool_fn tool_handler;

/* tools.<name>(args): one synchronous round trip through the worker. */
static duk_ret_t tool_call(duk_context *ctx)
{
	int i = duk_get_current_magic(ctx);
	if (i < 0 || (size_t)i >= n_tools)
		return duk_error(ctx, DUK_ERR_ERROR, "unknown tool");
	json_t *args = NULL;
	char why[256];
	if (to_json(ctx, 0, "the tool's argument", &args, why, sizeof why) < 0)
		return duk_error(ctx, DUK_ERR_TYPE_ERROR, "%s", why);
	char *error = NULL;
	json_t *value = tool_handler(tool_names[i], args ? args : json_null(), &error);
	if (error) {
		duk_push_error_object(ctx, DUK_ERR_ERROR, "%s", error);
		free(error);
		return duk_throw(ctx);
	}
	if (!value)
		return 0;
	push_json(ctx, value);
	json_decref(value);
	return 1;
}

/* Creates (or finds) the object at a dotted path under obj_idx. */
static void tool_groups(duk_context *ctx, const char *name)
{
	const char *dot;
	while ((dot = strchr(name, '.')) != NULL) {
		duk_push_lstring(ctx, name, (duk_size_t)(dot - name));
		duk_dup(ctx, -1);
		if (!duk_get_prop(ctx, -3)) {
			duk_pop(ctx);
			duk_push_object(ctx);
			duk_dup(ctx, -2);
			duk_dup(ctx, -2);
			duk_put_prop(ctx, -5);
		}
		duk_remove(ctx, -2); /* the key */
		duk_remove(ctx, -2); /* the parent */
		name = dot + 1;
	}
	duk_push_string(ctx, name);
}

void engine_set_tools(json_t *names, engine_tool_fn handler)
{
	duk_context *ctx = heap_ctx;
	n_tools = json_array_size(names);
	tool_handler = handler;
	tool_names = NULL;
	/* No tools: the engine's objects are left as the forkserver made
	 * them (each one touched, if only its reference count, is a page
	 * the worker copies). */
	if (!n_tools)
		return;
	tool_names = calloc(n_tools, sizeof *tool_names);
	duk_push_global_object(ctx);
	duk_get_prop_string(ctx, -1, "tools");
	for (size_t i = 0; i < n_tools && tool_names; i++) {
		tool_names[i] = json_string_value(json_array_get(names, i));
		if (!tool_names[i])
			continue;
		duk_dup(ctx, -1);
		tool_groups(ctx, tool_names[i]); /* [.. tools group key] */
		duk_push_c_function(ctx, tool_call, 1);
		duk_set_magic(ctx, -1, (duk_int_t)i);
		/* Named, so that a stack through it reads "at tools.a.b ()". */
		duk_push_string(ctx, "name");
		duk_push_sprintf(ctx, "tools.%s", tool_names[i]);
		duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE);
		duk_put_prop(ctx, -3);
		duk_pop(ctx);
	}
	duk_pop_2(ctx);
}

/* The store key at idx (made a string) as UTF-8 in key. */
static void store_key(duk_context *ctx, duk_idx_t idx, struct buf *key)
{
	duk_to_string(ctx, idx);
	append_string(ctx, idx, key);
}

/* load(key): a copy of the stored value, or undefined. */
static duk_ret_t js_load(duk_context *ctx)
{
	struct buf key = BUF_INIT;
	store_key(ctx, 0, &key);
	json_t *v = store_get(key.data ? buf_peek(&key) : "", buf_len(&key));
	buf_free(&key);
	if (!v)
		return 0;
	push_json(ctx, v);
	return 1;
}

/* store(key, value): undefined deletes. */
static duk_ret_t js_store(duk_context *ctx)
{
	struct buf key = BUF_INIT;
	store_key(ctx, 0, &key);
	json_t *v = NULL;
	char why[256];
	if (to_json(ctx, 1, "the stored value", &v, why, sizeof why) < 0) {
		buf_free(&key);
		duk_push_error_object(ctx, DUK_ERR_TYPE_ERROR, "store(%s): %s",
				      duk_get_string(ctx, 0), why);
		return duk_throw(ctx);
	}
	const char *limit;
	int rc = store_put(key.data ? buf_peek(&key) : "", buf_len(&key), v, &limit);
	buf_free(&key);
	if (rc < 0)
		return duk_error(ctx, DUK_ERR_RANGE_ERROR, "%s", limit);
	return 0;
}

/* Set when the polyfills queue a microtask: most scripts never use promises
 * and need not call into them (each call writes to, and so copies, pages of
 * the prepared heap). */
static bool microtasks;

static duk_ret_t microtask_queued(duk_context *ctx)
{
	(void)ctx;
	microtasks = true;
	return 0;
}

/* ---- the event loop's primitives (timers.js), closed over there */

/* Set when timers.js has work for its run(): a timer, an immediate or a
 * warning. Like microtasks, so that scripts using none never call it. */
static bool loop_wanted;

static duk_ret_t loop_wanted_fn(duk_context *ctx)
{
	(void)ctx;
	loop_wanted = true;
	return 0;
}

/* now(): the monotonic clock in milliseconds (with their fraction). */
static duk_ret_t loop_now(duk_context *ctx)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	duk_push_number(ctx, (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6);
	return 1;
}

/* sleep(ms): sleeps until the monotonic clock reads ms (an absolute time
 * from now()). The one blocking call the worker makes besides reading its
 * control channel; the supervisor's timeout bounds it, and it spends no
 * CPU. */
static duk_ret_t loop_sleep(duk_context *ctx)
{
	double ms = duk_to_number(ctx, 0);
	if (!(ms > 0) || ms > 1e15)
		return 0;
	struct timespec until;
	until.tv_sec = (time_t)(ms / 1000.0);
	until.tv_nsec = (long)((ms - (double)until.tv_sec * 1000.0) * 1000000.0);
	if (until.tv_nsec < 0 || until.tv_nsec > 999999999)
		until.tv_nsec = 0;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
	return 0;
}

/* Duktape.errCreate: every error the engine creates passes here. The
 * engine's own allocation failure says "alloc failed"; a script should read
 * what happened: it hit its memory limit. */
static duk_ret_t err_create(duk_context *ctx)
{
	if (oom_grace && duk_is_error(ctx, 0)) {
		duk_get_prop_string(ctx, 0, "message");
		bool engine_oom = duk_is_string(ctx, -1) &&
				  strcmp(duk_get_string(ctx, -1), "alloc failed") == 0;
		duk_pop(ctx);
		if (engine_oom) {
			duk_push_sprintf(ctx,
					 "out of memory: the script's heap reached its limit of "
					 "%lu bytes (memory_bytes)",
					 (unsigned long)memory_limit);
			duk_put_prop_string(ctx, 0, "message");
		}
		oom_grace = false;
	}
	duk_dup(ctx, 0);
	return 1;
}

/* ---- set-up */

static void put_function(duk_context *ctx, const char *name, duk_c_function fn, int nargs,
			 int magic)
{
	duk_push_c_function(ctx, fn, nargs);
	duk_set_magic(ctx, -1, magic);
	duk_put_prop_string(ctx, -2, name);
}

/* ---- hidden keys */

/* keys.fresh(): another hidden symbol. Duktape's hidden symbols begin with
 * a 0xFF byte, which no ECMAScript string can hold: no script can name
 * such a key, and neither getOwnPropertySymbols nor Reflect.ownKeys nor a
 * Proxy trap lists it. */
static duk_ret_t fresh_key(duk_context *ctx)
{
	static unsigned long n;
	duk_push_sprintf(ctx, "%ckey%lu", 0xff, ++n);
	return 1;
}

/* keys.described(s): false when the symbol s was made without a
 * description (Symbol(), unlike Symbol('')), which no script can tell
 * from its string. Duktape ends such a symbol's bytes, after the 0xFF
 * that follows the description and the unique suffix, with a second
 * 0xFF; a well-known symbol has only the first. */
static duk_ret_t described_key(duk_context *ctx)
{
	duk_size_t len = 0;
	const unsigned char *s = NULL;
	if (duk_is_symbol(ctx, 0))
		s = (const unsigned char *)duk_get_lstring(ctx, 0, &len);
	int marks = 0;
	for (duk_size_t i = 1; i < len; i++)
		marks += s[i] == 0xff;
	duk_push_boolean(ctx, !(len > 1 && s[len - 1] == 0xff && marks >= 2));
	return 1;
}

/* Pushes the object of hidden keys the polyfills and the runtime keep
 * their state under (see polyfills.js, runtime.js). */
static void push_keys(duk_context *ctx)
{
	static const char *const names[] = {"id",  "table", "promise", "gen", "groups",
					    "cls", "genfn", "asyncfn", "iter"};
	duk_push_object(ctx);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		duk_push_sprintf(ctx, "%c%s", 0xff, names[i]);
		duk_put_prop_string(ctx, -2, names[i]);
	}
	duk_push_c_function(ctx, fresh_key, 0);
	duk_put_prop_string(ctx, -2, "fresh");
	duk_push_c_function(ctx, described_key, 1);
	duk_put_prop_string(ctx, -2, "described");
}

/* Compiles and runs an embedded source; its value is left on the stack. */
static int load_js(duk_context *ctx, const char *name, const char *src, size_t len,
		   duk_uint_t flags)
{
	duk_push_string(ctx, name);
	if (duk_pcompile_lstring_filename(ctx, flags, src, len) != DUK_EXEC_SUCCESS ||
	    duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		return -1;
	return 0;
}

/* util.inspect and util.format as Node has them (worker/js/inspect.js),
 * compiled once here: stash.util, {inspect, format, formatWithOptions},
 * which the console prints through. It reads promises and Map and Set
 * tables through the polyfills' internals, so it comes after them. */
static int prepare_inspect(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	if (load_js(ctx, "inspect.js", js_inspect, js_inspect_len, DUK_COMPILE_EVAL) < 0 ||
	    !duk_is_function(ctx, -1))
		return -1;
	duk_get_prop_string(ctx, -2, "internals");
	push_keys(ctx);
	duk_push_global_object(ctx);
	if (duk_pcall(ctx, 3) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "util");
	duk_pop(ctx);
	return 0;
}

/* web.js (DOMException, structuredClone, atob and btoa, crypto, the text
 * coders' additions, performance): run once here with its primitives,
 * which it keeps in its closure. stash.DOMException is the constructor, for
 * the engine and the other modules. */
static int prepare_web(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	if (load_js(ctx, "web.js", js_web, js_web_len, DUK_COMPILE_EVAL) < 0 ||
	    !duk_is_function(ctx, -1))
		return -1;
	duk_push_global_object(ctx);
	duk_push_object(ctx);
	put_function(ctx, "fill", web_fill, 1, 0);
	put_function(ctx, "now", web_now, 0, 0);
	put_function(ctx, "origin", web_origin, 0, 0);
	push_keys(ctx);
	if (duk_pcall(ctx, 3) != DUK_EXEC_SUCCESS || !duk_is_function(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "DOMException");
	duk_pop(ctx);
	return 0;
}

/* The lowering of modern JavaScript and TypeScript, compiled once here so
 * that a worker that needs it pays only for running it: stash.lower, and
 * stash.rt, the runtime lowered code calls. Lowered code gets the runtime
 * as a parameter of the wrapper it is compiled in (see compile): no global
 * holds it, so no script can read or replace it for another source. */
static int prepare_lowering(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	if (load_js(ctx, "acorn.js", js_acorn, js_acorn_len, 0) < 0)
		return -1;
	duk_pop(ctx);
	duk_push_global_object(ctx);
	duk_get_prop_string(ctx, -1, "acorn");
	duk_del_prop_string(ctx, -2, "acorn");
	duk_remove(ctx, -2); /* [stash acorn] */
	if (load_js(ctx, "lower.js", js_lower, js_lower_len, DUK_COMPILE_EVAL) < 0)
		return -1;
	duk_insert(ctx, -2); /* [stash lowerFactory acorn] */
	if (load_js(ctx, "typescript.js", js_typescript, js_typescript_len, DUK_COMPILE_EVAL) < 0 ||
	    duk_pcall(ctx, 2) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "lower");

	if (load_js(ctx, "runtime.js", js_runtime, js_runtime_len, DUK_COMPILE_EVAL) < 0)
		return -1;
	duk_get_prop_string(ctx, -2, "thread");
	push_keys(ctx);
	duk_get_prop_string(ctx, -4, "lower");
	if (duk_pcall(ctx, 3) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "rt");
	duk_pop(ctx);
	return 0;
}

/* ---- Math's ES2015 functions, from the C library */

/* The C library's functions behind Math's ES2015 additions: like V8's
 * fdlibm, each is within an ulp of the exact value (and agrees with it on
 * nearly every input), which a JavaScript version built from exp and log
 * is not. Duktape's own cbrt is pow(x, 1/3), which misses even 27. */
static double math_cbrt(double x);
static double (*const math_fns[])(double) = {sinh,  cosh,  tanh,  asinh,    acosh,
					     atanh, expm1, log1p, math_cbrt};
static const char *const math_names[] = {"sinh",  "cosh",  "tanh",  "asinh", "acosh",
					 "atanh", "expm1", "log1p", "cbrt"};

/* The cube root as FreeBSD's s_cbrt.c (and so V8) computes it: correctly
 * rounded on cubes, where the C library's gives 3.0000000000000004 for 27.
 * A first estimate from the exponent bits, a polynomial step to 23 bits,
 * then one Newton step at double precision. */
static double math_cbrt(double x)
{
	static const uint32_t B1 = 715094163, B2 = 696219795;
	static const double P0 = 1.87595182427177009643, P1 = -1.88497979543377169875,
			    P2 = 1.621429720105354466140, P3 = -0.758397934778766047437,
			    P4 = 0.145996192886612446982;
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	uint32_t hx = (uint32_t)(bits >> 32), low = (uint32_t)bits;
	uint32_t sign = hx & 0x80000000u;
	hx &= 0x7fffffffu;
	if (hx >= 0x7ff00000u)
		return x + x;
	double t;
	uint64_t tb;
	if (hx < 0x00100000u) {
		if ((hx | low) == 0)
			return x;
		t = x * 18014398509481984.0; /* 2^54: a subnormal made normal */
		memcpy(&tb, &t, sizeof tb);
		uint32_t high = (uint32_t)(tb >> 32) & 0x7fffffffu;
		tb = (uint64_t)(sign | (high / 3 + B2)) << 32;
	} else {
		tb = (uint64_t)(sign | (hx / 3 + B1)) << 32;
	}
	memcpy(&t, &tb, sizeof t);
	double r = (t * t) * (t / x);
	t = t * ((P0 + r * (P1 + r * P2)) + ((r * r) * r) * (P3 + r * P4));
	memcpy(&tb, &t, sizeof tb);
	tb = (tb + 0x80000000u) & 0xffffffffc0000000ull;
	memcpy(&t, &tb, sizeof t);
	double s = t * t;
	r = x / s;
	double w = t + t;
	r = (r - t) / (w + r);
	return t + t * r;
}

static duk_ret_t math_call(duk_context *ctx)
{
	double x = duk_to_number(ctx, 0);
	duk_push_number(ctx, math_fns[duk_get_current_magic(ctx)](x));
	return 1;
}

/* Puts the functions above on Math, each with an own name and length 1. */
static void prepare_math(duk_context *ctx)
{
	duk_get_global_string(ctx, "Math");
	for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++) {
		duk_push_string(ctx, math_names[i]);
		duk_push_c_function(ctx, math_call, 1);
		duk_set_magic(ctx, -1, (duk_int_t)i);
		duk_push_string(ctx, "length");
		duk_push_int(ctx, 1);
		duk_def_prop(ctx, -3,
			     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE |
				     DUK_DEFPROP_SET_CONFIGURABLE);
		duk_push_string(ctx, "name");
		duk_push_string(ctx, math_names[i]);
		duk_def_prop(ctx, -3,
			     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE |
				     DUK_DEFPROP_SET_CONFIGURABLE);
		duk_def_prop(ctx, -3,
			     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE |
				     DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
				     DUK_DEFPROP_FORCE);
	}
	duk_pop(ctx);
}

/* The built-ins of ES2017-ES2024 beyond the polyfills, then EventTarget,
 * AbortController and the rest of abort.js, each a function of (global,
 * hidden keys, normalize's tables) run once here, after the polyfills,
 * whose Map and Promise they use, and web.js, whose DOMException abort.js
 * takes. 0, or -1 when one fails to load. */
static int prepare_builtins(duk_context *ctx)
{
	static const struct {
		const char *name;
		const char *src;
		const unsigned long *len;
	} files[] = {
		{"builtins.js", js_builtins, &js_builtins_len},
		{"abort.js", js_abort, &js_abort_len},
	};
	if (load_js(ctx, "normtables.js", js_normtables, js_normtables_len, DUK_COMPILE_EVAL) < 0 ||
	    !duk_is_object(ctx, -1))
		return -1;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		if (load_js(ctx, files[i].name, files[i].src, *files[i].len, DUK_COMPILE_EVAL) <
			    0 ||
		    !duk_is_function(ctx, -1))
			return -1;
		duk_push_global_object(ctx);
		push_keys(ctx);
		duk_dup(ctx, -4);
		if (duk_pcall(ctx, 3) != DUK_EXEC_SUCCESS)
			return -1;
		duk_pop(ctx);
	}
	duk_pop(ctx);
	return 0;
}

/* emitWarning(type, message): the event loop's process warning (stash.loop's,
 * timers.js's emitWarning), which writes it after the running job as
 * Node's process.emitWarning does. Looked up when called: the loop is
 * prepared after the console, whose error it writes through. */
static duk_ret_t console_warning(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "loop");
	duk_get_prop_string(ctx, -1, "warning");
	duk_dup(ctx, 0);
	duk_dup(ctx, 1);
	duk_call(ctx, 2);
	return 0;
}

/* Replaces the global console by console.js's, formatting through
 * stash.util (inspect.js) and warning through console_warning. */
static int prepare_console(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	if (load_js(ctx, "console.js", js_console, js_console_len, DUK_COMPILE_EVAL) < 0 ||
	    !duk_is_function(ctx, -1))
		return -1;
	duk_push_c_function(ctx, console_emit, 2);
	duk_push_c_function(ctx, console_clock, 0);
	duk_push_c_function(ctx, console_warning, 2);
	duk_get_prop_string(ctx, -5, "util");
	static const char *const files[] = {ENGINE_SCRIPT_NAME, ENGINE_CODE_NAME,
					    ENGINE_TESTS_NAME};
	duk_push_array(ctx);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		duk_push_string(ctx, files[i]);
		duk_put_prop_index(ctx, -2, (duk_uarridx_t)i);
	}
	if (duk_pcall(ctx, 5) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	/* As Node has it: writable and configurable, not enumerable. */
	duk_push_global_object(ctx);
	duk_push_string(ctx, "console");
	duk_dup(ctx, -3);
	duk_def_prop(ctx, -3,
		     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE |
			     DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE |
			     DUK_DEFPROP_FORCE);
	duk_pop_3(ctx);
	return 0;
}

/* setTimeout and the rest, and the event loop (timers.js): stash.loop, and
 * internals.loop for test mode's harness. After the polyfills (whose
 * internals it drives) and the console (whose error it keeps), before the
 * harness. */
static int prepare_timers(duk_context *ctx)
{
	duk_push_global_stash(ctx);
	if (load_js(ctx, "timers.js", js_timers, js_timers_len, DUK_COMPILE_EVAL) < 0 ||
	    !duk_is_function(ctx, -1))
		return -1;
	duk_push_global_object(ctx);
	duk_push_object(ctx);
	put_function(ctx, "now", loop_now, 0, 0);
	put_function(ctx, "sleep", loop_sleep, 1, 0);
	put_function(ctx, "wanted", loop_wanted_fn, 0, 0);
	duk_get_prop_string(ctx, -4, "internals");
	push_keys(ctx);
	duk_push_object(ctx);
	duk_push_uint(ctx, LIMIT_TIMERS_PENDING);
	duk_put_prop_string(ctx, -2, "pending");
	if (duk_pcall(ctx, 5) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	duk_get_prop_string(ctx, -2, "internals");
	duk_dup(ctx, -2);
	duk_put_prop_string(ctx, -2, "loop");
	duk_pop(ctx);
	duk_put_prop_string(ctx, -2, "loop");
	duk_pop(ctx);
	return 0;
}

/* URL and URLSearchParams (js/url.js), installed as globals; their state
 * lives under hidden keys no script can name. */
static int prepare_url(duk_context *ctx)
{
	if (load_js(ctx, "url.js", js_url, js_url_len, DUK_COMPILE_EVAL) < 0)
		return -1;
	duk_push_global_object(ctx);
	push_keys(ctx);
	if (duk_pcall(ctx, 2) != DUK_EXEC_SUCCESS)
		return -1;
	duk_pop(ctx);
	return 0;
}

int engine_prepare(void)
{
	heap_ctx = duk_create_heap(eng_alloc, eng_realloc, eng_free, NULL, eng_fatal);
	if (!heap_ctx)
		return -1;
	duk_context *ctx = heap_ctx;
	duk_push_global_object(ctx);

	/* The hook stays reachable to the engine after the global goes, and
	 * the coroutines behind generators and async functions to the
	 * lowering's runtime. */
	duk_get_prop_string(ctx, -1, "Duktape");
	duk_push_c_function(ctx, err_create, 1);
	duk_put_prop_string(ctx, -2, "errCreate");
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -2, "Thread");
	duk_put_prop_string(ctx, -2, "thread");
	duk_pop_2(ctx);
	/* Duktape.act/fin/gc and friends reach into the engine's internals;
	 * require would suggest a module system there is none of. */
	duk_del_prop_string(ctx, -1, "Duktape");
	duk_del_prop_string(ctx, -1, "require");
	/* Duktape's own bindings beyond ECMAScript: CBOR, its Node.js Buffer
	 * (an old, partial API code written for Node would misuse) and its
	 * plain buffers. (The builtins' tables come pre-generated with the
	 * source, so a configuration option cannot drop them.) */
	duk_del_prop_string(ctx, -1, "CBOR");
	duk_del_prop_string(ctx, -1, "Buffer");
	duk_get_prop_string(ctx, -1, "Uint8Array");
	duk_del_prop_string(ctx, -1, "allocPlain");
	duk_del_prop_string(ctx, -1, "plainOf");
	duk_pop(ctx);

	/* tools is filled per execution; store and load are always there. */
	duk_push_object(ctx);
	duk_put_prop_string(ctx, -2, "tools");
	put_function(ctx, "load", js_load, 1, 0);
	put_function(ctx, "store", js_store, 2, 0);

	/* Duktape seeds its generator once per heap, and every worker shares
	 * this heap's state: replace it with one each worker reseeds. */
	duk_get_prop_string(ctx, -1, "Math");
	put_function(ctx, "random", math_random, 0, 0);
	duk_pop(ctx);

	duk_pop(ctx);

	replace_stack_getter(ctx);

	/* The polyfills, and the internals they hand the engine. */
	duk_push_global_stash(ctx);
	duk_push_string(ctx, "polyfills.js");
	if (duk_pcompile_lstring_filename(ctx, DUK_COMPILE_EVAL, js_polyfills, js_polyfills_len) !=
		    DUK_EXEC_SUCCESS ||
	    duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS || !duk_is_function(ctx, -1))
		return -1;
	duk_push_global_object(ctx);
	duk_push_c_function(ctx, microtask_queued, 0);
	push_keys(ctx);
	if (duk_pcall(ctx, 3) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "internals");
	duk_pop(ctx);
	if (prepare_inspect(ctx) < 0)
		return -1;
	if (prepare_web(ctx) < 0)
		return -1;
	prepare_math(ctx);
	if (prepare_builtins(ctx) < 0)
		return -1;

	if (prepare_console(ctx) < 0)
		return -1;

	if (prepare_timers(ctx) < 0)
		return -1;

	/* Test mode's harness, compiled and run once here, before any script:
	 * it captures the built-ins it uses now. stash.harness is its
	 * install(global). */
	duk_push_global_stash(ctx);
	duk_push_string(ctx, "harness.js");
	if (duk_pcompile_lstring_filename(ctx, DUK_COMPILE_EVAL, js_harness, js_harness_len) !=
		    DUK_EXEC_SUCCESS ||
	    duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS || !duk_is_function(ctx, -1))
		return -1;
	duk_get_prop_string(ctx, -2, "internals");
	if (duk_pcall(ctx, 1) != DUK_EXEC_SUCCESS || !duk_is_function(ctx, -1))
		return -1;
	duk_put_prop_string(ctx, -2, "harness");
	duk_pop(ctx);

	if (prepare_lowering(ctx) < 0)
		return -1;
	if (prepare_url(ctx) < 0)
		return -1;
	/* Start workers with a compact heap: less to copy on write. */
	duk_gc(ctx, 0);
	/* The collection sizes the string table to fit; the first strings a
	 * script adds would grow it again, rehashing every string there is and
	 * so writing to (and copying) 110 pages in each worker. A first run
	 * here grows it once for all of them. */
	static const char warm[] = "const warm = [1].map((x) => `${x}`);\nreturn warm";
	json_decref(engine_run(warm, sizeof warm - 1, ENGINE_ANY));
	return 0;
}

/* ---- running a script */

static void set_string(json_t *obj, const char *key, duk_context *ctx, duk_idx_t idx)
{
	struct buf b = BUF_INIT;
	append_string(ctx, idx, &b);
	json_object_set_new(obj, key, json_stringn(b.data ? buf_peek(&b) : "", buf_len(&b)));
	buf_free(&b);
}

static const char *const user_files[] = {ENGINE_SCRIPT_NAME, ENGINE_CODE_NAME, ENGINE_TESTS_NAME};

/* True for the names the submitted code is compiled under. */
static bool user_file(const char *name)
{
	for (size_t i = 0; i < sizeof user_files / sizeof *user_files; i++)
		if (strcmp(name, user_files[i]) == 0)
			return true;
	return false;
}

/* The line of the innermost frame of a cleaned stack that is in the
 * submitted code; 0 when none is. */
static long first_user_line(const char *stack)
{
	for (const char *p = strstr(stack, "\n    at "); p; p = strstr(p + 1, "\n    at ")) {
		const char *end = strchr(p + 1, '\n');
		const char *open = NULL;
		for (const char *q = p + 1; *q && (!end || q < end); q++)
			if (*q == '(')
				open = q + 1;
		if (!open)
			continue;
		for (size_t i = 0; i < sizeof user_files / sizeof *user_files; i++) {
			size_t n = strlen(user_files[i]);
			if (strncmp(open, user_files[i], n) == 0 && open[n] == ':')
				return strtol(open + n + 1, NULL, 10);
		}
	}
	return 0;
}

/* ---- error.data: what a script put on the error it threw */

static void push_error_fields(duk_context *ctx, duk_idx_t idx, int depth, bool named);

/* Pushes the value at idx as error data holds it: an error (a cause) as
 * the plain object push_error_fields makes while depth lasts, an array of
 * errors (AggregateError's errors) likewise element by element, anything
 * else as it is (JSON.stringify takes it from there). */
static void push_data_value(duk_context *ctx, duk_idx_t idx, int depth, bool list)
{
	idx = duk_normalize_index(ctx, idx);
	if (depth > 0 && duk_is_error(ctx, idx)) {
		push_error_fields(ctx, idx, depth - 1, true);
	} else if (depth > 0 && list && duk_is_array(ctx, idx)) {
		duk_size_t n = duk_get_length(ctx, idx);
		duk_push_array(ctx);
		for (duk_size_t i = 0; i < n && i < LIMIT_ERROR_DATA_NODES; i++) {
			duk_get_prop_index(ctx, idx, (duk_uarridx_t)i);
			push_data_value(ctx, -1, depth, false);
			duk_put_prop_index(ctx, -3, (duk_uarridx_t)i);
			duk_pop(ctx);
		}
	} else {
		duk_dup(ctx, idx);
	}
}

/* Copies the error at idx's own property key, when it has one, to the
 * object on top of the stack (which it may already be on). */
static void copy_own(duk_context *ctx, duk_idx_t idx, const char *key, int depth)
{
	duk_push_string(ctx, key);
	duk_get_prop_desc(ctx, idx, 0);
	bool own = duk_is_object(ctx, -1);
	duk_pop(ctx);
	if (!own)
		return;
	duk_get_prop_string(ctx, idx, key);
	push_data_value(ctx, -1, depth, strcmp(key, "errors") == 0);
	duk_put_prop_string(ctx, -3, key);
	duk_pop(ctx);
}

/* Pushes a plain object of the error at idx's own enumerable fields (code,
 * status, details, ...) and its cause and errors (own, and not enumerable
 * when a constructor set them), errors among them described the same way,
 * depth levels down; named: with the error's name and message first, as a
 * nested error has no reply fields to say them. */
static void push_error_fields(duk_context *ctx, duk_idx_t idx, int depth, bool named)
{
	idx = duk_normalize_index(ctx, idx);
	duk_push_object(ctx);
	if (named) {
		duk_get_prop_string(ctx, idx, "name");
		duk_put_prop_string(ctx, -2, "name");
		duk_get_prop_string(ctx, idx, "message");
		duk_put_prop_string(ctx, -2, "message");
	}
	duk_enum(ctx, idx, DUK_ENUM_OWN_PROPERTIES_ONLY);
	while (duk_next(ctx, -1, 1)) {
		push_data_value(ctx, -1, depth, false);
		duk_remove(ctx, -2);
		duk_put_prop(ctx, -4);
	}
	duk_pop(ctx);
	copy_own(ctx, idx, "cause", depth);
	copy_own(ctx, idx, "errors", depth);
}

/* Sets e's "data" to the thrown value's fields as JSON (an Error's own
 * fields, a thrown object itself): nothing when it has none, or when they
 * have no JSON form or are over LIMIT_ERROR_DATA_BYTES or
 * LIMIT_ERROR_DATA_NODES (the reply stays small; the message and stack
 * still say what failed). The thrown value is on top of the stack. */
static void add_error_data(duk_context *ctx, json_t *e)
{
	if (duk_is_error(ctx, -1))
		push_error_fields(ctx, -1, LIMIT_ERROR_DATA_DEPTH, false);
	else if (duk_is_object(ctx, -1) && !duk_is_function(ctx, -1))
		duk_dup(ctx, -1);
	else
		return;
	json_t *data = NULL;
	char why[256];
	if (to_json(ctx, -1, "the error's data", &data, why, sizeof why) == 1 &&
	    (json_is_object(data) || json_is_array(data)) &&
	    (json_is_object(data) ? json_object_size(data) : json_array_size(data)) > 0 &&
	    !json_nodes_over(data, LIMIT_ERROR_DATA_NODES) &&
	    jnum_dumpb(data, NULL, 0, JSON_COMPACT) <= LIMIT_ERROR_DATA_BYTES)
		json_object_set(e, "data", data);
	json_decref(data);
	duk_pop(ctx);
}

/* Builds the error object for the value thrown at the top of the stack;
 * runs under duk_safe_call since getters on a thrown object are script code. */
struct describe {
	json_t *error;
	const char *kind;
};

static duk_ret_t describe_thrown(duk_context *ctx, void *udata)
{
	struct describe *d = udata;
	json_t *e = d->error;
	json_object_set_new(e, "kind", json_string(d->kind));
	if (duk_is_error(ctx, -1)) {
		duk_get_prop_string(ctx, -1, "name");
		duk_get_prop_string(ctx, -2, "message");
		const char *name = duk_is_string(ctx, -2) ? duk_get_string(ctx, -2) : "Error";
		const char *msg = duk_is_string(ctx, -1) ? duk_get_string(ctx, -1) : "";
		if (*msg)
			duk_push_sprintf(ctx, "%s: %s", name, msg);
		else
			duk_push_string(ctx, name);
		set_string(e, "message", ctx, -1);
		duk_pop_3(ctx);
		long line = 0;
		duk_get_prop_string(ctx, -1, "fileName");
		duk_get_prop_string(ctx, -2, "lineNumber");
		if (duk_is_string(ctx, -2) && user_file(duk_get_string(ctx, -2)) &&
		    duk_is_number(ctx, -1) && duk_get_number(ctx, -1) > 0)
			line = (long)duk_get_number(ctx, -1);
		duk_pop_2(ctx);
		if (push_stack(ctx, -1)) {
			set_string(e, "stack", ctx, -1);
			/* Thrown from inside a binding or a polyfill: the line is
			 * where the script called it. */
			if (!line)
				line = first_user_line(duk_get_string(ctx, -1));
			duk_pop(ctx);
		}
		if (line)
			json_object_set_new(e, "line", json_integer(line));
	} else {
		push_formatted(ctx, -1);
		duk_push_sprintf(ctx, "Uncaught %s", duk_get_string(ctx, -1));
		set_string(e, "message", ctx, -1);
		duk_pop_2(ctx);
	}
	if (strcmp(d->kind, "script") == 0)
		add_error_data(ctx, e);
	return 0;
}

static json_t *fail_thrown(duk_context *ctx, const char *kind)
{
	json_t *e = json_object();
	struct describe d = {e, kind};
	if (!e)
		return NULL;
	/* A spent CPU budget or an allocation failure that ends a script is
	 * the limit, whatever the script did with the error on its way out. */
	if (cpu_spent) {
		d.kind = "timeout";
	} else if (alloc_failed && duk_is_error(ctx, -1)) {
		duk_get_prop_string(ctx, -1, "message");
		const char *m = duk_is_string(ctx, -1) ? duk_get_string(ctx, -1) : "";
		if (strstr(m, "out of memory") || strstr(m, "alloc failed"))
			d.kind = "memory";
		duk_pop(ctx);
	}
	if (duk_safe_call(ctx, describe_thrown, &d, 1, 1) != DUK_EXEC_SUCCESS) {
		json_decref(e);
		return result_error(d.kind, "the script threw a value that could not be described");
	}
	char msg[160];
	if (strcmp(d.kind, "memory") == 0) {
		snprintf(msg, sizeof msg,
			 "out of memory: the script's heap reached its limit of %zu "
			 "bytes (memory_bytes)",
			 memory_limit);
		json_object_set_new(e, "message", json_string(msg));
	} else if (strcmp(d.kind, "timeout") == 0) {
		snprintf(msg, sizeof msg,
			 "the script used up its CPU budget of %llu ms (max_cpu_ms)",
			 (unsigned long long)(cpu_budget_ns / 1000000u));
		json_object_set_new(e, "message", json_string(msg));
	}
	return json_pack("{s:s, s:b, s:o}", "type", "result", "ok", 0, "error", e);
}

/* Pushes stash.internals.<name>. */
static void push_internal(duk_context *ctx, const char *name)
{
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "internals");
	duk_get_prop_string(ctx, -1, name);
	duk_remove(ctx, -2);
	duk_remove(ctx, -2);
}

/* Runs what a script left to run once its body has returned, the value at
 * the top of the stack: the microtask queue, the warnings and unhandled
 * rejections, the timers and immediates (timers.js's run), until nothing
 * is left. Nothing is called for a script that queued none of it. -1 with
 * the thrown value on the stack (above the value) when a callback threw
 * (or the CPU budget ran out in one). */
static int run_loop(duk_context *ctx)
{
	if (!microtasks && !loop_wanted)
		return 0;
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "loop");
	duk_get_prop_string(ctx, -1, "run");
	duk_insert(ctx, -3);
	duk_remove(ctx, -2); /* the stash */
	duk_dup(ctx, -3);    /* [... value run loop value] */
	duk_int_t rc = duk_pcall_method(ctx, 1);
	/* What the run set on the way matters to no later script. */
	microtasks = loop_wanted = false;
	if (rc != DUK_EXEC_SUCCESS)
		return -1;
	duk_pop(ctx);
	return 0;
}

/* The result of a script whose value is at the top of the stack, once the
 * loop has run: a promise is replaced by its value once settled; one still
 * pending can never settle, since nothing is left to run. */
static json_t *settle_result(duk_context *ctx)
{
	/* Only an object whose prototype is Promise.prototype is looked at. */
	bool promise = false;
	if (duk_is_object(ctx, -1) && !duk_is_function(ctx, -1)) {
		duk_get_prototype(ctx, -1);
		push_internal(ctx, "promiseProto");
		promise = duk_strict_equals(ctx, -1, -2);
		duk_pop_2(ctx);
	}
	if (!promise)
		return result_value(ctx);
	push_internal(ctx, "inspect");
	duk_dup(ctx, -2);
	if (duk_pcall(ctx, 1) != DUK_EXEC_SUCCESS)
		return fail_thrown(ctx, "script");
	if (duk_is_undefined(ctx, -1)) { /* not a promise */
		duk_pop(ctx);
		return result_value(ctx);
	}
	duk_get_prop_string(ctx, -1, "state");
	const char *state = duk_get_string(ctx, -1);
	bool fulfilled = state && strcmp(state, "fulfilled") == 0;
	bool rejected = state && strcmp(state, "rejected") == 0;
	duk_pop(ctx);
	if (!fulfilled && !rejected)
		return result_error(
			"script", "the script returned a promise that nothing can settle: nothing "
				  "was left to run (no timer, immediate or promise job) when it "
				  "was still pending");
	duk_get_prop_string(ctx, -1, "value");
	duk_remove(ctx, -2); /* the state object */
	duk_remove(ctx, -2); /* the promise */
	return rejected ? fail_thrown(ctx, "script") : result_value(ctx);
}

/* The failure result for the compile error at the top of the stack. */
static json_t *compile_failure(duk_context *ctx)
{
	/* The compiler also throws RangeErrors (nesting too deep). */
	bool syntax = duk_get_error_code(ctx, -1) == DUK_ERR_SYNTAX_ERROR;
	json_t *r = fail_thrown(ctx, syntax ? "syntax" : "script");
	/* A compile error's stack is only the compiler's own place. */
	if (syntax)
		json_object_del(json_object_get(r, "error"), "stack");
	return r;
}

/* ---- syntax errors as Node prints them */

/* Length of the UTF-8 sequence led by c (1 for a stray byte). */
static size_t syntax_seq_len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* The bytes of line `line` (1-based) of code, as acorn counts lines (LF,
 * CR, CRLF, U+2028, U+2029 end one): *start and the length, or false when
 * code has no such line. */
static bool syntax_line(const char *code, size_t len, long line, size_t *start, size_t *n)
{
	size_t i = 0, from = 0;
	long at = 1;
	while (i < len) {
		const unsigned char *u = (const unsigned char *)code + i;
		size_t eol = 0;
		if (*u == '\n')
			eol = 1;
		else if (*u == '\r')
			eol = i + 1 < len && u[1] == '\n' ? 2 : 1;
		else if (*u == 0xe2 && i + 2 < len && u[1] == 0x80 &&
			 (u[2] == 0xa8 || u[2] == 0xa9))
			eol = 3;
		if (!eol) {
			i++;
			continue;
		}
		if (at == line) {
			*start = from;
			*n = i - from;
			return true;
		}
		at++;
		i += eol;
		from = i;
	}
	if (at != line)
		return false;
	*start = from;
	*n = len - from;
	return true;
}

/* The byte offset in s (n bytes) of column `column` (1-based, counted in
 * UTF-16 units as JavaScript counts them); n when the line is shorter. */
static size_t syntax_column_offset(const char *s, size_t n, long column)
{
	size_t i = 0;
	for (long units = 1; units < column && i < n;) {
		size_t k = syntax_seq_len((unsigned char)s[i]);
		units += k == 4 ? 2 : 1;
		i += k;
	}
	return i < n ? i : n;
}

/* The column (1-based, UTF-16 units) of the first character of s that is
 * not blank: where a syntax error is placed when the engine names only its
 * line. */
static long syntax_first_column(const char *s, size_t n)
{
	long column = 1;
	for (size_t i = 0; i < n && (s[i] == ' ' || s[i] == '\t');)
		i++, column++;
	return column;
}

/* The stack of a syntax error, as Node prints one that it cannot run:
 *
 *     FILE:LINE
 *     the offending line
 *         ^^^
 *
 *     SyntaxError: MESSAGE
 *
 * the caret line keeping the line's tabs before the column (so it lines
 * up), `carets` carets (at least one) under the code from the column.
 * Appended to out; a line over LIMIT_SYNTAX_LINE_BYTES is shown around
 * the column, "..." at each cut. */
static void syntax_render(struct buf *out, const char *code, size_t len, const char *file,
			  long line, long column, long carets, const char *message)
{
	size_t start = 0, n = 0;
	char head[64];
	snprintf(head, sizeof head, ":%ld\n", line);
	buf_append(out, file, strlen(file));
	buf_append(out, head, strlen(head));
	if (syntax_line(code, len, line, &start, &n)) {
		const char *s = code + start;
		size_t col = syntax_column_offset(s, n, column);
		size_t from = 0, to = n;
		if (n > LIMIT_SYNTAX_LINE_BYTES) {
			from = col > LIMIT_SYNTAX_LINE_BYTES / 2 ? col - LIMIT_SYNTAX_LINE_BYTES / 2
								 : 0;
			while (from > 0 && ((unsigned char)s[from] & 0xc0) == 0x80)
				from--;
			to = from + LIMIT_SYNTAX_LINE_BYTES < n ? from + LIMIT_SYNTAX_LINE_BYTES
								: n;
			while (to < n && ((unsigned char)s[to] & 0xc0) == 0x80)
				to--;
		}
		struct buf mark = BUF_INIT;
		if (from > 0) {
			buf_append(out, "...", 3);
			buf_append(&mark, "   ", 3);
		}
		buf_append(out, s + from, to - from);
		if (to < n)
			buf_append(out, "...", 3);
		for (size_t i = from; i < col && i < to; i += syntax_seq_len((unsigned char)s[i]))
			buf_append(&mark, s[i] == '\t' ? "\t" : " ", 1);
		/* The carets stop at the end of the line (a range may go on
		 * over several). */
		long room = 0;
		for (size_t i = col; i < to; i += syntax_seq_len((unsigned char)s[i]))
			room++;
		if (carets > room)
			carets = room;
		for (long k = 0; k < (carets > 1 ? carets : 1); k++)
			buf_append(&mark, "^", 1);
		buf_append(out, "\n", 1);
		if (mark.data)
			buf_append(out, buf_peek(&mark), buf_len(&mark));
		buf_free(&mark);
	}
	static const char kind[] = "\n\nSyntaxError: ";
	buf_append(out, kind, sizeof kind - 1);
	buf_append(out, message, strlen(message));
}

/* Gives the syntax error e (kind syntax; its line, its column when known)
 * its stack, rendered from the submitted code (see syntax_render), and a
 * column when it had none. message: what went wrong, without "SyntaxError:"
 * or the place. */
static void syntax_stack(json_t *e, const char *code, size_t len, const char *file,
			 const char *message, long carets)
{
	long line = (long)json_integer_value(json_object_get(e, "line"));
	long column = (long)json_integer_value(json_object_get(e, "column"));
	size_t start, n;
	if (line <= 0 || !syntax_line(code, len, line, &start, &n))
		return;
	if (column <= 0) {
		column = syntax_first_column(code + start, n);
		json_object_set_new(e, "column", json_integer(column));
	}
	struct buf b = BUF_INIT;
	syntax_render(&b, code, len, file, line, column, carets, message);
	if (b.data)
		json_object_set_new(e, "stack", json_stringn(buf_peek(&b), buf_len(&b)));
	buf_free(&b);
}

/* The failure r of compiling lowered code: a syntax error the lowering
 * let through, which the engine places by its line only (message "…
 * (line N)"), gets the stack syntax_stack renders. */
static json_t *lowered_failure(json_t *r, const char *code, size_t len, const char *file)
{
	json_t *e = json_object_get(r, "error");
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	if (!kind || strcmp(kind, "syntax") != 0 || !msg)
		return r;
	if (strncmp(msg, "SyntaxError: ", 13) == 0)
		msg += 13;
	size_t n = strlen(msg);
	const char *cut = n ? memrchr(msg, '(', n) : NULL;
	char *what =
		strndup(msg, cut && cut > msg && cut[-1] == ' ' && strncmp(cut, "(line ", 6) == 0
				     ? (size_t)(cut - 1 - msg)
				     : n);
	if (what)
		syntax_stack(e, code, len, file, what, 1);
	free(what);
	return r;
}

struct lowering {
	const char *code;
	size_t len;
	enum engine_language lang;
	bool body;
};

static duk_ret_t lower_call(duk_context *ctx, void *udata)
{
	const struct lowering *l = udata;
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "lower");
	duk_get_prop_string(ctx, -1, "downlevel");
	duk_swap_top(ctx, -2);
	/* In the engine's encoding, so that acorn counts characters (and
	 * the lowered literals hold them) as JavaScript does. */
	struct buf src = BUF_INIT;
	if (utf8_to_cesu(&src, l->code, l->len) < 0) {
		buf_free(&src);
		return duk_error(ctx, DUK_ERR_RANGE_ERROR, "alloc failed");
	}
	duk_push_lstring(ctx, src.data ? buf_peek(&src) : "", buf_len(&src));
	buf_free(&src);
	if (l->lang == ENGINE_ANY)
		duk_push_undefined(ctx);
	else
		duk_push_string(ctx, l->lang == ENGINE_TYPESCRIPT ? "typescript" : "javascript");
	duk_push_boolean(ctx, l->body);
	duk_call_method(ctx, 3);
	return 1;
}

/* Parses code as modern JavaScript or TypeScript and lowers it to ES5.
 * NULL with the lowered source and the array of its globals (program code
 * only; empty for a body) on the stack, or the failure result: a
 * syntax error placed in the submitted code, or the limit the lowering
 * ran into (it runs under the script's heap cap and CPU budget). */
static json_t *downlevel(duk_context *ctx, const char *code, size_t len, enum engine_language lang,
			 bool body, const char *file)
{
	struct lowering l = {code, len, lang, body};
	duk_int_t rc = duk_safe_call(ctx, lower_call, &l, 0, 1);
	/* An allocation that failed on the way ends it as a memory failure,
	 * whatever the parser made of it (a speculative parse may have caught
	 * it and failed later for want of memory). */
	if (alloc_failed && !cpu_spent) {
		char msg[160];
		snprintf(msg, sizeof msg,
			 "out of memory: parsing and lowering the code reached the heap's limit of "
			 "%zu bytes (memory_bytes)",
			 memory_limit);
		duk_pop(ctx);
		return result_error("memory", msg);
	}
	if (rc != DUK_EXEC_SUCCESS) {
		json_t *r = fail_thrown(ctx, "syntax");
		json_t *e = json_object_get(r, "error");
		if (strcmp(json_string_value(json_object_get(e, "kind")), "syntax") == 0) {
			json_object_set_new(
				e, "message",
				json_string("SyntaxError: the code could not be lowered "
					    "to the engine's ES5.1"));
			json_object_del(e, "stack");
			json_object_del(e, "line");
		}
		return r;
	}
	duk_get_prop_string(ctx, -1, "error");
	if (!duk_is_object(ctx, -1)) {
		duk_pop(ctx);
		duk_get_prop_string(ctx, -1, "code");
		duk_get_prop_string(ctx, -2, "globals");
		if (!duk_is_array(ctx, -1)) {
			duk_pop(ctx);
			duk_push_array(ctx);
		}
		duk_remove(ctx, -3);
		return NULL;
	}
	duk_get_prop_string(ctx, -1, "message");
	duk_get_prop_string(ctx, -2, "line");
	duk_get_prop_string(ctx, -3, "column");
	duk_get_prop_string(ctx, -4, "length");
	int line = duk_get_int(ctx, -3), column = duk_get_int(ctx, -2);
	long carets = duk_get_int_default(ctx, -1, 1);
	duk_pop(ctx);
	duk_push_sprintf(ctx, "SyntaxError: %s (line %d, column %d)", duk_safe_to_string(ctx, -3),
			 line, column);
	json_t *r = result_error("syntax", "");
	json_t *e = json_object_get(r, "error");
	set_string(e, "message", ctx, -1);
	if (line > 0) {
		json_object_set_new(e, "line", json_integer(line));
		json_object_set_new(e, "column", json_integer(column));
		struct buf what = BUF_INIT;
		append_string(ctx, -4, &what);
		buf_append(&what, "", 1);
		syntax_stack(e, code, len, file, buf_peek(&what), carets);
		buf_free(&what);
	}
	duk_pop_n(ctx, 6);
	return r;
}

/* Lowered code is compiled inside a wrapper whose parameter is the
 * runtime (and binds eval, for the direct evals of lowered code, to the
 * engine's own, which no script can reach: see the runtime's eval and
 * Function), and which gives the function that runs the code: everything on
 * the first line, so that lines stay those of the submitted code. As a
 * body, the wrapper is the function compiled; as a program, the program's
 * completion value, after the var statement that declares its globals. */
static const char lowered_body_head[] =
	"function($$rt){var eval=$$rt.evalNative;return function(){";
static const char lowered_program_head[] =
	"(function($$rt){var eval=$$rt.evalNative;return function(){";
static const char lowered_tail[] = "\n}}";

/* Replaces the lowering's globals array at the top of the stack with
 * "var a,b;" (or "" when there are none). */
static void push_global_vars(duk_context *ctx)
{
	duk_size_t n = duk_get_length(ctx, -1);
	duk_push_string(ctx, n ? "var " : "");
	for (duk_size_t i = 0; i < n; i++) {
		duk_get_prop_index(ctx, -2, (duk_uarridx_t)i);
		duk_safe_to_string(ctx, -1);
		duk_push_string(ctx, i + 1 < n ? "," : ";");
		duk_concat(ctx, 3);
	}
	duk_remove(ctx, -2);
}

static bool ident_byte(unsigned char c)
{
	return c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* Whether code may call eval directly: the global eval is the runtime's,
 * which lowers its source, so only lowered code (whose wrapper binds eval
 * to the engine's) can make a direct eval. A cheap, conservative test, in
 * comments and strings too: the word eval (next to no ASCII letter, digit,
 * _ or $) followed, after ASCII white space, by a parenthesis, a slash (a
 * comment may come first) or anything not ASCII. Any other mention, such
 * as (0, eval)(s), is the global eval, which code the engine runs as it is
 * may call: an indirect eval, as it is lowered. (So is an escaped name,
 * ev\u0061l(s), an indirect eval there, never one that sees more.) */
static bool names_eval(const char *code, size_t len)
{
	const char *p = code, *end = code + len;
	while ((p = memmem(p, (size_t)(end - p), "eval", 4)) != NULL) {
		const char *q = p + 4;
		bool word = (p == code || !ident_byte((unsigned char)p[-1])) &&
			    (q == end || !ident_byte((unsigned char)*q));
		p = q;
		if (!word)
			continue;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' ||
				   *q == '\v' || *q == '\f'))
			q++;
		if (q == end || *q == '(' || *q == '/' || (unsigned char)*q >= 0x80)
			return true;
	}
	return false;
}

/* ---- the cache of lowered code (server/lcache.h) */

/* The text an earlier run of this code was lowered to (engine_use_lowered),
 * and the text this run's lowering made (engine_lowered). */
static const char *given_lowered;
static size_t given_lowered_len;
static struct buf made_lowered = BUF_INIT;
static bool have_made_lowered;

void engine_use_lowered(const char *text, size_t len)
{
	given_lowered = text;
	given_lowered_len = len;
}

const char *engine_lowered(size_t *len)
{
	*len = have_made_lowered ? buf_len(&made_lowered) : 0;
	return have_made_lowered ? buf_peek(&made_lowered) : NULL;
}

/* Keeps the lowered source under the globals at the top of the stack as
 * UTF-8 for the supervisor's cache, when it survives the trip: a lone
 * surrogate (which UTF-8 cannot hold) would come back as U+FFFD and run
 * differently, so such a text is not offered; nor is one whose JSON
 * string is over the control frame's bound, or an empty one. */
static void keep_lowered(duk_context *ctx)
{
	duk_size_t n;
	const char *s = duk_get_lstring(ctx, -2, &n);
	have_made_lowered = false;
	buf_free(&made_lowered);
	if (!s || n == 0 || n > CTL_LOWERED_BYTES)
		return;
	struct buf back = BUF_INIT;
	bool same = utf8_from_cesu(&made_lowered, s, n) == 0 && buf_len(&made_lowered) > 0 &&
		    utf8_to_cesu(&back, buf_peek(&made_lowered), buf_len(&made_lowered)) == 0 &&
		    buf_len(&back) == n && memcmp(buf_peek(&back), s, n) == 0;
	buf_free(&back);
	if (same && jstr_escaped_len(buf_peek(&made_lowered), buf_len(&made_lowered)) + 2 <=
			    CTL_LOWERED_BYTES)
		have_made_lowered = true;
	else
		buf_free(&made_lowered);
}

/* Pushes the given lowered text (in the engine's encoding) and an empty
 * globals array, as downlevel leaves a body's lowering; NULL, or the
 * failure result when memory ran out. The text is used once. */
static json_t *push_given_lowered(duk_context *ctx)
{
	struct buf src = BUF_INIT;
	const char *text = given_lowered;
	given_lowered = NULL;
	if (utf8_to_cesu(&src, text, given_lowered_len) < 0) {
		buf_free(&src);
		return result_error("memory", "out of memory before the script started");
	}
	duk_push_lstring(ctx, src.data ? buf_peek(&src) : "", buf_len(&src));
	buf_free(&src);
	duk_push_array(ctx);
	return NULL;
}

static json_t *compile_lowered(duk_context *ctx, const char *code, size_t len, const char *file,
			       bool body);

/* Compiles src (what the request gave, or its lowered form at the top of
 * the stack when lowered is set) as a function body or as program code.
 * JavaScript the pre-scan finds nothing in whose ES5.1 and ES2022 readings
 * differ (prescan.h) is compiled by the engine as it is, and goes no
 * further when the engine takes it; the rest, and what the engine cannot
 * parse, is lowered first. A body whose lowered text was given
 * (engine_use_lowered) skips all that and compiles the text. NULL with
 * the compiled function on the stack, or the failure result. */
static json_t *compile(duk_context *ctx, const char *code, size_t len, enum engine_language lang,
		       const char *file, bool body)
{
	/* A run's lowered text is its own: the prepared engine ran one too. */
	if (body && have_made_lowered) {
		have_made_lowered = false;
		buf_free(&made_lowered);
	}
	if (body && given_lowered) {
		json_t *r = push_given_lowered(ctx);
		return r ? r : compile_lowered(ctx, code, len, file, body);
	}
	/* A body sits on the wrapper's first line so line numbers match the
	 * code as submitted. */
	static const char head[] = "function(){";
	static const char tail[] = "\n}";
	duk_uint_t flags = body ? DUK_COMPILE_FUNCTION : 0;
	if (lang != ENGINE_TYPESCRIPT && !prescan_reason(code, len) && !names_eval(code, len)) {
		duk_int_t rc;
		if (body) {
			size_t total = sizeof head - 1 + len + sizeof tail - 1;
			char *src = malloc(total);
			if (!src)
				return result_error("memory",
						    "out of memory before the script started");
			memcpy(src, head, sizeof head - 1);
			memcpy(src + sizeof head - 1, code, len);
			memcpy(src + sizeof head - 1 + len, tail, sizeof tail - 1);
			duk_push_string(ctx, file);
			rc = duk_pcompile_lstring_filename(ctx, flags, src, total);
			free(src);
		} else {
			duk_push_string(ctx, file);
			rc = duk_pcompile_lstring_filename(ctx, flags, code, len);
		}
		if (rc == DUK_EXEC_SUCCESS)
			return NULL;
		if (duk_get_error_code(ctx, -1) != DUK_ERR_SYNTAX_ERROR || cpu_spent ||
		    alloc_failed)
			return compile_failure(ctx);
		duk_pop(ctx);
	}
	json_t *r = downlevel(ctx, code, len, lang, body, file);
	if (r)
		return r;
	if (body)
		keep_lowered(ctx);
	return compile_lowered(ctx, code, len, file, body);
}

/* Compiles the lowered source under its globals at the top of the stack
 * (code, the submitted code, places a syntax error), as compile does. */
static json_t *compile_lowered(duk_context *ctx, const char *code, size_t len, const char *file,
			       bool body)
{
	duk_uint_t flags = body ? DUK_COMPILE_FUNCTION : 0;
	/* [... lowered globals] */
	if (body) {
		duk_pop(ctx);
		duk_push_string(ctx, lowered_body_head);
		duk_insert(ctx, -2);
		duk_push_string(ctx, lowered_tail);
		duk_concat(ctx, 3);
	} else {
		push_global_vars(ctx);
		duk_push_string(ctx, lowered_program_head);
		duk_dup(ctx, -3);
		duk_push_string(ctx, lowered_tail);
		duk_push_string(ctx, ")");
		duk_concat(ctx, 5);
		duk_remove(ctx, -2);
	}
	duk_push_string(ctx, file);
	if (duk_pcompile(ctx, flags) != DUK_EXEC_SUCCESS)
		return lowered_failure(compile_failure(ctx), code, len, file);
	/* A program declares its globals and gives the wrapper. */
	if (!body && duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		return fail_thrown(ctx, "script");
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "rt");
	duk_remove(ctx, -2);
	if (duk_pcall(ctx, 1) != DUK_EXEC_SUCCESS)
		return fail_thrown(ctx, "script");
	return NULL;
}

json_t *engine_lower(const char *code, size_t len, enum engine_language lang, bool body)
{
	duk_context *ctx = heap_ctx;
	struct lowering l = {code, len, lang, body};
	json_t *r = NULL;
	if (duk_safe_call(ctx, lower_call, &l, 0, 1) == DUK_EXEC_SUCCESS &&
	    duk_safe_call(ctx, json_encode_top, NULL, 1, 1) == DUK_EXEC_SUCCESS) {
		struct buf text = BUF_INIT;
		append_string(ctx, -1, &text);
		r = json_loadb(text.data ? buf_peek(&text) : "", buf_len(&text), 0, NULL);
		buf_free(&text);
	}
	duk_pop(ctx);
	return r;
}

json_t *engine_run(const char *code, size_t len, enum engine_language lang)
{
	duk_context *ctx = heap_ctx;
	json_t *r = compile(ctx, code, len, lang, ENGINE_SCRIPT_NAME, true);
	if (r)
		return r;
	if (duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		return fail_thrown(ctx, "script");
	if (run_loop(ctx) < 0)
		return fail_thrown(ctx, "script");
	return settle_result(ctx);
}

/* Marks a failure result with the source that failed. */
static json_t *from_source(json_t *r, const char *source)
{
	if (r)
		json_object_set_new(json_object_get(r, "error"), "source", json_string(source));
	return r;
}

/* Compiles src as program code: NULL with the function that runs it on the
 * stack, else the failure result, marked with which source failed. */
static json_t *compile_program(duk_context *ctx, const char *src, size_t len,
			       enum engine_language lang, const char *file, const char *source)
{
	return from_source(compile(ctx, src, len, lang, file, false), source);
}

/* Runs the program compiled at idx (its declarations become globals), with
 * the global object as its this. NULL, else the failure result. */
static json_t *run_program(duk_context *ctx, duk_idx_t idx, const char *source)
{
	duk_dup(ctx, idx);
	duk_push_global_object(ctx);
	if (duk_pcall_method(ctx, 0) != DUK_EXEC_SUCCESS)
		return from_source(fail_thrown(ctx, "script"), source);
	duk_pop(ctx);
	return NULL;
}

/* Calls controls.begin(source) on the harness's controls at idx. */
static void harness_begin(duk_context *ctx, duk_idx_t idx, const char *source)
{
	duk_get_prop_string(ctx, idx, "begin");
	duk_push_string(ctx, source);
	/* It only sets a variable; the controls are frozen, the harness's. */
	(void)duk_pcall(ctx, 1);
	duk_pop(ctx);
}

/* The string at key of the entry at idx as UTF-8, or NULL when it is not a
 * string. The entries have no prototype: nothing but the harness's own
 * properties is read. */
static json_t *entry_string(duk_context *ctx, duk_idx_t idx, const char *key)
{
	json_t *v = NULL;
	duk_get_prop_string(ctx, idx, key);
	if (duk_is_string(ctx, -1)) {
		struct buf b = BUF_INIT;
		append_string(ctx, -1, &b);
		v = json_stringn(b.data ? buf_peek(&b) : "", buf_len(&b));
		buf_free(&b);
	}
	duk_pop(ctx);
	return v;
}

static bool entry_bool(duk_context *ctx, duk_idx_t idx, const char *key)
{
	duk_get_prop_string(ctx, idx, key);
	bool v = duk_is_boolean(ctx, -1) && duk_get_boolean(ctx, -1);
	duk_pop(ctx);
	return v;
}

/* ---- test mode's report */

/* One entry, as read from the harness's results. */
struct entry {
	json_t *name, *error; /* UTF-8 strings; error NULL when it passed or was skipped */
	bool skip, pass, cut;
	json_int_t ms;
	size_t name_esc, error_esc; /* their sizes as JSON strings, quotes aside */
};

/* The bytes c takes in a JSON string as jansson writes it (counting DEL
 * as escaped too: never less than it takes). */
static size_t esc_width(unsigned char c)
{
	if (c == '"' || c == '\\')
		return 2;
	if (c < 0x20)
		return (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') ? 2 : 6;
	return c == 0x7f ? 6 : 1;
}

/* The length of the longest prefix of s (ending on a character boundary)
 * whose escaped form fits in cap bytes; *esc gets that form's size. */
static size_t esc_prefix(const char *s, size_t n, size_t cap, size_t *esc)
{
	size_t e = 0, keep = 0, keep_e = 0;
	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			keep = i;
			keep_e = e;
		}
		size_t w = esc_width((unsigned char)s[i]);
		if (e + w > cap) {
			*esc = keep_e;
			return keep;
		}
		e += w;
	}
	*esc = e;
	return n;
}

/* The size of the string v as escaped in JSON (0 for NULL). */
static size_t esc_size(const json_t *v)
{
	size_t e = 0;
	if (v)
		(void)esc_prefix(json_string_value(v), json_string_length(v), (size_t)-1, &e);
	return e;
}

/* Cuts the string *v to cap escaped bytes; true when it was cut. */
static bool cut_string(json_t **v, size_t cap)
{
	if (!*v)
		return false;
	size_t e, n = esc_prefix(json_string_value(*v), json_string_length(*v), cap, &e);
	if (n == json_string_length(*v))
		return false;
	json_t *c = json_stringn(json_string_value(*v), n);
	if (!c)
		return false; /* kept whole: the frame check in worker.c catches it */
	json_decref(*v);
	*v = c;
	return true;
}

/* Cuts the string *v to at most max bytes, on a character boundary; true
 * when it was cut. */
static bool cut_raw(json_t **v, size_t max)
{
	if (!*v || json_string_length(*v) <= max)
		return false;
	const char *s = json_string_value(*v);
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	json_t *c = json_stringn(s, n);
	if (!c)
		return false;
	json_decref(*v);
	*v = c;
	return true;
}

/* At most the report's size with every name cut to name_cap escaped bytes
 * and every error to error_cap (a text cut to a cap takes no more than the
 * cap), counting TEST_ENTRY_FIXED for the rest of each entry. */
#define TEST_ENTRY_FIXED 128u
static size_t report_size(const struct entry *list, size_t n, size_t name_cap, size_t error_cap)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += TEST_ENTRY_FIXED +
			 (list[i].name_esc < name_cap ? list[i].name_esc : name_cap) +
			 (list[i].error_esc < error_cap ? list[i].error_esc : error_cap);
	return total;
}

/* The largest cap in [lo, hi] for which fits(cap) holds, given that it
 * holds for lo. */
static size_t largest_fit(const struct entry *list, size_t n, size_t lo, size_t hi, bool names,
			  size_t other)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		size_t size =
			names ? report_size(list, n, mid, other) : report_size(list, n, other, mid);
		if (size <= CTL_TEST_REPORT_BYTES)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Errors are cut down to this before names are cut at all. */
#define TEST_ERROR_FLOOR 256u

/* Fits the entries into CTL_TEST_REPORT_BYTES: each name is first cut to
 * CTL_TEST_NAME_BYTES and each error to CTL_MESSAGE_BYTES (the bounds the
 * supervisor holds them to); when the report is still too big, the errors
 * are cut to the largest common size that fits, down to
 * TEST_ERROR_FLOOR bytes, and then the names too. Cut entries say so. */
static void fit_report(struct entry *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (cut_raw(&list[i].name, CTL_TEST_NAME_BYTES))
			list[i].cut = true;
		if (cut_raw(&list[i].error, CTL_MESSAGE_BYTES))
			list[i].cut = true;
		list[i].name_esc = esc_size(list[i].name);
		list[i].error_esc = esc_size(list[i].error);
	}
	const size_t name_max = 6 * CTL_TEST_NAME_BYTES, error_max = 6 * CTL_MESSAGE_BYTES;
	if (report_size(list, n, name_max, error_max) <= CTL_TEST_REPORT_BYTES)
		return;
	size_t name_cap = name_max, error_cap;
	if (report_size(list, n, name_max, TEST_ERROR_FLOOR) <= CTL_TEST_REPORT_BYTES) {
		error_cap = largest_fit(list, n, TEST_ERROR_FLOOR, error_max, false, name_max);
	} else {
		/* 0 fits: CTL_TESTS_MAX entries of TEST_ENTRY_FIXED and two
		 * floors do (see the assertion below). */
		error_cap = TEST_ERROR_FLOOR;
		name_cap = largest_fit(list, n, 0, name_max, true, error_cap);
	}
	for (size_t i = 0; i < n; i++) {
		if (cut_string(&list[i].name, name_cap))
			list[i].cut = true;
		if (cut_string(&list[i].error, error_cap))
			list[i].cut = true;
	}
}
_Static_assert(CTL_TESTS_MAX *(TEST_ENTRY_FIXED + TEST_ERROR_FLOOR) <= CTL_TEST_REPORT_BYTES,
	       "a report of the most entries, errors at their floor, fits");

/*
 * The test report from the array of entries at the top of the stack (the
 * harness's run()): {summary, tests}, the summary counted here from the
 * entries, never taken from the script. An entry is skipped, or passed, or
 * failed; one that is not well formed counts as failed. The texts are cut
 * so that the report fits its frame (fit_report). NULL without memory.
 * Runs under duk_safe_call (reading can allocate).
 */
struct report {
	json_t *out;
	struct entry *list;
	size_t n;
};

static duk_ret_t build_report(duk_context *ctx, void *udata)
{
	struct report *rep = udata;
	duk_size_t n = duk_is_array(ctx, -1) ? duk_get_length(ctx, -1) : 0;
	if (n > CTL_TESTS_MAX)
		n = CTL_TESTS_MAX; /* the harness registers no more */
	rep->list = calloc(n ? n : 1, sizeof *rep->list);
	if (!rep->list)
		return 0;
	for (duk_size_t i = 0; i < n; i++) {
		struct entry *en = &rep->list[i];
		duk_get_prop_index(ctx, -1, (duk_uarridx_t)i);
		en->name = entry_string(ctx, -1, "name");
		en->error = entry_string(ctx, -1, "error");
		en->skip = entry_bool(ctx, -1, "skipped");
		en->pass = !en->skip && !en->error && entry_bool(ctx, -1, "passed");
		duk_get_prop_string(ctx, -1, "duration_ms");
		double ms = duk_is_number(ctx, -1) ? duk_get_number(ctx, -1) : 0;
		duk_pop_2(ctx);
		en->ms = ms > 0 && ms < 1e15 ? (json_int_t)ms : 0;
		if (!en->name)
			en->name = json_string("?");
		if (!en->skip && !en->pass && !en->error)
			en->error = json_string("the test did not pass");
		rep->n = i + 1;
	}
	fit_report(rep->list, rep->n);
	json_t *list = json_array();
	json_int_t passed = 0, failed = 0, skipped = 0;
	for (size_t i = 0; i < rep->n && list; i++) {
		struct entry *en = &rep->list[i];
		json_t *e = json_object();
		json_object_set(e, "name", en->name);
		json_object_set_new(e, "passed", json_boolean(en->pass));
		if (en->skip)
			json_object_set_new(e, "skipped", json_true());
		json_object_set_new(e, "duration_ms", json_integer(en->ms));
		if (en->error)
			json_object_set(e, "error", en->error);
		if (en->cut)
			json_object_set_new(e, "cut", json_true());
		if (json_array_append_new(list, e) < 0) {
			json_decref(list);
			list = NULL;
		}
		skipped += en->skip;
		passed += en->pass;
		failed += !en->skip && !en->pass;
	}
	rep->out = list ? json_pack("{s:{s:I, s:I, s:I, s:I}, s:o}", "summary", "total",
				    (json_int_t)rep->n, "passed", passed, "failed", failed,
				    "skipped", skipped, "tests", list)
			: NULL;
	return 0;
}

static void report_free(struct report *rep)
{
	for (size_t i = 0; rep->list && i < rep->n; i++) {
		json_decref(rep->list[i].name);
		json_decref(rep->list[i].error);
	}
	free(rep->list);
	rep->list = NULL;
}

json_t *engine_run_tests(const char *code, size_t code_len, const char *tests, size_t tests_len,
			 enum engine_language lang)
{
	duk_context *ctx = heap_ctx;
	duk_push_global_stash(ctx);
	duk_get_prop_string(ctx, -1, "harness");
	duk_remove(ctx, -2);
	duk_push_global_object(ctx);
	if (duk_pcall(ctx, 1) != DUK_EXEC_SUCCESS || !duk_is_object(ctx, -1))
		return result_error("sandbox", "the test harness did not load");
	duk_idx_t controls = duk_get_top_index(ctx);
	/* Both sources are compiled (and lowered) before either runs: the
	 * lowering of the tests must not run after, and so under the eyes of,
	 * the code under test. */
	json_t *r = NULL;
	if (code)
		r = compile_program(ctx, code, code_len, lang, ENGINE_CODE_NAME, "code");
	else
		duk_push_undefined(ctx);
	if (!r)
		r = compile_program(ctx, tests, tests_len, lang, ENGINE_TESTS_NAME, "tests");
	if (r)
		return r;
	if (code) {
		harness_begin(ctx, controls, "code");
		r = run_program(ctx, controls + 1, "code");
	}
	if (!r) {
		harness_begin(ctx, controls, "tests");
		r = run_program(ctx, controls + 2, "tests");
	}
	if (r)
		return r;
	duk_get_prop_string(ctx, controls, "run");
	if (duk_pcall(ctx, 0) != DUK_EXEC_SUCCESS)
		return fail_thrown(ctx, "script");
	struct report rep = {NULL, NULL, 0};
	duk_int_t rc = duk_safe_call(ctx, build_report, &rep, 1, 1);
	report_free(&rep);
	if (rc != DUK_EXEC_SUCCESS || !rep.out) {
		json_decref(rep.out);
		return result_error(alloc_failed ? "memory" : "script",
				    "the test results could not be read");
	}
	json_t *done = result_ok(NULL);
	json_object_set_new(done, "test", rep.out);
	return done;
}
