/*
 * request.h - parse and validate one client request (protocol v1).
 *
 * A request is a JSON object {"op", "id"?, ...fields}. Validation is driven
 * by a table of ops and their fields: a missing, mistyped, out-of-range or
 * unknown field is INVALID_ARGUMENT with a message that names it.
 */
#ifndef SANDBOXD_REQUEST_H
#define SANDBOXD_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

enum request_op {
	OP_HEALTH = 0,
	OP_EXECUTE,
	OP_STREAM,
	OP_ASYNC,
	OP_STATUS,
	OP_CANCEL,
	OP_LIST,
	OP_TEST,
	OP_CACHE_LIST,
	OP_CACHE_CLEAR,
	OP_TOOL_RESULT,
	OP_DECLARATIONS,
};

/* The states of an execution, in the order of its life. */
enum exec_state {
	STATE_PENDING = 0, /* waiting for a worker slot */
	STATE_RUNNING,
	STATE_COMPLETED, /* the first terminal state */
	STATE_FAILED,
	STATE_TIMEOUT,
	STATE_CANCELLED,
};
#define STATE_COUNT 6

const char *request_state_name(enum exec_state s);
static inline int request_state_terminal(enum exec_state s) { return s >= STATE_COMPLETED; }

/* Per-execution bounds a request may ask for; the daemon's options. */
struct request_limits {
	uint64_t timeout_ms_default, timeout_ms_max;
	uint64_t memory_bytes_default, memory_bytes_min, memory_bytes_max;
	uint64_t output_bytes_default, output_bytes_max;
	uint64_t wait_ms_default, wait_ms_max; /* status long-polls; larger waits clamp */
};

/* A validated request. Pointers borrow from the parsed JSON root; fields an
 * op does not take are zero. */
struct request {
	enum request_op op;
	const char *op_name;
	json_t *id; /* NULL when the request has none */
	/* execute, stream, async, test */
	const char *code; /* NULL when "cached" names the script instead */
	size_t code_len;
	const char *cached;
	const char *tests; /* test */
	size_t tests_len;
	bool cache; /* store new code on success ("cache": false turns it off) */
	uint64_t timeout_ms;
	uint64_t max_cpu_ms; /* the engine's CPU budget; defaults to timeout_ms */
	bool max_cpu_given;
	uint64_t memory_bytes;
	uint64_t output_bytes;
	/* "language": at most one is set; neither: JavaScript, or TypeScript
	 * when it is only valid as that */
	bool javascript, typescript;
	/* status, cancel */
	const char *execution_id;
	bool wait;
	uint64_t wait_ms;
	uint64_t stdout_offset, stderr_offset;
	/* list */
	unsigned states; /* bit (1 << state) per state asked for; 0: all */
	uint64_t limit;
	bool has_within;
	uint64_t within_ms;
	/* cache_list */
	const char *filter;
	/* execute, stream, async, test, declarations: [{name, ...}] (borrowed) */
	json_t *tools;
	/* execute, stream, async, test: {key: value} (borrowed) */
	json_t *store;
	/* the store as compact JSON, when whoever parsed the request rendered
	 * it already (borrowed; else NULL: render store) */
	const char *store_json;
	size_t store_json_len;
	/* when not NULL, *code_take is a malloc'd, NUL-terminated copy of
	 * code, made where the request was parsed, that whoever keeps the code
	 * may take (setting *code_take to NULL) rather than copy it */
	char **code_take;
	/* tool_result: the value as compact JSON, when rendered where the
	 * request was parsed (borrowed; else NULL: render value) */
	const char *value_json;
	size_t value_json_len;
	/* tool_result (and execution_id) */
	uint64_t call_id;
	json_t *value;	   /* borrowed; NULL when error is given */
	const char *error; /* the tool's failure, thrown inside the script */
};

/* Why a request was refused. message is malloc'd; id (borrowed, may be NULL)
 * is the request's id when it could be read, to echo in the error reply. */
struct request_error {
	enum status code;
	char *message;
	json_t *id;
};

/*
 * Parses payload[0..len) and validates it. On success returns the parsed
 * root (the caller owns it; *req borrows from it) and fills *req. On failure
 * returns NULL and fills *err (free err->message with request_error_clear;
 * err->id borrows from *root_on_error, which the caller must json_decref
 * when not NULL).
 */
json_t *request_parse(const char *payload, size_t len, const struct request_limits *lim,
		      struct request *req, struct request_error *err, json_t **root_on_error);

void request_error_clear(struct request_error *err);

/* Fills lim with the compiled-in defaults of protocol/limits.h. */
void request_limits_default(struct request_limits *lim);

#endif
