/*
 * mcp_tools.c - the bridge's tools, the pure half: definitions, argument
 * checking, daemon requests, and results rendered for MCP hosts.
 *
 * Each tool's arguments are one table (struct arg), from which both the
 * inputSchema and the checks come, so the two cannot disagree. Each
 * outputSchema is JSON text; structuredContent is made by copying from the
 * daemon's reply only what the schema names (recursively), so what is
 * returned validates against what is declared, whatever the daemon adds.
 */
#include "mcp_tools.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"

/* ---- Arguments. */

enum arg_type { ARG_STRING, ARG_INTEGER, ARG_BOOLEAN, ARG_STRINGS };

struct arg {
	const char *name;
	enum arg_type type;
	bool required;
	uint64_t min, max;	    /* integers: the range (max 0: none) */
	const char *const *choices; /* strings (or the items of ARG_STRINGS): NULL-ended */
	const char *description;
};

static const char *const languages[] = {"javascript", "typescript", NULL};
static const char *const states[] = {"pending", "running",   "completed", "failed",
				     "timeout", "cancelled", NULL};

static const struct arg execute_args[] = {
	{"code", ARG_STRING, false, 0, 0, NULL,
	 "The script: the body of an async function (`return` gives the value, `await` works at "
	 "the top). JavaScript up to ES2022, or TypeScript. Give this or `cached`."},
	{"cached", ARG_STRING, false, 0, 0, NULL,
	 "Run a cached script instead of `code`: its exact name, a unique prefix or a unique "
	 "substring (see list_scripts)."},
	{"language", ARG_STRING, false, 0, 0, languages,
	 "The code's language; without it, valid JavaScript is JavaScript and code valid only as "
	 "TypeScript is TypeScript."},
	{"timeout_ms", ARG_INTEGER, false, 1, 0, NULL,
	 "Wall-clock limit in milliseconds from when the script starts (at most the daemon's "
	 "maximum, 120000 by default)."},
	{"memory_bytes", ARG_INTEGER, false, 1024 * 1024, 0, NULL,
	 "Memory the script may use, in bytes (at least 1 MiB; at most the daemon's maximum)."},
	{"background", ARG_BOOLEAN, false, 0, 0, NULL,
	 "Start it and return its execution_id at once; read its output and result with "
	 "`status` (wait_ms long-polls)."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

static const struct arg status_args[] = {
	{"execution_id", ARG_STRING, true, 0, 0, NULL, "The execution, as execute returned it."},
	{"wait_ms", ARG_INTEGER, false, 0, LIMIT_WAIT_MS_MAX, NULL,
	 "Wait up to this many ms for the execution to end (or for more output past the "
	 "offsets) before answering; 0 or absent: answer at once."},
	{"stdout_offset", ARG_INTEGER, false, 0, 0, NULL,
	 "Return stdout from this byte on (a previous result's stdout_next)."},
	{"stderr_offset", ARG_INTEGER, false, 0, 0, NULL,
	 "Return stderr from this byte on (a previous result's stderr_next)."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

static const struct arg cancel_args[] = {
	{"execution_id", ARG_STRING, true, 0, 0, NULL, "The running or queued execution to stop."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

static const struct arg list_args[] = {
	{"states", ARG_STRINGS, false, 0, 0, states, "Only executions in these states."},
	{"limit", ARG_INTEGER, false, 1, LIMIT_LIST_MAX, NULL,
	 "At most this many, newest first (default 10)."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

static const struct arg test_args[] = {
	{"code", ARG_STRING, false, 0, 0, NULL,
	 "The code under test, run as a program before the tests: its functions and variables "
	 "are visible to them."},
	{"tests", ARG_STRING, true, 0, 0, NULL,
	 "The tests: `test(name, fn)` registers one (also test.skip, test.only, test.before, "
	 "test.after, test.before.each, test.after.each); `assert` is uvu's (is, equal, ok, not, "
	 "throws, type, instance, match, unreachable, and is.not, not.equal, ...)."},
	{"language", ARG_STRING, false, 0, 0, languages, "The language of code and tests."},
	{"timeout_ms", ARG_INTEGER, false, 1, 0, NULL, "Wall-clock limit of the whole run, in ms."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

static const struct arg scripts_args[] = {
	{"filter", ARG_STRING, false, 0, 0, NULL,
	 "Only scripts whose name or description contains this (case-insensitive)."},
	{NULL, 0, false, 0, 0, NULL, NULL},
};

/* ---- Output schemas. */

#define S_STATE                                                                            \
	"{\"type\":\"string\",\"enum\":[\"pending\",\"running\",\"completed\",\"failed\"," \
	"\"timeout\",\"cancelled\"]}"
#define S_INT "{\"type\":\"integer\",\"minimum\":0}"
#define S_ERROR                                                                                 \
	"{\"type\":\"object\",\"description\":\"Why it did not succeed. kind: syntax, script, " \
	"timeout, memory, output_limit, cancelled or sandbox.\",\"properties\":{"               \
	"\"kind\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"                     \
	"\"line\":{\"type\":\"integer\"},\"column\":{\"type\":\"integer\"},"                    \
	"\"stack\":{\"type\":\"string\"},\"source\":{\"type\":\"string\",\"enum\":[\"code\","   \
	"\"tests\"]}},\"required\":[\"kind\",\"message\"],\"additionalProperties\":false}"
#define S_OUTPUT                                                                              \
	"\"stdout\":{\"type\":\"string\",\"description\":\"a chunk of stdout ending at byte " \
	"stdout_next (at most " LIMIT_TEXT ")\"},"                                            \
	"\"stderr\":{\"type\":\"string\"},"                                                   \
	"\"stdout_length\":" S_INT ",\"stderr_length\":" S_INT ","                            \
	"\"stdout_next\":" S_INT ",\"stderr_next\":" S_INT ","                                \
	"\"output_more\":{\"type\":\"boolean\",\"description\":\"true when output lies past " \
	"stdout_next or stderr_next: call status with stdout_offset = stdout_next and "       \
	"stderr_offset = stderr_next for it\"},"
#define S_FIELDS                                                                                \
	"\"state\":" S_STATE ","                                                                \
	"\"queue_position\":{\"type\":\"integer\",\"minimum\":1},"                              \
	"\"success\":{\"type\":\"boolean\"},\"error\":" S_ERROR ","                             \
	"\"started_at_ms\":" S_INT ",\"finished_at_ms\":" S_INT ",\"execution_time_ms\":" S_INT \
	",\"cpu_time_ms\":" S_INT ",\"memory_peak_bytes\":" S_INT ",\"heap_peak_bytes\":" S_INT \
	",\"calls\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"        \
	"\"call_id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"                    \
	"\"status\":{\"type\":\"string\",\"enum\":[\"ok\",\"error\",\"cancelled\"]},"           \
	"\"duration_ms\":" S_INT "},\"required\":[\"call_id\",\"name\",\"status\"],"            \
	"\"additionalProperties\":false}},"                                                     \
	"\"calls_dropped\":" S_INT ",\"calls_omitted\":" S_INT ","
#define S_CACHED                                                                          \
	"\"cached\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}," \
	"\"description\":{\"type\":\"string\"},\"created_at_ms\":" S_INT ","              \
	"\"content_hash\":{\"type\":\"string\"}},\"required\":[\"name\"],"                \
	"\"additionalProperties\":false},"
#define LIMIT_TEXT "16384 bytes of stdout + stderr"
/* The schemas and descriptions say these numbers in words. */
_Static_assert(LIMIT_MCP_OUTPUT_BYTES == 16384 && LIMIT_MCP_VALUE_BYTES == 16384,
	       "the texts of the schemas and descriptions name 16384 bytes");

#define S_VALUE                                                                                \
	"\"value\":{\"description\":\"the returned value (absent for undefined, or when cut: " \
	"see value_preview)\"},"                                                               \
	"\"value_preview\":{\"type\":\"string\",\"description\":\"the first bytes of the "     \
	"value's JSON, when that is longer than 16384 bytes\"},"                               \
	"\"value_bytes\":" S_INT ","
#define S_TESTS                                                                                  \
	"\"summary\":{\"type\":\"object\",\"properties\":{\"total\":" S_INT ",\"passed\":" S_INT \
	",\"failed\":" S_INT ",\"skipped\":" S_INT "},"                                          \
	"\"required\":[\"total\",\"passed\",\"failed\",\"skipped\"],"                            \
	"\"additionalProperties\":false},"                                                       \
	"\"tests\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"          \
	"\"name\":{\"type\":\"string\"},\"passed\":{\"type\":\"boolean\"},"                      \
	"\"skipped\":{\"type\":\"boolean\"},\"error\":{\"type\":\"string\"},"                    \
	"\"duration_ms\":{\"type\":\"number\",\"minimum\":0},\"cut\":{\"type\":\"boolean\"}},"   \
	"\"required\":[\"name\",\"passed\"],\"additionalProperties\":false}},"                   \
	"\"tests_omitted\":" S_INT ","
#define S_UPSTREAM                                                                            \
	"\"upstream_errors\":{\"type\":\"array\",\"description\":\"code mode's upstream "     \
	"servers that are down (failed to start or died), each restarted on the next call\"," \
	"\"items\":{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\"},"    \
	"\"error\":{\"type\":\"string\"}},\"required\":[\"server\",\"error\"],"               \
	"\"additionalProperties\":false}},"
/* The last property (each above ends in a comma), and the rest. */
#define S_END                                                                                \
	"\"execution_id\":{\"type\":\"string\"}},\"required\":[\"execution_id\",\"state\"]," \
	"\"additionalProperties\":false}"

/* execute: an execution's fields. status: the same, or a test run's. */
static const char execution_schema[] =
	"{\"type\":\"object\",\"properties\":{" S_FIELDS S_OUTPUT S_CACHED S_VALUE S_UPSTREAM S_END;
static const char status_schema[] =
	"{\"type\":\"object\",\"properties\":{" S_FIELDS S_OUTPUT S_CACHED S_VALUE S_TESTS S_END;
static const char test_schema[] =
	"{\"type\":\"object\",\"properties\":{" S_FIELDS S_OUTPUT S_TESTS S_UPSTREAM S_END;

static const char cancel_schema[] =
	"{\"type\":\"object\",\"properties\":{\"execution_id\":{\"type\":\"string\"},"
	"\"state\":" S_STATE "},\"required\":[\"execution_id\",\"state\"],"
	"\"additionalProperties\":false}";

static const char list_schema[] =
	"{\"type\":\"object\",\"properties\":{\"executions\":{\"type\":\"array\",\"items\":{"
	"\"type\":\"object\",\"properties\":{\"execution_id\":{\"type\":\"string\"},"
	"\"mode\":{\"type\":\"string\",\"description\":\"execute, stream, async or test\"},"
	"\"state\":" S_STATE ",\"started_at_ms\":" S_INT ",\"finished_at_ms\":" S_INT ","
	"\"code_preview\":{\"type\":\"string\"},\"cached_name\":{\"type\":\"string\"},"
	"\"owner\":{\"type\":\"string\"}},\"required\":[\"execution_id\",\"state\"],"
	"\"additionalProperties\":false}}},\"required\":[\"executions\"],"
	"\"additionalProperties\":false}";

static const char scripts_schema[] =
	"{\"type\":\"object\",\"properties\":{\"scripts\":{\"type\":\"array\",\"items\":{"
	"\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
	"\"description\":{\"type\":\"string\"},\"created_at_ms\":" S_INT ","
	"\"content_hash\":{\"type\":\"string\"},\"size_bytes\":" S_INT ","
	"\"owner\":{\"type\":\"string\"}},\"required\":[\"name\"],"
	"\"additionalProperties\":false}}},\"required\":[\"scripts\"],"
	"\"additionalProperties\":false}";

/* ---- The tools. */

struct tool {
	const char *name, *title, *description;
	const struct arg *args;
	const char *output_schema;
	bool read_only, destructive, idempotent;
};

static const struct tool tools[MTOOL_COUNT] = {
	[MTOOL_EXECUTE] = {"execute", "Run a script",
			   "Run JavaScript or TypeScript in a fresh, OS-confined sandbox process "
			   "(no file system, no network; setTimeout and the other timers run as in "
			   "Node). Returns the value, stdout, "
			   "stderr, and on failure the error with its kind, line (and column, for "
			   "a syntax error) and stack. console.log writes to stdout. With "
			   "background: true it returns "
			   "an execution_id at once; poll it with status. Long output is cut at "
			   "16384 bytes; status with the offsets given returns the rest. "
			   "store(key, value) and load(key) keep JSON values across the "
			   "executions of this session.",
			   execute_args, execution_schema, false, false, false},
	[MTOOL_STATUS] = {"status", "Execution status and output",
			  "The state, output and (once ended) result of an execution. wait_ms "
			  "long-polls until it ends; stdout_offset/stderr_offset read output from "
			  "those bytes on (the previous result's stdout_next/stderr_next).",
			  status_args, status_schema, true, false, true},
	[MTOOL_CANCEL] = {"cancel", "Cancel an execution",
			  "Stop a running or queued execution; it ends in state cancelled.",
			  cancel_args, cancel_schema, false, true, true},
	[MTOOL_LIST_EXECUTIONS] = {"list_executions", "List executions",
				   "Recent executions (running ones, and ended ones for 10 "
				   "minutes), newest first.",
				   list_args, list_schema, true, false, true},
	[MTOOL_TEST] = {"test", "Run tests",
			"Run `tests` against `code` in the sandbox and report each test: "
			"passed, failed (with what was expected and what was found) or skipped, "
			"and a summary. Failing tests are a result, not an error.",
			test_args, test_schema, false, false, false},
	[MTOOL_LIST_SCRIPTS] =
		{"list_scripts", "List cached scripts",
		 "Scripts that ran successfully are cached by content; run one again "
		 "with execute {cached: NAME}.",
		 scripts_args, scripts_schema, true, false, true},
};

const char *mtool_name(enum mtool_id id)
{
	return (unsigned)id < MTOOL_COUNT ? tools[id].name : NULL;
}

int mtool_find(const char *name)
{
	for (int i = 0; name && i < MTOOL_COUNT; i++)
		if (strcmp(tools[i].name, name) == 0)
			return i;
	return -1;
}

static json_t *choices_json(const char *const *c)
{
	json_t *a = json_array();
	for (; a && *c; c++)
		json_array_append_new(a, json_string(*c));
	return a;
}

/* The inputSchema the argument table describes. */
static json_t *input_schema(const struct arg *args)
{
	json_t *props = json_object(), *req = json_array();
	for (const struct arg *a = args; a->name; a++) {
		json_t *p = json_object();
		static const char *const names[] = {"string", "integer", "boolean", "array"};
		json_object_set_new(p, "type", json_string(names[a->type]));
		json_object_set_new(p, "description", json_string(a->description));
		if (a->type == ARG_INTEGER) {
			json_object_set_new(p, "minimum", json_integer((json_int_t)a->min));
			if (a->max)
				json_object_set_new(p, "maximum", json_integer((json_int_t)a->max));
		}
		if (a->choices && a->type == ARG_STRING)
			json_object_set_new(p, "enum", choices_json(a->choices));
		if (a->type == ARG_STRINGS) {
			json_t *items = json_pack("{s:s}", "type", "string");
			if (a->choices)
				json_object_set_new(items, "enum", choices_json(a->choices));
			json_object_set_new(p, "items", items);
		}
		json_object_set_new(props, a->name, p);
		if (a->required)
			json_array_append_new(req, json_string(a->name));
	}
	return json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required",
			 req, "additionalProperties", 0);
}

json_t *mtool_definition(enum mtool_id id, const char *execute_suffix)
{
	if ((unsigned)id >= MTOOL_COUNT)
		return NULL;
	const struct tool *t = &tools[id];
	json_t *out = json_loads(t->output_schema, 0, NULL);
	if (!out)
		return NULL;
	char *desc = NULL;
	if (id == MTOOL_EXECUTE && execute_suffix && *execute_suffix) {
		if (asprintf(&desc, "%s\n\n%s", t->description, execute_suffix) < 0) {
			json_decref(out);
			return NULL;
		}
	}
	json_t *def =
		json_pack("{s:s, s:s, s:s, s:o, s:o, s:{s:s, s:b, s:b, s:b, s:b}}", "name", t->name,
			  "title", t->title, "description", desc ? desc : t->description,
			  "inputSchema", input_schema(t->args), "outputSchema", out, "annotations",
			  "title", t->title, "readOnlyHint", t->read_only, "destructiveHint",
			  t->destructive, "idempotentHint", t->idempotent, "openWorldHint", 0);
	free(desc);
	return def;
}

/* *why = a formatted message; always returns NULL, for `return fail(...)`. */
__attribute__((format(printf, 2, 3))) static json_t *fail(char **why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(why, fmt, ap) < 0)
		*why = NULL;
	va_end(ap);
	return NULL;
}

/* An integer argument: a JSON integer, or a real with an integral value. */
static bool as_uint(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return false;
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d < 0 || d > 9007199254740992.0 || floor(d) != d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	return false;
}

static bool in_choices(const char *const *c, const char *s)
{
	for (; *c; c++)
		if (strcmp(*c, s) == 0)
			return true;
	return false;
}

/* Checks args against the table; the checked values are copied into req
 * under the same names. NULL (with *why) on the first wrong one. */
static json_t *check_args(const struct arg *table, const json_t *args, json_t *req, char **why)
{
	const char *key;
	json_t *v;
	json_object_foreach ((json_t *)args, key, v) {
		const struct arg *a = table;
		while (a->name && strcmp(a->name, key) != 0)
			a++;
		if (!a->name)
			return fail(why, "%s: unknown argument", key);
		uint64_t n;
		switch (a->type) {
		case ARG_STRING:
			if (!json_is_string(v))
				return fail(why, "%s: must be a string", key);
			if (a->choices && !in_choices(a->choices, json_string_value(v)))
				return fail(why, "%s: must be one of %s", key,
					    a->choices == languages ? "javascript, typescript"
								    : "the listed values");
			break;
		case ARG_INTEGER:
			if (!as_uint(v, &n))
				return fail(why, "%s: must be a non-negative integer", key);
			if (n < a->min || (a->max && n > a->max))
				return a->max ? fail(why, "%s: must be %llu .. %llu", key,
						     (unsigned long long)a->min,
						     (unsigned long long)a->max)
					      : fail(why, "%s: must be at least %llu", key,
						     (unsigned long long)a->min);
			v = json_integer((json_int_t)n);
			json_object_set_new(req, key, v);
			continue;
		case ARG_BOOLEAN:
			if (!json_is_boolean(v))
				return fail(why, "%s: must be true or false", key);
			break;
		case ARG_STRINGS: {
			if (!json_is_array(v))
				return fail(why, "%s: must be an array of strings", key);
			size_t i;
			json_t *s;
			json_array_foreach (v, i, s) {
				if (!json_is_string(s))
					return fail(why, "%s[%zu]: must be a string", key, i);
				if (a->choices && !in_choices(a->choices, json_string_value(s)))
					return fail(
						why,
						"%s[%zu]: \"%s\" is not a state (pending, running, "
						"completed, failed, timeout, cancelled)",
						key, i, json_string_value(s));
			}
			break;
		}
		}
		json_object_set(req, key, v);
	}
	for (const struct arg *a = table; a->name; a++)
		if (a->required && !json_object_get(args, a->name))
			return fail(why, "%s: required", a->name);
	return req;
}

static void set_limit(json_t *req, const char *key, uint64_t def)
{
	if (def && !json_object_get(req, key))
		json_object_set_new(req, key, json_integer((json_int_t)def));
}

json_t *mtool_request(enum mtool_id id, const json_t *args, const struct mtool_limits *lim,
		      bool streaming, char **why)
{
	*why = NULL;
	if ((unsigned)id >= MTOOL_COUNT)
		return fail(why, "unknown tool");
	json_t *empty = NULL;
	if (!args)
		args = empty = json_object();
	if (!json_is_object(args))
		return fail(why, "arguments: must be an object");
	json_t *req = json_object();
	if (!req || !check_args(tools[id].args, args, req, why))
		goto err;
	const char *op = NULL;
	switch (id) {
	case MTOOL_EXECUTE: {
		bool code = json_object_get(req, "code") != NULL;
		bool cached = json_object_get(req, "cached") != NULL;
		if (code == cached) {
			fail(why, code ? "code, cached: give one of them, not both"
				       : "code: required (or cached)");
			goto err;
		}
		json_t *bg = json_object_get(req, "background");
		op = json_is_true(bg) ? "async" : streaming ? "stream" : "execute";
		json_object_del(req, "background");
		break;
	}
	case MTOOL_STATUS: {
		json_t *w = json_object_get(req, "wait_ms");
		if (w && json_integer_value(w) > 0)
			json_object_set_new(req, "wait", json_true());
		else
			json_object_del(req, "wait_ms");
		op = "status";
		break;
	}
	case MTOOL_CANCEL: op = "cancel"; break;
	case MTOOL_LIST_EXECUTIONS: op = "list"; break;
	case MTOOL_TEST: op = "test"; break;
	case MTOOL_LIST_SCRIPTS: op = "cache_list"; break;
	case MTOOL_COUNT: break;
	}
	if (id == MTOOL_EXECUTE || id == MTOOL_TEST) {
		if (lim) {
			set_limit(req, "timeout_ms", lim->timeout_ms);
			set_limit(req, "memory_bytes", lim->memory_bytes);
			set_limit(req, "output_bytes", lim->output_bytes);
			set_limit(req, "max_cpu_ms", lim->max_cpu_ms);
		}
	}
	if (json_object_set_new(req, "op", json_string(op)) < 0)
		goto err;
	json_decref(empty);
	return req;
err:
	json_decref(req);
	json_decref(empty);
	return NULL;
}

/* ---- Results. */

/*
 * The parsed output schema of a tool, parsed once and kept for the
 * process's life (rendering a result filters by it; parsing it each time
 * cost more than the rest of the rendering). Borrowed; NULL when out of
 * memory.
 */
static const json_t *schema_of(enum mtool_id id)
{
	static json_t *parsed[MTOOL_COUNT];
	if (!parsed[id])
		parsed[id] = json_loads(tools[id].output_schema, 0, NULL);
	return parsed[id];
}

/*
 * A copy of v keeping only what schema names: an object keeps the members
 * its "properties" list (each filtered by its own schema), an array's items
 * are filtered by "items"; anything else is copied. New reference.
 */
static json_t *filter(const json_t *schema, const json_t *v)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *items = json_object_get(schema, "items");
	if (json_is_object(v) && props) {
		json_t *o = json_object();
		const char *key;
		json_t *m;
		json_object_foreach ((json_t *)v, key, m) {
			json_t *ps = json_object_get(props, key);
			if (ps)
				json_object_set_new(o, key, filter(ps, m));
		}
		return o;
	}
	if (json_is_array(v) && items) {
		json_t *a = json_array();
		size_t i;
		json_t *m;
		json_array_foreach (v, i, m)
			json_array_append_new(a, filter(items, m));
		return a;
	}
	return json_deep_copy(v);
}

/* The length of the longest prefix of s[0..len) no longer than max that
 * does not end inside a UTF-8 character. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static uint64_t get_uint(const json_t *o, const char *key, uint64_t def)
{
	uint64_t n;
	return as_uint(json_object_get(o, key), &n) ? n : def;
}

/* One stream's chunk as the result keeps it. */
struct chunk {
	const char *data;
	size_t len;	 /* bytes kept */
	uint64_t base;	 /* its offset in the stream */
	uint64_t next;	 /* base + len */
	uint64_t length; /* the whole stream's bytes so far */
};

static struct chunk chunk_of(const json_t *reply, const char *name)
{
	char k[32];
	struct chunk c = {"", 0, 0, 0, 0};
	const json_t *s = json_object_get(reply, name);
	size_t have = 0;
	if (json_is_string(s)) {
		c.data = json_string_value(s);
		have = json_string_length(s);
	}
	snprintf(k, sizeof k, "%s_next", name);
	uint64_t next = get_uint(reply, k, have);
	c.base = next >= have ? next - have : 0;
	snprintf(k, sizeof k, "%s_length", name);
	c.length = get_uint(reply, k, c.base + have);
	c.len = have;
	return c;
}

/* Cuts the two chunks to LIMIT_MCP_OUTPUT_BYTES in all: stderr keeps up to
 * its share when both are long, stdout the rest. */
static void cut_output(struct chunk *out, struct chunk *err)
{
	size_t budget = LIMIT_MCP_OUTPUT_BYTES;
	size_t err_max = err->len;
	if (out->len + err->len > budget) {
		size_t share = LIMIT_MCP_STDERR_SHARE_BYTES;
		if (budget - share > out->len)
			share = budget - out->len;
		if (err_max > share)
			err_max = share;
	}
	err->len = utf8_cut(err->data, err->len, err_max);
	out->len = utf8_cut(out->data, out->len, budget - err->len);
	out->next = out->base + out->len;
	err->next = err->base + err->len;
}

static void set_chunk(json_t *sc, const char *name, const struct chunk *c)
{
	char k[32];
	json_object_set_new(sc, name, json_stringn(c->data, c->len));
	snprintf(k, sizeof k, "%s_length", name);
	json_object_set_new(sc, k, json_integer((json_int_t)c->length));
	snprintf(k, sizeof k, "%s_next", name);
	json_object_set_new(sc, k, json_integer((json_int_t)c->next));
}

static bool ended(const char *state)
{
	return state && (strcmp(state, "completed") == 0 || strcmp(state, "failed") == 0 ||
			 strcmp(state, "timeout") == 0 || strcmp(state, "cancelled") == 0);
}

static void print_bytes(FILE *f, uint64_t n)
{
	if (n >= 1024 * 1024)
		fprintf(f, "%.1f MiB", (double)n / (1024.0 * 1024.0));
	else if (n >= 1024)
		fprintf(f, "%.1f KiB", (double)n / 1024.0);
	else
		fprintf(f, "%llu bytes", (unsigned long long)n);
}

/* The chunk as text: a heading, the bytes, and what to call for the rest. */
static void print_stream(FILE *f, const char *name, const struct chunk *c, const char *id,
			 bool running)
{
	if (c->length == 0) {
		fprintf(f, "%s: (empty)\n", name);
		return;
	}
	if (c->base == 0 && c->len == c->length && !running) {
		fprintf(f, "%s:\n", name);
	} else {
		fprintf(f, "%s, bytes %llu to %llu of %llu%s:\n", name, (unsigned long long)c->base,
			(unsigned long long)c->next, (unsigned long long)c->length,
			running ? " so far" : "");
	}
	fwrite(c->data, 1, c->len, f);
	if (c->len && c->data[c->len - 1] != '\n')
		fputc('\n', f);
	if (c->next < c->length)
		fprintf(f,
			"[%s cut at byte %llu of %llu: call status with execution_id \"%s\" and "
			"%s_offset %llu for the rest]\n",
			name, (unsigned long long)c->next, (unsigned long long)c->length, id, name,
			(unsigned long long)c->next);
}

static void print_error(FILE *f, const json_t *e)
{
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	const char *src = json_string_value(json_object_get(e, "source"));
	fprintf(f, "error (%s", kind ? kind : "unknown");
	if (src)
		fprintf(f, ", in %s", src);
	if (json_is_integer(json_object_get(e, "line"))) {
		fprintf(f, ", line %lld",
			(long long)json_integer_value(json_object_get(e, "line")));
		if (json_is_integer(json_object_get(e, "column")))
			fprintf(f, ", column %lld",
				(long long)json_integer_value(json_object_get(e, "column")));
	}
	fprintf(f, "): %s\n", msg ? msg : "");
	const char *stack = json_string_value(json_object_get(e, "stack"));
	if (stack && *stack) {
		fprintf(f, "stack:\n%s", stack);
		if (stack[strlen(stack) - 1] != '\n')
			fputc('\n', f);
	}
}

/* Cuts the array member key of sc to max entries, counting the rest in
 * omitted_key. Returns how many were left out. */
static size_t cut_array(json_t *sc, const char *key, size_t max, const char *omitted_key)
{
	json_t *a = json_object_get(sc, key);
	size_t n = json_array_size(a);
	if (n <= max)
		return 0;
	while (json_array_size(a) > max)
		json_array_remove(a, json_array_size(a) - 1);
	json_object_set_new(sc, omitted_key, json_integer((json_int_t)(n - max)));
	return n - max;
}

/* The heading line of an execution: its id, state and timings. */
static void print_heading(FILE *f, const json_t *sc, const char *what)
{
	const char *id = json_string_value(json_object_get(sc, "execution_id"));
	const char *state = json_string_value(json_object_get(sc, "state"));
	fprintf(f, "%s %s: %s", what, id ? id : "?", state ? state : "?");
	if (json_object_get(sc, "queue_position"))
		fprintf(f, " (queue position %lld)",
			(long long)json_integer_value(json_object_get(sc, "queue_position")));
	if (json_object_get(sc, "execution_time_ms")) {
		fprintf(f, " in %llu ms (cpu %llu ms",
			(unsigned long long)get_uint(sc, "execution_time_ms", 0),
			(unsigned long long)get_uint(sc, "cpu_time_ms", 0));
		if (json_object_get(sc, "memory_peak_bytes")) {
			fprintf(f, ", peak memory ");
			print_bytes(f, get_uint(sc, "memory_peak_bytes", 0));
		}
		if (json_object_get(sc, "heap_peak_bytes")) {
			fprintf(f, ", heap peak ");
			print_bytes(f, get_uint(sc, "heap_peak_bytes", 0));
		}
		fputc(')', f);
	}
	fputc('\n', f);
}

static void print_calls(FILE *f, const json_t *sc)
{
	const json_t *calls = json_object_get(sc, "calls");
	size_t i;
	json_t *c;
	if (json_array_size(calls) == 0 && !json_object_get(sc, "calls_dropped"))
		return;
	fprintf(f, "tool calls:");
	if (json_array_size(calls) == 0)
		fprintf(f, " none answered");
	fputc('\n', f);
	json_array_foreach (calls, i, c) {
		fprintf(f, "  #%lld %s: %s, %llu ms\n",
			(long long)json_integer_value(json_object_get(c, "call_id")),
			json_string_value(json_object_get(c, "name")),
			json_string_value(json_object_get(c, "status")),
			(unsigned long long)get_uint(c, "duration_ms", 0));
	}
	if (json_object_get(sc, "calls_omitted"))
		fprintf(f, "  (%llu more not listed)\n",
			(unsigned long long)get_uint(sc, "calls_omitted", 0));
	if (json_object_get(sc, "calls_dropped"))
		fprintf(f, "  (%llu more past the limit of %u threw in the script)\n",
			(unsigned long long)get_uint(sc, "calls_dropped", 0), LIMIT_TOOL_CALLS);
}

/* The value in sc, or its preview when its JSON is too long; printed. */
static void value_part(json_t *sc, FILE *f)
{
	json_t *v = json_object_get(sc, "value");
	if (!v)
		return;
	char *js = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!js)
		return;
	size_t len = strlen(js);
	if (len > LIMIT_MCP_VALUE_BYTES) {
		size_t n = utf8_cut(js, len, LIMIT_MCP_VALUE_BYTES);
		json_object_set_new(sc, "value_preview", json_stringn(js, n));
		json_object_set_new(sc, "value_bytes", json_integer((json_int_t)len));
		json_object_del(sc, "value");
		fprintf(f, "value (%zu bytes of JSON, the first %zu shown):\n", len, n);
		fwrite(js, 1, n, f);
		fprintf(f, "\n[value cut]\n");
	} else {
		fprintf(f, "value: %s\n", js);
	}
	free(js);
}

static void print_tests(FILE *f, json_t *sc)
{
	json_t *sum = json_object_get(sc, "summary");
	if (sum)
		fprintf(f, "tests: %llu total, %llu passed, %llu failed, %llu skipped\n",
			(unsigned long long)get_uint(sum, "total", 0),
			(unsigned long long)get_uint(sum, "passed", 0),
			(unsigned long long)get_uint(sum, "failed", 0),
			(unsigned long long)get_uint(sum, "skipped", 0));
	json_t *tests_a = json_object_get(sc, "tests");
	size_t i;
	json_t *t;
	json_array_foreach (tests_a, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *e = json_object_get(t, "error");
		const char *verdict = json_is_true(json_object_get(t, "skipped"))  ? "SKIP"
				      : json_is_true(json_object_get(t, "passed")) ? "PASS"
										   : "FAIL";
		fprintf(f, "%s %s", verdict, name ? name : "");
		if (json_is_number(json_object_get(t, "duration_ms")))
			fprintf(f, " (%g ms)",
				json_number_value(json_object_get(t, "duration_ms")));
		fputc('\n', f);
		if (json_is_string(e)) {
			size_t len = json_string_length(e);
			size_t n = utf8_cut(json_string_value(e), len, LIMIT_MCP_TEST_ERROR_BYTES);
			if (n < len) {
				json_t *cut = json_stringn(json_string_value(e), n);
				json_object_set_new(t, "error", cut);
				json_object_set_new(t, "cut", json_true());
				e = cut;
			}
			fprintf(f, "  %s%s\n", json_string_value(e), n < len ? " [cut]" : "");
		}
	}
	if (json_object_get(sc, "tests_omitted"))
		fprintf(f, "(%llu more tests not listed)\n",
			(unsigned long long)get_uint(sc, "tests_omitted", 0));
}

/* Code mode's servers that are down, one line each. */
static void print_upstream(FILE *f, const json_t *sc)
{
	size_t i;
	json_t *e;
	json_array_foreach (json_object_get(sc, "upstream_errors"), i, e)
		fprintf(f, "upstream server %s is down (restarted on the next call): %s\n",
			json_string_value(json_object_get(e, "server")),
			json_string_value(json_object_get(e, "error")));
}

/* execute, status and test: the execution fields, output cut. */
static json_t *render_execution(enum mtool_id id, const json_t *reply, FILE *f, bool *is_error)
{
	const json_t *schema = schema_of(id);
	json_t *sc = schema ? filter(schema, reply) : NULL;
	if (!sc)
		return NULL;
	/* Fields the bridge sets itself, not the daemon's. */
	json_object_del(sc, "value_preview");
	json_object_del(sc, "value_bytes");
	json_object_del(sc, "calls_omitted");
	json_object_del(sc, "tests_omitted");
	json_object_del(sc, "output_more");
	const char *id_s = json_string_value(json_object_get(sc, "execution_id"));
	const char *state = json_string_value(json_object_get(sc, "state"));
	bool done = ended(state);
	bool has_output = json_object_get(reply, "stdout") || json_object_get(reply, "stderr");
	const json_t *e = json_object_get(sc, "error");

	/* A test run's report (test, or status of one). */
	bool tests_run = id == MTOOL_TEST || json_object_get(sc, "summary");
	if (done && !json_is_true(json_object_get(sc, "success")))
		*is_error = !tests_run || !json_object_get(sc, "summary") ||
			    json_object_get(e, "source");
	print_heading(f, sc, tests_run ? "test run" : "execution");
	if (!done && !has_output && id == MTOOL_EXECUTE)
		fprintf(f,
			"started in the background: call status with execution_id \"%s\" "
			"(wait_ms to wait for the end)\n",
			id_s ? id_s : "");
	if (e)
		print_error(f, e);
	if (tests_run)
		print_tests(f, sc);
	else
		value_part(sc, f);
	if (has_output) {
		struct chunk out = chunk_of(reply, "stdout"), err = chunk_of(reply, "stderr");
		cut_output(&out, &err);
		set_chunk(sc, "stdout", &out);
		set_chunk(sc, "stderr", &err);
		bool more = out.next < out.length || err.next < err.length ||
			    json_is_true(json_object_get(reply, "output_more"));
		json_object_set_new(sc, "output_more", json_boolean(more));
		print_stream(f, "stdout", &out, id_s ? id_s : "", !done);
		print_stream(f, "stderr", &err, id_s ? id_s : "", !done);
		if (more && out.next == out.length && err.next == err.length)
			fprintf(f,
				"[more output: call status with stdout_offset %llu and "
				"stderr_offset %llu]\n",
				(unsigned long long)out.next, (unsigned long long)err.next);
	}
	cut_array(sc, "calls", LIMIT_MCP_CALLS, "calls_omitted");
	cut_array(sc, "tests", LIMIT_MCP_TESTS, "tests_omitted");
	print_calls(f, sc);
	print_upstream(f, sc);
	json_t *cached = json_object_get(sc, "cached");
	if (cached)
		fprintf(f, "cached as %s (run it again with execute {\"cached\": \"%s\"})\n",
			json_string_value(json_object_get(cached, "name")),
			json_string_value(json_object_get(cached, "name")));
	return sc;
}

static json_t *render_list(const json_t *reply, FILE *f)
{
	const json_t *schema = schema_of(MTOOL_LIST_EXECUTIONS);
	json_t *sc = schema ? filter(schema, reply) : NULL;
	if (!sc)
		return NULL;
	if (!json_object_get(sc, "executions"))
		json_object_set_new(sc, "executions", json_array());
	json_t *a = json_object_get(sc, "executions");
	fprintf(f, "%zu execution%s%s\n", json_array_size(a), json_array_size(a) == 1 ? "" : "s",
		json_array_size(a) ? ", newest first:" : "");
	size_t i;
	json_t *x;
	json_array_foreach (a, i, x) {
		const char *mode = json_string_value(json_object_get(x, "mode"));
		const char *prev = json_string_value(json_object_get(x, "code_preview"));
		const char *cn = json_string_value(json_object_get(x, "cached_name"));
		fprintf(f, "%s  %s  %s", json_string_value(json_object_get(x, "execution_id")),
			json_string_value(json_object_get(x, "state")), mode ? mode : "");
		if (cn)
			fprintf(f, "  cached %s", cn);
		fputc('\n', f);
		if (prev) {
			/* One line: the preview's newlines shown as \n. */
			fputs("    ", f);
			for (const char *p = prev; *p; p++) {
				if (*p == '\n')
					fputs("\\n", f);
				else if ((unsigned char)*p < 0x20)
					fputc(' ', f);
				else
					fputc(*p, f);
			}
			fputc('\n', f);
		}
	}
	return sc;
}

static json_t *render_scripts(const json_t *reply, FILE *f)
{
	const json_t *schema = schema_of(MTOOL_LIST_SCRIPTS);
	json_t *sc = schema ? filter(schema, reply) : NULL;
	if (!sc)
		return NULL;
	if (!json_object_get(sc, "scripts"))
		json_object_set_new(sc, "scripts", json_array());
	json_t *a = json_object_get(sc, "scripts");
	fprintf(f, "%zu cached script%s\n", json_array_size(a), json_array_size(a) == 1 ? "" : "s");
	size_t i;
	json_t *x;
	json_array_foreach (a, i, x) {
		const char *d = json_string_value(json_object_get(x, "description"));
		fprintf(f, "%s  (%llu bytes)%s%s\n", json_string_value(json_object_get(x, "name")),
			(unsigned long long)get_uint(x, "size_bytes", 0), d && *d ? "  " : "",
			d ? d : "");
	}
	return sc;
}

static json_t *text_result(const char *text, json_t *sc, bool is_error)
{
	json_t *r = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text,
			      "isError", is_error);
	if (r && sc)
		json_object_set(r, "structuredContent", sc);
	return r;
}

json_t *mtool_error_result(const char *message)
{
	return text_result(message ? message : "internal error", NULL, true);
}

json_t *mtool_result(enum mtool_id id, const json_t *reply)
{
	if (!json_is_object(reply) || (unsigned)id >= MTOOL_COUNT)
		return mtool_error_result("the daemon's reply is not an object");
	if (!json_is_true(json_object_get(reply, "ok"))) {
		const json_t *e = json_object_get(reply, "error");
		const char *code = json_string_value(json_object_get(e, "code"));
		const char *msg = json_string_value(json_object_get(e, "message"));
		char *text = NULL;
		if (asprintf(&text, "%s: %s", code ? code : "ERROR", msg ? msg : "(no message)") <
		    0)
			return NULL;
		json_t *r = mtool_error_result(text);
		free(text);
		return r;
	}
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);
	if (!f)
		return NULL;
	bool is_error = false;
	json_t *sc = NULL;
	switch (id) {
	case MTOOL_EXECUTE:
	case MTOOL_STATUS:
	case MTOOL_TEST: sc = render_execution(id, reply, f, &is_error); break;
	case MTOOL_CANCEL: {
		const json_t *schema = schema_of(MTOOL_CANCEL);
		sc = schema ? filter(schema, reply) : NULL;
		fprintf(f, "execution %s: %s\n",
			json_string_value(json_object_get(reply, "execution_id")),
			json_string_value(json_object_get(reply, "state")));
		break;
	}
	case MTOOL_LIST_EXECUTIONS: sc = render_list(reply, f); break;
	case MTOOL_LIST_SCRIPTS: sc = render_scripts(reply, f); break;
	case MTOOL_COUNT: break;
	}
	if (fclose(f) != 0 || !sc) {
		free(text);
		json_decref(sc);
		return NULL;
	}
	/* No trailing newline: hosts show the text as it is. */
	while (text_len && text[text_len - 1] == '\n')
		text[--text_len] = '\0';
	json_t *r = text_result(text, sc, is_error);
	free(text);
	json_decref(sc);
	return r;
}

char *mtool_last_line(const char *data, size_t len)
{
	size_t end = len;
	while (end > 0 && (data[end - 1] == '\n' || data[end - 1] == '\r' || data[end - 1] == ' '))
		end--;
	if (end == 0)
		return NULL;
	size_t start = end;
	while (start > 0 && data[start - 1] != '\n')
		start--;
	size_t n = utf8_cut(data + start, end - start, LIMIT_MCP_PROGRESS_MESSAGE_CHARS);
	return strndup(data + start, n);
}
