/*
 * ctl.h - the control channel between the supervisor and one worker.
 *
 * The worker's fd 0 is one end of a stream socketpair carrying frames in
 * the binary framing of frame.h, both ways:
 *   supervisor -> worker: one job  {"code": string} or, in test mode,
 *     {"code"?: string, "tests": string}
 *   worker -> supervisor: tool calls, each answered before the next
 *     {"type": "tool_call", "call_id": n (1, 2, ...), "name", "args"}
 *   supervisor -> worker: {"type": "tool_result", "call_id", "value" | "error"}
 *   worker -> supervisor: one result, last
 *     {"type": "result", "ok": true, "value"?: any}
 *     {"type": "result", "ok": true, "test": {"summary", "tests"}}
 *     {"type": "result", "ok": false,
 *      "error": {"kind", "message", "line"?, "stack"?, "source"?}}
 * Later message types (tool calls and their answers) share this channel,
 * which is why it is a socket and not a pipe.
 *
 * Everything a worker sends is untrusted: the supervisor parses it with
 * ctl_result_parse, which bounds and checks every field.
 */
#ifndef SANDBOXD_CTL_H
#define SANDBOXD_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Exit statuses a worker uses when it cannot send a result frame. */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_FATAL = 70,	/* the engine hit a fatal error */
	CTL_EXIT_MEMORY = 71,	/* memory ran out where no result could be sent */
	CTL_EXIT_PROTOCOL = 72, /* the job could not be read or the result written */
	CTL_EXIT_CONFINE = 73,	/* a confinement step failed: nothing ran */
};

/* Bounds on what a worker may report back. */
#define CTL_MESSAGE_BYTES 4096u
#define CTL_STACK_BYTES 16384u
/* A returned value's JSON; beyond it the script fails with a clear error. */
#define CTL_VALUE_BYTES (16u * 1024u * 1024u)
/* A result frame: the value plus the other fields. */
#define CTL_RESULT_BYTES (CTL_VALUE_BYTES + 64u * 1024u)

/* A worker's result, validated. */
struct ctl_result {
	bool ok;
	json_t *value; /* borrowed; NULL when the script returned undefined */
	json_t *test;  /* new reference {summary, tests} (test mode) or NULL */
	json_t *error; /* new reference {kind, message, line?, stack?, source?} or NULL */
	json_int_t heap_peak; /* the script's heap peak, or -1 when not reported */
	json_t *store_writes; /* new reference {set, delete} (success only) or NULL */
};

/* Bounds on test mode's report. */
#define CTL_TESTS_MAX 10000u
#define CTL_TEST_NAME_BYTES 1024u

/*
 * Parses a result frame's payload. Returns the JSON root (the caller owns it
 * and frees it after using *res, then json_decref on res->error, res->test
 * and res->store_writes), or NULL with
 * *why set to a static description when the worker broke the protocol.
 */
json_t *ctl_result_parse(const char *payload, size_t len, struct ctl_result *res, const char **why);
/* The same for a frame already parsed: takes root (freed on failure). */
json_t *ctl_result_take(json_t *root, struct ctl_result *res, const char **why);

#endif
