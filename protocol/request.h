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

/*
 * Every per-execution limit a request may set. The same names are the
 * request's fields, the members of the job sent to the worker (those the
 * table marks) and the keys of health's "limits" object; the table in
 * request.c (exec_limit_fields) is the one list of them, and parsing, the
 * daemon's defaults and maxima, the job and health all walk it. Adding a
 * limit: a member here, a row there, its numbers in limits.h, and whatever
 * enforces it.
 */
struct exec_limits {
	uint64_t timeout_ms;   /* wall clock, from when it starts running */
	uint64_t max_cpu_ms;   /* the engine's CPU budget; defaults to timeout_ms */
	uint64_t memory_bytes; /* what the script may use beyond the runtime */
	uint64_t output_bytes; /* stdout + stderr kept */
};

/* Where a limit is sent besides the request: flags of exec_limit_field. */
#define EXEC_LIMIT_JOB 1u /* a member of the worker's job */

/* One row of the table of limits. */
struct exec_limit_field {
	const char *name;	     /* the request's field, the job's and health's key */
	size_t offset;		     /* of its uint64_t in struct exec_limits */
	const char *unit;	     /* "ms", "bytes" (said as 64M), ...: --help */
	uint64_t def, min, max;	     /* compiled in (limits.h): the daemon's default
				      * and maximum unless its options say otherwise,
				      * and the least a request may ask for */
	uint64_t ceiling;	     /* the most the daemon's maximum may be set to;
				      * 0: no bound but the type's */
	int follows;		     /* -1, or the row whose value this one takes when the
				      * request does not give it, and whose daemon default
				      * and maximum it shares (max_cpu_ms follows timeout_ms) */
	const char *opt, *opt_max;   /* the daemon's options for def and max, without
				      * the "--" (NULL: none, as for a follower) */
	const char *help, *help_max; /* their --help text */
	unsigned flags;		     /* EXEC_LIMIT_* */
};

/* The table: exec_limit_count rows, in the order health lists them. */
extern const struct exec_limit_field exec_limit_fields[];
extern const size_t exec_limit_count;

/* The member row f describes, in l. */
static inline uint64_t *exec_limit_at(struct exec_limits *l, const struct exec_limit_field *f)
{
	return (uint64_t *)(void *)((char *)l + f->offset);
}
static inline uint64_t exec_limit_get(const struct exec_limits *l, const struct exec_limit_field *f)
{
	return *(const uint64_t *)(const void *)((const char *)l + f->offset);
}

/* The row named name (NUL-terminated), or NULL. */
const struct exec_limit_field *exec_limit_find(const char *name);

/* The bit of row f in a set of rows (struct request's limits_given). */
static inline unsigned exec_limit_bit(const struct exec_limit_field *f)
{
	return 1u << (f - exec_limit_fields);
}

/*
 * Sets the limit f of l to v, and with it every limit that follows f and
 * is not in given (as a request that gave timeout_ms but not max_cpu_ms
 * would have had: used when an @options line sets the timeout).
 */
void exec_limits_set(struct exec_limits *l, unsigned given, const struct exec_limit_field *f,
		     uint64_t v);

/*
 * Adds to obj the limits whose rows have all of flags (EXEC_LIMIT_JOB: the
 * job's members), each under its name. 0, or -1 when out of memory (obj may
 * then hold some of them).
 */
int exec_limits_to_json(const struct exec_limits *l, unsigned flags, json_t *obj);

/* The bounds requests are checked against: the daemon's options. */
struct request_limits {
	struct exec_limits def;		       /* what a request that does not say gets */
	struct exec_limits min;		       /* the least a request may ask for */
	struct exec_limits max;		       /* the most a request may ask for */
	uint64_t wait_ms_default, wait_ms_max; /* status long-polls; larger waits clamp */
};

/*
 * Makes every follower's default and maximum its leader's (see follows);
 * call after changing def or max. Then health's view: adds to obj each
 * limit's default under its name and its maximum under NAME_max, and
 * wait_ms_max. 0, or -1 when out of memory.
 */
void request_limits_settle(struct request_limits *lim);
int request_limits_to_json(const struct request_limits *lim, json_t *obj);

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
	struct exec_limits limits;
	unsigned limits_given; /* exec_limit_bit() of each limit the request gave */
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
