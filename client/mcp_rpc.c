/*
 * mcp_rpc.c - JSON-RPC 2.0 over lines and the MCP server lifecycle, both
 * eras. See mcp_rpc.h for the contract.
 *
 * The era of a session is decided by its opening messages, as the
 * reference implementation's stdio entry decides it:
 *
 *   opening --server/discover with a modern envelope--> probe
 *   opening|probe --any other request with a modern envelope--> modern
 *   opening|probe --initialize, or anything without an envelope--> legacy
 *
 * A request whose envelope is malformed (-32602) or names a version the
 * bridge does not speak (-32022) is answered and decides nothing. Once a
 * session is legacy, envelopes are ignored (a legacy peer has no use for
 * them); once it is modern, `initialize` is answered -32022 and each
 * request's envelope is checked again.
 *
 * Ids are echoed as the client wrote them: the raw text of the id member
 * is taken from the line itself (jansson cannot hold an integer beyond
 * 64 bits), so an id of any length or spelling comes back byte for byte.
 * Requests are matched (cancellation, duplicates) on a canonical key:
 * "s" + the decoded string, or "i" + the integer's digits.
 */
#include "mcp_rpc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/jnum.h"
#include "../protocol/limits.h"

enum era { ERA_OPENING, ERA_PROBE, ERA_LEGACY, ERA_MODERN };

struct tool {
	char *name, *title, *description;
	json_t *input, *output, *annotations;
	mrpc_tool_fn fn;
	void *arg;
};

/* A subscriptions/listen stream (modern era): kept until the client
 * cancels it or the session ends. */
struct sub {
	struct sub *next;
	char *idraw, *idkey;
	bool tools;
};

struct mrpc_call {
	struct mrpc *m; /* NULL once cancelled or detached */
	struct mrpc_call *prev, *next;
	char *idraw, *idkey;
	char *tool;
	json_t *args, *token;
	char version[16];
	mrpc_cancel_fn cancel;
	void *cancel_arg;
	bool cancelled;
	bool any_progress;
	double last_progress;
};

struct mrpc {
	mrpc_write_cb write;
	void *write_arg;
	char *name, *title, *version, *instructions;
	enum era era;
	bool initialized; /* legacy: initialize answered */
	char legacy_version[16];
	json_t *client_info;
	struct tool *tools;
	size_t ntools, captools;
	struct mrpc_call *calls; /* running, not cancelled */
	size_t ncalls;		 /* of them */
	struct sub *subs;
	size_t nsubs;
	bool closing;
};

static const char *const legacy_versions[] = MRPC_LEGACY_VERSIONS;

/* ---- Output. */

/* Sends text (no '\n') as one line. */
static void emit(struct mrpc *m, char *text)
{
	if (!text)
		return;
	size_t n = strlen(text);
	char *line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	if (!m->closing)
		m->write(m->write_arg, line, n + 1);
	free(line);
}

/* Sends {"jsonrpc":"2.0","id":IDRAW,<members of body>}. body is stolen;
 * idraw NULL means null. */
static void emit_response(struct mrpc *m, const char *idraw, json_t *body)
{
	if (!body)
		return;
	char *b = jnum_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!b)
		return;
	if (!idraw)
		idraw = "null";
	/* b is "{...}" with at least one member. */
	size_t bl = strlen(b), il = strlen(idraw);
	const char *head = "{\"jsonrpc\":\"2.0\",\"id\":";
	size_t hl = strlen(head);
	char *t = malloc(hl + il + 1 + bl);
	if (!t) {
		free(b);
		return;
	}
	memcpy(t, head, hl);
	memcpy(t + hl, idraw, il);
	t[hl + il] = ',';
	memcpy(t + hl + il + 1, b + 1, bl); /* from after '{', with the NUL */
	free(b);
	emit(m, t);
}

/* Cuts s (valid UTF-8 but maybe for a character cut at its end, as a
 * printf precision or a full buffer leaves it) before that character. */
static void utf8_trim_tail(char *s)
{
	size_t n = strlen(s), k = 0;
	while (k < n && k < 4 && ((unsigned char)s[n - 1 - k] & 0xc0) == 0x80)
		k++;
	if (k == n)
		return;
	unsigned char lead = (unsigned char)s[n - 1 - k];
	size_t want = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
	if (want != k + 1)
		s[n - 1 - k] = '\0';
}

/* An error answer: always sent, once (a message jansson refuses, which no
 * caller should give, is replaced by a fixed one rather than the request
 * left unanswered). */
static void send_error(struct mrpc *m, const char *idraw, int code, const char *msg, json_t *data)
{
	json_t *err = json_pack("{s:i,s:s}", "code", code, "message", msg);
	if (!err)
		err = json_pack("{s:i,s:s}", "code", code, "message",
				"(the error's message could not be encoded)");
	if (err && data)
		json_object_set_new(err, "data", data);
	else if (data)
		json_decref(data);
	emit_response(m, idraw, err ? json_pack("{s:o}", "error", err) : NULL);
}

static void send_errorf(struct mrpc *m, const char *idraw, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void send_errorf(struct mrpc *m, const char *idraw, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* "%.200s" of a name may cut a character in two: a message that is
	 * not UTF-8 cannot be sent, and the request went unanswered. */
	utf8_trim_tail(msg);
	send_error(m, idraw, code, msg, NULL);
}

static json_t *server_info(const struct mrpc *m)
{
	json_t *o = json_pack("{s:s,s:s}", "name", m->name, "version", m->version);
	if (o && m->title)
		json_object_set_new(o, "title", json_string(m->title));
	return o;
}

/* Sends a successful result (stolen). In the modern era every result
 * carries resultType and the server's identity in _meta, and the results
 * of listing methods carry cache hints. */
static void send_result(struct mrpc *m, const char *idraw, json_t *result, bool modern,
			bool cacheable)
{
	if (!result) {
		send_error(m, idraw, MRPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
		return;
	}
	if (modern) {
		if (!json_object_get(result, "resultType"))
			json_object_set_new(result, "resultType", json_string("complete"));
		if (cacheable) {
			if (!json_object_get(result, "ttlMs"))
				json_object_set_new(result, "ttlMs", json_integer(0));
			if (!json_object_get(result, "cacheScope"))
				json_object_set_new(result, "cacheScope", json_string("private"));
		}
		json_t *meta = json_object_get(result, "_meta");
		if (!meta) {
			meta = json_object();
			json_object_set_new(result, "_meta", meta);
		}
		if (json_is_object(meta) &&
		    !json_object_get(meta, "io.modelcontextprotocol/serverInfo"))
			json_object_set_new(meta, "io.modelcontextprotocol/serverInfo",
					    server_info(m));
	}
	json_t *body = json_object();
	if (body && json_object_set_new(body, "result", result) == 0) {
		emit_response(m, idraw, body);
		return;
	}
	json_decref(body);
	send_error(m, idraw, MRPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
}

static void send_notification(struct mrpc *m, const char *method, json_t *params)
{
	json_t *n = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", method);
	if (n && params)
		json_object_set_new(n, "params", params);
	else if (params)
		json_decref(params);
	if (!n)
		return;
	char *t = jnum_dumps(n, JSON_COMPACT);
	json_decref(n);
	emit(m, t);
}

/* ---- The raw id: a small scanner over text jansson has already accepted. */

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the JSON value starting at p (valid JSON assumed). */
static const char *skip_value(const char *p, const char *e)
{
	if (p >= e)
		return e;
	if (*p == '"') {
		for (p++; p < e; p++) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				return p + 1;
		}
		return e;
	}
	if (*p == '{' || *p == '[') {
		int depth = 0;
		for (; p < e; p++) {
			if (*p == '"') {
				p = skip_value(p, e) - 1;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if (*p == '}' || *p == ']') {
				if (--depth == 0)
					return p + 1;
			}
		}
		return e;
	}
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
	       *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* True when the raw JSON string s..e (quotes included) decodes to key. */
static bool key_is(const char *s, const char *e, const char *key)
{
	size_t kl = strlen(key);
	if ((size_t)(e - s) == kl + 2 && memcmp(s + 1, key, kl) == 0)
		return true;
	if (!memchr(s, '\\', (size_t)(e - s)))
		return false;
	json_t *v = json_loadb(s, (size_t)(e - s), JSON_DECODE_ANY, NULL);
	bool same = v && json_is_string(v) && strcmp(json_string_value(v), key) == 0;
	json_decref(v);
	return same;
}

/* Finds member key of the object text s..e; its value's span in *vs..*ve.
 * false when s..e is not an object or has no such member. */
static bool raw_member(const char *s, const char *e, const char *key, const char **vs,
		       const char **ve)
{
	const char *p = skip_ws(s, e);
	if (p >= e || *p != '{')
		return false;
	p = skip_ws(p + 1, e);
	while (p < e && *p == '"') {
		const char *ks = p, *ke = skip_value(p, e);
		p = skip_ws(ke, e);
		if (p >= e || *p != ':')
			return false;
		p = skip_ws(p + 1, e);
		const char *v = p;
		p = skip_value(p, e);
		if (key_is(ks, ke, key)) {
			*vs = v;
			*ve = p;
			return true;
		}
		p = skip_ws(p, e);
		if (p < e && *p == ',')
			p = skip_ws(p + 1, e);
	}
	return false;
}

/* An id's raw text and key from its span: a string, or an integer literal
 * (-?(0|[1-9][0-9]*)). 0, or -1 when the value is not a valid id. The
 * strings are allocated; both are NULL on -1. */
static int id_from_span(const char *s, const char *e, char **raw, char **key)
{
	*raw = *key = NULL;
	size_t n = (size_t)(e - s);
	if (n == 0)
		return -1;
	if (*s == '"') {
		json_t *v = json_loadb(s, n, JSON_DECODE_ANY, NULL);
		if (!v || !json_is_string(v)) {
			json_decref(v);
			return -1;
		}
		size_t sl = json_string_length(v);
		*key = malloc(sl + 2);
		*raw = strndup(s, n);
		if (*key) {
			(*key)[0] = 's';
			memcpy(*key + 1, json_string_value(v), sl);
			(*key)[sl + 1] = '\0';
		}
		json_decref(v);
	} else {
		const char *p = s;
		if (*p == '-')
			p++;
		if (p == e || (*p == '0' && p + 1 != e))
			return -1;
		for (; p < e; p++)
			if (*p < '0' || *p > '9')
				return -1;
		*raw = strndup(s, n);
		if (n == 2 && s[0] == '-' && s[1] == '0')
			s++, n--; /* -0 matches 0, and is still echoed as written */
		*key = malloc(n + 2);
		if (*key) {
			(*key)[0] = 'i';
			memcpy(*key + 1, s, n);
			(*key)[n + 1] = '\0';
		}
	}
	if (!*raw || !*key) {
		free(*raw);
		free(*key);
		*raw = *key = NULL;
		return -1;
	}
	return 0;
}

/* The id as a JSON value, for the places it sits inside a message
 * (subscription ids in _meta): exact for strings and 64-bit integers, a
 * real beyond that. A new reference, or NULL. */
static json_t *id_json(const char *raw)
{
	json_t *v = json_loadb(raw, strlen(raw), JSON_DECODE_ANY, NULL);
	if (!v)
		v = json_loadb(raw, strlen(raw), JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
	return v;
}

/* ---- Session. */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

struct mrpc *mrpc_new(const struct mrpc_server_info *info, mrpc_write_cb write, void *arg)
{
	struct mrpc *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->write = write;
	m->write_arg = arg;
	m->name = strdup(info->name ? info->name : "sandboxd");
	m->version = strdup(info->version ? info->version : "0");
	m->title = dup_or_null(info->title);
	m->instructions = dup_or_null(info->instructions);
	if (!m->name || !m->version || (info->title && !m->title) ||
	    (info->instructions && !m->instructions)) {
		mrpc_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

static void call_unlink(struct mrpc_call *c)
{
	struct mrpc *m = c->m;
	if (!m)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else if (m->calls == c)
		m->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
	m->ncalls--;
}

static void call_free(struct mrpc_call *c)
{
	free(c->idraw);
	free(c->idkey);
	free(c->tool);
	json_decref(c->args);
	json_decref(c->token);
	free(c);
}

/* Marks c cancelled, takes it off the running list and tells the tool;
 * the callback may end c, so c is not touched after it. */
static void call_cancel(struct mrpc_call *c)
{
	if (c->cancelled)
		return;
	c->cancelled = true;
	call_unlink(c);
	c->m = NULL;
	if (c->cancel)
		c->cancel(c->cancel_arg, c);
}

static void free_tool(struct tool *t)
{
	free(t->name);
	free(t->title);
	free(t->description);
	json_decref(t->input);
	json_decref(t->output);
	json_decref(t->annotations);
}

void mrpc_free(struct mrpc *m)
{
	if (!m)
		return;
	/* Graceful close of each listen stream, as the reference server does,
	 * then nothing more is written. */
	while (m->subs) {
		struct sub *s = m->subs;
		m->subs = s->next;
		json_t *idv = id_json(s->idraw);
		json_t *r =
			json_pack("{s:{s:o}}", "_meta", "io.modelcontextprotocol/subscriptionId",
				  idv ? idv : json_null());
		send_result(m, s->idraw, r, true, false);
		free(s->idraw);
		free(s->idkey);
		free(s);
	}
	m->closing = true;
	while (m->calls) {
		struct mrpc_call *c = m->calls;
		call_unlink(c);
		call_cancel(c);
	}
	for (size_t i = 0; i < m->ntools; i++)
		free_tool(&m->tools[i]);
	free(m->tools);
	json_decref(m->client_info);
	free(m->name);
	free(m->title);
	free(m->version);
	free(m->instructions);
	free(m);
}

bool mrpc_ready(const struct mrpc *m)
{
	return (m->era == ERA_LEGACY && m->initialized) || m->era == ERA_MODERN;
}

const char *mrpc_protocol_version(const struct mrpc *m)
{
	if (m->era == ERA_MODERN)
		return MRPC_MODERN_VERSION;
	if (m->era == ERA_LEGACY && m->initialized)
		return m->legacy_version;
	return NULL;
}

const json_t *mrpc_client_info(const struct mrpc *m) { return m->client_info; }

/* ---- Tool table. */

static struct tool *find_tool(const struct mrpc *m, const char *name)
{
	for (size_t i = 0; i < m->ntools; i++)
		if (strcmp(m->tools[i].name, name) == 0)
			return &m->tools[i];
	return NULL;
}

int mrpc_tool_add(struct mrpc *m, const struct mrpc_tool_def *d)
{
	if (!d->name || !*d->name || !d->description || !json_is_object(d->input_schema) ||
	    !d->fn || (d->output_schema && !json_is_object(d->output_schema)) ||
	    (d->annotations && !json_is_object(d->annotations))) {
		errno = EINVAL;
		return -1;
	}
	struct tool t = {0};
	t.name = strdup(d->name);
	t.title = dup_or_null(d->title);
	t.description = strdup(d->description);
	t.input = json_deep_copy(d->input_schema);
	t.output = d->output_schema ? json_deep_copy(d->output_schema) : NULL;
	t.annotations = d->annotations ? json_deep_copy(d->annotations) : NULL;
	t.fn = d->fn;
	t.arg = d->arg;
	if (!t.name || (d->title && !t.title) || !t.description || !t.input ||
	    (d->output_schema && !t.output) || (d->annotations && !t.annotations))
		goto nomem;
	struct tool *old = find_tool(m, d->name);
	if (old) {
		free_tool(old);
		*old = t;
		return 0;
	}
	if (m->ntools == m->captools) {
		size_t ncap = m->captools ? m->captools * 2 : 8;
		struct tool *nt = realloc(m->tools, ncap * sizeof *nt);
		if (!nt)
			goto nomem;
		m->tools = nt;
		m->captools = ncap;
	}
	m->tools[m->ntools++] = t;
	return 0;
nomem:
	free_tool(&t);
	errno = ENOMEM;
	return -1;
}

int mrpc_tool_set_description(struct mrpc *m, const char *name, const char *description)
{
	struct tool *t = find_tool(m, name);
	if (!t) {
		errno = ENOENT;
		return -1;
	}
	char *d = strdup(description);
	if (!d) {
		errno = ENOMEM;
		return -1;
	}
	free(t->description);
	t->description = d;
	return 0;
}

const char *mrpc_tool_description(const struct mrpc *m, const char *name)
{
	const struct tool *t = find_tool(m, name);
	return t ? t->description : NULL;
}

int mrpc_tool_remove(struct mrpc *m, const char *name)
{
	struct tool *t = find_tool(m, name);
	if (!t) {
		errno = ENOENT;
		return -1;
	}
	free_tool(t);
	size_t i = (size_t)(t - m->tools);
	memmove(t, t + 1, (m->ntools - i - 1) * sizeof *t);
	m->ntools--;
	return 0;
}

void mrpc_tools_changed(struct mrpc *m)
{
	if (m->era == ERA_LEGACY) {
		if (m->initialized)
			send_notification(m, "notifications/tools/list_changed", NULL);
		return;
	}
	/* Modern: only on the listen streams that asked for it, each stamped
	 * with its subscription id. */
	for (struct sub *s = m->subs; s; s = s->next) {
		if (!s->tools)
			continue;
		json_t *idv = id_json(s->idraw);
		json_t *p =
			json_pack("{s:{s:o}}", "_meta", "io.modelcontextprotocol/subscriptionId",
				  idv ? idv : json_null());
		send_notification(m, "notifications/tools/list_changed", p);
	}
}

/* ---- Calls. */

void mrpc_call_on_cancel(struct mrpc_call *c, mrpc_cancel_fn fn, void *arg)
{
	c->cancel = fn;
	c->cancel_arg = arg;
}

bool mrpc_call_cancelled(const struct mrpc_call *c) { return c->cancelled; }

const char *mrpc_call_tool(const struct mrpc_call *c) { return c->tool; }

const json_t *mrpc_call_progress_token(const struct mrpc_call *c) { return c->token; }

const char *mrpc_call_protocol_version(const struct mrpc_call *c) { return c->version; }

int mrpc_call_progress(struct mrpc_call *c, double progress, double total, const char *message)
{
	if (!c->token || c->cancelled || !c->m || c->m->closing)
		return 0;
	if (c->any_progress && !(progress > c->last_progress))
		return 0;
	json_t *p = json_pack("{s:O,s:f}", "progressToken", c->token, "progress", progress);
	if (!p)
		return -1;
	if (total >= 0)
		json_object_set_new(p, "total", json_real(total));
	if (message)
		json_object_set_new(p, "message", json_string(message));
	c->any_progress = true;
	c->last_progress = progress;
	send_notification(c->m, "notifications/progress", p);
	return 1;
}

void mrpc_call_result(struct mrpc_call *c, json_t *result)
{
	struct mrpc *m = c->m;
	if (m && !c->cancelled) {
		call_unlink(c);
		send_result(m, c->idraw, result, strcmp(c->version, MRPC_MODERN_VERSION) == 0,
			    false);
	} else {
		json_decref(result);
	}
	call_free(c);
}

void mrpc_call_error(struct mrpc_call *c, int code, const char *message, json_t *data)
{
	struct mrpc *m = c->m;
	if (m && !c->cancelled) {
		call_unlink(c);
		send_error(m, c->idraw, code, message ? message : "error", data);
	} else {
		json_decref(data);
	}
	call_free(c);
}

void mrpc_call_tool_error(struct mrpc_call *c, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		mrpc_call_result(c, NULL);
		return;
	}
	json_t *r = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text", text,
			      "isError", 1);
	free(text);
	mrpc_call_result(c, r);
}

/* ---- Requests. */

/* What one request is: its id (raw and key), method, params (an object
 * or NULL), and whether it carried a modern envelope. */
struct req {
	const char *idraw, *idkey; /* NULL for a notification */
	const char *method;
	json_t *params;
	const char *line;
	size_t len;
	bool modern; /* answered in the modern era's shapes */
	const char *version;
};

static bool id_in_use(const struct mrpc *m, const char *key)
{
	for (const struct mrpc_call *c = m->calls; c; c = c->next)
		if (strcmp(c->idkey, key) == 0)
			return true;
	for (const struct sub *s = m->subs; s; s = s->next)
		if (strcmp(s->idkey, key) == 0)
			return true;
	return false;
}

/* The modern envelope of params: 1 when there is a claim (the protocol
 * version key in params._meta), 0 when not. On a claim, *issue is NULL when
 * the envelope is valid, else says which key is wrong and how. */
static int envelope(json_t *params, const char **version, const char **issue_key,
		    const char **issue)
{
	json_t *meta = json_object_get(params, "_meta");
	json_t *v = json_object_get(meta, MRPC_META_VERSION_KEY);
	*version = NULL;
	*issue_key = *issue = NULL;
	if (!json_is_object(meta) || !v)
		return 0;
	json_t *caps = json_object_get(meta, "io.modelcontextprotocol/clientCapabilities");
	json_t *info = json_object_get(meta, "io.modelcontextprotocol/clientInfo");
	if (!json_is_string(v)) {
		*issue_key = MRPC_META_VERSION_KEY;
		*issue = "must be a string";
	} else if (!caps) {
		*issue_key = "io.modelcontextprotocol/clientCapabilities";
		*issue = "missing";
	} else if (!json_is_object(caps)) {
		*issue_key = "io.modelcontextprotocol/clientCapabilities";
		*issue = "must be an object";
	} else if (info &&
		   (!json_is_object(info) || !json_is_string(json_object_get(info, "name")) ||
		    !json_is_string(json_object_get(info, "version")))) {
		*issue_key = "io.modelcontextprotocol/clientInfo";
		*issue = "must be an object with string name and version";
	}
	if (json_is_string(v))
		*version = json_string_value(v);
	return 1;
}

static bool is_modern_version(const char *v) { return v && strcmp(v, MRPC_MODERN_VERSION) == 0; }

static void answer_bad_envelope(struct mrpc *m, const struct req *r, const char *key,
				const char *issue)
{
	char msg[256];
	snprintf(msg, sizeof msg,
		 "Invalid _meta envelope for protocol revision " MRPC_MODERN_VERSION ": %s: %s",
		 key, issue);
	send_error(m, r->idraw, MRPC_INVALID_PARAMS, msg,
		   json_pack("{s:{s:s,s:s}}", "envelope", "key", key, "problem", issue));
}

static void answer_unsupported(struct mrpc *m, const struct req *r, const char *requested)
{
	char msg[160];
	json_t *data = json_pack("{s:[s]}", "supported", MRPC_MODERN_VERSION);
	if (requested) {
		snprintf(msg, sizeof msg, "Unsupported protocol version: %.100s", requested);
		utf8_trim_tail(msg);
		if (data)
			json_object_set_new(data, "requested", json_string(requested));
	} else {
		snprintf(msg, sizeof msg,
			 "Unsupported protocol version: the request did not name a protocol "
			 "version");
	}
	send_error(m, r->idraw, MRPC_UNSUPPORTED_VERSION, msg, data);
}

static json_t *capabilities(void) { return json_pack("{s:{s:b}}", "tools", "listChanged", 1); }

static void do_initialize(struct mrpc *m, const struct req *r)
{
	json_t *pv = json_object_get(r->params, "protocolVersion");
	json_t *caps = json_object_get(r->params, "capabilities");
	json_t *info = json_object_get(r->params, "clientInfo");
	if (!json_is_string(pv)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params.protocolVersion must be a string", NULL);
		return;
	}
	if (caps && !json_is_object(caps)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params.capabilities must be an object", NULL);
		return;
	}
	if (info && !json_is_object(info)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params.clientInfo must be an object", NULL);
		return;
	}
	const char *chosen = legacy_versions[0];
	for (size_t i = 0; i < MRPC_LEGACY_VERSION_COUNT; i++)
		if (strcmp(json_string_value(pv), legacy_versions[i]) == 0)
			chosen = legacy_versions[i];
	snprintf(m->legacy_version, sizeof m->legacy_version, "%s", chosen);
	m->initialized = true;
	json_decref(m->client_info);
	m->client_info = info ? json_incref(info) : NULL;
	json_t *res = json_pack("{s:s,s:o,s:o}", "protocolVersion", chosen, "capabilities",
				capabilities(), "serverInfo", server_info(m));
	if (res && m->instructions)
		json_object_set_new(res, "instructions", json_string(m->instructions));
	send_result(m, r->idraw, res, false, false);
}

static void do_discover(struct mrpc *m, const struct req *r)
{
	json_t *res = json_pack("{s:[s],s:o}", "supportedVersions", MRPC_MODERN_VERSION,
				"capabilities", capabilities());
	if (res && m->instructions)
		json_object_set_new(res, "instructions", json_string(m->instructions));
	send_result(m, r->idraw, res, true, true);
}

static json_t *tool_json(const struct tool *t)
{
	json_t *o = json_pack("{s:s,s:s,s:O}", "name", t->name, "description", t->description,
			      "inputSchema", t->input);
	if (!o)
		return NULL;
	if (t->title)
		json_object_set_new(o, "title", json_string(t->title));
	if (t->output)
		json_object_set(o, "outputSchema", t->output);
	if (t->annotations)
		json_object_set(o, "annotations", t->annotations);
	return o;
}

static void do_tools_list(struct mrpc *m, const struct req *r)
{
	size_t start = 0;
	json_t *cursor = json_object_get(r->params, "cursor");
	if (cursor) {
		const char *s = json_string_value(cursor);
		char *end;
		errno = 0;
		unsigned long v = s && *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0;
		if (!s || *s < '0' || *s > '9' || errno || *end || v > m->ntools) {
			send_error(m, r->idraw, MRPC_INVALID_PARAMS,
				   "Invalid params: params.cursor is not a cursor this server gave",
				   NULL);
			return;
		}
		start = v;
	}
	json_t *tools = json_array();
	size_t end = start + LIMIT_MCP_TOOLS_PAGE;
	if (end > m->ntools)
		end = m->ntools;
	for (size_t i = start; tools && i < end; i++)
		if (json_array_append_new(tools, tool_json(&m->tools[i])) < 0) {
			json_decref(tools);
			tools = NULL;
		}
	json_t *res = tools ? json_pack("{s:o}", "tools", tools) : NULL;
	if (res && end < m->ntools) {
		char next[32];
		snprintf(next, sizeof next, "%zu", end);
		json_object_set_new(res, "nextCursor", json_string(next));
	}
	send_result(m, r->idraw, res, r->modern, true);
}

static void do_tools_call(struct mrpc *m, const struct req *r)
{
	json_t *name = json_object_get(r->params, "name");
	json_t *args = json_object_get(r->params, "arguments");
	json_t *meta = json_object_get(r->params, "_meta");
	json_t *token = json_object_get(meta, "progressToken");
	if (!json_is_string(name)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params.name must be a string (the tool's name)", NULL);
		return;
	}
	if (args && !json_is_object(args) && !json_is_null(args)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params.arguments must be an object", NULL);
		return;
	}
	if (token && !json_is_string(token) && !json_is_integer(token)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: params._meta.progressToken must be a string or an "
			   "integer",
			   NULL);
		return;
	}
	if (json_is_string(token) && json_string_length(token) > LIMIT_MCP_ID_BYTES) {
		send_errorf(
			m, r->idraw, MRPC_INVALID_PARAMS,
			"Invalid params: params._meta.progressToken may be at most %u bytes long",
			LIMIT_MCP_ID_BYTES);
		return;
	}
	struct tool *t = find_tool(m, json_string_value(name));
	if (!t) {
		send_errorf(m, r->idraw, MRPC_INVALID_PARAMS, "Unknown tool: %.200s",
			    json_string_value(name));
		return;
	}
	if (id_in_use(m, r->idkey)) {
		send_error(m, r->idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: the id is already in use by a request still running",
			   NULL);
		return;
	}
	/* Each running call holds its arguments, a daemon request and, for a
	 * long-poll, up to two minutes: a host sending them without end would
	 * grow the bridge without end. */
	if (m->ncalls >= LIMIT_MCP_CALLS_RUNNING) {
		send_errorf(m, r->idraw, MRPC_INTERNAL_ERROR,
			    "Too many tool calls running at once (at most %u): wait for one to "
			    "end, or cancel one (notifications/cancelled)",
			    LIMIT_MCP_CALLS_RUNNING);
		return;
	}
	struct mrpc_call *c = calloc(1, sizeof *c);
	if (!c)
		goto nomem;
	c->idraw = strdup(r->idraw);
	c->idkey = strdup(r->idkey);
	c->tool = strdup(t->name);
	c->args = json_is_object(args) ? json_incref(args) : json_object();
	c->token = token ? json_incref(token) : NULL;
	snprintf(c->version, sizeof c->version, "%s", r->version);
	if (!c->idraw || !c->idkey || !c->tool || !c->args) {
		call_free(c);
		goto nomem;
	}
	c->m = m;
	c->next = m->calls;
	if (m->calls)
		m->calls->prev = c;
	m->calls = c;
	m->ncalls++;
	/* The table may change under the call (a tool added in fn): copy what
	 * the call needs first. */
	mrpc_tool_fn fn = t->fn;
	void *arg = t->arg;
	fn(arg, c, c->args);
	return;
nomem:
	send_error(m, r->idraw, MRPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
}

static void do_listen(struct mrpc *m, const struct req *r)
{
	json_t *filter = json_object_get(r->params, "notifications");
	if (!json_is_object(filter)) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Invalid params: 'notifications' is required and must be a valid "
			   "SubscriptionFilter",
			   NULL);
		return;
	}
	if (id_in_use(m, r->idkey)) {
		send_error(m, r->idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: the id is already in use by a request still running",
			   NULL);
		return;
	}
	if (m->nsubs >= LIMIT_MCP_SUBSCRIPTIONS) {
		send_error(m, r->idraw, MRPC_INTERNAL_ERROR, "Subscription limit reached", NULL);
		return;
	}
	struct sub *s = calloc(1, sizeof *s);
	if (s) {
		s->idraw = strdup(r->idraw);
		s->idkey = strdup(r->idkey);
	}
	if (!s || !s->idraw || !s->idkey) {
		if (s) {
			free(s->idraw);
			free(s->idkey);
		}
		free(s);
		send_error(m, r->idraw, MRPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
		return;
	}
	s->tools = json_is_true(json_object_get(filter, "toolsListChanged"));
	s->next = m->subs;
	m->subs = s;
	m->nsubs++;
	/* Acknowledged with what is honoured: only the tools list changes. */
	json_t *honored = json_object();
	if (s->tools)
		json_object_set_new(honored, "toolsListChanged", json_true());
	json_t *idv = id_json(r->idraw);
	json_t *p = json_pack("{s:o,s:{s:o}}", "notifications", honored, "_meta",
			      "io.modelcontextprotocol/subscriptionId", idv ? idv : json_null());
	send_notification(m, "notifications/subscriptions/acknowledged", p);
}

/* notifications/cancelled: the running call (or listen stream) whose id
 * is params.requestId. The id is read from the raw line so that integers
 * of any size match. */
static void do_cancelled(struct mrpc *m, const struct req *r)
{
	const char *ps, *pe, *vs, *ve;
	char *raw, *key;
	if (!raw_member(r->line, r->line + r->len, "params", &ps, &pe) ||
	    !raw_member(ps, pe, "requestId", &vs, &ve) || id_from_span(vs, ve, &raw, &key) < 0)
		return;
	for (struct sub **sp = &m->subs; *sp; sp = &(*sp)->next)
		if (strcmp((*sp)->idkey, key) == 0) {
			struct sub *s = *sp;
			*sp = s->next;
			m->nsubs--;
			free(s->idraw);
			free(s->idkey);
			free(s);
			break;
		}
	for (struct mrpc_call *c = m->calls; c; c = c->next)
		if (strcmp(c->idkey, key) == 0) {
			call_cancel(c);
			break;
		}
	free(raw);
	free(key);
}

/* A request (or notification) of a legacy session. */
static void legacy_dispatch(struct mrpc *m, struct req *r)
{
	const char *meth = r->method;
	r->modern = false;
	r->version = m->initialized ? m->legacy_version : legacy_versions[0];
	if (!r->idraw) {
		if (strcmp(meth, "notifications/cancelled") == 0)
			do_cancelled(m, r);
		return; /* initialized, progress, roots/list_changed, unknown: nothing to do */
	}
	if (strcmp(meth, "initialize") == 0) {
		do_initialize(m, r);
	} else if (strcmp(meth, "ping") == 0) {
		send_result(m, r->idraw, json_object(), false, false);
	} else if (strcmp(meth, "tools/list") != 0 && strcmp(meth, "tools/call") != 0) {
		send_errorf(m, r->idraw, MRPC_METHOD_NOT_FOUND, "Method not found: %.200s", meth);
	} else if (!m->initialized) {
		send_error(m, r->idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: the session is not initialized (send initialize "
			   "first)",
			   NULL);
	} else if (meth[6] == 'l') {
		do_tools_list(m, r);
	} else {
		do_tools_call(m, r);
	}
}

/* A request (or notification) of a modern session; the envelope of a
 * request is checked here (after the method, as the reference does). */
static void modern_dispatch(struct mrpc *m, struct req *r, bool claim, const char *version,
			    const char *ikey, const char *issue)
{
	const char *meth = r->method;
	r->modern = true;
	r->version = MRPC_MODERN_VERSION;
	if (!r->idraw) {
		if (strcmp(meth, "notifications/cancelled") == 0)
			do_cancelled(m, r);
		return;
	}
	if (strcmp(meth, "initialize") == 0 && !(claim && !issue && is_modern_version(version))) {
		json_t *pv = json_object_get(r->params, "protocolVersion");
		answer_unsupported(m, r, json_string_value(pv));
		return;
	}
	bool known = strcmp(meth, "tools/list") == 0 || strcmp(meth, "tools/call") == 0 ||
		     strcmp(meth, "server/discover") == 0 ||
		     strcmp(meth, "subscriptions/listen") == 0;
	if (!known) {
		send_errorf(m, r->idraw, MRPC_METHOD_NOT_FOUND, "Method not found: %.200s", meth);
		return;
	}
	if (!claim) {
		send_error(m, r->idraw, MRPC_INVALID_PARAMS,
			   "Request is missing the required _meta envelope for protocol revision "
			   "2026-07-28 (io.modelcontextprotocol/protocolVersion, "
			   "io.modelcontextprotocol/clientCapabilities)",
			   NULL);
		return;
	}
	if (issue) {
		answer_bad_envelope(m, r, ikey, issue);
		return;
	}
	if (!is_modern_version(version)) {
		answer_unsupported(m, r, version);
		return;
	}
	/* The client names itself on each request (a SHOULD): keep the
	 * latest, for mrpc_client_info. */
	json_t *info = json_object_get(json_object_get(r->params, "_meta"),
				       "io.modelcontextprotocol/clientInfo");
	if (info && info != m->client_info) {
		json_decref(m->client_info);
		m->client_info = json_incref(info);
	}
	if (strcmp(meth, "tools/list") == 0)
		do_tools_list(m, r);
	else if (strcmp(meth, "tools/call") == 0)
		do_tools_call(m, r);
	else if (strcmp(meth, "server/discover") == 0)
		do_discover(m, r);
	else
		do_listen(m, r);
}

/* Routes one well-formed message by the session's era, deciding the era
 * while it is still open. */
static void dispatch(struct mrpc *m, struct req *r)
{
	const char *version, *ikey, *issue;
	bool claim = envelope(r->params, &version, &ikey, &issue) == 1;
	if (m->era == ERA_LEGACY) {
		legacy_dispatch(m, r);
		return;
	}
	if (m->era == ERA_MODERN) {
		modern_dispatch(m, r, claim, version, ikey, issue);
		return;
	}
	/* Opening or probe. */
	bool modern_init = claim && !issue && is_modern_version(version);
	if ((strcmp(r->method, "initialize") == 0 && !modern_init) || !claim) {
		m->era = ERA_LEGACY;
		legacy_dispatch(m, r);
		return;
	}
	if (issue) {
		if (r->idraw)
			answer_bad_envelope(m, r, ikey, issue);
		return;
	}
	if (!is_modern_version(version)) {
		if (r->idraw)
			answer_unsupported(m, r, version);
		return;
	}
	if (r->idraw && strcmp(r->method, "server/discover") == 0) {
		m->era = ERA_PROBE;
		r->modern = true;
		r->version = MRPC_MODERN_VERSION;
		do_discover(m, r);
		return;
	}
	if (!r->idraw) {
		/* A notification does not pin the era. */
		r->modern = true;
		if (strcmp(r->method, "notifications/cancelled") == 0)
			do_cancelled(m, r);
		return;
	}
	m->era = ERA_MODERN;
	modern_dispatch(m, r, claim, version, ikey, issue);
}

void mrpc_line_too_long(struct mrpc *m, size_t limit)
{
	char msg[128];
	snprintf(msg, sizeof msg, "Parse error: a message longer than %zu bytes was dropped",
		 limit);
	send_error(m, NULL, MRPC_PARSE_ERROR, msg, NULL);
}

void mrpc_feed(struct mrpc *m, const char *line, size_t len)
{
	if (len && line[len - 1] == '\r')
		len--;
	const char *p = skip_ws(line, line + len);
	if (p == line + len)
		return;
	json_error_t jerr;
	/* An integer beyond 64 bits reads as a real (ids come from the raw
	 * text anyway). */
	json_t *root = jnum_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		char msg[256];
		/* jansson quotes the text near the error, cut to its buffer. */
		utf8_trim_tail(jerr.text);
		snprintf(msg, sizeof msg, "Parse error: %s (line %d, column %d)", jerr.text,
			 jerr.line, jerr.column);
		send_error(m, NULL, MRPC_PARSE_ERROR, msg, NULL);
		return;
	}
	if (json_is_array(root)) {
		send_error(m, NULL, MRPC_INVALID_REQUEST,
			   "Invalid request: JSON-RPC batches are not supported", NULL);
		json_decref(root);
		return;
	}
	if (!json_is_object(root)) {
		send_error(m, NULL, MRPC_INVALID_REQUEST,
			   "Invalid request: a message must be a JSON object", NULL);
		json_decref(root);
		return;
	}
	char *idraw = NULL, *idkey = NULL;
	json_t *id = json_object_get(root, "id");
	if (id) {
		const char *vs, *ve;
		if (!raw_member(line, line + len, "id", &vs, &ve) ||
		    id_from_span(vs, ve, &idraw, &idkey) < 0) {
			send_error(m, NULL, MRPC_INVALID_REQUEST,
				   "Invalid request: id must be a string or an integer", NULL);
			goto out;
		}
	}
	json_t *jv = json_object_get(root, "jsonrpc");
	json_t *method = json_object_get(root, "method");
	json_t *params = json_object_get(root, "params");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0") != 0) {
		/* A response of ours would be answered back; say nothing to it. */
		if (!method && (json_object_get(root, "result") || json_object_get(root, "error")))
			goto out;
		send_error(m, idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: jsonrpc must be \"2.0\"", NULL);
		goto out;
	}
	if (!method) {
		/* A response from the client: the bridge sends no requests, so
		 * there is nothing to match it to. */
		if (idraw && (json_object_get(root, "result") || json_object_get(root, "error")))
			goto out;
		if (!idraw && json_object_get(root, "error"))
			goto out;
		send_error(m, idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: a message needs a method (or is a response)", NULL);
		goto out;
	}
	if (!json_is_string(method)) {
		send_error(m, idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: method must be a string", NULL);
		goto out;
	}
	/* A running call keeps its id twice (as written and as a key): a
	 * line-long id (8 MiB) on each of the calls a session may run held
	 * gigabytes. Answered once, echoed, it costs nothing kept. */
	if (idraw && strlen(idraw) > LIMIT_MCP_ID_BYTES) {
		send_errorf(m, idraw, MRPC_INVALID_REQUEST,
			    "Invalid request: an id may be at most %u bytes long",
			    LIMIT_MCP_ID_BYTES);
		goto out;
	}
	if (params && !json_is_object(params) && !json_is_array(params)) {
		send_error(m, idraw, MRPC_INVALID_REQUEST,
			   "Invalid request: params must be an object or an array", NULL);
		goto out;
	}
	if (params && json_is_array(params)) {
		if (idraw)
			send_error(m, idraw, MRPC_INVALID_PARAMS,
				   "Invalid params: MCP methods take params as an object", NULL);
		goto out;
	}
	struct req r = {.idraw = idraw,
			.idkey = idkey,
			.method = json_string_value(method),
			.params = params,
			.line = line,
			.len = len};
	dispatch(m, &r);
out:
	free(idraw);
	free(idkey);
	json_decref(root);
}
