/*
 * fuzz_source.c - the options line a script may start with
 * (protocol/source.c source_options), on any bytes as the code.
 *
 * Accepted: the line is inside the code, ends at a newline or the end, and
 * code follows it. Refused: a message that says "@options".
 */
#include <stdlib.h>
#include <string.h>

#include "../../protocol/source.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *code = (const char *)data;
	struct source_options opts;
	char *why = (char *)1;
	if (source_options(code, size, &opts, &why) == 0) {
		if (why || opts.line_len > size)
			abort();
		if (opts.line_len && opts.line_len < size && code[opts.line_len] != '\n')
			abort();
		if (opts.line_len && opts.line_len == size)
			abort(); /* the options line with nothing after it */
		return 0;
	}
	if (why && !strstr(why, "@options"))
		abort();
	free(why);
	return 0;
}
