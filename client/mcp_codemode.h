/*
 * mcp_codemode.h - code mode on a bridge session: the upstream servers of
 * --config (mcp_upstream) wired into the tools runner's hooks
 * (mcp_tools.h) and the MCP session (mcp_rpc.h).
 *
 * - every execute and test request declares the upstream tools (and
 *   restarts servers that are down and due), and its result names the
 *   servers that are down as it ends ("upstream_errors");
 * - a script's tool_call goes to the upstream server, bounded by the
 *   execution's remaining time; a call still pending when that passes is
 *   not answered (the daemon ends the execution as kind "timeout") and is
 *   cancelled upstream; the execution's end cancels its calls upstream;
 * - execute's description ends with the tools' TypeScript declarations
 *   (the daemon's `declarations` op) while they fit in
 *   LIMIT_MCP_DECL_BYTES, else with a one-line catalogue of at most
 *   LIMIT_MCP_CATALOGUE_BYTES; either way it names the servers that are
 *   down and why; it is renewed (and the host told) when the tools change;
 * - the tool search_tools {query} gives the declarations of the tools
 *   whose name or description holds every word of query (at most
 *   LIMIT_MCP_SEARCH_RESULTS).
 */
#ifndef SANDBOXD_MCP_CODEMODE_H
#define SANDBOXD_MCP_CODEMODE_H

#include "mcp_config.h"
#include "mcp_rpc.h"
#include "mcp_tools.h"
#include "ploop.h"

struct mcode;

/* Code mode over cfg (taken: freed by mcode_free, also on failure) on the
 * session m and runner t: registers search_tools with m and the hooks
 * with t, and starts every server. Then it runs the loop (ploop_once)
 * until every server is up (its tools listed) or has failed, and
 * execute's description has the declarations, for at most
 * LIMIT_MCP_START_MS: so the host's first tools/list and execute see the
 * upstream tools. Call it before the loop runs, before the bridge reads
 * its stdin. NULL with *why (malloc'd) on failure. */
struct mcode *mcode_new(struct ploop *p, struct mrpc *m, struct mtool *t, struct mcfg *cfg,
			char **why);

/* mcode_new over the --config file at path (mcfg_load_file). NULL with
 * *why (malloc'd: the file, and the field or variable that is wrong) on
 * failure. */
struct mcode *mcode_open(struct ploop *p, struct mrpc *m, struct mtool *t, const char *path,
			 char **why);

/* The servers that are down, [{"server", "error"}] (a new reference), or
 * NULL when all are up: the tools runner's problems hook, which execute's
 * and test's results carry as "upstream_errors". */
json_t *mcode_problems(struct mcode *c);

/* Upstream calls running now, over all servers (for tests). */
size_t mcode_calls_running(const struct mcode *c);

/* Stops the servers (their calls answered, nothing sent for them), and
 * unregisters the hooks and search_tools. Call before mtool_free and
 * mrpc_free (after mtool_shutdown's done, at the end of a session). NULL
 * is a no-op. */
void mcode_free(struct mcode *c);

#endif
