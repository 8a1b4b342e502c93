/*
 * decl.h - TypeScript declarations for a model-facing description of the
 * tools (and store/load) a script may use: `declare const tools: {...}`,
 * JSDoc from the descriptions, parameter and return types from the JSON
 * schemas. Local $refs (#/$defs/..., #/definitions/...) are expanded, each
 * once per place it is indented to and copied after that; recursive and
 * remote ones, and anything nested too deep, are unknown.
 *
 * The schemas are client data, so rendering is bounded: at most
 * LIMIT_DECL_OUTPUT_BYTES of text and LIMIT_DECL_STEPS units of work
 * (schema nodes visited, refs resolved, names compared), whatever the input.
 */
#ifndef SANDBOXD_DECL_H
#define SANDBOXD_DECL_H

#include <jansson.h>
#include <stddef.h>

enum decl_err {
	DECL_OK,
	DECL_ERR_NOMEM,
	DECL_ERR_OUTPUT, /* the text would pass LIMIT_DECL_OUTPUT_BYTES */
	DECL_ERR_WORK,	 /* the schemas need more than LIMIT_DECL_STEPS */
};

/* The declarations for tools (a validated tools array), malloc'd; or NULL
 * with *err saying why. A pure function of tools. */
char *decl_render(const json_t *tools, enum decl_err *err);
/* decl_render without the reason: NULL on any failure. */
char *decl_typescript(const json_t *tools);
/* A message for err, naming the budget it ran into. */
void decl_describe(enum decl_err err, char *msg, size_t n);

#endif
