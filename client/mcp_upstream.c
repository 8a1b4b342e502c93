/*
 * mcp_upstream.c - the upstream MCP servers of code mode (see
 * mcp_upstream.h).
 *
 * A server goes DOWN -> STARTING (spawned, initialize and the first
 * tools/list on their way, bounded by one start timer) -> UP, and back to
 * DOWN when it fails in any state. Calls (struct ucall) are kept in one
 * list of the set; a call to a server that is starting waits unsent and is
 * sent when it comes up, or fails with it.
 */
#include "mcp_upstream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "mcp_names.h"

extern char **environ;

/* The versions the bridge speaks, as a client of upstream servers. */
static const char *const legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
					      "2024-11-05"};
#define MODERN_VERSION "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_INFO "io.modelcontextprotocol/clientInfo"

enum srv_state { SRV_DOWN, SRV_STARTING, SRV_UP };

struct tool {
	char *name;  /* upstream */
	char *ident; /* its identifier among the server's tools */
	json_t *def; /* the upstream Tool object */
};

struct server {
	struct mup *u;
	const struct mcfg_server *cfg;
	char *ident;
	enum srv_state state;
	pid_t pid;
	int pidfd, in_fd, out_fd, err_fd;
	struct ploop_watch w_in, w_out, w_err, w_pid;
	char *wbuf; /* queued for its stdin: [woff, wlen) */
	size_t wlen, woff, wcap;
	char *rbuf; /* its stdout, up to a newline */
	size_t rlen, rcap;
	char ebuf[4096]; /* its stderr, up to a newline */
	size_t elen;
	long long next_id, init_id, discover_id, list_id;
	bool modern, relist;
	json_t *listing; /* tools of the pages read so far, the filter's only */
	unsigned pages;
	size_t list_bytes; /* of the lines that answered its pages */
	struct tool *tools;
	size_t ntools;
	char *why; /* the last failure */
	unsigned failures;
	uint64_t down_ms, up_ms;
	struct ploop_timer start_timer;
};

struct ucall {
	struct mup *u;
	struct server *s;
	char *exec_id, *tool; /* tool: the upstream name */
	json_t *args;
	long long rpc_id; /* 0 while unsent */
	char *fail;	  /* set: fails on its timer */
	struct ploop_timer timer;
	mup_result_fn *done;
	void *arg;
	struct ucall *prev, *next;
};

struct waiter {
	mup_ready_fn *fn;
	void *arg;
	struct waiter *next;
};

struct mup {
	struct ploop *loop;
	struct mcfg *cfg;
	struct server *servers;
	size_t n;
	mup_changed_fn *changed;
	void *changed_arg;
	struct ucall *calls;
	struct waiter *waiters;
};

static void srv_down(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void close_fd(struct ploop_watch *w, int *fd);
static int fail_later(struct ucall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void call_end(struct ucall *c, enum mup_outcome o, json_t *value, const char *error);
static void send_call(struct ucall *c);

static void logf_(const struct server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct server *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sandboxd-mcp: upstream %s: ", s->cfg->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- writing to a server */

static void on_in(struct ploop_watch *w, unsigned events);

/*
 * Queues one message (borrowed) as a line for the server's stdin. 0 also
 * when the server closed its stdin (the message is dropped: the server is
 * ending, and its end says why and fails what waits on it). -1 when out of
 * memory, or when the server is down (also when it went down here): the
 * caller tells one from the other by s->state, and reports out of memory
 * only while the server is not down.
 */
static int srv_send(struct server *s, json_t *msg)
{
	if (s->in_fd < 0)
		return s->state == SRV_DOWN ? -1 : 0;
	char *text = jnum_dumps(msg, JSON_COMPACT);
	if (!text)
		return -1;
	size_t n = strlen(text);
	if (s->wlen + n + 1 > s->wcap) {
		size_t cap = s->wcap ? s->wcap : 4096;
		while (cap < s->wlen + n + 1)
			cap *= 2;
		char *b = realloc(s->wbuf, cap);
		if (!b) {
			free(text);
			return -1;
		}
		s->wbuf = b;
		s->wcap = cap;
	}
	memcpy(s->wbuf + s->wlen, text, n);
	s->wbuf[s->wlen + n] = '\n';
	s->wlen += n + 1;
	free(text);
	on_in(&s->w_in, PLOOP_WRITE);
	/* A server that does not read what it is sent would grow the queue
	 * without end. */
	if (s->in_fd >= 0 && s->wlen - s->woff > LIMIT_MCP_UPSTREAM_LINE_BYTES) {
		srv_down(s, "does not read its stdin (%zu bytes waiting)", s->wlen - s->woff);
		return -1;
	}
	return s->state == SRV_DOWN ? -1 : 0;
}

static void on_stdin_grace(struct ploop_timer *t) { srv_down(t->arg, "closed its stdin"); }

/* The server closed its stdin (EPIPE): most likely it has exited, and its
 * exit status (through the pidfd) is the reason to report, not the write
 * that found it gone. Nothing more is written; it is down when its process
 * ends, or after LIMIT_MCP_STOP_MS if it goes on without its stdin. */
static void stdin_gone(struct server *s)
{
	close_fd(&s->w_in, &s->in_fd);
	s->wlen = s->woff = 0;
	if (s->pidfd < 0 ||
	    ploop_timer_set(s->u->loop, &s->start_timer, LIMIT_MCP_STOP_MS, on_stdin_grace, s) < 0)
		srv_down(s, "closed its stdin");
}

static void on_in(struct ploop_watch *w, unsigned events)
{
	struct server *s = w->arg;
	(void)events;
	while (s->woff < s->wlen) {
		ssize_t k = write(s->in_fd, s->wbuf + s->woff, s->wlen - s->woff);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			break;
		if (k < 0 && errno == EPIPE) {
			stdin_gone(s);
			return;
		}
		if (k < 0) {
			srv_down(s, "its stdin failed: %s", strerror(errno));
			return;
		}
		s->woff += (size_t)k;
	}
	if (s->woff == s->wlen)
		s->woff = s->wlen = 0;
	ploop_watch_set(&s->w_in, s->wlen ? PLOOP_WRITE : 0);
}

/* A request (params stolen, may be NULL) with the next id, _meta added in
 * the modern era. The id, or -1. */
static long long srv_request(struct server *s, const char *method, json_t *params)
{
	if (!params)
		params = json_object();
	if (s->modern) {
		json_t *meta = json_object_get(params, "_meta");
		if (!meta) {
			meta = json_object();
			json_object_set_new(params, "_meta", meta);
		}
		json_object_set_new(meta, META_VERSION, json_string(MODERN_VERSION));
		json_object_set_new(meta, META_CAPS, json_object());
		json_object_set_new(meta, META_INFO,
				    json_pack("{s:s, s:s}", "name", "sandboxd-mcp", "version",
					      SANDBOXD_VERSION));
	}
	long long id = ++s->next_id;
	json_t *m = json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", (json_int_t)id,
			      "method", method, "params", params);
	int rc = m ? srv_send(s, m) : -1;
	json_decref(m);
	return rc < 0 ? -1 : id;
}

static void srv_notify(struct server *s, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	if (m && params)
		json_object_set_new(m, "params", params);
	else
		json_decref(params);
	if (m)
		srv_send(s, m);
	json_decref(m);
}

/* ---- state */

static uint64_t backoff_ms(unsigned failures)
{
	if (failures <= 1)
		return 0;
	uint64_t ms = LIMIT_MCP_BACKOFF_FIRST_MS;
	for (unsigned i = 2; i < failures && ms < LIMIT_MCP_BACKOFF_MAX_MS; i++)
		ms *= 2;
	return ms < LIMIT_MCP_BACKOFF_MAX_MS ? ms : LIMIT_MCP_BACKOFF_MAX_MS;
}

/* Milliseconds until a down server may be started again (0: now). */
static uint64_t wait_left(const struct server *s)
{
	uint64_t due = s->down_ms + backoff_ms(s->failures), now = ploop_now_ms();
	return due > now ? due - now : 0;
}

static bool any_starting(const struct mup *u)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->servers[i].state == SRV_STARTING)
			return true;
	return false;
}

static void check_waiters(struct mup *u)
{
	if (any_starting(u))
		return;
	struct waiter *w = u->waiters;
	u->waiters = NULL;
	while (w) {
		struct waiter *next = w->next;
		w->fn(w->arg);
		free(w);
		w = next;
	}
}

static void close_fd(struct ploop_watch *w, int *fd)
{
	ploop_watch_del(w);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Describes a wait status. */
static void exit_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (SIG%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "ended (wait status %d)", status);
}

/* Kills (when still running) and reaps the server's process; status text
 * in buf when it had exited by itself. */
static void srv_reap(struct server *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->pid <= 0)
		return;
	int status;
	pid_t r = waitpid(s->pid, &status, WNOHANG);
	if (r == s->pid) {
		exit_text(status, buf, len);
	} else {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	s->pid = -1;
}

static void srv_close(struct server *s)
{
	close_fd(&s->w_in, &s->in_fd);
	close_fd(&s->w_out, &s->out_fd);
	close_fd(&s->w_err, &s->err_fd);
	close_fd(&s->w_pid, &s->pidfd);
	ploop_timer_cancel(&s->start_timer);
	s->wlen = s->woff = s->rlen = s->elen = 0;
	json_decref(s->listing);
	s->listing = NULL;
	s->init_id = s->discover_id = s->list_id = 0;
	s->relist = false;
}

/* The server failed: why (printf-style) names what happened; its process
 * is killed and reaped, and its calls fail. */
static void srv_down(struct server *s, const char *fmt, ...)
{
	char what[512], status[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	bool was_up = s->state == SRV_UP;
	srv_close(s);
	srv_reap(s, status, sizeof status);
	free(s->why);
	s->why = NULL;
	if (!what[0] && !status[0])
		snprintf(what, sizeof what, "stopped");
	if (asprintf(&s->why, "%s%s%s", what, what[0] && status[0] ? " and " : "", status) < 0)
		s->why = NULL;
	uint64_t now = ploop_now_ms();
	if (was_up && now - s->up_ms >= LIMIT_MCP_BACKOFF_MAX_MS)
		s->failures = 0;
	s->failures++;
	s->down_ms = now;
	s->state = SRV_DOWN;
	logf_(s, "%s", s->why ? s->why : what);
	struct mup *u = s->u;
	/* A start that failed changes what execute's description says. */
	if (!was_up && u->changed)
		u->changed(u->changed_arg);
	for (struct ucall *c = u->calls, *next; c; c = next) {
		next = c->next;
		if (c->s != s || c->fail)
			continue;
		/* Failed on the loop's next pass: never inside mup_call,
		 * nor while the callers' state is mid-change. */
		if (fail_later(c, "upstream server %s %s: %s", s->cfg->name,
			       c->rpc_id ? "failed during the call" : "failed to start",
			       s->why ? s->why : what) < 0)
			call_end(c, MUP_ERROR, NULL, "upstream server failed");
	}
	check_waiters(u);
}

/* ---- the server's tools */

static void free_tools(struct tool *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].ident);
		json_decref(t[i].def);
	}
	free(t);
}

/* Whether a listed tool's name (borrowed, any JSON) names a tool scripts
 * may have: a string, not empty, without a NUL (C would see a shorter
 * name, another tool's or one the filter judges wrongly), allowed by the
 * filter. */
static bool usable_name(const struct server *s, const json_t *name)
{
	const char *v = json_string_value(name);
	return v && *v && strlen(v) == json_string_length(name) && mcfg_tool_allowed(s->cfg, v);
}

/* Adds the tools of one page (borrowed) that may be kept to the listing,
 * up to LIMIT_MCP_SERVER_TOOLS in all. 1 when the listing is full, 0, or
 * -1 when out of memory. */
static int listing_extend(struct server *s, const json_t *tools)
{
	size_t i;
	json_t *d;
	json_array_foreach (tools, i, d) {
		if (!usable_name(s, json_object_get(d, "name")))
			continue;
		if (json_array_size(s->listing) >= LIMIT_MCP_SERVER_TOOLS)
			return 1;
		if (json_array_append(s->listing, d) < 0)
			return -1;
	}
	return 0;
}

/* Replaces the tools with those listed that the filter lets through. */
static int adopt_listing(struct server *s)
{
	size_t n = json_array_size(s->listing), k = 0;
	struct tool *t = calloc(n ? n : 1, sizeof *t);
	const char **names = calloc(n ? n : 1, sizeof *names);
	char **idents = calloc(n ? n : 1, sizeof *idents);
	if (!t || !names || !idents)
		goto fail;
	size_t i;
	json_t *d;
	json_array_foreach (s->listing, i, d) {
		const char *name = json_string_value(json_object_get(d, "name"));
		if (!usable_name(s, json_object_get(d, "name")))
			continue;
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = strcmp(t[j].name, name) == 0;
		if (dup)
			continue;
		if (!(t[k].name = strdup(name)))
			goto fail;
		t[k].def = json_incref(d);
		names[k] = t[k].name;
		k++;
	}
	if (mname_assign(names, k, idents) < 0)
		goto fail;
	for (i = 0; i < k; i++)
		t[i].ident = idents[i];
	free(names);
	free(idents);
	free_tools(s->tools, s->ntools);
	s->tools = t;
	s->ntools = k;
	return 0;
fail:
	free(names);
	free(idents);
	if (t)
		free_tools(t, k);
	return -1;
}

static int list_page(struct server *s, const char *cursor)
{
	json_t *params = cursor ? json_pack("{s:s}", "cursor", cursor) : json_object();
	s->list_id = srv_request(s, "tools/list", params);
	if (s->list_id < 0) {
		s->list_id = 0;
		return -1;
	}
	return 0;
}

static int list_start(struct server *s)
{
	json_decref(s->listing);
	s->listing = json_array();
	s->list_bytes = 0;
	s->pages = 0;
	s->relist = false;
	return s->listing ? list_page(s, NULL) : -1;
}

static void on_list(struct server *s, json_t *result, json_t *error)
{
	s->list_id = 0;
	if (error || !json_is_array(json_object_get(result, "tools"))) {
		const char *msg = error ? json_string_value(json_object_get(error, "message"))
					: "the result has no tools array";
		if (s->state == SRV_STARTING) {
			srv_down(s, "tools/list failed: %s", msg ? msg : "(no message)");
			return;
		}
		logf_(s, "tools/list failed, keeping the tools listed before: %s",
		      msg ? msg : "(no message)");
		json_decref(s->listing);
		s->listing = NULL;
		return;
	}
	int full = listing_extend(s, json_object_get(result, "tools"));
	if (full < 0) {
		srv_down(s, "out of memory listing its tools");
		return;
	}
	s->pages++;
	const char *cursor = json_string_value(json_object_get(result, "nextCursor"));
	bool more = cursor && *cursor;
	if (more && !full && s->pages < LIMIT_MCP_LIST_PAGES &&
	    s->list_bytes <= LIMIT_MCP_LISTING_BYTES) {
		if (list_page(s, cursor) < 0 && s->state != SRV_DOWN)
			srv_down(s, "out of memory listing its tools");
		return;
	}
	if (full)
		logf_(s, "lists more than %u tools: the rest is left out", LIMIT_MCP_SERVER_TOOLS);
	else if (more && s->pages >= LIMIT_MCP_LIST_PAGES)
		logf_(s, "tools/list still paging after %u pages: the rest is left out",
		      LIMIT_MCP_LIST_PAGES);
	else if (more)
		logf_(s, "tools/list still paging after %zu bytes: the rest is left out",
		      s->list_bytes);
	if (adopt_listing(s) < 0) {
		srv_down(s, "out of memory keeping its tools");
		return;
	}
	json_decref(s->listing);
	s->listing = NULL;
	if (s->state == SRV_STARTING) {
		ploop_timer_cancel(&s->start_timer);
		s->state = SRV_UP;
		s->up_ms = ploop_now_ms();
		free(s->why);
		s->why = NULL;
		for (struct ucall *c = s->u->calls, *next; c; c = next) {
			next = c->next;
			if (c->s == s && !c->rpc_id && !c->fail)
				send_call(c);
		}
	}
	if (s->u->changed)
		s->u->changed(s->u->changed_arg);
	check_waiters(s->u);
	if (s->relist && s->state == SRV_UP && list_start(s) < 0 && s->state != SRV_DOWN)
		logf_(s, "out of memory listing its tools again");
}

/* ---- the handshake */

static bool legacy_version(const char *v)
{
	for (size_t i = 0; i < sizeof legacy_versions / sizeof *legacy_versions; i++)
		if (strcmp(v, legacy_versions[i]) == 0)
			return true;
	return false;
}

static void send_discover(struct server *s)
{
	s->modern = true;
	s->discover_id = srv_request(s, "server/discover", NULL);
	if (s->discover_id < 0 && s->state != SRV_DOWN)
		srv_down(s, "out of memory sending server/discover");
}

static void on_init(struct server *s, json_t *result, json_t *error)
{
	s->init_id = 0;
	if (error) {
		/* A modern-only server has no initialize. */
		send_discover(s);
		return;
	}
	const char *v = json_string_value(json_object_get(result, "protocolVersion"));
	if (v && legacy_version(v)) {
		srv_notify(s, "notifications/initialized", NULL);
	} else if (v && strcmp(v, MODERN_VERSION) == 0) {
		s->modern = true;
	} else {
		srv_down(s,
			 "answered initialize with protocol version %s, which the bridge does "
			 "not speak (it speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 and "
			 "2026-07-28)",
			 v ? v : "(none)");
		return;
	}
	if (list_start(s) < 0 && s->state != SRV_DOWN)
		srv_down(s, "out of memory listing its tools");
}

static void on_discover(struct server *s, json_t *result, json_t *error)
{
	s->discover_id = 0;
	bool ok = false;
	size_t i;
	json_t *v;
	json_array_foreach (json_object_get(result, "supportedVersions"), i, v)
		ok = ok || (json_is_string(v) && strcmp(json_string_value(v), MODERN_VERSION) == 0);
	if (!ok) {
		const char *msg = json_string_value(json_object_get(error, "message"));
		srv_down(s, "refused initialize and server/discover%s%s", msg ? ": " : "",
			 msg ? msg : " offers no version the bridge speaks");
		return;
	}
	if (list_start(s) < 0 && s->state != SRV_DOWN)
		srv_down(s, "out of memory listing its tools");
}

/* ---- reading from a server */

/* A request from the server: answered so that it does not wait. */
static void answer_server(struct server *s, json_t *msg, const char *method)
{
	json_t *id = json_object_get(msg, "id");
	json_t *m = json_pack("{s:s, s:O}", "jsonrpc", "2.0", "id", id);
	if (!m)
		return;
	if (strcmp(method, "ping") == 0)
		json_object_set_new(m, "result", json_object());
	else if (strcmp(method, "roots/list") == 0)
		json_object_set_new(m, "result", json_pack("{s:[]}", "roots"));
	else
		json_object_set_new(
			m, "error",
			json_pack("{s:i, s:s}", "code", -32601, "message",
				  "sandboxd-mcp does not offer this to upstream servers"));
	srv_send(s, m);
	json_decref(m);
}

static struct ucall *call_by_rpc(struct mup *u, struct server *s, long long id)
{
	for (struct ucall *c = u->calls; c; c = c->next)
		if (c->s == s && c->rpc_id == id && !c->fail)
			return c;
	return NULL;
}

static void on_call_answer(struct ucall *c, json_t *result, json_t *error)
{
	struct server *s = c->s;
	if (error) {
		const char *msg = json_string_value(json_object_get(error, "message"));
		char *text = NULL;
		if (asprintf(&text, "%s.%s: %s", s->cfg->name, c->tool,
			     msg ? msg : "the server answered an error without a message") < 0)
			text = NULL;
		call_end(c, MUP_ERROR, NULL, text ? text : "the upstream tool failed");
		free(text);
		return;
	}
	const char *rt = json_string_value(json_object_get(result, "resultType"));
	if (rt && strcmp(rt, "complete") != 0) {
		char *text = NULL;
		if (asprintf(&text,
			     "%s.%s: the server asked for input (resultType %s), which a script "
			     "cannot give",
			     s->cfg->name, c->tool, rt) < 0)
			text = NULL;
		call_end(c, MUP_ERROR, NULL, text ? text : "the upstream tool asked for input");
		free(text);
		return;
	}
	json_t *value;
	char *err;
	int rc = mname_unwrap(result, &value, &err);
	if (rc == 0)
		call_end(c, MUP_OK, value, NULL);
	else
		call_end(c, MUP_ERROR, NULL, err ? err : "out of memory unwrapping the result");
	json_decref(value);
	free(err);
}

static void handle_line(struct server *s, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (!len)
		return;
	/* NULs are allowed: one in a tool's result reaches the script as the
	 * daemon takes it; one in a tool's name only drops that tool (not the
	 * whole page it came in). */
	json_error_t jerr;
	json_t *msg = jnum_loadb(line, len, JSON_ALLOW_NUL, &jerr);
	if (!json_is_object(msg)) {
		/* line is not NUL-terminated: the next lines follow it. */
		logf_(s, "wrote a line that is not a JSON-RPC message (ignored: %s): %.*s",
		      msg ? "not an object" : jerr.text, (int)(len < 80 ? len : 80), line);
		json_decref(msg);
		return;
	}
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *id = json_object_get(msg, "id");
	if (method) {
		if (id)
			answer_server(s, msg, method);
		else if (strcmp(method, "notifications/tools/list_changed") == 0) {
			if (s->state == SRV_UP && !s->list_id) {
				if (list_start(s) < 0 && s->state != SRV_DOWN)
					logf_(s, "out of memory listing its tools again");
			} else {
				s->relist = true;
			}
		}
		json_decref(msg);
		return;
	}
	if (!json_is_integer(id)) {
		json_decref(msg);
		return;
	}
	long long n = json_integer_value(id);
	json_t *result = json_object_get(msg, "result");
	json_t *error = json_object_get(msg, "error");
	if (error && !json_is_object(error))
		error = json_pack("{s:s}", "message", "a malformed error");
	else
		json_incref(error);
	if (n == s->init_id && n)
		on_init(s, result, error);
	else if (n == s->discover_id && n)
		on_discover(s, result, error);
	else if (n == s->list_id && n) {
		s->list_bytes += len;
		on_list(s, result, error);
	} else {
		struct ucall *c = call_by_rpc(s->u, s, n);
		if (c)
			on_call_answer(c, result, error);
	}
	json_decref(error);
	json_decref(msg);
}

static void on_grace(struct ploop_timer *t) { srv_down(t->arg, "closed its stdout"); }

/* Reads at most reads times from the server's stdout, handling each line.
 * 0 when it would block, 1 at its end (EOF: the stdout is closed then),
 * -1 when the server went down. */
static int read_out(struct server *s, int reads)
{
	for (; reads > 0; reads--) {
		if (s->rcap - s->rlen < 65536) {
			size_t cap = s->rcap ? s->rcap * 2 : 65536;
			char *b = realloc(s->rbuf, cap);
			if (!b) {
				srv_down(s, "out of memory reading its stdout");
				return -1;
			}
			s->rbuf = b;
			s->rcap = cap;
		}
		ssize_t k = read(s->out_fd, s->rbuf + s->rlen, s->rcap - s->rlen);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return 0;
		if (k < 0) {
			srv_down(s, "its stdout failed: %s", strerror(errno));
			return -1;
		}
		if (k == 0) {
			close_fd(&s->w_out, &s->out_fd);
			return 1;
		}
		size_t start = 0, scan = s->rlen;
		s->rlen += (size_t)k;
		for (size_t i = scan; i < s->rlen; i++) {
			if (s->rbuf[i] != '\n')
				continue;
			handle_line(s, s->rbuf + start, i - start);
			/* The line may have ended the server (srv_down). */
			if (s->out_fd < 0)
				return -1;
			start = i + 1;
		}
		memmove(s->rbuf, s->rbuf + start, s->rlen - start);
		s->rlen -= start;
		if (s->rlen > LIMIT_MCP_UPSTREAM_LINE_BYTES) {
			srv_down(s, "wrote a line longer than %u bytes",
				 LIMIT_MCP_UPSTREAM_LINE_BYTES);
			return -1;
		}
	}
	return 0;
}

static void on_out(struct ploop_watch *w, unsigned events)
{
	struct server *s = w->arg;
	(void)events;
	if (read_out(s, 16) != 1)
		return;
	/* Its end: the exit status (through the pidfd) says more than the
	 * EOF, when the process ends soon after. */
	if (s->pidfd < 0 ||
	    ploop_timer_set(s->u->loop, &s->start_timer, LIMIT_MCP_STOP_MS, on_grace, s) < 0)
		srv_down(s, "closed its stdout");
}

static void flush_err(struct server *s)
{
	if (s->elen)
		fprintf(stderr, "[upstream %s] %.*s\n", s->cfg->name, (int)s->elen, s->ebuf);
	s->elen = 0;
}

static void on_err(struct ploop_watch *w, unsigned events)
{
	struct server *s = w->arg;
	(void)events;
	char buf[4096];
	ssize_t k = read(s->err_fd, buf, sizeof buf);
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		flush_err(s);
		close_fd(&s->w_err, &s->err_fd);
		return;
	}
	for (ssize_t i = 0; i < k; i++) {
		if (buf[i] == '\n') {
			flush_err(s);
			continue;
		}
		if (s->elen == sizeof s->ebuf)
			flush_err(s);
		s->ebuf[s->elen++] = buf[i];
	}
}

static void on_pid(struct ploop_watch *w, unsigned events)
{
	struct server *s = w->arg;
	(void)events;
	/* What it wrote before it ended is still read: a last answer. */
	int rc = 0;
	while (s->out_fd >= 0 && (rc = read_out(s, 16)) == 0) {
		struct pollfd pfd = {s->out_fd, POLLIN, 0};
		if (poll(&pfd, 1, 0) <= 0)
			break;
	}
	if (rc >= 0)
		srv_down(s, "%s", "");
}

static void on_start_timeout(struct ploop_timer *t)
{
	struct server *s = t->arg;
	srv_down(s, "did not finish initialize and tools/list within %u ms", LIMIT_MCP_START_MS);
}

/* ---- starting a server */

/* The bridge's environment with the server's env merged over it; a new
 * vector of borrowed strings. */
static char **merged_env(const struct mcfg_server *cfg)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + cfg->envc + 1, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool over = false;
		for (size_t j = 0; j < cfg->envc && !over; j++)
			over = strncmp(cfg->env[j], environ[i], klen) == 0 &&
			       cfg->env[j][klen] == '=';
		if (!over)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < cfg->envc; j++)
		env[k++] = cfg->env[j];
	env[k] = NULL;
	return env;
}

/* What the child reports through the exec pipe before it gives up. */
struct exec_report {
	int stage; /* 0 chdir, 1 exec */
	int err;
};

static void child(const struct mcfg_server *cfg, char **env, int in, int out, int err, int rep)
{
	struct exec_report r = {0, 0};
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail;
	/* Every other fd closes at exec (the report pipe among them). */
	syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
	signal(SIGPIPE, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (cfg->cwd && chdir(cfg->cwd) < 0)
		goto fail;
	r.stage = 1;
	execvpe(cfg->argv[0], cfg->argv, env);
fail:
	r.err = errno;
	if (write(rep, &r, sizeof r) < 0)
		_exit(126);
	_exit(127);
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void srv_start(struct server *s)
{
	int p[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
	char **env = merged_env(s->cfg);
	s->state = SRV_STARTING;
	s->modern = false;
	for (int i = 0; i < 4; i++)
		if (pipe2(p[i], O_CLOEXEC) < 0) {
			int e = errno;
			for (int j = 0; j < i; j++) {
				close(p[j][0]);
				close(p[j][1]);
			}
			free(env);
			srv_down(s, "failed to start: pipe: %s", strerror(e));
			return;
		}
	pid_t pid = env ? fork() : -1;
	if (pid == 0)
		child(s->cfg, env, p[0][0], p[1][1], p[2][1], p[3][1]);
	int fork_errno = env ? errno : ENOMEM;
	free(env);
	close(p[0][0]);
	close(p[1][1]);
	close(p[2][1]);
	close(p[3][1]);
	s->in_fd = p[0][1];
	s->out_fd = p[1][0];
	s->err_fd = p[2][0];
	if (pid < 0) {
		close(p[3][0]);
		srv_down(s, "failed to start: fork: %s", strerror(fork_errno));
		return;
	}
	s->pid = pid;
	struct exec_report r;
	ssize_t k;
	while ((k = read(p[3][0], &r, sizeof r)) < 0 && errno == EINTR)
		;
	close(p[3][0]);
	if (k == (ssize_t)sizeof r) {
		/* It gave up before exec: its exit status says nothing more. */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		s->pid = -1;
		if (r.stage == 0)
			srv_down(s, "failed to start: cwd %s: %s", s->cfg->cwd, strerror(r.err));
		else
			srv_down(s, "failed to start: cannot run %s: %s", s->cfg->argv[0],
				 strerror(r.err));
		return;
	}
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (nonblock(s->in_fd) < 0 || nonblock(s->out_fd) < 0 || nonblock(s->err_fd) < 0 ||
	    ploop_watch_add(s->u->loop, &s->w_in, s->in_fd, 0, on_in, s) < 0 ||
	    ploop_watch_add(s->u->loop, &s->w_out, s->out_fd, PLOOP_READ, on_out, s) < 0 ||
	    ploop_watch_add(s->u->loop, &s->w_err, s->err_fd, PLOOP_READ, on_err, s) < 0 ||
	    (s->pidfd >= 0 &&
	     ploop_watch_add(s->u->loop, &s->w_pid, s->pidfd, PLOOP_READ, on_pid, s) < 0) ||
	    ploop_timer_set(s->u->loop, &s->start_timer, LIMIT_MCP_START_MS, on_start_timeout, s) <
		    0) {
		srv_down(s, "failed to start: out of memory");
		return;
	}
	json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion",
				   legacy_versions[0], "capabilities", "clientInfo", "name",
				   "sandboxd-mcp", "version", SANDBOXD_VERSION);
	s->init_id = srv_request(s, "initialize", params);
	/* A server that exits at once is down already, for the reason it
	 * gave (its exit status), which must stay the reason said. */
	if (s->init_id < 0 && s->state != SRV_DOWN)
		srv_down(s, "failed to start: out of memory");
}

/* ---- calls */

static void call_free(struct ucall *c)
{
	struct mup *u = c->u;
	ploop_timer_cancel(&c->timer);
	if (c->prev)
		c->prev->next = c->next;
	else
		u->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c->exec_id);
	free(c->tool);
	free(c->fail);
	json_decref(c->args);
	free(c);
}

/* Ends a call (value and error borrowed) and frees it. */
static void call_end(struct ucall *c, enum mup_outcome o, json_t *value, const char *error)
{
	mup_result_fn *done = c->done;
	void *arg = c->arg;
	call_free(c);
	done(arg, o, value, error);
}

/* Tells the server a sent call is no longer waited for. */
static void cancel_upstream(struct ucall *c, const char *reason)
{
	if (!c->rpc_id || !c->s || c->s->state == SRV_DOWN)
		return;
	srv_notify(c->s, "notifications/cancelled",
		   json_pack("{s:I, s:s}", "requestId", (json_int_t)c->rpc_id, "reason", reason));
}

static void on_call_timer(struct ploop_timer *t)
{
	struct ucall *c = t->arg;
	if (c->fail) {
		char *msg = c->fail;
		c->fail = NULL;
		call_end(c, MUP_ERROR, NULL, msg);
		free(msg);
		return;
	}
	cancel_upstream(c, "the execution's time ran out");
	call_end(c, MUP_ABANDONED, NULL, NULL);
}

static void send_call(struct ucall *c)
{
	if (c->s->state != SRV_UP || c->fail)
		return; /* it went down meanwhile: c fails on its timer */
	json_t *params = json_pack("{s:s, s:O}", "name", c->tool, "arguments", c->args);
	c->rpc_id = srv_request(c->s, "tools/call", params);
	if (c->rpc_id < 0 && c->s->state == SRV_DOWN) {
		c->rpc_id = 0; /* srv_down failed it, saying why */
		return;
	}
	if (c->rpc_id < 0) {
		c->rpc_id = 0;
		c->fail = strdup("out of memory sending the call upstream");
		ploop_timer_set(c->u->loop, &c->timer, 0, on_call_timer, c);
	}
}

static struct server *server_by_ident(struct mup *u, const char *ident, size_t len)
{
	for (size_t i = 0; i < u->n; i++)
		if (strlen(u->servers[i].ident) == len &&
		    memcmp(u->servers[i].ident, ident, len) == 0)
			return &u->servers[i];
	return NULL;
}

static struct tool *tool_by_ident(struct server *s, const char *ident)
{
	for (size_t i = 0; i < s->ntools; i++)
		if (strcmp(s->tools[i].ident, ident) == 0)
			return &s->tools[i];
	return NULL;
}

/* Fails c on its timer with a message (printf-style). */
static int fail_later(struct ucall *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(c->fail);
	if (vasprintf(&c->fail, fmt, ap) < 0)
		c->fail = strdup("out of memory");
	va_end(ap);
	return ploop_timer_set(c->u->loop, &c->timer, 0, on_call_timer, c);
}

int mup_call(struct mup *u, const char *exec_id, const char *name, json_t *args,
	     uint64_t deadline_ms, mup_result_fn *done, void *arg)
{
	struct ucall *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->u = u;
	c->timer = (struct ploop_timer)PLOOP_TIMER_INIT;
	c->done = done;
	c->arg = arg;
	c->exec_id = strdup(exec_id ? exec_id : "");
	c->args = args ? json_incref(args) : json_object();
	if (!c->exec_id || !c->args) {
		free(c->exec_id);
		json_decref(c->args);
		free(c);
		return -1;
	}
	c->next = u->calls;
	if (u->calls)
		u->calls->prev = c;
	u->calls = c;
	const char *dot = strchr(name, '.');
	struct server *s = dot ? server_by_ident(u, name, (size_t)(dot - name)) : NULL;
	struct tool *t = s ? tool_by_ident(s, dot + 1) : NULL;
	if (!t)
		return fail_later(c, "%s: no such upstream tool", name);
	c->s = s;
	if (!(c->tool = strdup(t->name)))
		return fail_later(c, "out of memory");
	if (s->state == SRV_DOWN) {
		uint64_t left = wait_left(s);
		if (left)
			return fail_later(c,
					  "upstream server %s is down (%s); it is restarted on a "
					  "call made %llu ms from now or later",
					  s->cfg->name, s->why ? s->why : "it failed",
					  (unsigned long long)left);
		srv_start(s);
		if (s->state == SRV_DOWN) /* failed at once; c has failed with it */
			return 0;
	}
	if (deadline_ms) {
		uint64_t now = ploop_now_ms();
		if (ploop_timer_set(u->loop, &c->timer, deadline_ms > now ? deadline_ms - now : 0,
				    on_call_timer, c) < 0)
			return fail_later(c, "out of memory");
	}
	if (s->state == SRV_UP)
		send_call(c);
	return 0;
}

void mup_cancel_exec(struct mup *u, const char *exec_id)
{
	for (struct ucall *c = u->calls, *next; c; c = next) {
		next = c->next;
		if (strcmp(c->exec_id, exec_id) != 0)
			continue;
		/* A call the callback might free the next of is not a
		 * concern: callbacks may not call into mup_cancel_exec's
		 * list but through new calls, which go to the head. */
		cancel_upstream(c, "the execution ended");
		call_end(c, MUP_ABANDONED, NULL, NULL);
	}
}

size_t mup_calls_running(const struct mup *u)
{
	size_t n = 0;
	for (const struct ucall *c = u->calls; c; c = c->next)
		n++;
	return n;
}

/* ---- the set */

struct mup *mup_new(struct ploop *loop, struct mcfg *cfg, mup_changed_fn *changed, void *arg)
{
	struct mup *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->loop = loop;
	u->cfg = cfg;
	u->changed = changed;
	u->changed_arg = arg;
	u->n = cfg->count;
	u->servers = calloc(u->n ? u->n : 1, sizeof *u->servers);
	const char **names = calloc(u->n ? u->n : 1, sizeof *names);
	char **idents = calloc(u->n ? u->n : 1, sizeof *idents);
	if (!u->servers || !names || !idents)
		goto fail;
	for (size_t i = 0; i < u->n; i++)
		names[i] = cfg->servers[i].name;
	if (mname_assign(names, u->n, idents) < 0)
		goto fail;
	for (size_t i = 0; i < u->n; i++) {
		struct server *s = &u->servers[i];
		s->u = u;
		s->cfg = &cfg->servers[i];
		s->ident = idents[i];
		s->pid = -1;
		s->pidfd = s->in_fd = s->out_fd = s->err_fd = -1;
		s->w_in = s->w_out = s->w_err = s->w_pid = (struct ploop_watch)PLOOP_WATCH_INIT;
		s->start_timer = (struct ploop_timer)PLOOP_TIMER_INIT;
	}
	free(names);
	free(idents);
	return u;
fail:
	free(names);
	free(idents);
	free(u->servers);
	free(u);
	return NULL;
}

/* Asks a server to stop: EOF on its stdin, SIGTERM. */
static void srv_ask_stop(struct server *s)
{
	close_fd(&s->w_in, &s->in_fd);
	if (s->pid > 0)
		kill(s->pid, SIGTERM);
}

/* Waits for an asked server until end_ms, SIGKILLs it after, reaps it. */
static void srv_stop(struct server *s, uint64_t end_ms)
{
	if (s->pid > 0) {
		if (s->pidfd >= 0) {
			struct pollfd pfd = {s->pidfd, POLLIN, 0};
			uint64_t now;
			while ((now = ploop_now_ms()) < end_ms &&
			       poll(&pfd, 1, (int)(end_ms - now)) < 0 && errno == EINTR)
				;
		}
		int status;
		if (waitpid(s->pid, &status, WNOHANG) != s->pid) {
			kill(s->pid, SIGKILL);
			while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
				;
		}
		s->pid = -1;
	}
	flush_err(s);
	srv_close(s);
}

void mup_free(struct mup *u)
{
	if (!u)
		return;
	while (u->calls) {
		cancel_upstream(u->calls, "the bridge is stopping");
		call_end(u->calls, MUP_ABANDONED, NULL, NULL);
	}
	/* All are asked at once, and given LIMIT_MCP_STOP_MS together. */
	for (size_t i = 0; i < u->n; i++)
		srv_ask_stop(&u->servers[i]);
	uint64_t end = ploop_now_ms() + LIMIT_MCP_STOP_MS;
	for (size_t i = 0; i < u->n; i++) {
		struct server *s = &u->servers[i];
		srv_stop(s, end);
		free(s->ident);
		free(s->wbuf);
		free(s->rbuf);
		free(s->why);
		free_tools(s->tools, s->ntools);
	}
	while (u->waiters) {
		struct waiter *w = u->waiters;
		u->waiters = w->next;
		free(w);
	}
	free(u->servers);
	mcfg_free(u->cfg);
	free(u);
}

int mup_prepare(struct mup *u, mup_ready_fn *ready, void *arg)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->servers[i].state == SRV_DOWN && !wait_left(&u->servers[i]))
			srv_start(&u->servers[i]);
	if (!any_starting(u)) {
		ready(arg);
		return 0;
	}
	struct waiter *w = malloc(sizeof *w);
	if (!w)
		return -1;
	*w = (struct waiter){ready, arg, u->waiters};
	u->waiters = w;
	return 0;
}

bool mup_configured(const struct mup *u) { return u && u->n > 0; }

/* Whether every word of query appears in one of the texts. */
static bool matches(const char *query, const char *a, const char *b, const char *c)
{
	const char *p = query;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			return true;
		size_t n = strcspn(p, " \t,");
		char word[128];
		if (n >= sizeof word)
			n = sizeof word - 1;
		memcpy(word, p, n);
		word[n] = '\0';
		if (!strcasestr(a, word) && !strcasestr(b, word) && !strcasestr(c, word))
			return false;
		p += n;
	}
}

/* Values in v, counting no deeper than depth levels; SIZE_MAX when v is
 * nested deeper. */
static size_t values(json_t *v, int depth)
{
	if (depth <= 0)
		return SIZE_MAX;
	size_t n = 1, k;
	const char *key;
	json_t *e;
	if (json_is_object(v)) {
		json_object_foreach (v, key, e) {
			size_t m = values(e, depth - 1);
			if (m == SIZE_MAX)
				return SIZE_MAX;
			n += m;
		}
	} else if (json_is_array(v)) {
		json_array_foreach (v, k, e) {
			size_t m = values(e, depth - 1);
			if (m == SIZE_MAX)
				return SIZE_MAX;
			n += m;
		}
	}
	return n;
}

/* A schema is declared when the daemon takes it: an object of at most 64
 * KiB, nested at most LIMIT_MCP_SCHEMA_DEPTH deep (the request around it
 * adds three levels to the daemon's 64). Else the tool goes without it
 * (its arguments are then unknown to the declarations, not refused). The
 * values are added to *nodes. */
static json_t *schema_or_null(json_t *schema, size_t *nodes)
{
	if (!json_is_object(schema))
		return NULL;
	size_t n = values(schema, LIMIT_MCP_SCHEMA_DEPTH);
	if (n == SIZE_MAX)
		return NULL;
	char *text = jnum_dumps(schema, JSON_COMPACT);
	size_t len = text ? strlen(text) : SIZE_MAX;
	free(text);
	if (len > 64u * 1024u)
		return NULL;
	*nodes += n;
	return schema;
}

json_t *mup_tools(struct mup *u, const char *query, size_t max)
{
	json_t *a = json_array();
	size_t bytes = 0, nodes = 1, declared = 0;
	for (size_t i = 0; a && i < u->n; i++) {
		struct server *s = &u->servers[i];
		for (size_t j = 0; j < s->ntools; j++) {
			struct tool *t = &s->tools[j];
			char name[LIMIT_TOOL_NAME + 1];
			snprintf(name, sizeof name, "%s.%s", s->ident, t->ident);
			const char *desc =
				json_string_value(json_object_get(t->def, "description"));
			/* A search looks among the tools a script can call: the
			 * budgets below are counted over all of them, in order,
			 * whether they match or not. */
			if (declared >= LIMIT_TOOLS || (max && json_array_size(a) >= max))
				return a;
			declared++;
			size_t n = 4; /* the tool's object, name, description */
			json_t *in = schema_or_null(json_object_get(t->def, "inputSchema"), &n);
			json_t *out = schema_or_null(json_object_get(t->def, "outputSchema"), &n);
			/* The daemon takes LIMIT_TOOLS_NODES values of tools in
			 * all: the tools past them are left out. */
			if (nodes + n > LIMIT_TOOLS_NODES - 16)
				return a;
			nodes += n;
			json_t *d = json_pack("{s:s, s:s}", "name", name, "description",
					      desc ? desc : "");
			if (!d) {
				json_decref(a);
				return NULL;
			}
			if (in)
				json_object_set(d, "input_schema", in);
			if (out)
				json_object_set(d, "output_schema", out);
			char *text = jnum_dumps(d, JSON_COMPACT);
			bytes += text ? strlen(text) : 0;
			free(text);
			/* The daemon takes 1 MiB of tools in all. */
			if (bytes > LIMIT_TOOLS_BYTES - 4096) {
				json_decref(d);
				return a;
			}
			if (query && !matches(query, name, t->name, desc ? desc : ""))
				json_decref(d);
			else
				json_array_append_new(a, d);
		}
	}
	return a;
}

json_t *mup_problems(struct mup *u)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < u->n; i++) {
		struct server *s = &u->servers[i];
		if (s->state != SRV_DOWN || (!s->why && !s->failures))
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s}", "server", s->cfg->name, "error",
						   s->why ? s->why : "it has not started"));
	}
	return a;
}

char *mup_catalogue(struct mup *u, size_t max)
{
	size_t len = 0, cap = max + 8;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < u->n; i++) {
		struct server *s = &u->servers[i];
		for (size_t j = 0; j < s->ntools; j++) {
			char item[LIMIT_TOOL_NAME + 16];
			int n = snprintf(item, sizeof item, "%stools.%s.%s", len ? ", " : "",
					 s->ident, s->tools[j].ident);
			if (len + (size_t)n > max) {
				memcpy(out + len, len ? ", ..." : "...", len ? 6 : 4);
				return out;
			}
			memcpy(out + len, item, (size_t)n + 1);
			len += (size_t)n;
		}
	}
	return out;
}

int mup_server_pid(const struct mup *u, const char *server)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->servers[i].cfg->name, server) == 0)
			return u->servers[i].pid > 0 ? (int)u->servers[i].pid : -1;
	return -1;
}
