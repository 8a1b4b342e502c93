/* request.c - request validation, table driven; see request.h. */
#include "request.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jnum.h"
#include "jsonv.h"
#include "limits.h"

enum field_type {
	FIELD_STRING,
	FIELD_UINT,
	FIELD_BOOL,
	FIELD_STATES,
	FIELD_TOOLS,
	FIELD_STORE,
	FIELD_ANY,
};

struct field_spec {
	const char *name;
	enum field_type type;
	bool required;
};

struct op_spec {
	const char *name;
	enum request_op op;
	const struct field_spec *fields; /* NULL-terminated */
	bool limits;			 /* takes every field of exec_limit_fields too */
};

static const struct field_spec no_fields[] = {{NULL, 0, false}};

/* "code" or "cached": exactly one, checked in fill_source. */
static const struct field_spec execute_fields[] = {
	{"code", FIELD_STRING, false},
	{"cached", FIELD_STRING, false},
	{"cache", FIELD_BOOL, false},
	{"tools", FIELD_TOOLS, false},
	{"store", FIELD_STORE, false},
	{"language", FIELD_STRING, false},
	{NULL, 0, false},
};

static const struct field_spec status_fields[] = {
	{"execution_id", FIELD_STRING, true}, {"wait", FIELD_BOOL, false},
	{"wait_ms", FIELD_UINT, false},	      {"stdout_offset", FIELD_UINT, false},
	{"stderr_offset", FIELD_UINT, false}, {NULL, 0, false},
};

static const struct field_spec cancel_fields[] = {
	{"execution_id", FIELD_STRING, true},
	{NULL, 0, false},
};

static const struct field_spec list_fields[] = {
	{"states", FIELD_STATES, false},
	{"limit", FIELD_UINT, false},
	{"include_completed_within_ms", FIELD_UINT, false},
	{NULL, 0, false},
};

static const struct field_spec test_fields[] = {
	{"code", FIELD_STRING, false},	   {"tests", FIELD_STRING, true},
	{"tools", FIELD_TOOLS, false},	   {"store", FIELD_STORE, false},
	{"language", FIELD_STRING, false}, {NULL, 0, false},
};

static const struct field_spec tool_result_fields[] = {
	{"execution_id", FIELD_STRING, true},
	{"call_id", FIELD_UINT, true},
	{"value", FIELD_ANY, false},
	{"error", FIELD_STRING, false},
	{NULL, 0, false},
};

static const struct field_spec declarations_fields[] = {
	{"tools", FIELD_TOOLS, true},
	{NULL, 0, false},
};

static const struct field_spec cache_list_fields[] = {
	{"filter", FIELD_STRING, false},
	{NULL, 0, false},
};

static const struct op_spec ops[] = {
	{"health", OP_HEALTH, no_fields, false},
	{"execute", OP_EXECUTE, execute_fields, true},
	{"stream", OP_STREAM, execute_fields, true},
	{"async", OP_ASYNC, execute_fields, true},
	{"status", OP_STATUS, status_fields, false},
	{"cancel", OP_CANCEL, cancel_fields, false},
	{"list", OP_LIST, list_fields, false},
	{"test", OP_TEST, test_fields, true},
	{"cache_list", OP_CACHE_LIST, cache_list_fields, false},
	{"cache_clear", OP_CACHE_CLEAR, no_fields, false},
	{"tool_result", OP_TOOL_RESULT, tool_result_fields, false},
	{"declarations", OP_DECLARATIONS, declarations_fields, false},
};

static const char *const state_names[STATE_COUNT] = {
	"pending", "running", "completed", "failed", "timeout", "cancelled",
};

const char *request_state_name(enum exec_state st)
{
	return (unsigned)st < STATE_COUNT ? state_names[st] : "unknown";
}

#define N_OPS (sizeof ops / sizeof ops[0])

/* ---- the per-execution limits */

#define LIMIT_AT(member) offsetof(struct exec_limits, member)

/* A follower comes after the row it follows (parsing fills them in order). */
const struct exec_limit_field exec_limit_fields[] = {
	{"timeout_ms", LIMIT_AT(timeout_ms), "ms", LIMIT_TIMEOUT_MS_DEFAULT, 1,
	 LIMIT_TIMEOUT_MS_MAX, 0, -1, "timeout-ms", "max-timeout-ms", "default execution timeout",
	 "largest timeout a request may ask for", EXEC_LIMIT_JOB},
	{"max_cpu_ms", LIMIT_AT(max_cpu_ms), "ms", LIMIT_TIMEOUT_MS_DEFAULT, 1,
	 LIMIT_TIMEOUT_MS_MAX, 0, 0, NULL, NULL, NULL, NULL, EXEC_LIMIT_JOB},
	{"memory_bytes", LIMIT_AT(memory_bytes), "bytes", LIMIT_MEMORY_BYTES_DEFAULT,
	 LIMIT_MEMORY_BYTES_MIN, LIMIT_MEMORY_BYTES_MAX, 0, -1, "memory-bytes", "max-memory-bytes",
	 "default memory for a script", "largest memory a request may ask for", EXEC_LIMIT_JOB},
	/* A client takes replies of LIMIT_CLIENT_REPLY_BYTES, which holds
	 * LIMIT_OUTPUT_BYTES_MAX of output escaped: the ceiling. */
	{"output_bytes", LIMIT_AT(output_bytes), "bytes", LIMIT_OUTPUT_BYTES_DEFAULT, 1,
	 LIMIT_OUTPUT_BYTES_MAX_DEFAULT, LIMIT_OUTPUT_BYTES_MAX, -1, "output-bytes",
	 "max-output-bytes", "default stdout+stderr cap",
	 "largest output cap a request may ask for", 0},
};
const size_t exec_limit_count = sizeof exec_limit_fields / sizeof exec_limit_fields[0];

/* Every limit a struct exec_limits holds has its row, and the bits of a
 * set of rows fit an unsigned. */
_Static_assert(sizeof exec_limit_fields / sizeof exec_limit_fields[0] ==
		       sizeof(struct exec_limits) / sizeof(uint64_t),
	       "a member of struct exec_limits has no row in exec_limit_fields");

const struct exec_limit_field *exec_limit_find(const char *name)
{
	for (size_t i = 0; i < exec_limit_count; i++)
		if (strcmp(exec_limit_fields[i].name, name) == 0)
			return &exec_limit_fields[i];
	return NULL;
}

void exec_limits_set(struct exec_limits *l, unsigned given, const struct exec_limit_field *f,
		     uint64_t v)
{
	*exec_limit_at(l, f) = v;
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *g = &exec_limit_fields[i];
		if (g->follows >= 0 && &exec_limit_fields[g->follows] == f &&
		    !(given & exec_limit_bit(g)))
			exec_limits_set(l, given, g, v);
	}
}

int exec_limits_to_json(const struct exec_limits *l, unsigned flags, json_t *obj)
{
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		if ((f->flags & flags) != flags)
			continue;
		if (json_object_set_new(obj, f->name,
					json_integer((json_int_t)exec_limit_get(l, f))) < 0)
			return -1;
	}
	return 0;
}

void request_limits_default(struct request_limits *lim)
{
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		*exec_limit_at(&lim->def, f) = f->def;
		*exec_limit_at(&lim->min, f) = f->min;
		*exec_limit_at(&lim->max, f) = f->max;
	}
	lim->wait_ms_default = LIMIT_WAIT_MS_DEFAULT;
	lim->wait_ms_max = LIMIT_WAIT_MS_MAX;
	request_limits_settle(lim);
}

void request_limits_settle(struct request_limits *lim)
{
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		if (f->follows < 0)
			continue;
		const struct exec_limit_field *lead = &exec_limit_fields[f->follows];
		*exec_limit_at(&lim->def, f) = exec_limit_get(&lim->def, lead);
		*exec_limit_at(&lim->max, f) = exec_limit_get(&lim->max, lead);
	}
}

int request_limits_to_json(const struct request_limits *lim, json_t *obj)
{
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		char key[64];
		snprintf(key, sizeof key, "%s_max", f->name);
		if (json_object_set_new(obj, f->name,
					json_integer((json_int_t)exec_limit_get(&lim->def, f))) <
			    0 ||
		    json_object_set_new(obj, key,
					json_integer((json_int_t)exec_limit_get(&lim->max, f))) < 0)
			return -1;
	}
	return json_object_set_new(obj, "wait_ms_max", json_integer((json_int_t)lim->wait_ms_max));
}

void request_error_clear(struct request_error *err)
{
	free(err->message);
	err->message = NULL;
}

__attribute__((format(printf, 3, 4))) static void fail(struct request_error *err, enum status code,
						       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	if (vasprintf(&err->message, fmt, ap) < 0)
		err->message = NULL; /* the reply then falls back to the code name */
	va_end(ap);
}

static const struct op_spec *find_op(const char *name, size_t len)
{
	for (size_t i = 0; i < N_OPS; i++)
		if (strlen(ops[i].name) == len && memcmp(ops[i].name, name, len) == 0)
			return &ops[i];
	return NULL;
}

/* How many bytes of s (valid UTF-8, from jansson) to quote in a message:
 * at most 64, cut before a character rather than inside one, so that the
 * message stays valid UTF-8 and can be sent back in a JSON string. */
static int quote_len(const char *s)
{
	size_t n = strnlen(s, 64);
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return (int)n;
}

static const struct field_spec *find_field(const struct op_spec *op, const char *name)
{
	for (const struct field_spec *f = op->fields; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Depth of nested arrays/objects; jansson bounds the recursion itself. */
static int json_depth(const json_t *v)
{
	int deepest = 0;
	if (json_is_object(v)) {
		const char *k;
		json_t *m;
		json_object_foreach ((json_t *)v, k, m) {
			int d = json_depth(m);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *m;
		json_array_foreach (v, i, m) {
			int d = json_depth(m);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	return 0;
}

/* A non-negative integer; JSON reals with an integral value count too, since
 * some encoders write 3e4 for 30000. */
static bool as_uint(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0)
			return false;
		*out = (uint64_t)i;
		return true;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (!(d >= 0 && d <= 9007199254740992.0) || floor(d) != d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	return false;
}

static const char *type_name(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER:
	case JSON_REAL: return "number";
	case JSON_TRUE:
	case JSON_FALSE: return "boolean";
	case JSON_NULL: return "null";
	}
	return "value";
}

/* Why a JSON value is not a non-negative integer, for messages. */
static const char *number_problem(const json_t *v)
{
	if (!json_is_number(v))
		return type_name(v);
	double d = json_number_value(v);
	if (d < 0)
		return "a negative number";
	if (floor(d) != d)
		return "a fractional number";
	return "a number too large";
}

static int parse_state(const char *name, size_t len)
{
	for (int i = 0; i < STATE_COUNT; i++)
		if (strlen(state_names[i]) == len && memcmp(state_names[i], name, len) == 0)
			return i;
	return -1;
}

/* An array of state names. */
static int check_states(const char *field, const json_t *v, struct request_error *err)
{
	if (!json_is_array(v)) {
		fail(err, STATUS_INVALID_ARGUMENT, "%s: expected an array of state names, got %s",
		     field, type_name(v));
		return -1;
	}
	size_t i;
	json_t *m;
	json_array_foreach (v, i, m) {
		const char *name = json_string_value(m);
		if (!name || parse_state(name, json_string_length(m)) < 0) {
			fail(err, STATUS_INVALID_ARGUMENT,
			     "%s[%zu]: expected one of pending, running, completed, failed, "
			     "timeout, cancelled",
			     field, i);
			return -1;
		}
	}
	return 0;
}

/* An identifier as JavaScript's dot notation takes it (ASCII). */
static bool ident_ok(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '$'))
			return false;
	}
	return true;
}

/* A dotted tool name: identifiers joined by dots. */
static bool tool_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > LIMIT_TOOL_NAME)
		return false;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || name[i] == '.') {
			if (!ident_ok(name + start, i - start))
				return false;
			start = i + 1;
		}
	}
	return true;
}

/* Does a name a prefix path of b ("a" of "a.b")? Then both cannot be. */
static bool path_prefix(const char *a, const char *b)
{
	size_t n = strlen(a);
	return strncmp(a, b, n) == 0 && (b[n] == '.' || b[n] == '\0');
}

static int count_bytes(const char *p, size_t n, void *data)
{
	(void)p;
	*(size_t *)data += n;
	return 0;
}

static int check_tools(const json_t *v, struct request_error *err)
{
	if (!json_is_array(v) || json_array_size(v) > LIMIT_TOOLS) {
		fail(err, STATUS_INVALID_ARGUMENT, "tools: expected an array of at most %u tools",
		     LIMIT_TOOLS);
		return -1;
	}
	size_t i;
	json_t *t;
	json_array_foreach (v, i, t) {
		json_t *name = json_object_get(t, "name");
		const char *key;
		json_t *m;
		if (!json_is_object(t) || !json_is_string(name) ||
		    !tool_name_ok(json_string_value(name), json_string_length(name))) {
			fail(err, STATUS_INVALID_ARGUMENT,
			     "tools[%zu].name: expected identifiers joined by dots (like "
			     "\"github.search\"), at most %u characters",
			     i, LIMIT_TOOL_NAME);
			return -1;
		}
		json_object_foreach ((json_t *)t, key, m) {
			bool schema = strcmp(key, "input_schema") == 0 ||
				      strcmp(key, "output_schema") == 0;
			bool ok = strcmp(key, "name") == 0 ||
				  (strcmp(key, "description") == 0 && json_is_string(m)) ||
				  (schema && (json_is_object(m) || json_is_boolean(m)));
			size_t bytes = 0;
			if (ok && schema &&
			    (jnum_dump_callback(m, count_bytes, &bytes, JSON_COMPACT) < 0 ||
			     bytes > LIMIT_SCHEMA_BYTES)) {
				fail(err, STATUS_INVALID_ARGUMENT,
				     "tools[%zu].%s: %zu bytes of JSON; a schema may have at most "
				     "%u",
				     i, key, bytes, LIMIT_SCHEMA_BYTES);
				return -1;
			}
			if (!ok) {
				fail(err, STATUS_INVALID_ARGUMENT,
				     "tools[%zu].%.*s: unknown field or wrong type (a tool has "
				     "name, "
				     "description, input_schema, output_schema)",
				     i, quote_len(key), key);
				return -1;
			}
		}
		for (size_t k = 0; k < i; k++) {
			const char *other =
				json_string_value(json_object_get(json_array_get(v, k), "name"));
			const char *mine = json_string_value(name);
			if (path_prefix(other, mine) || path_prefix(mine, other)) {
				fail(err, STATUS_INVALID_ARGUMENT,
				     "tools[%zu].name: \"%s\" clashes with \"%s\" (a name cannot "
				     "be both a tool and a group of tools, or appear twice)",
				     i, mine, other);
				return -1;
			}
		}
	}
	return 0;
}

/* The store the script starts with: values within the script's limits. */
static int check_store(const json_t *v, struct request_error *err)
{
	if (!json_is_object(v)) {
		fail(err, STATUS_INVALID_ARGUMENT, "store: expected an object, got %s",
		     type_name(v));
		return -1;
	}
	size_t total = 0;
	const char *key;
	json_t *m;
	json_object_foreach ((json_t *)v, key, m) {
		char *text = jnum_dumps(m, JSON_COMPACT | JSON_ENCODE_ANY);
		size_t n = text ? strlen(text) : 0;
		free(text);
		total += n;
		if (n > LIMIT_STORE_VALUE_BYTES) {
			fail(err, STATUS_INVALID_ARGUMENT,
			     "store.%.*s: %zu bytes of JSON; a value may have at most %u",
			     quote_len(key), key, n, LIMIT_STORE_VALUE_BYTES);
			return -1;
		}
	}
	if (total > LIMIT_STORE_TOTAL_BYTES) {
		fail(err, STATUS_INVALID_ARGUMENT,
		     "store: %zu bytes of JSON; the store may hold at most %u", total,
		     LIMIT_STORE_TOTAL_BYTES);
		return -1;
	}
	return 0;
}

static int check_field(const struct field_spec *f, const json_t *v, struct request_error *err)
{
	uint64_t u;
	switch (f->type) {
	case FIELD_STRING:
		if (json_is_string(v))
			return 0;
		fail(err, STATUS_INVALID_ARGUMENT, "%s: expected a string, got %s", f->name,
		     type_name(v));
		return -1;
	case FIELD_UINT:
		if (as_uint(v, &u))
			return 0;
		fail(err, STATUS_INVALID_ARGUMENT, "%s: expected a non-negative integer, got %s",
		     f->name, number_problem(v));
		return -1;
	case FIELD_BOOL:
		if (json_is_boolean(v))
			return 0;
		fail(err, STATUS_INVALID_ARGUMENT, "%s: expected true or false, got %s", f->name,
		     type_name(v));
		return -1;
	case FIELD_STATES: return check_states(f->name, v, err);
	case FIELD_TOOLS: return check_tools(v, err);
	case FIELD_STORE: return check_store(v, err);
	case FIELD_ANY: return 0;
	}
	return -1;
}

/* Reads an optional limit field into *out, checking it against [min, max]. */
static int get_limit(json_t *root, const char *name, uint64_t def, uint64_t min, uint64_t max,
		     uint64_t *out, struct request_error *err)
{
	json_t *v = json_object_get(root, name);
	if (!v) {
		*out = def;
		return 0;
	}
	as_uint(v, out);
	if (*out < min || *out > max) {
		fail(err, STATUS_INVALID_ARGUMENT,
		     "%s: %llu is out of range (the daemon allows %llu to %llu)", name,
		     (unsigned long long)*out, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

static int check_id(json_t *id, struct request_error *err)
{
	if (json_is_string(id)) {
		if (json_string_length(id) > LIMIT_ID_BYTES) {
			fail(err, STATUS_INVALID_ARGUMENT, "id: longer than %u bytes",
			     LIMIT_ID_BYTES);
			return -1;
		}
		return 0;
	}
	if (json_is_number(id))
		return 0;
	fail(err, STATUS_INVALID_ARGUMENT, "id: expected a string or a number, got %s",
	     type_name(id));
	return -1;
}

static uint64_t get_uint(json_t *root, const char *name, uint64_t def)
{
	uint64_t v = def;
	json_t *j = json_object_get(root, name);
	if (j)
		as_uint(j, &v);
	return v;
}

/* execute, stream, async, test: the source and the limits. */
static int fill_execution(json_t *root, const struct request_limits *lim, struct request *req,
			  struct request_error *err)
{
	json_t *code = json_object_get(root, "code");
	json_t *cached = json_object_get(root, "cached");
	json_t *tests = json_object_get(root, "tests");
	if (req->op != OP_TEST && !code == !cached) {
		fail(err, STATUS_INVALID_ARGUMENT,
		     code ? "code, cached: give one, not both"
			  : "code: required field is missing (or give "
			    "\"cached\": NAME)");
		return -1;
	}
	req->code = json_string_value(code);
	req->code_len = json_string_length(code);
	req->cached = json_string_value(cached);
	/* Code may carry NUL; a name may not: it would cut the lookup short
	 * and find another script than the one named. */
	if (cached && strlen(req->cached) != json_string_length(cached)) {
		fail(err, STATUS_INVALID_ARGUMENT, "cached: a script name cannot contain NUL");
		return -1;
	}
	req->tests = json_string_value(tests);
	req->tests_len = json_string_length(tests);
	json_t *cache = json_object_get(root, "cache");
	req->cache = !cache || json_is_true(cache);
	req->tools = json_object_get(root, "tools");
	req->store = json_object_get(root, "store");
	const char *language = json_string_value(json_object_get(root, "language"));
	if (language) {
		if (strcmp(language, "javascript") != 0 && strcmp(language, "typescript") != 0) {
			fail(err, STATUS_INVALID_ARGUMENT,
			     "language: expected \"javascript\" or \"typescript\", got \"%.32s\"",
			     language);
			return -1;
		}
		req->typescript = language[0] == 't';
		req->javascript = !req->typescript;
	}
	/* The limits, in the table's order: a follower not given takes the
	 * value its leader has just been given. */
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		uint64_t def = f->follows >= 0 ? exec_limit_get(&req->limits,
								&exec_limit_fields[f->follows])
					       : exec_limit_get(&lim->def, f);
		if (json_object_get(root, f->name))
			req->limits_given |= exec_limit_bit(f);
		if (get_limit(root, f->name, def, exec_limit_get(&lim->min, f),
			      exec_limit_get(&lim->max, f), exec_limit_at(&req->limits, f),
			      err) < 0)
			return -1;
	}
	return 0;
}

/* status, cancel. A wait longer than the daemon allows is cut to it. */
static int fill_status(json_t *root, const struct request_limits *lim, struct request *req,
		       struct request_error *err)
{
	(void)err;
	req->execution_id = json_string_value(json_object_get(root, "execution_id"));
	req->wait = json_is_true(json_object_get(root, "wait"));
	req->wait_ms = get_uint(root, "wait_ms", lim->wait_ms_default);
	if (req->wait_ms > lim->wait_ms_max)
		req->wait_ms = lim->wait_ms_max;
	req->stdout_offset = get_uint(root, "stdout_offset", 0);
	req->stderr_offset = get_uint(root, "stderr_offset", 0);
	return 0;
}

static int fill_tool_result(json_t *root, struct request *req, struct request_error *err)
{
	req->execution_id = json_string_value(json_object_get(root, "execution_id"));
	req->call_id = get_uint(root, "call_id", 0);
	req->value = json_object_get(root, "value");
	req->error = json_string_value(json_object_get(root, "error"));
	if (!req->value == !req->error) {
		fail(err, STATUS_INVALID_ARGUMENT,
		     req->error ? "value, error: give one, not both"
				: "value: required field is missing (or give \"error\": MESSAGE)");
		return -1;
	}
	return 0;
}

static int fill_list(json_t *root, struct request *req, struct request_error *err)
{
	size_t i;
	json_t *m;
	json_array_foreach (json_object_get(root, "states"), i, m)
		req->states |= 1u << parse_state(json_string_value(m), json_string_length(m));
	if (get_limit(root, "limit", LIMIT_LIST_DEFAULT, 1, LIMIT_LIST_MAX, &req->limit, err) < 0)
		return -1;
	json_t *within = json_object_get(root, "include_completed_within_ms");
	req->has_within = within != NULL;
	req->within_ms = get_uint(root, "include_completed_within_ms", 0);
	return 0;
}

static int validate(json_t *root, const struct request_limits *lim, struct request *req,
		    struct request_error *err)
{
	json_t *id = json_object_get(root, "id");
	if (id) {
		if (check_id(id, err) < 0)
			return -1;
		err->id = id;
	}
	json_t *opv = json_object_get(root, "op");
	if (!opv) {
		fail(err, STATUS_INVALID_ARGUMENT, "op: required field is missing");
		return -1;
	}
	if (!json_is_string(opv)) {
		fail(err, STATUS_INVALID_ARGUMENT, "op: expected a string, got %s", type_name(opv));
		return -1;
	}
	const char *op_name = json_string_value(opv);
	const struct op_spec *op = find_op(op_name, json_string_length(opv));
	if (!op) {
		char known[256] = "";
		for (size_t i = 0; i < N_OPS; i++) {
			strcat(known, i ? ", " : "");
			strcat(known, ops[i].name);
		}
		fail(err, STATUS_INVALID_ARGUMENT, "op: unknown op \"%.*s\" (known: %s)",
		     quote_len(op_name), op_name, known);
		return -1;
	}
	if (json_depth(root) > LIMIT_JSON_DEPTH) {
		fail(err, STATUS_INVALID_ARGUMENT, "request nests deeper than %d levels",
		     LIMIT_JSON_DEPTH);
		return -1;
	}
	const char *key;
	json_t *v;
	json_object_foreach (root, key, v) {
		if (strcmp(key, "op") == 0 || strcmp(key, "id") == 0)
			continue;
		const struct field_spec *f = find_field(op, key);
		struct field_spec limit = {key, FIELD_UINT, false};
		if (!f && op->limits && exec_limit_find(key))
			f = &limit;
		if (!f) {
			fail(err, STATUS_INVALID_ARGUMENT, "%.*s: unknown field for op \"%s\"",
			     quote_len(key), key, op->name);
			return -1;
		}
		if (check_field(f, v, err) < 0)
			return -1;
	}
	for (const struct field_spec *f = op->fields; f->name; f++) {
		if (f->required && !json_object_get(root, f->name)) {
			fail(err, STATUS_INVALID_ARGUMENT, "%s: required field is missing",
			     f->name);
			return -1;
		}
	}

	memset(req, 0, sizeof *req);
	req->op = op->op;
	req->op_name = op->name;
	req->id = id;
	switch (op->op) {
	case OP_EXECUTE:
	case OP_STREAM:
	case OP_ASYNC:
	case OP_TEST: return fill_execution(root, lim, req, err);
	case OP_STATUS:
	case OP_CANCEL: return fill_status(root, lim, req, err);
	case OP_LIST: return fill_list(root, req, err);
	case OP_CACHE_LIST:
		req->filter = json_string_value(json_object_get(root, "filter"));
		return 0;
	case OP_TOOL_RESULT: return fill_tool_result(root, req, err);
	case OP_DECLARATIONS: req->tools = json_object_get(root, "tools"); return 0;
	case OP_HEALTH:
	case OP_CACHE_CLEAR: return 0;
	}
	return 0;
}

/* Per-member bounds of the pre-scan: a member over them is refused before
 * any tree is built. */
static const struct {
	const char *name;
	uint64_t nodes;
	size_t bytes; /* compact; 0: no bound here */
} member_bounds[] = {
	{"tools", LIMIT_TOOLS_NODES, LIMIT_TOOLS_BYTES},
	{"store", LIMIT_STORE_NODES, 0},
};

/*
 * Counts the request's values and its members' sizes on the
 * text, before jansson builds a tree: a request of a million tiny values
 * costs this scan, not a tree of a hundred megabytes. 0 when the request is
 * within bounds or is not JSON at all (jansson then says where); -1 with
 * *err filled when it is over a bound.
 */
static int prescan(const char *payload, size_t len, struct request_error *err)
{
	struct jsonv *v = malloc(sizeof *v);
	if (!v) {
		fail(err, STATUS_RESOURCE_EXHAUSTED, "out of memory");
		return -1;
	}
	/* Depth is left to validate(), which can echo the id. */
	struct jsonv_limits lim = {JSONV_DEPTH_MAX, LIMIT_REQUEST_NODES, 0};
	jsonv_init(v, &lim, NULL);
	int rc = 0;
	if (jsonv_feed(v, payload, len) < 0 || jsonv_finish(v) < 0) {
		const char *name = NULL;
		int name_len = 0;
		if (v->cur >= 0) {
			const struct jsonv_member *m = &v->members[v->cur];
			name = payload + m->key_in + 1;
			name_len = (int)(m->key.len >= 2 ? m->key.len - 2 : 0);
			name_len = name_len > 64 ? 64 : name_len;
		}
		if (strcmp(v->why, "too many values") == 0) {
			fail(err, STATUS_INVALID_ARGUMENT,
			     "%.*s%srequest has more than %u JSON values", name_len,
			     name ? name : "", name ? ": the " : "", LIMIT_REQUEST_NODES);
			rc = -1;
		}
		free(v);
		return rc;
	}
	for (unsigned i = 0; i < v->n_members && rc == 0; i++) {
		const struct jsonv_member *m = &v->members[i];
		for (size_t k = 0; k < sizeof member_bounds / sizeof member_bounds[0]; k++) {
			const char *name = member_bounds[k].name;
			size_t n = strlen(name);
			if (m->key.len != n + 2 || memcmp(payload + m->key_in + 1, name, n) != 0)
				continue;
			if (m->nodes > member_bounds[k].nodes) {
				fail(err, STATUS_INVALID_ARGUMENT,
				     "%s: %llu JSON values; at most %llu are allowed", name,
				     (unsigned long long)m->nodes,
				     (unsigned long long)member_bounds[k].nodes);
				rc = -1;
			} else if (member_bounds[k].bytes &&
				   m->value.len > member_bounds[k].bytes) {
				fail(err, STATUS_INVALID_ARGUMENT,
				     "%s: %zu bytes of JSON; at most %zu are allowed", name,
				     m->value.len, member_bounds[k].bytes);
				rc = -1;
			}
		}
	}
	free(v);
	return rc;
}

json_t *request_parse(const char *payload, size_t len, const struct request_limits *lim,
		      struct request *req, struct request_error *err, json_t **root_on_error)
{
	json_error_t jerr;
	err->message = NULL;
	err->id = NULL;
	*root_on_error = NULL;
	if (prescan(payload, len, err) < 0)
		return NULL;
	/* Any JSON value decodes, so that a string or a number is refused as
	 * not an object rather than as not JSON. */
	size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY;
	json_t *root = jnum_loadb(payload, len, flags, &jerr);
	if (!root && json_error_code(&jerr) == json_error_out_of_memory) {
		fail(err, STATUS_RESOURCE_EXHAUSTED, "out of memory reading the request");
		return NULL;
	}
	if (!root) {
		fail(err, STATUS_INVALID_ARGUMENT,
		     "request is not valid JSON: %s (line %d, column %d)", jerr.text, jerr.line,
		     jerr.column);
		return NULL;
	}
	if (!json_is_object(root)) {
		fail(err, STATUS_INVALID_ARGUMENT, "request must be a JSON object, got %s",
		     type_name(root));
		*root_on_error = root;
		return NULL;
	}
	if (validate(root, lim, req, err) < 0) {
		*root_on_error = root;
		return NULL;
	}
	return root;
}
