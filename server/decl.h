/*
 * decl.h - TypeScript declarations for a model-facing description of the
 * tools (and store/load) a script may use: `declare const tools: {...}`,
 * JSDoc from the descriptions, parameter and return types from the JSON
 * schemas. Local $refs (#/$defs/..., #/definitions/...) are expanded;
 * recursive and remote ones, and anything nested too deep, are unknown.
 */
#ifndef SANDBOXD_DECL_H
#define SANDBOXD_DECL_H

#include <jansson.h>

/* The declarations for tools (a validated tools array); malloc'd. */
char *decl_typescript(const json_t *tools);

#endif
