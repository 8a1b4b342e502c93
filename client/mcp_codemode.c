/*
 * mcp_codemode.c - code mode wired into the bridge (see mcp_codemode.h).
 */
#include "mcp_codemode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"
#include "mcp_upstream.h"

/* A script's call on its way upstream. */
struct ccall {
	struct mcode *c;
	struct mtool_call *call;
	char *exec_id;
	struct ccall *next; /* in parked, once its deadline passed */
};

/* A declarations request for execute's description; c NULL once the set
 * is gone. */
struct suffix_req {
	struct mcode *c;
};

struct mcode {
	struct ploop *loop;
	struct mrpc *rpc;
	struct mtool *t;
	struct mup *u;
	struct ccall *parked; /* deadline passed: answered when the execution ends */
	const char *ending;   /* the execution mup_cancel_exec is ending now */
	bool freeing;
	struct suffix_req *suffix_pending;
	bool suffix_again;
	bool first_ready; /* every server was up or down once */
	bool decl_failed; /* the last declarations request failed */
};

static const char intro[] =
	"Code mode: the script can also call the tools of other MCP servers, synchronously, "
	"as tools.<server>.<tool>(args). A call returns the tool's structuredContent, else its "
	"text content (parsed when it is JSON; several blocks give an array, images and "
	"resources their objects); a tool error throws an Error with its text. A call still "
	"waiting when the timeout passes ends the script as a timeout.";

/* ---- calls */

static void ccall_free(struct ccall *cc)
{
	free(cc->exec_id);
	free(cc);
}

static void on_result(void *arg, enum mup_outcome o, json_t *value, const char *error)
{
	struct ccall *cc = arg;
	struct mcode *c = cc->c;
	if (o == MUP_OK) {
		mtool_call_answer(cc->call, value ? value : json_null(), NULL);
	} else if (o == MUP_ERROR) {
		mtool_call_answer(cc->call, NULL, error);
	} else if (c->freeing || (c->ending && strcmp(c->ending, cc->exec_id) == 0)) {
		/* The execution has ended: the answer only frees the handle. */
		mtool_call_answer(cc->call, NULL, "the execution ended");
	} else {
		/* Its time ran out while the execution still runs: answering
		 * would hand the script an error to catch, where the daemon's
		 * timer ends it as a timeout. It waits for the end. */
		cc->next = c->parked;
		c->parked = cc;
		return;
	}
	ccall_free(cc);
}

static void hook_tool_call(void *ctx, struct mtool_call *call, const char *execution_id,
			   const char *name, const json_t *args, uint64_t deadline_ms)
{
	struct mcode *c = ctx;
	struct ccall *cc = calloc(1, sizeof *cc);
	if (cc)
		cc->exec_id = strdup(execution_id);
	if (!cc || !cc->exec_id) {
		free(cc);
		mtool_call_answer(call, NULL, "the bridge ran out of memory");
		return;
	}
	cc->c = c;
	cc->call = call;
	if (mup_call(c->u, execution_id, name, (json_t *)args, deadline_ms, on_result, cc) < 0) {
		ccall_free(cc);
		mtool_call_answer(call, NULL, "the bridge ran out of memory");
	}
}

/* Answers (frees) the parked calls of exec_id, or all of them (NULL). */
static void unpark(struct mcode *c, const char *exec_id)
{
	for (struct ccall **p = &c->parked; *p;) {
		struct ccall *cc = *p;
		if (exec_id && strcmp(cc->exec_id, exec_id) != 0) {
			p = &cc->next;
			continue;
		}
		*p = cc->next;
		mtool_call_answer(cc->call, NULL, "the execution ended");
		ccall_free(cc);
	}
}

static void hook_execution_ended(void *ctx, const char *execution_id)
{
	struct mcode *c = ctx;
	c->ending = execution_id;
	mup_cancel_exec(c->u, execution_id);
	c->ending = NULL;
	unpark(c, execution_id);
}

static json_t *hook_problems(void *ctx) { return mcode_problems(ctx); }

static void renew_suffix(struct mcode *c);

static void no_wait(void *arg) { (void)arg; }

static json_t *hook_tools(void *ctx)
{
	struct mcode *c = ctx;
	/* Servers that are down and due start again: their tools (kept
	 * from their last listing) restart them on a call anyway. */
	mup_prepare(c->u, no_wait, NULL);
	/* The daemon was not there for the declarations (the bridge may start
	 * before it): a request means it is worth asking again. */
	if (c->decl_failed && !c->suffix_pending) {
		c->decl_failed = false;
		renew_suffix(c);
	}
	json_t *tools = mup_tools(c->u, NULL, 0);
	if (tools && json_array_size(tools) == 0) {
		json_decref(tools);
		tools = NULL;
	}
	return tools;
}

/* ---- execute's description */

/* " Upstream servers down: a (why); b (why)." or "". A new string. */
static char *problems_text(struct mcode *c)
{
	json_t *p = mup_problems(c->u);
	char *out = strdup("");
	size_t i;
	json_t *e;
	json_array_foreach (p, i, e) {
		char *next = NULL;
		if (!out ||
		    asprintf(&next, "%s%s%s (%s)", out,
			     i ? "; " : "\nUpstream servers down (restarted on the next call): ",
			     json_string_value(json_object_get(e, "server")),
			     json_string_value(json_object_get(e, "error"))) < 0)
			next = NULL;
		free(out);
		out = next;
	}
	json_decref(p);
	return out;
}

static void set_suffix(struct mcode *c, const char *typescript)
{
	char *problems = problems_text(c);
	char *suffix = NULL;
	json_t *tools = mup_tools(c->u, NULL, 0);
	size_t n = json_array_size(tools);
	json_decref(tools);
	int rc = 0;
	if (!n) {
		if (problems && *problems)
			rc = asprintf(&suffix, "%s%s", intro, problems);
	} else if (typescript &&
		   strlen(intro) + strlen(typescript) + 64 + (problems ? strlen(problems) : 0) <=
			   LIMIT_MCP_DECL_BYTES) {
		rc = asprintf(&suffix, "%s The upstream tools:\n\n```typescript\n%s```%s", intro,
			      typescript, problems ? problems : "");
	} else {
		char *cat = mup_catalogue(c->u, LIMIT_MCP_CATALOGUE_BYTES);
		rc = asprintf(&suffix,
			      "%s The upstream tools (%zu; search_tools {query} gives their "
			      "TypeScript declarations): %s%s",
			      intro, n, cat ? cat : "", problems ? problems : "");
		free(cat);
	}
	if (rc < 0)
		suffix = NULL;
	if (mtool_set_execute_suffix(c->t, suffix) < 0)
		fprintf(stderr, "sandboxd-mcp: out of memory renewing execute's description\n");
	free(suffix);
	free(problems);
}

static void on_suffix_decl(void *ctx, const char *typescript, const char *error)
{
	struct suffix_req *r = ctx;
	struct mcode *c = r->c;
	free(r);
	if (!c)
		return;
	c->suffix_pending = NULL;
	c->decl_failed = error != NULL;
	if (error)
		fprintf(stderr,
			"sandboxd-mcp: the upstream tools' declarations: %s (a catalogue is "
			"used instead)\n",
			error);
	set_suffix(c, typescript);
	if (c->suffix_again) {
		c->suffix_again = false;
		renew_suffix(c);
	}
}

/* Renews execute's description: asks the daemon for the declarations (one
 * request at a time; a change meanwhile asks again after it). */
static void renew_suffix(struct mcode *c)
{
	if (c->suffix_pending) {
		c->suffix_again = true;
		return;
	}
	json_t *tools = mup_tools(c->u, NULL, 0);
	if (!tools || !json_array_size(tools)) {
		json_decref(tools);
		set_suffix(c, NULL);
		return;
	}
	struct suffix_req *r = malloc(sizeof *r);
	if (r)
		r->c = c;
	if (!r || mtool_declarations(c->t, tools, on_suffix_decl, r) < 0) {
		free(r);
		c->decl_failed = true;
		set_suffix(c, NULL);
	} else {
		c->suffix_pending = r;
	}
	json_decref(tools);
}

static void on_changed(void *arg) { renew_suffix(arg); }

/* ---- search_tools */

struct search {
	struct mrpc_call *call;
	json_t *structured; /* {query, matched, tools} */
};

static void on_search_decl(void *ctx, const char *typescript, const char *error)
{
	struct search *s = ctx;
	if (!typescript) {
		mrpc_call_tool_error(s->call, "the daemon could not render the declarations: %s",
				     error ? error : "no answer");
	} else {
		json_object_set_new(s->structured, "typescript", json_string(typescript));
		size_t shown = json_array_size(json_object_get(s->structured, "tools"));
		json_int_t matched = json_integer_value(json_object_get(s->structured, "matched"));
		char *text = NULL;
		if (asprintf(&text,
			     "%zu of %lld matching tool%s (call them as "
			     "tools.<server>.<tool>(args)):\n\n%s",
			     shown, (long long)matched, matched == 1 ? "" : "s", typescript) < 0)
			text = NULL;
		json_t *r = json_pack("{s:[{s:s, s:s}], s:O}", "content", "type", "text", "text",
				      text ? text : typescript, "structuredContent", s->structured);
		free(text);
		mrpc_call_result(s->call, r);
	}
	json_decref(s->structured);
	free(s);
}

static void search_tools(void *arg, struct mrpc_call *call, json_t *args)
{
	struct mcode *c = arg;
	const char *k;
	json_t *v;
	json_object_foreach (args, k, v) {
		if (strcmp(k, "query") != 0) {
			mrpc_call_tool_error(call, "%s: unknown field (search_tools takes query)",
					     k);
			return;
		}
	}
	json_t *q = json_object_get(args, "query");
	if (!json_is_string(q)) {
		mrpc_call_tool_error(call, "query: %s", q ? "expected a string" : "required");
		return;
	}
	const char *query = json_string_value(q);
	json_t *all = mup_tools(c->u, query, 0);
	json_t *tools = mup_tools(c->u, query, LIMIT_MCP_SEARCH_RESULTS);
	json_t *names = json_array();
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t) {
		char *n = NULL;
		if (asprintf(&n, "tools.%s", json_string_value(json_object_get(t, "name"))) >= 0)
			json_array_append_new(names, json_string(n));
		free(n);
	}
	json_t *st = json_pack("{s:s, s:I, s:o}", "query", query, "matched",
			       (json_int_t)json_array_size(all), "tools", names);
	json_decref(all);
	if (!tools || !st) {
		json_decref(tools);
		json_decref(st);
		mrpc_call_tool_error(call, "the bridge ran out of memory");
		return;
	}
	if (!json_array_size(tools)) {
		json_decref(tools);
		json_object_set_new(st, "typescript", json_string(""));
		char *cat = mup_catalogue(c->u, LIMIT_MCP_CATALOGUE_BYTES);
		char *text = NULL;
		if (asprintf(&text, "No upstream tool matches \"%s\". The tools: %s", query,
			     cat && *cat ? cat : "(none)") < 0)
			text = NULL;
		free(cat);
		mrpc_call_result(call, json_pack("{s:[{s:s, s:s}], s:o}", "content", "type", "text",
						 "text", text ? text : "No upstream tool matches.",
						 "structuredContent", st));
		free(text);
		return;
	}
	struct search *s = malloc(sizeof *s);
	if (s) {
		s->call = call;
		s->structured = st;
	}
	if (!s || mtool_declarations(c->t, tools, on_search_decl, s) < 0) {
		free(s);
		json_decref(st);
		mrpc_call_tool_error(call, "the daemon could not be asked for the declarations");
	}
	json_decref(tools);
}

static int add_search_tool(struct mcode *c)
{
	json_t *in = json_pack(
		"{s:s, s:{s:{s:s, s:s}}, s:[s], s:b}", "type", "object", "properties", "query",
		"type", "string", "description",
		"words that must all appear (case-insensitive) in the tool's name or description; "
		"\"\" lists every tool",
		"required", "query", "additionalProperties", 0);
	json_t *out = json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s, s:{s:s}}, s:{s:s}}, s:[s, s, "
				"s, s]}",
				"type", "object", "properties", "query", "type", "string",
				"matched", "type", "integer", "tools", "type", "array", "items",
				"type", "string", "typescript", "type", "string", "required",
				"query", "matched", "tools", "typescript");
	json_t *ann = json_pack("{s:b, s:b}", "readOnlyHint", 1, "openWorldHint", 0);
	struct mrpc_tool_def def = {
		.name = "search_tools",
		.title = "Search the upstream tools",
		.description = "Searches the tools of the other MCP servers that execute's scripts "
			       "call as tools.<server>.<tool>(args), and gives the TypeScript "
			       "declarations of those whose name or description holds every word "
			       "of query (at most " LIMIT_MCP_SEARCH_RESULTS_TEXT ").",
		.input_schema = in,
		.output_schema = out,
		.annotations = ann,
		.fn = search_tools,
		.arg = c,
	};
	int rc = in && out && ann ? mrpc_tool_add(c->rpc, &def) : -1;
	json_decref(in);
	json_decref(out);
	json_decref(ann);
	return rc;
}

/* ---- the set */

static void on_first_ready(void *arg)
{
	struct mcode *c = arg;
	c->first_ready = true;
	renew_suffix(c);
}

struct mcode *mcode_new(struct ploop *p, struct mrpc *m, struct mtool *t, struct mcfg *cfg,
			char **why)
{
	*why = NULL;
	struct mcode *c = calloc(1, sizeof *c);
	if (!c) {
		mcfg_free(cfg);
		goto oom;
	}
	c->loop = p;
	c->rpc = m;
	c->t = t;
	c->u = mup_new(p, cfg, on_changed, c);
	if (!c->u) {
		mcfg_free(cfg);
		free(c);
		goto oom;
	}
	if (add_search_tool(c) < 0) {
		mup_free(c->u);
		free(c);
		goto oom;
	}
	struct mtool_codemode cm = {
		.ctx = c,
		.tools = hook_tools,
		.tool_call = hook_tool_call,
		.execution_ended = hook_execution_ended,
		.problems = hook_problems,
	};
	mtool_set_codemode(t, &cm);
	mrpc_tools_changed(m);
	if (mup_prepare(c->u, on_first_ready, c) < 0) {
		mcode_free(c);
		goto oom;
	}
	/* The host's first tools/list and execute should see the upstream
	 * tools: the loop runs here (before the bridge reads its stdin) until
	 * every server is up or has failed and execute's description has been
	 * renewed, or LIMIT_MCP_START_MS passed (the rest then lands later,
	 * announced by list_changed). */
	uint64_t end = ploop_now_ms() + LIMIT_MCP_START_MS;
	while ((!c->first_ready || c->suffix_pending) && ploop_now_ms() < end)
		if (ploop_once(p, (int)(end - ploop_now_ms())) < 0 && errno != EINTR)
			break;
	return c;
oom:
	if (asprintf(why, "code mode could not be set up: %s", strerror(ENOMEM)) < 0)
		*why = NULL;
	return NULL;
}

struct mcode *mcode_open(struct ploop *p, struct mrpc *m, struct mtool *t, const char *path,
			 char **why)
{
	char err[1024];
	struct mcfg *cfg = NULL;
	*why = NULL;
	if (mcfg_load_file(path, &cfg, err, sizeof err) < 0) {
		/* err names the file; the caller names the option. */
		*why = strdup(err);
		return NULL;
	}
	return mcode_new(p, m, t, cfg, why);
}

json_t *mcode_problems(struct mcode *c)
{
	json_t *p = mup_problems(c->u);
	if (p && !json_array_size(p)) {
		json_decref(p);
		p = NULL;
	}
	return p;
}

size_t mcode_calls_running(const struct mcode *c) { return mup_calls_running(c->u); }

void mcode_free(struct mcode *c)
{
	if (!c)
		return;
	c->freeing = true;
	mtool_set_codemode(c->t, NULL);
	mrpc_tool_remove(c->rpc, "search_tools");
	if (c->suffix_pending)
		c->suffix_pending->c = NULL;
	mup_free(c->u); /* answers every call still running */
	unpark(c, NULL);
	free(c);
}
