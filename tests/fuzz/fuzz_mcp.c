/*
 * fuzz_mcp.c - what the MCP bridge reads from others: the host's lines
 * (mrpc_feed, client/mcp_rpc.c), an upstream server's tools/call results
 * (mname_unwrap, client/mcp_names.c) and a --config file (mcfg_parse,
 * client/mcp_config.c).
 *
 * Input: a selector byte, then the text.
 *  - 0 (mod 3): lines for one session, split at '\n'. The session has a
 *    tool that answers at once, one that holds its calls (ended, in turn,
 *    after each line whose first byte is odd, and all at the end) and one
 *    that answers with progress first. Every line written must be one
 *    complete line of UTF-8 JSON, an object with "jsonrpc": "2.0", and
 *    no more lines may be written than requests fed, plus progress.
 *  - 1: the text as a tools/call result: mname_unwrap must return 0 with a
 *    value, or 1 or -1 with an error, and nothing else.
 *  - 2: the text as a --config file (variables looked up as unset): 0 with
 *    a configuration whose servers have names and commands, or -1 with a
 *    message.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../client/mcp_config.h"
#include "../../client/mcp_names.h"
#include "../../client/mcp_rpc.h"
#include "fuzz.h"

#define MAX_HELD 64

static struct mrpc_call *held[MAX_HELD];
static size_t nheld;
static size_t lines_out;

static void check_line(void *arg, const char *line, size_t len)
{
	(void)arg;
	if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1))
		abort();
	/* Ids are echoed as the client wrote them: integers of any size. */
	json_error_t e;
	json_t *j = json_loadb(line, len - 1, JSON_DECODE_INT_AS_REAL, &e);
	if (!j && strstr(e.text, "overflow")) {
		lines_out++;
		return;
	}
	if (!json_is_object(j) || !json_is_string(json_object_get(j, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(j, "jsonrpc")), "2.0") != 0)
		abort();
	json_decref(j);
	lines_out++;
}

static void now_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	mrpc_call_result(c, json_pack("{s:[{s:s,s:s}],s:O}", "content", "type", "text", "text",
				      "ok", "structuredContent", args));
}

static void hold_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	(void)args;
	if (nheld == MAX_HELD) {
		mrpc_call_tool_error(c, "too many held");
		return;
	}
	held[nheld++] = c;
}

static void progress_tool(void *arg, struct mrpc_call *c, json_t *args)
{
	(void)arg;
	(void)args;
	mrpc_call_progress(c, 1, 0, "half \xc3\xa9");
	mrpc_call_progress(c, 2, 2, NULL);
	mrpc_call_error(c, MRPC_INTERNAL_ERROR, "failed", NULL);
}

static void end_held(size_t keep)
{
	while (nheld > keep)
		mrpc_call_result(held[--nheld], json_pack("{s:[]}", "content"));
}

static void feed_session(const char *text, size_t len)
{
	struct mrpc_server_info info = {"sandboxd", NULL, "0", "fuzz"};
	struct mrpc *m = mrpc_new(&info, check_line, NULL);
	if (!m)
		return;
	json_t *in = json_pack("{s:s}", "type", "object");
	struct mrpc_tool_def now = {"now", NULL, "answers", in, NULL, NULL, now_tool, NULL};
	struct mrpc_tool_def hold = {"hold", NULL, "holds", in, NULL, NULL, hold_tool, NULL};
	struct mrpc_tool_def prog = {"progress", NULL, "progress",    in,
				     NULL,	 NULL, progress_tool, NULL};
	mrpc_tool_add(m, &now);
	mrpc_tool_add(m, &hold);
	mrpc_tool_add(m, &prog);
	json_decref(in);
	size_t fed = 0;
	lines_out = 0;
	nheld = 0;
	for (size_t start = 0; start <= len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		mrpc_feed(m, text + start, end - start);
		fed++;
		if (end > start && (text[start] & 1))
			end_held(nheld / 2);
		if (end - start == 1 && text[start] == '!')
			mrpc_tools_changed(m);
		start = end + 1;
	}
	/* At most one answer a line, plus a progress notification or two
	 * per call of "progress", plus list_changed. */
	if (lines_out > 3 * fed + fed)
		abort();
	end_held(0);
	mrpc_free(m);
}

static void unwrap(const char *text, size_t len)
{
	json_t *r = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (!r)
		return;
	json_t *v = NULL;
	char *error = NULL;
	int rc = mname_unwrap(r, &v, &error);
	if (rc == 0 ? !v || error : (rc != 1 && rc != -1) || v || !error)
		abort();
	json_decref(v);
	free(error);
	json_decref(r);
}

static const char *unset(const char *name, void *ctx)
{
	(void)name;
	(void)ctx;
	return NULL;
}

static void config(const char *text, size_t len)
{
	struct mcfg *c = NULL;
	char err[512];
	err[0] = '\0';
	int rc = mcfg_parse(text, len, unset, NULL, &c, err, sizeof err);
	if (rc == 0) {
		if (!c)
			abort();
		for (size_t i = 0; i < c->count; i++)
			if (!c->servers[i].name || c->servers[i].argc < 1 || !c->servers[i].argv[0])
				abort();
		mcfg_free(c);
	} else if (rc != -1 || c || !err[0]) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	switch (data[0] % 3) {
	case 0: feed_session(text, len); break;
	case 1: unwrap(text, len); break;
	default: config(text, len); break;
	}
	return 0;
}
