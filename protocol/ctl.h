/*
 * ctl.h - the control channel between the supervisor and one worker.
 *
 * The worker's fd 0 is one end of a stream socketpair carrying frames in
 * the binary framing of frame.h, both ways:
 *   supervisor -> worker: one job  {"code": string} or, in test mode,
 *     {"code"?: string, "tests": string}; outside test mode it may carry
 *     "lowered": string and "lowering": CTL_LOWERING_VERSION, the ES5 text
 *     an earlier run of the same code made, to compile as it is
 *   worker -> supervisor: tool calls, each answered before the next
 *     {"type": "tool_call", "call_id": n (1, 2, ...), "name", "args"}
 *   supervisor -> worker: {"type": "tool_result", "call_id", "value" | "error"}
 *   worker -> supervisor: one result, last
 *     {"type": "result", "ok": true, "value"?: any}
 *   (every result may carry "heap_peak_bytes" and "cpu_ms", the worker's
 *   own report of its heap peak and CPU time)
 *     {"type": "result", "ok": true, "test": {"summary", "tests"}}
 *     {"type": "result", "ok": false,
 *      "error": {"kind", "message", "line"?, "stack"?, "source"?, "data"?}}
 *     each may add "lowered": string, the ES5 text the worker lowered the
 *     code to (when it did), for the supervisor's cache of lowered code:
 *     opaque text to it, bounded by CTL_LOWERED_BYTES, never parsed
 * Later message types (tool calls and their answers) share this channel,
 * which is why it is a socket and not a pipe.
 *
 * Everything a worker sends is untrusted: the supervisor validates each
 * frame as text (jsonv, as its bytes arrive) and checks it with
 * ctl_parse_compact, which bounds every field. A returned value, the store's
 * changes and a tool call's arguments stay compact JSON text; the
 * supervisor never builds a tree of them.
 */
#ifndef SANDBOXD_CTL_H
#define SANDBOXD_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonv.h"

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
/* The lowered text a result may carry, as a JSON string (quotes and
 * escapes counted): 1 MiB is a script of some 20000 modern lines lowered;
 * a bigger lowering is not offered for caching (it is made again). */
#define CTL_LOWERED_BYTES (1024u * 1024u)
/* A result frame: the value, the lowered text and the other fields. */
#define CTL_RESULT_BYTES (CTL_VALUE_BYTES + CTL_LOWERED_BYTES + 64u * 1024u)
/* The lowering's version: lowered text is only handed to a worker whose
 * lowering is the one that made it (the supervisor's cache keys on it,
 * and the job names it). Raise it with any change to js/lower.js, to
 * acorn, to the runtime lowered code calls (js/runtime.js) or to the
 * wrapper engine.c compiles lowered code in. */
#define CTL_LOWERING_VERSION 1
/* Values (scalars, arrays, objects) in a returned value, and its nesting.
 * The supervisor keeps only text, but a client parses it into a tree of
 * some 50 to 100 bytes a value: a million is as far as that stays sane. */
#define CTL_VALUE_NODES (1024u * 1024u)
#define CTL_VALUE_DEPTH 512u
/* The rest of a frame (type, ok, error, store_writes, the test report,
 * a tool call's name) may add this many values. */
#define CTL_OTHER_NODES (256u * 1024u)
/* store_writes as text: the values (limits.h's store limits) and the keys
 * that go with them. */
#define CTL_STORE_WRITES_BYTES (4u * 1024u * 1024u)
/* The small members of a frame (error, call_id, name, ...): values each. */
#define CTL_SMALL_NODES 16u

/* Bounds on test mode's report. */
#define CTL_TESTS_MAX 10000u
#define CTL_TEST_NAME_BYTES 1024u
/* The report's entries as JSON, which the worker keeps to by cutting the
 * names and errors further (marking the entries "cut"): half the frame,
 * leaving room for store_writes (CTL_STORE_WRITES_BYTES) beside it. */
#define CTL_TEST_REPORT_BYTES (8u * 1024u * 1024u)

enum ctl_type {
	CTL_TOOL_CALL,
	CTL_RESULT,
};

/* Test mode's summary, as the supervisor counts it from the entries. */
struct ctl_summary {
	unsigned total, passed, failed, skipped;
};

/* One frame from a worker, validated. Text fields are compact JSON the
 * message owns (malloc'd, NUL-terminated, NULL when absent). */
struct ctl_msg {
	enum ctl_type type;
	/* tool_call */
	int64_t call_id;
	char *name; /* the tool's dotted name */
	char *args;
	size_t args_len;
	/* result */
	bool ok;
	char *value; /* NULL when the script returned undefined */
	size_t value_len;
	/* With CTL_BORROW_VALUE, value points into the text parsed and is not
	 * freed here; value_member is then where ,"value":V lies in that text
	 * (its first byte is the one before the key: make it a comma), so
	 * that the caller can keep the value without copying it. */
	bool value_borrowed;
	struct jsonv_span value_member;
	json_t *error; /* new reference {kind, message, line?, column?, stack?, source?, data?} */
	int64_t heap_peak; /* the script's heap peak, or -1 when not reported */
	/* The worker's own CPU time (LIMIT_RESULT_CPU_MS_MAX at most), or -1
	 * when not reported: a diagnostic, never a limit's measure. */
	int64_t cpu_ms;
	char *store_writes; /* {"set":{...},"delete":[...]} within the store limits */
	size_t store_writes_len;
	bool has_test;
	struct ctl_summary summary; /* recomputed from the entries */
	char *tests;		    /* [{name, passed, skipped?, error?, duration_ms}] */
	size_t tests_len;
	/* The lowered text as the frame gave it: a compact JSON string, quotes
	 * included (at most CTL_LOWERED_BYTES), or NULL. */
	char *lowered;
	size_t lowered_len;
};

/* The limits a whole frame is validated under (jsonv). */
void ctl_frame_limits(struct jsonv_limits *lim);

/*
 * Checks one frame that jsonv validated and compacted: text[0..len) is its
 * compact form and v the validator that made it (for the places of the
 * top-level members). Fills *m (free with ctl_msg_clear) and returns 0, or
 * returns -1 with *why set to a static description when the worker broke
 * the protocol (*m is then empty).
 */
#define CTL_BORROW_VALUE 1u
int ctl_parse_compact(const struct jsonv *v, const char *text, size_t len, unsigned flags,
		      struct ctl_msg *m, const char **why);
/* The same from the frame's raw payload (validated here). */
int ctl_parse(const char *payload, size_t len, struct ctl_msg *m, const char **why);
void ctl_msg_clear(struct ctl_msg *m);

#endif
