/*
 * fuzz_decl.c - `declarations` (server/decl.c decl_typescript) on a tool
 * list validated as the daemon validates it.
 *
 * The input is the JSON text of the "tools" array: it is put into a
 * declarations request and run through request_parse with the default
 * limits, as a client's frame would be; a list that passes is rendered.
 * The rendering must be one NUL-terminated text that starts with the
 * tools' declaration and ends with store's.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/request.h"
#include "../../server/decl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "{\"op\":\"declarations\",\"tools\":";
	static struct request_limits lim;
	static bool have_lim;
	if (!have_lim) {
		request_limits_default(&lim);
		have_lim = true;
	}
	size_t len = sizeof head - 1 + size + 1;
	char *payload = malloc(len);
	if (!payload)
		return 0;
	memcpy(payload, head, sizeof head - 1);
	memcpy(payload + sizeof head - 1, data, size);
	payload[len - 1] = '}';

	struct request req;
	struct request_error err;
	json_t *bad_root;
	json_t *root = request_parse(payload, len, &lim, &req, &err, &bad_root);
	free(payload);
	if (!root) {
		request_error_clear(&err);
		json_decref(bad_root);
		return 0;
	}
	char *text = decl_typescript(req.tools);
	if (text) {
		if (strncmp(text, "/** The client's tools.", 23) != 0 ||
		    !strstr(text, "declare function store(key: string, value: unknown): void;\n"))
			abort();
		free(text);
	}
	json_decref(root);
	return 0;
}
