/*
 * mcp_names.h - upstream MCP names as JavaScript identifiers, and upstream
 * tool results as the values scripts get.
 *
 * The name rule (README "Code mode"): each character that cannot be in an
 * identifier ("-", ".", a space, any non-ASCII character; "$" can) becomes
 * "_"; an empty name is "_"; a name starting with a digit gets a leading
 * "_"; names longer than LIMIT_MCP_IDENT_BYTES are cut. A result that is a
 * reserved word of JavaScript (or "__proto__"), or that another name of
 * the same set already maps to, gets "_2", "_3", ... (the first free one).
 * Names are settled in byte order of the original names, a name already
 * an identifier first, so the mapping does not depend on the order a
 * server lists its tools in: only adding or removing a colliding name can
 * move a suffix.
 *
 * Pure: no I/O.
 */
#ifndef SANDBOXD_MCP_NAMES_H
#define SANDBOXD_MCP_NAMES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The identifier of one name alone (no collisions considered). Returns a
 * new string, or NULL when out of memory. */
char *mname_base(const char *name);

/* Whether s is a JavaScript reserved word (or "__proto__"). */
bool mname_reserved(const char *s);

/* Maps n names (distinct or not) to distinct identifiers by the rule
 * above: out[i] (a new string, the caller's) for names[i]. Returns 0, or
 * -1 when out of memory (then out holds nothing). */
int mname_assign(const char *const *names, size_t n, char **out);

/* Unwraps an upstream CallToolResult (borrowed):
 * - isError true: returns 1 with *error (new string) its text blocks
 *   joined by newlines (or structuredContent as JSON, or a fixed message
 *   when it has neither);
 * - structuredContent present: *value is it;
 * - else content: each text block parsed as JSON when it is JSON, else its
 *   string; any other block (image, audio, resource, resource_link) the
 *   block object itself; one block gives its value, several an array of
 *   them, none null.
 * Returns 0 with *value (a new reference), 1 with *error, or -1 with
 * *error saying what is malformed about the result. */
int mname_unwrap(json_t *result, json_t **value, char **error);

#endif
