/*
 * mcp_stub.c - a tiny upstream MCP server over stdio for check_mcp_upstream:
 * the bridge starts it as a configured server and calls its tools.
 *
 * Options: --modern (refuses initialize; answers server/discover with
 * 2026-07-28 and then wants the version in every request's _meta),
 * --version V (answers initialize with V), --page N (tools/list pages of N
 * tools), --many N (N more tools, "tool_0"..., with 600-byte descriptions),
 * --exit N (exits with status N at once), --nul (the first page also
 * lists a tool whose name holds a NUL, "echo\u0000x").
 *
 * Tools: echo (structuredContent: the arguments), text (a text block that
 * is not JSON), json (a text block that is JSON), blocks (text and an
 * image), fail (isError), slow (never answers; a notifications/cancelled
 * naming it is counted), cancelled (the count so far), crash (exits 7),
 * add (adds the tool "added-later" and sends list_changed), env (the
 * variable args.name and the working directory), secret_key (for the
 * deny filter) and deep (an input schema nested 40 levels: not declared).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int page = 100;
static int many; /* extra tools "tool_N" with long descriptions */
static int modern;
static int nul_name;
static int garbage;
static const char *version = "2025-11-25";
static int added;
static int cancelled;
static json_int_t slow_ids[64];
static int slow_count;

static const char *const tool_names[] = {"echo",       "text",	    "json",	  "blocks", "fail",
					 "slow",       "cancelled", "crash",	  "add",    "env",
					 "secret_key", "deep",	    "added-later"};

static void send(json_t *m)
{
	char *s = json_dumps(m, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(m);
}

static void reply(json_t *id, json_t *result)
{
	send(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

static void error(json_t *id, int code, const char *msg)
{
	send(json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id, "error", "code",
		       code, "message", msg));
}

static json_t *text(const char *t) { return json_pack("[{s:s, s:s}]", "type", "text", "text", t); }

static void list(json_t *id, json_t *params)
{
	int start = 0;
	const char *cursor = json_string_value(json_object_get(params, "cursor"));
	if (cursor)
		start = atoi(cursor);
	int fixed = (int)(sizeof tool_names / sizeof *tool_names) - (added ? 0 : 1);
	int n = fixed + many;
	json_t *tools = json_array();
	for (int i = start; i < n && i < start + page; i++) {
		char name[32], desc[600];
		snprintf(name, sizeof name, "tool_%d", i - fixed);
		memset(desc, 'd', sizeof desc - 1);
		desc[sizeof desc - 1] = '\0';
		json_array_append_new(
			tools, json_pack("{s:s, s:s, s:{s:s, s:{s:{s:s}}}}", "name",
					 i < fixed ? tool_names[i] : name, "description",
					 i < fixed ? "a stub tool" : desc, "inputSchema", "type",
					 "object", "properties", "name", "type", "string"));
	}
	/* "deep": an input schema nested 40 levels. */
	for (size_t i = 0; i < json_array_size(tools); i++) {
		json_t *t = json_array_get(tools, i);
		if (strcmp(json_string_value(json_object_get(t, "name")), "deep") != 0)
			continue;
		json_t *schema = json_pack("{s:s}", "type", "object");
		for (int k = 0; k < 40; k++)
			schema = json_pack("{s:s, s:{s:o}}", "type", "object", "properties", "a",
					   schema);
		json_object_set_new(t, "inputSchema", schema);
	}
	if (nul_name && start == 0)
		json_array_insert_new(tools, 0,
				      json_pack("{s:o, s:{s:s}}", "name",
						json_stringn("echo\0x", 6), "inputSchema", "type",
						"object"));
	json_t *r = json_pack("{s:o}", "tools", tools);
	if (start + page < n) {
		char next[16];
		snprintf(next, sizeof next, "%d", start + page);
		json_object_set_new(r, "nextCursor", json_string(next));
	}
	reply(id, r);
}

/* Answers a tools/call; returns 0 when it answers later (never). */
static void call(json_t *id, json_t *params)
{
	if (garbage)
		printf("not json\n");
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments");
	if (!name)
		name = "";
	if (strcmp(name, "echo") == 0) {
		reply(id, json_pack("{s:o, s:O}", "content", text("echoed"), "structuredContent",
				    args ? args : json_null()));
	} else if (strcmp(name, "text") == 0) {
		reply(id, json_pack("{s:o}", "content", text("plain words")));
	} else if (strcmp(name, "json") == 0) {
		reply(id, json_pack("{s:o}", "content", text("{\"n\": [1, 2, 3]}")));
	} else if (strcmp(name, "blocks") == 0) {
		json_t *c = text("one");
		json_array_append_new(c, json_pack("{s:s, s:s, s:s}", "type", "image", "data",
						   "AAAA", "mimeType", "image/png"));
		reply(id, json_pack("{s:o}", "content", c));
	} else if (strcmp(name, "fail") == 0) {
		reply(id, json_pack("{s:o, s:b}", "content", text("the stub tool failed"),
				    "isError", 1));
	} else if (strcmp(name, "slow") == 0) {
		if (slow_count < 64)
			slow_ids[slow_count++] = json_integer_value(id);
	} else if (strcmp(name, "cancelled") == 0) {
		reply(id, json_pack("{s:o, s:{s:i}}", "content", text("count"), "structuredContent",
				    "cancelled", cancelled));
	} else if (strcmp(name, "crash") == 0) {
		fprintf(stderr, "crashing on purpose\n");
		exit(7);
	} else if (strcmp(name, "add") == 0) {
		added = 1;
		reply(id, json_pack("{s:o}", "content", text("true")));
		send(json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
			       "notifications/tools/list_changed"));
	} else if (strcmp(name, "env") == 0) {
		const char *v = getenv(json_string_value(json_object_get(args, "name")) ?: "");
		char cwd[4096];
		if (!getcwd(cwd, sizeof cwd))
			strcpy(cwd, "?");
		reply(id, json_pack("{s:o, s:{s:s?, s:s}}", "content", text("env"),
				    "structuredContent", "value", v, "cwd", cwd));
	} else if (strcmp(name, "added-later") == 0 && added) {
		reply(id, json_pack("{s:o}", "content", text("later")));
	} else {
		error(id, -32602, "unknown tool");
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--modern") == 0)
			modern = 1;
		else if (strcmp(argv[i], "--nul") == 0)
			nul_name = 1;
		else if (strcmp(argv[i], "--garbage") == 0)
			garbage = 1;
		else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc)
			version = argv[++i];
		else if (strcmp(argv[i], "--page") == 0 && i + 1 < argc)
			page = atoi(argv[++i]);
		else if (strcmp(argv[i], "--many") == 0 && i + 1 < argc)
			many = atoi(argv[++i]);
		else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
			return atoi(argv[++i]);
	}
	fprintf(stderr, "stub up\n");
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, stdin) > 0) {
		json_t *m = json_loads(line, 0, NULL);
		const char *method = json_string_value(json_object_get(m, "method"));
		json_t *id = json_object_get(m, "id");
		json_t *params = json_object_get(m, "params");
		if (!method) {
			json_decref(m);
			continue;
		}
		if (strcmp(method, "notifications/cancelled") == 0) {
			json_int_t rid = json_integer_value(json_object_get(params, "requestId"));
			for (int i = 0; i < slow_count; i++)
				if (slow_ids[i] == rid)
					cancelled++;
		} else if (!id) {
			/* notifications/initialized and others */
		} else if (strcmp(method, "initialize") == 0) {
			if (modern)
				error(id, -32601, "initialize: no such method (stateless server)");
			else
				reply(id, json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}}",
						    "protocolVersion", version, "capabilities",
						    "tools", "listChanged", 1, "serverInfo", "name",
						    "stub", "version", "1"));
		} else if (strcmp(method, "server/discover") == 0) {
			reply(id,
			      json_pack("{s:[s], s:{s:{}}, s:s}", "supportedVersions", "2026-07-28",
					"capabilities", "tools", "resultType", "complete"));
		} else if (modern && !json_is_string(json_object_get(
					     json_object_get(params, "_meta"),
					     "io.modelcontextprotocol/protocolVersion"))) {
			error(id, -32600, "missing _meta protocolVersion");
		} else if (strcmp(method, "tools/list") == 0) {
			list(id, params);
		} else if (strcmp(method, "tools/call") == 0) {
			call(id, params);
		} else {
			error(id, -32601, "no such method");
		}
		json_decref(m);
	}
	free(line);
	return 0;
}
