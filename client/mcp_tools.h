/*
 * mcp_tools.h - the MCP bridge's tools over the daemon.
 *
 * Six tools: execute, status, cancel, list_executions, test, list_scripts.
 * The pure half (mcp_tools.c) holds their definitions (inputSchema,
 * outputSchema, annotations), checks a call's arguments and builds the
 * daemon request for it, and renders a daemon reply as an MCP tool result
 * (structuredContent that validates against the tool's outputSchema, and a
 * content[0].text that says the same, each complete on its own). The other
 * half (mcp_toolrun.c) runs them over one daemon connection per bridge.
 *
 * Sizes (protocol/limits.h, "MCP bridge tools"): a result carries at most
 * LIMIT_MCP_OUTPUT_BYTES of stdout + stderr, a value's JSON up to
 * LIMIT_MCP_VALUE_BYTES (beyond it a preview), LIMIT_MCP_CALLS calls and
 * LIMIT_MCP_TESTS test entries; what is cut is said in both renderings,
 * with the offsets to pass to `status` for the rest of the output.
 */
#ifndef SANDBOXD_MCP_TOOLS_H
#define SANDBOXD_MCP_TOOLS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

enum mtool_id {
	MTOOL_EXECUTE,
	MTOOL_STATUS,
	MTOOL_CANCEL,
	MTOOL_LIST_EXECUTIONS,
	MTOOL_TEST,
	MTOOL_LIST_SCRIPTS,
	MTOOL_COUNT
};

/* The tool's MCP name ("execute", ...). */
const char *mtool_name(enum mtool_id id);
/* The tool called name, or -1 when none is. */
int mtool_find(const char *name);

/*
 * The tool's definition for tools/list: {name, title, description,
 * inputSchema, outputSchema, annotations}. execute_suffix (may be NULL) is
 * appended to execute's description (code mode's declarations). New
 * reference, or NULL when out of memory.
 */
json_t *mtool_definition(enum mtool_id id, const char *execute_suffix);

/* Limits the bridge puts in each execute/test request unless the call gives
 * its own; 0: leave it to the daemon's defaults. */
struct mtool_limits {
	uint64_t timeout_ms, memory_bytes, output_bytes, max_cpu_ms;
};

/*
 * Checks a call's arguments (NULL: none, as {}) and builds the daemon
 * request for it, without "id", "tools" or "store" (the runner adds them).
 * execute becomes "async" with background: true, else "stream" when
 * streaming (the call has a progress token), else "execute". New
 * reference; NULL with *why (malloc'd, naming the field) for bad
 * arguments, or with *why NULL when out of memory.
 */
json_t *mtool_request(enum mtool_id id, const json_t *args, const struct mtool_limits *lim,
		      bool streaming, char **why);

/*
 * The MCP tool result for a daemon reply to the tool's request:
 * {"content": [{"type": "text", "text"}], "structuredContent"?, "isError"}.
 * reply is the final reply frame ({"ok": true, ...} or {"ok": false,
 * "error"}); for execute run as stream, the runner adds what it gathered of
 * the output events as "stdout"/"stderr" (at least LIMIT_MCP_OUTPUT_BYTES of
 * each when there was that much) with "stdout_length"/"stderr_length", the
 * whole streams' sizes. A daemon error is isError with its code and message
 * as text and no structuredContent; so is a reply that is not an object.
 * isError is true when the script failed (state failed, timeout or
 * cancelled), for test only when the code or the tests failed to load (or
 * the run ended without a report), and for a daemon error. For execute
 * and test, the runner may add "upstream_errors" ([{"server", "error"}],
 * code mode's servers that are down), shown in both renderings. New
 * reference, or NULL when out of memory.
 */
json_t *mtool_result(enum mtool_id id, const json_t *reply);

/* {"content": [{"type": "text", "text": message}], "isError": true}: a call
 * the bridge could not run (bad arguments, no daemon). New reference. */
json_t *mtool_error_result(const char *message);

/*
 * The progress message for output: the last non-empty line of data (a
 * chunk of one stream) cut to LIMIT_MCP_PROGRESS_MESSAGE_CHARS bytes on a
 * character boundary, or NULL when data has no such line. malloc'd.
 */
char *mtool_last_line(const char *data, size_t len);

/* ---- The runner: the tools over one daemon connection (mcp_toolrun.c). */

struct ploop;
struct mrpc;
struct mtool;

struct mtool_options {
	const char *socket_path;    /* NULL: sdc_default_socket() */
	struct mtool_limits limits; /* put in each execute and test request */
	const char *store_file;	    /* NULL: the session's store lives in memory only */
};

/*
 * Registers the six tools with m and makes the runner on loop p. The
 * daemon is dialled by the first call, and again by the next call after
 * the connection dropped (the calls in flight then end with an error
 * saying so); a call that finds no daemon is an isError result naming the
 * socket and the reason. With store_file, the store is loaded from it (a
 * missing file is an empty store; one that is not a JSON object is an
 * error) and written back after each change (temporary file, fsync,
 * rename, fsync of the directory). Strings of o are copied. NULL with
 * *why (malloc'd) on failure.
 */
struct mtool *mtool_new(struct ploop *p, struct mrpc *m, const struct mtool_options *o, char **why);

/*
 * For the end of the session (stdin closed): cancels every execution the
 * bridge started that may still run (background ones included) and calls
 * done(arg) once the daemon has answered all the cancels, or the
 * connection is gone, or LIMIT_MCP_SHUTDOWN_MS passed; done may be called
 * inside this call. No new call is accepted afterwards.
 */
void mtool_shutdown(struct mtool *t, void (*done)(void *arg), void *arg);
/* Closes the daemon connection and frees everything. NULL is a no-op. */
void mtool_free(struct mtool *t);

/*
 * Code mode's side of the tools (client/mcp_codemode.c implements it).
 * Every member may be NULL. Called on the bridge's loop only.
 */
struct mtool_call; /* a tool_call waiting for code mode's answer */
struct mtool_codemode {
	void *ctx;
	/* The "tools" array to declare in an execute or test request (new
	 * reference), or NULL for none. Asked once per request. */
	json_t *(*tools)(void *ctx);
	/* A tool_call event of a running execution. Answer it exactly once
	 * with mtool_call_answer, now or later. deadline_ms is the latest the
	 * call may take, on the monotonic clock of ploop_now_ms: the
	 * execution's timeout (the request's, else the daemon's default from
	 * `health`) counted from its `started` event, or from the request
	 * when no such event came; for a queued execution, and a background
	 * one not running at its async reply, from its first call (it runs
	 * by then); name is the declared
	 * dotted name ("server.tool"); args is borrowed for the duration of
	 * the call. */
	void (*tool_call)(void *ctx, struct mtool_call *call, const char *execution_id,
			  const char *name, const json_t *args, uint64_t deadline_ms);
	/* execution_id has ended (or its connection dropped; a background
	 * execution: when a status call first sees it ended, the host's or
	 * the long-poll the runner keeps while calls of it wait): cancel its
	 * upstream calls. Handles of its calls not yet answered stay valid
	 * until answered; the answer is then only freed, nothing sent. */
	void (*execution_ended)(void *ctx, const char *execution_id);
	/* The upstream servers that are down now, [{"server", "error"}] (a
	 * new reference), or NULL when none is. Asked when an execute or test
	 * call ends; the result carries it as "upstream_errors" in both
	 * renderings. */
	json_t *(*problems)(void *ctx);
};

/* Registers code mode (cm is copied; NULL unregisters). */
void mtool_set_codemode(struct mtool *t, const struct mtool_codemode *cm);

/*
 * Sets the text appended to execute's description (the upstream tools'
 * declarations, or a one-line catalogue; NULL or "" for none) and tells
 * the host (notifications/tools/list_changed). search_tools is code mode's
 * own tool: it registers it with mrpc_tool_add on the same session.
 * 0, or -1 (ENOMEM).
 */
int mtool_set_execute_suffix(struct mtool *t, const char *suffix);

/*
 * Answers a tool call: value (borrowed; JSON null when NULL and error is
 * NULL) or error (the script gets an Error with this message). Sends
 * tool_result to the daemon unless the execution already ended. Frees the
 * handle: call it exactly once per call.
 */
void mtool_call_answer(struct mtool_call *call, const json_t *value, const char *error);

/*
 * Asks the daemon for the TypeScript declarations of tools (borrowed; a
 * request's "tools" array) over the bridge's connection. done is called
 * once, on the loop, with the text (borrowed for the call) or NULL and an
 * error message. 0, or -1 when it could not be sent (done not called).
 */
int mtool_declarations(struct mtool *t, const json_t *tools,
		       void (*done)(void *ctx, const char *typescript, const char *error),
		       void *ctx);

#endif
