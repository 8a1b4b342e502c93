/*
 * mcp_config.h - the bridge's --config file: upstream MCP servers in the
 * shape hosts use ({"mcpServers": {NAME: {command, args, env, cwd}}}),
 * ${VAR} and ${VAR:-default} expansion, and the "sandboxd" section's
 * per-server allow/deny globs on tool names.
 *
 * Pure: no I/O but reading the file in mcfg_load_file; the environment is
 * read through a lookup function so that tests can give their own.
 */
#ifndef SANDBOXD_MCP_CONFIG_H
#define SANDBOXD_MCP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* One upstream server, every string expanded. */
struct mcfg_server {
	char *name;  /* the key under mcpServers, as written */
	char **argv; /* command, then args; NULL-terminated */
	size_t argc; /* entries of argv, the command included */
	char **env;  /* "KEY=value" entries merged over the bridge's
			environment; NULL-terminated */
	size_t envc;
	char *cwd;    /* NULL: the bridge's own */
	char **allow; /* fnmatch globs on the upstream tool name; none: all */
	size_t nallow;
	char **deny; /* globs whose tools do not exist for scripts; deny wins */
	size_t ndeny;
};

struct mcfg {
	struct mcfg_server *servers; /* in the file's order */
	size_t count;
};

/* Returns the value of an environment variable, or NULL when unset. */
typedef const char *mcfg_lookup_fn(const char *name, void *ctx);

/* Parses a configuration's text. lookup NULL reads the process's
 * environment. On success *out is the caller's (mcfg_free) and 0 is
 * returned; on error -1, nothing is allocated, and err holds a message
 * naming the field ("mcpServers.github.args[2]: expected a string"). */
int mcfg_parse(const char *text, size_t len, mcfg_lookup_fn *lookup, void *ctx, struct mcfg **out,
	       char *err, size_t errlen);

/* mcfg_parse on a file's contents; err also names the file. */
int mcfg_load_file(const char *path, struct mcfg **out, char *err, size_t errlen);

/* Expands ${VAR} and ${VAR:-default} in s (VAR: letters, digits and _;
 * the default is used when VAR is unset or empty; a "$" not followed by
 * "{" stays as it is). Returns a new string, or NULL with err
 * saying which variable is unset or where the reference is malformed,
 * prefixed by field. */
char *mcfg_expand(const char *s, const char *field, mcfg_lookup_fn *lookup, void *ctx, char *err,
		  size_t errlen);

/* Whether scripts may see the server's tool of this (upstream) name. */
bool mcfg_tool_allowed(const struct mcfg_server *s, const char *tool);

/* The server of this name, or NULL. */
const struct mcfg_server *mcfg_find(const struct mcfg *c, const char *name);

/* Frees everything; NULL is a no-op. */
void mcfg_free(struct mcfg *c);

#endif
