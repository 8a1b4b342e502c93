/* source.c - the script's options line; see source.h. */
#include "source.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) static int fail(char **why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(why, fmt, ap) < 0)
		*why = NULL;
	va_end(ap);
	return -1;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int source_options(const char *code, size_t len, struct source_options *out, char **why)
{
	static const char tag[] = "@options";
	out->line_len = 0;
	out->timeout_ms = 0;
	*why = NULL;
	const char *nl = memchr(code, '\n', len);
	size_t line = nl ? (size_t)(nl - code) : len;
	size_t i = 0;
	while (i < line && blank(code[i]))
		i++;
	if (i + 2 > line || code[i] != '/' || code[i + 1] != '/')
		return 0;
	i += 2;
	while (i < line && blank(code[i]))
		i++;
	if (line - i < sizeof tag - 1 || memcmp(code + i, tag, sizeof tag - 1) != 0)
		return 0;
	i += sizeof tag - 1;
	json_error_t err;
	json_t *opts = json_loadb(code + i, line - i, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(opts)) {
		json_decref(opts);
		return fail(why, "@options: expected a JSON object on the first line (%s)",
			    opts ? "not an object" : err.text);
	}
	const char *key;
	json_t *v;
	int rc = 0;
	json_object_foreach (opts, key, v) {
		if (strcmp(key, "timeout") != 0) {
			rc = fail(why, "@options: unknown option \"%.64s\" (the only option is "
				       "\"timeout\", in seconds)",
				  key);
			break;
		}
		double s = json_number_value(v);
		if (!json_is_number(v) || !(s > 0) || s > 1e9) {
			rc = fail(why, "@options.timeout: expected a positive number of seconds");
			break;
		}
		out->timeout_ms = (uint64_t)ceil(s * 1000);
	}
	json_decref(opts);
	if (rc < 0)
		return rc;
	bool code_after = false;
	for (size_t k = line; k < len && !code_after; k++)
		code_after = !blank(code[k]) && code[k] != '\n';
	if (!code_after)
		return fail(why, "@options: the options line has no code after it");
	out->line_len = line;
	return 0;
}
