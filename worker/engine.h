/*
 * engine.h - the JavaScript engine (Duktape 2.7, ES5.1) as sandboxd uses it.
 *
 * engine_prepare runs once, in the forkserver, before any fork: it builds
 * the heap and the globals scripts see, so every worker starts from an
 * engine that is ready to compile. engine_run runs in a confined worker and
 * executes one script; the heap is never reused for a second one.
 */
#ifndef SANDBOXD_ENGINE_H
#define SANDBOXD_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* File names scripts carry in stack traces: an execution's code, and test
 * mode's code and tests. */
#define ENGINE_SCRIPT_NAME "script.js"
#define ENGINE_CODE_NAME "code.js"
#define ENGINE_TESTS_NAME "tests.js"

/*
 * Creates the heap and installs the script globals (console, a per-process
 * Math.random; no Duktape, no require). 0, or -1 when the heap cannot be
 * created. Call once per process.
 */
int engine_prepare(void);

/* Reseeds Math.random from the kernel; each worker calls it once so no two
 * workers share a random sequence inherited from the forkserver. */
void engine_reseed(void);

/* What the code is written in. ENGINE_ANY: JavaScript, or TypeScript when
 * it is valid only as that. */
enum engine_language { ENGINE_ANY, ENGINE_JAVASCRIPT, ENGINE_TYPESCRIPT };

/*
 * Runs code as the body of a function and returns a new result message for
 * the control channel (see protocol/ctl.h): {"type": "result", "ok": true,
 * "value"?, "store_writes"} or {"type": "result", "ok": false, "error":
 * {...}}. NULL only
 * when even that could not be allocated. Console output goes straight to
 * fds 1 and 2 as the script writes it.
 *
 * Code the engine (ES5.1) compiles as it is runs as it is; other code is
 * parsed and lowered to ES5 first, here in the worker (see js/lower.js).
 */
json_t *engine_run(const char *code, size_t len, enum engine_language lang);

/*
 * The cache of lowered code (server/lcache.h). Before engine_run: text
 * (UTF-8, borrowed until engine_run returns) is what an earlier run of the
 * same code was lowered to, as engine_lowered gave it; engine_run then
 * compiles it as it is (no pre-scan, no parse, no lowering), with the
 * same wrapper, file name and lines, so errors and stacks are the same as
 * on that run. Used by the next engine_run only; test mode ignores it.
 */
void engine_use_lowered(const char *text, size_t len);
/* After engine_run: the ES5 text (UTF-8) its lowering made, for the
 * supervisor to keep; NULL when the code was not lowered (it ran as it
 * is, did not lower, or came lowered) or the text cannot be carried
 * (a lone surrogate, over CTL_LOWERED_BYTES as a JSON string). */
const char *engine_lowered(size_t *len);

/* The lowering alone (tests look at its output): {"code": ES5 source} (and
 * "globals", the names program code declares) or {"error": {"message",
 * "line", "column", and "length" when the offending token is longer than
 * one character}}; NULL when it failed to run. */
json_t *engine_lower(const char *code, size_t len, enum engine_language lang, bool body);

/*
 * Test mode: installs test() and assert, compiles code (when not NULL) and
 * tests, then runs them in that order as program code, so declarations in
 * code are visible to tests, and runs the tests registered while tests
 * loaded. The result message is {"type": "result", "ok": true, "test":
 * {"summary", "tests"}}, the summary counted here from the entries, or a
 * failure whose error has "source": "code" or "tests" when either failed to
 * load.
 */
json_t *engine_run_tests(const char *code, size_t code_len, const char *tests, size_t tests_len,
			 enum engine_language lang);

/*
 * The limits of this worker's script: its heap may grow by memory_bytes
 * beyond the prepared engine (an allocation past that throws "out of
 * memory" inside the script), and the process may use max_cpu_ms of CPU
 * (the engine then interrupts the script, whatever it catches). 0: none.
 */
void engine_set_limits(uint64_t memory_bytes, uint64_t max_cpu_ms);

/* The interrupt check Duktape calls (see scripts/duk-config.sh). */
unsigned int engine_interrupt(void *udata);

/*
 * Answers a tool call: gets the tool's name and its argument (a reference
 * it takes), returns the result (a new reference, NULL for none) or sets
 * *error to a malloc'd message the script gets as an Error.
 */
typedef json_t *(*engine_tool_fn)(const char *name, json_t *args, char **error);

/* Makes tools.<name> for each (dotted) name; names must outlive the run. */
void engine_set_tools(json_t *names, engine_tool_fn handler);

/* JSON text loaded as json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) would,
 * and also when object keys hold NUL (which jansson's parser refuses but
 * its trees hold): a new reference, or NULL when the text is not JSON or
 * memory ran out. */
json_t *engine_json_load(const char *text, size_t len);

/* Bytes the engine's heap holds now and at most so far. */
size_t engine_heap_bytes(void);
size_t engine_heap_peak(void);

#endif
