/*
 * mcp_upstream.h - code mode: the upstream MCP servers of --config, each a
 * child process of the bridge, and their tools as the tools a script
 * calls (tools.<server>.<tool>(args)).
 *
 * Each configured server is started as a child of the bridge (fork and
 * exec, as the bridge's own user, never inside a worker) with the
 * environment of the bridge plus its "env", in its "cwd", talking
 * JSON-RPC over its stdin and stdout (one message a line); what it writes
 * to stderr goes to the bridge's stderr, each line prefixed
 * "[upstream NAME] ". The bridge is its MCP client:
 *  - initialize asking for 2025-11-25; the server's answer is accepted when
 *    it is one of the versions the bridge speaks (2025-11-25, 2025-06-18,
 *    2025-03-26, 2024-11-05: legacy era, then notifications/initialized;
 *    2026-07-28: modern era). A server that refuses initialize is asked
 *    server/discover, and spoken to in the modern era (every request's
 *    _meta carrying the protocol version and client capabilities) when it
 *    supports 2026-07-28;
 *  - tools/list, following nextCursor (at most LIMIT_MCP_LIST_PAGES pages),
 *    and again on notifications/tools/list_changed;
 *  - tools/call for a script's call, bounded by a deadline, and
 *    notifications/cancelled for it when the deadline passes or its
 *    execution ends first.
 * A server that fails to start (exec fails, it exits, it does not answer
 * initialize within LIMIT_MCP_START_MS) or dies later is "down": calls to
 * it fail at once with an error naming the server and why, and the next
 * call or execution restarts it, the first time at once, then no sooner
 * than LIMIT_MCP_BACKOFF_FIRST_MS after the last failure, doubling to
 * LIMIT_MCP_BACKOFF_MAX_MS; a server that stayed up that long starts over.
 *
 * Names: a server's tools are those its tools/list gives that the config's
 * allow/deny globs let through; each is declared to the daemon as
 * "SERVER.TOOL", both parts made identifiers by mcp_names (servers among
 * servers, tools among one server's tools). A server that is down keeps
 * the tools it last listed, so that calling one restarts it.
 *
 * Everything is driven by the bridge's ploop; nothing blocks but the
 * fork, the exec report (a CLOEXEC pipe that closes at exec) and the
 * writes of upstream stderr lines to the bridge's stderr.
 */
#ifndef SANDBOXD_MCP_UPSTREAM_H
#define SANDBOXD_MCP_UPSTREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcp_config.h"
#include "ploop.h"

struct mup;

/* Called when the tools scripts may call changed (a server listed, or
 * re-listed after list_changed, or came up or went down the first time):
 * the bridge renews execute's description and tells its host. */
typedef void mup_changed_fn(void *arg);

/* A set of upstream servers on loop. Takes cfg (freed by mup_free). No
 * server is started yet. NULL on ENOMEM. SIGPIPE must be ignored by the
 * process (a server's stdin may close under a write). */
struct mup *mup_new(struct ploop *loop, struct mcfg *cfg, mup_changed_fn *changed, void *arg);

/* Stops every server (their stdin closed, SIGTERM, then SIGKILL after
 * LIMIT_MCP_STOP_MS; each reaped) and frees everything. Calls still
 * running end with MUP_ABANDONED first. NULL is a no-op. */
void mup_free(struct mup *u);

/* Starts every server that is not up and whose backoff has passed (all of
 * them, the first time), then calls ready(arg) once each of them is up
 * (listed) or down (failed to start): at once when none is starting. The
 * bridge calls it before building a request that declares tools. 0, or
 * -1 on ENOMEM (ready is then not called). */
typedef void mup_ready_fn(void *arg);
int mup_prepare(struct mup *u, mup_ready_fn *ready, void *arg);

/* Whether any server is configured (search_tools exists then). */
bool mup_configured(const struct mup *u);

/* The "tools" array for a daemon request (a new reference): every tool of
 * every server, [{"name": "server.tool", "description", "input_schema"?,
 * "output_schema"?}], in server then tool order, within what the daemon
 * takes (LIMIT_TOOLS tools, LIMIT_TOOLS_BYTES and LIMIT_TOOLS_NODES in
 * all; the tools past them are left out), a schema left out when it is
 * over 64 KiB or nested past LIMIT_MCP_SCHEMA_DEPTH. When query is not
 * NULL, only those of them (the tools a script can call) whose query
 * words all appear (case-insensitive) in the name or the description; at
 * most max (0: no bound). NULL on ENOMEM. */
json_t *mup_tools(struct mup *u, const char *query, size_t max);

/* The servers that are down, [{"server", "error"}] (a new reference, empty
 * when all are up), for execute's result. NULL on ENOMEM. */
json_t *mup_problems(struct mup *u);

/* A one-line catalogue of the tools: "tools.a.x, tools.a.y, tools.b.z"
 * (a new string, at most about max bytes, "..." when cut). NULL on
 * ENOMEM. */
char *mup_catalogue(struct mup *u, size_t max);

/* How a call ended. */
enum mup_outcome {
	MUP_OK,	       /* value is the unwrapped result */
	MUP_ERROR,     /* error says why: the script's Error gets it */
	MUP_ABANDONED, /* its deadline passed or its execution ended: answer
			  nothing (the daemon ends the execution as a
			  timeout, or has ended it) */
};

/* The end of a call: value borrowed (MUP_OK), error borrowed (MUP_ERROR). */
typedef void mup_result_fn(void *arg, enum mup_outcome outcome, json_t *value, const char *error);

/*
 * Calls a tool a script called: name is the daemon's dotted name
 * ("server.tool"), args (borrowed) its arguments, exec_id the execution
 * (for mup_cancel_exec), deadline_ms a ploop_now_ms() instant after which
 * the call is abandoned (0: none but the execution's end). done is called
 * exactly once, never inside mup_call (a call that fails at once ends on
 * the loop's next timer pass). A server that is down and due is restarted
 * first. 0, or -1 on ENOMEM (done is then never called).
 */
int mup_call(struct mup *u, const char *exec_id, const char *name, json_t *args,
	     uint64_t deadline_ms, mup_result_fn *done, void *arg);

/* The execution ended: each of its calls still running is cancelled
 * upstream (notifications/cancelled) and ends with MUP_ABANDONED, inside
 * this function. */
void mup_cancel_exec(struct mup *u, const char *exec_id);

/* Calls running now, over all servers (for tests). */
size_t mup_calls_running(const struct mup *u);

/* The process id of a server while it runs, else -1 (for tests). */
int mup_server_pid(const struct mup *u, const char *server);

#endif
