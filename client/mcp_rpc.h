/*
 * mcp_rpc.h - JSON-RPC 2.0 over lines and the MCP server side: lifecycle,
 * both eras of the protocol, tools/list and tools/call routed to a tool
 * table, progress, cancellation, list_changed.
 *
 * I/O free: the caller feeds it one line at a time (mrpc_feed) and gets
 * each message to send as one complete line, '\n' included, through the
 * write callback given to mrpc_new. The bridge's main reads stdin and
 * queues those lines on stdout; the unit suite feeds strings.
 *
 * Eras (a session may see either, decided by the client):
 *  - legacy: `initialize` negotiates one of MRPC_LEGACY_VERSIONS (the
 *    client's when it is one of them, else the newest), then
 *    `notifications/initialized`; other requests before `initialize` are
 *    answered -32600 ("not initialized"); `ping` is always answered.
 *  - modern (2026-07-28): no handshake. `server/discover` answers the
 *    versions, capabilities and server info; each request names its version
 *    in params._meta["io.modelcontextprotocol/protocolVersion"]; a version
 *    the bridge does not speak is error -32022 {supported, requested};
 *    results carry "resultType": "complete"; list results carry ttlMs and
 *    cacheScope.
 *
 * Tools: a tool implementation (client/mcp_tools.c, and search_tools of
 * client/mcp_upstream.c) registers each tool with mrpc_tool_add. A
 * `tools/call` for it creates a call handle (struct mrpc_call) and calls
 * the tool's function; the tool answers it then or later, exactly once,
 * with mrpc_call_result or mrpc_call_error. An unknown tool name is
 * answered -32602 by mrpc itself, arguments that are not an object too;
 * wrong or missing fields inside the arguments are the tool's to report
 * as a result with isError (mrpc_call_tool_error).
 *
 * Ownership: mrpc owns the session, the tool table and the calls' JSON
 * (arguments, progress token). The tool owns nothing but its obligation
 * to end each call handle it was given, exactly once; the handle is freed
 * when it is ended. Nothing in this module blocks or allocates without
 * checking.
 */
#ifndef SANDBOXD_MCP_RPC_H
#define SANDBOXD_MCP_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* JSON-RPC and MCP error codes. */
#define MRPC_PARSE_ERROR (-32700)
#define MRPC_INVALID_REQUEST (-32600)
#define MRPC_METHOD_NOT_FOUND (-32601)
#define MRPC_INVALID_PARAMS (-32602)
#define MRPC_INTERNAL_ERROR (-32603)
/* 2026-07-28: the request's protocol version is not one the server speaks;
 * data is {"supported": [...], "requested": "..."}. */
#define MRPC_UNSUPPORTED_VERSION (-32022)

/* The modern era's version, and the _meta key that carries it. */
#define MRPC_MODERN_VERSION "2026-07-28"
#define MRPC_META_VERSION_KEY "io.modelcontextprotocol/protocolVersion"
/* The legacy versions `initialize` negotiates, newest first. */
#define MRPC_LEGACY_VERSIONS                                           \
	{                                                              \
		"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" \
	}
#define MRPC_LEGACY_VERSION_COUNT 4

struct mrpc;
struct mrpc_call;

/* Called with each message to send: one line of JSON ending in '\n', len
 * bytes (the '\n' counted). The bytes are borrowed for the call; copy or
 * write them before returning. A message is never split across calls. */
typedef void (*mrpc_write_cb)(void *arg, const char *line, size_t len);

/* What `initialize` and `server/discover` say of the server. Strings are
 * copied. instructions may be NULL. */
struct mrpc_server_info {
	const char *name;    /* serverInfo.name, e.g. "sandboxd" */
	const char *title;   /* serverInfo.title, or NULL */
	const char *version; /* serverInfo.version */
	const char *instructions;
};

/* A new session that sends through write(arg, ...). NULL on ENOMEM. */
struct mrpc *mrpc_new(const struct mrpc_server_info *info, mrpc_write_cb write, void *arg);

/* Ends the session: every call still running is cancelled as by the
 * client's notifications/cancelled (its cancel callback runs, nothing is
 * sent for it afterwards) and detached from the session; the tool must
 * still end it (mrpc_call_result/error), which then only frees it. Then
 * the tool table and session are freed. NULL is a no-op. */
void mrpc_free(struct mrpc *m);

/* Handles one line of input (without its '\n'; a trailing '\r' is
 * ignored; an empty or all-blank line is ignored). Answers are sent through
 * the write callback, possibly before mrpc_feed returns (errors, the
 * lifecycle, tools/list, tools calls a tool answers at once). Never fails:
 * everything wrong with the input is answered as the spec says (-32700
 * with id null for text that is not JSON, -32600 for a message that is not
 * a request or a notification, a batch (array) one -32600 with id null,
 * -32601 for an unknown method, -32602 for bad params); a response from
 * the client, or an unknown notification, is ignored. Ids are echoed
 * exactly (integers of any size jansson holds, strings). */
void mrpc_feed(struct mrpc *m, const char *line, size_t len);

/* Answers a line the caller dropped because it was longer than its bound
 * (LIMIT_MCP_LINE_BYTES): -32700 with id null, saying so. */
void mrpc_line_too_long(struct mrpc *m, size_t limit);

/* True once a legacy client sent `initialize`, or a modern client sent
 * any request carrying a version (list_changed is sent only then). */
bool mrpc_ready(const struct mrpc *m);
/* The protocol version in use: the negotiated legacy one, or
 * MRPC_MODERN_VERSION once a modern request was seen; NULL before. */
const char *mrpc_protocol_version(const struct mrpc *m);
/* Who the client says it is: params.clientInfo of `initialize`, or the
 * io.modelcontextprotocol/clientInfo of the latest modern request
 * (borrowed, valid until the next message), or NULL. */
const json_t *mrpc_client_info(const struct mrpc *m);

/* ---- The tool table. */

/* A tool's function: a `tools/call` for the tool arrived. args is the
 * arguments object (borrowed; {} when the client sent none), valid until
 * the call is ended. The tool must end call exactly once, now or later,
 * and may register a cancel callback first. */
typedef void (*mrpc_tool_fn)(void *arg, struct mrpc_call *call, json_t *args);

struct mrpc_tool_def {
	const char *name;	 /* required, unique in the table */
	const char *title;	 /* or NULL */
	const char *description; /* required */
	json_t *input_schema;	 /* required, {"type": "object", ...}; borrowed */
	json_t *output_schema;	 /* or NULL; root type object; borrowed */
	json_t *annotations;	 /* or NULL, e.g. {"readOnlyHint": true}; borrowed */
	mrpc_tool_fn fn;	 /* required */
	void *arg;		 /* passed to fn */
};

/* Adds a tool, or replaces the tool of the same name (calls already
 * running keep their function). Strings are copied and the JSON is
 * deep-copied. Tools are listed in the order they were first added.
 * 0, or -1 (EINVAL for a missing field, ENOMEM). Does not send
 * list_changed: call mrpc_tools_changed after a batch of changes. */
int mrpc_tool_add(struct mrpc *m, const struct mrpc_tool_def *def);
/* Replaces a tool's description (code mode appends the upstream tools'
 * declarations to execute's). 0, or -1 (ENOENT, ENOMEM). */
int mrpc_tool_set_description(struct mrpc *m, const char *name, const char *description);
/* The tool's current description (borrowed, valid until changed), or NULL. */
const char *mrpc_tool_description(const struct mrpc *m, const char *name);
/* Removes a tool; calls already running go on. 0, or -1 (ENOENT). */
int mrpc_tool_remove(struct mrpc *m, const char *name);
/* Sends notifications/tools/list_changed when the session is ready (a
 * no-op before: the client has not listed yet). */
void mrpc_tools_changed(struct mrpc *m);

/* ---- A call to a tool. */

/* Called once when the client cancels the call (notifications/cancelled
 * naming its request id) or the session ends (mrpc_free). From then on
 * nothing is sent for the call: progress is dropped, and the tool's
 * result or error only frees the handle, which the tool must still do
 * (here or later). Not called for a call already ended. */
typedef void (*mrpc_cancel_fn)(void *arg, struct mrpc_call *call);

/* Registers (or replaces, or with fn NULL removes) the cancel callback. */
void mrpc_call_on_cancel(struct mrpc_call *call, mrpc_cancel_fn fn, void *arg);
/* True once the call was cancelled. */
bool mrpc_call_cancelled(const struct mrpc_call *call);
/* The tool's name (borrowed, valid until the call ends). */
const char *mrpc_call_tool(const struct mrpc_call *call);
/* params._meta.progressToken (a string or an integer; borrowed, valid until
 * the call ends), or NULL when the client asked for no progress. */
const json_t *mrpc_call_progress_token(const struct mrpc_call *call);
/* The protocol version the request came with (legacy: the negotiated one). */
const char *mrpc_call_protocol_version(const struct mrpc_call *call);

/* Sends notifications/progress {progressToken, progress, total?, message?}
 * for the call. total < 0 leaves it out; message may be NULL. Progress must
 * increase from one notification to the next (the spec's rule): a value
 * not above the last one sent is not sent. 1 when sent; 0 when not (no
 * token, cancelled, not increasing); -1 on ENOMEM. */
int mrpc_call_progress(struct mrpc_call *call, double progress, double total, const char *message);

/* Ends the call with result, a CallToolResult object ({content: [...],
 * structuredContent?, isError?}); the reference is stolen. mrpc adds
 * resultType in the modern era. NULL result (ENOMEM while building it)
 * is answered -32603. After this the handle is gone. */
void mrpc_call_result(struct mrpc_call *call, json_t *result);
/* Ends the call with a JSON-RPC error (e.g. MRPC_INVALID_PARAMS); data is
 * stolen and may be NULL. After this the handle is gone. */
void mrpc_call_error(struct mrpc_call *call, int code, const char *message, json_t *data);
/* Ends the call with {content: [{type: text, text}], isError: true}: what
 * a tool answers for arguments that are wrong (the message names the
 * field) or a failure of its own. */
void mrpc_call_tool_error(struct mrpc_call *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
