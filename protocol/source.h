/*
 * source.h - the options line a script may start with:
 *
 *     // @options {"timeout": 30}
 *
 * "timeout" (seconds) is the only option. The line is replaced by an empty
 * one before the script runs, so line numbers stay those of the code as
 * submitted.
 */
#ifndef SANDBOXD_SOURCE_H
#define SANDBOXD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct source_options {
	size_t line_len;     /* bytes of the options line before its newline; 0: none */
	uint64_t timeout_ms; /* 0 when the line does not set it */
};

/*
 * Reads the options line of code, if it has one. 0 on success (also when
 * there is none); -1 with *why (malloc'd) naming the problem: invalid JSON,
 * an unknown key, a bad value, or an options line with no code after it.
 */
int source_options(const char *code, size_t len, struct source_options *out, char **why);

#endif
