/*
 * syntax.h - name the ES2015+ construct a script uses, for error hints.
 *
 * Duktape parses ES5.1 only. When a script fails to parse, the most useful
 * thing to tell a model is which newer construct it used; this is a lexical
 * scan (strings and comments skipped), not a parser, and it only ever adds
 * a hint to an error the engine already reported.
 */
#ifndef SANDBOXD_SYNTAX_H
#define SANDBOXD_SYNTAX_H

#include <stddef.h>

struct syntax_hint {
	const char *feature; /* e.g. "arrow functions"; NULL when none found */
	int line;	     /* 1-based line of the first occurrence */
};

void syntax_find_es2015(const char *code, size_t len, struct syntax_hint *out);

#endif
