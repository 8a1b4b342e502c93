/*
 * mcp_toolrun.c - the bridge's tools run over one daemon connection: each
 * tools/call becomes a daemon request (sdc, event-loop mode, on ploop),
 * its events become progress notifications and tool calls for code mode,
 * and its final reply the tool's result (mcp_tools.c renders it).
 *
 * One struct run per tools/call, from the call to the daemon's final reply
 * (or the connection's end). A call the host cancels ends at once (mrpc
 * sends nothing for it afterwards) and its execution is cancelled on the
 * daemon by the id the `started` event (or the async reply) gave; the run
 * stays until the daemon's final reply, so that code mode hears the
 * execution ended.
 */
#include "mcp_tools.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "mcp_rpc.h"
#include "ploop.h"
#include "sdc.h"

struct run;

struct bg;

/* A tool_call event waiting for code mode's answer. Not live once the
 * execution ended: the answer is then only freed. run is the call's run,
 * or for a background execution's call (which came to no request) bg its
 * execution; both NULL once it is not live. */
struct mtool_call {
	struct mtool *t;
	struct run *run;
	struct bg *bg;
	bool live;
	json_t *event;
	struct mtool_call *next;
};

struct tool_slot {
	struct mtool *t;
	enum mtool_id id;
};

struct run {
	struct mtool *t;
	struct mrpc_call *call; /* NULL once the call was ended */
	enum mtool_id id;
	const char *op;	     /* the daemon op sent */
	long long rid;	     /* the daemon request's id; 0 when not registered */
	char *exec_id;	     /* once known: `started`, or the reply */
	bool cancel_wanted;  /* the host cancelled before exec_id was known */
	bool declared;	     /* code mode gave tools for it */
	bool queued;	     /* `started` said pending */
	uint64_t timeout_ms; /* the request's; 0: the daemon's default */
	uint64_t base_ms;    /* its timeout counts from here (code mode's calls) */
	/* stream: the first LIMIT_MCP_OUTPUT_BYTES of each stream, and their
	 * whole lengths. */
	struct buf out, err;
	uint64_t out_len, err_len;
	/* progress */
	bool progress;
	double progress_n;
	uint64_t last_progress_ms;
	char *last_line;
	bool line_unsent;
	struct ploop_timer heartbeat, throttle;
	struct mtool_call *calls;
	struct run *prev, *next;
};

/*
 * A background (async) execution the bridge started. Its tool calls come
 * as frames of no request, so the bridge keeps what bounds them (the
 * timeout, counted from the async reply when it was running then, else
 * from its first call: it cannot run past either) and, while calls of it
 * wait, a `status` long-poll: when that says it ended, the calls end
 * (code mode cancels them upstream) even if the host never asks.
 */
struct bg {
	struct mtool *t;
	char *exec_id;
	uint64_t timeout_ms;	   /* the request's; 0: the daemon's default */
	uint64_t base_ms;	   /* 0 until known */
	long long poll_rid;	   /* the long-poll's request id; 0: none */
	uint64_t out_off, err_off; /* the poll reads no output twice */
	struct mtool_call *calls;
	struct bg *prev, *next;
};

struct mtool {
	struct ploop *loop;
	struct mrpc *rpc;
	char *socket_path;
	struct mtool_limits lim;
	char *store_file;
	json_t *store;
	struct sdc *conn;
	struct ploop_watch watch;
	struct ploop_timer reap; /* closes a failed connection outside its handlers */
	struct run *runs;
	struct tool_slot slots[MTOOL_COUNT];
	struct mtool_codemode cm;
	char *suffix;
	struct bg *bgs, *bgs_tail; /* async executions started, oldest first */
	size_t nbg;
	uint64_t daemon_timeout_ms; /* health's limits.timeout_ms; 0: not known */
	bool shutting_down;
	unsigned cancels_pending;
	void (*shutdown_done)(void *);
	void *shutdown_arg;
	struct ploop_timer shutdown_timer;
};

static void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sandboxd-mcp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- The store. */

/*
 * Writes the store to t->store_file atomically: a temporary file beside it
 * (mode 0600), fsync, rename over, fsync of the directory. 0, or -1 (logged).
 */
static int store_save(struct mtool *t)
{
	if (!t->store_file)
		return 0;
	char *tmp = NULL, *dirc = NULL;
	int fd = -1, rc = -1;
	char *text = jnum_dumps(t->store, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text || asprintf(&tmp, "%s.tmp.%ld", t->store_file, (long)getpid()) < 0) {
		tmp = NULL;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		off += (size_t)n;
	}
	if (write(fd, "\n", 1) != 1 || fsync(fd) < 0)
		goto out;
	if (close(fd) < 0) {
		fd = -1;
		goto out;
	}
	fd = -1;
	if (rename(tmp, t->store_file) < 0)
		goto out;
	dirc = strdup(t->store_file);
	if (dirc) {
		int dfd = open(dirname(dirc), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	rc = 0;
out:
	if (rc < 0) {
		log_msg("--store-file %s: cannot write it: %s", t->store_file, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (tmp)
			unlink(tmp);
	}
	free(tmp);
	free(dirc);
	free(text);
	return rc;
}

/* Loads t->store from the file: a missing file is an empty store. */
static int store_load(struct mtool *t, char **why)
{
	t->store = json_object();
	if (!t->store)
		return -1;
	if (!t->store_file)
		return 0;
	json_error_t e;
	json_t *v = jnum_load_file(t->store_file, JSON_REJECT_DUPLICATES, &e);
	if (!v) {
		if (access(t->store_file, F_OK) < 0 && errno == ENOENT)
			return 0;
		if (asprintf(why, "--store-file %s: %s (line %d)", t->store_file, e.text, e.line) <
		    0)
			*why = NULL;
		return -1;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		if (asprintf(why, "--store-file %s: not a JSON object", t->store_file) < 0)
			*why = NULL;
		return -1;
	}
	json_decref(t->store);
	t->store = v;
	return 0;
}

/* Applies a successful execution's store_writes and saves the store. */
static void store_apply(struct mtool *t, const json_t *writes)
{
	if (!json_is_object(writes))
		return;
	const json_t *set = json_object_get(writes, "set");
	const json_t *del = json_object_get(writes, "delete");
	if (json_object_size(set) == 0 && json_array_size(del) == 0)
		return;
	const char *key;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach((json_t *)set, key, klen, v)
		json_object_setn(t->store, key, klen, v);
	size_t i;
	json_array_foreach (del, i, v) {
		if (json_is_string(v))
			json_object_deln(t->store, json_string_value(v), json_string_length(v));
	}
	store_save(t);
}

/* ---- The daemon connection. */

static void tool_call(struct mtool *t, struct run *r, json_t *ev);

static void conn_watch_update(struct mtool *t)
{
	if (t->conn)
		ploop_watch_set(&t->watch,
				PLOOP_READ | (sdc_want_write(t->conn) ? PLOOP_WRITE : 0u));
}

static void conn_drop(struct mtool *t)
{
	struct sdc *c = t->conn;
	if (!c)
		return;
	ploop_watch_del(&t->watch);
	t->conn = NULL;
	sdc_close(c); /* handlers still registered get their NULL frame */
}

/* Frames of no request: a background execution's tool calls. */
static void on_other_frame(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct mtool *t = arg;
	const char *ev = json_string_value(json_object_get(frame, "event"));
	if (ev && strcmp(ev, "tool_call") == 0)
		tool_call(t, NULL, frame);
}

static void on_reap(struct ploop_timer *tm)
{
	struct mtool *t = tm->arg;
	if (t->conn && sdc_status(t->conn) != SDC_OK) {
		log_msg("the daemon connection failed: %s", sdc_error(t->conn));
		conn_drop(t);
	}
}

static void on_conn(struct ploop_watch *w, unsigned events)
{
	struct mtool *t = w->arg;
	int rc = SDC_OK;
	if (events & (PLOOP_READ | PLOOP_HUP))
		rc = sdc_on_readable(t->conn);
	if (rc == SDC_OK && (events & PLOOP_WRITE))
		rc = sdc_on_writable(t->conn);
	if (rc != SDC_OK) {
		log_msg("the daemon connection failed: %s", sdc_error(t->conn));
		conn_drop(t);
		return;
	}
	conn_watch_update(t);
}

/* health's answer: the daemon's default timeout, which bounds the code
 * mode calls of executions that name none. */
static void on_health(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct mtool *t = arg;
	if (!frame || !sdc_is_final(frame))
		return;
	const json_t *v = json_object_get(json_object_get(frame, "limits"), "timeout_ms");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		t->daemon_timeout_ms = (uint64_t)json_integer_value(v);
}

/* The connection, dialled when there is none (and asked for health's
 * limits). NULL with *why (static or the connection's message, borrowed
 * until the next call). */
static struct sdc *conn_get(struct mtool *t, const char **why)
{
	static char msg[512];
	if (t->conn && sdc_status(t->conn) != SDC_OK)
		conn_drop(t);
	if (t->conn)
		return t->conn;
	struct sdc *c = sdc_connect(t->socket_path, FRAME_MODE_BINARY, SDC_NONBLOCK);
	if (!c) {
		snprintf(msg, sizeof msg, "cannot connect to the daemon at %s: %s", t->socket_path,
			 strerror(errno));
		*why = msg;
		return NULL;
	}
	if (ploop_watch_add(t->loop, &t->watch, sdc_fd(c), PLOOP_READ, on_conn, t) < 0) {
		sdc_close(c);
		*why = "out of memory";
		return NULL;
	}
	sdc_set_default(c, on_other_frame, t);
	t->conn = c;
	json_t *health = json_pack("{s:s}", "op", "health");
	if (health && sdc_request(c, health, on_health, t) > 0)
		conn_watch_update(t);
	json_decref(health);
	return c;
}

/* Sends req with handler fn; dials again once if the connection turns out
 * to be dead. The request id (> 0), or 0 with *why. */
static long long conn_send(struct mtool *t, json_t *req, sdc_handler *fn, void *arg,
			   const char **why)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		struct sdc *c = conn_get(t, why);
		if (!c)
			return 0;
		long long id = sdc_request(c, req, fn, arg);
		if (id > 0) {
			conn_watch_update(t);
			return id;
		}
		if (id == SDC_EINVAL) {
			*why = "the request cannot be encoded";
			return 0;
		}
		*why = sdc_error(c);
		conn_drop(t);
	}
	return 0;
}

/* ---- Runs. */

static void run_free(struct run *r)
{
	struct mtool *t = r->t;
	if (r->prev)
		r->prev->next = r->next;
	else
		t->runs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	ploop_timer_cancel(&r->heartbeat);
	ploop_timer_cancel(&r->throttle);
	buf_free(&r->out);
	buf_free(&r->err);
	free(r->exec_id);
	free(r->last_line);
	free(r);
}

/* Ends the host's call with result (stolen), if it is still open. */
static void run_answer(struct run *r, json_t *result)
{
	if (!r->call) {
		json_decref(result);
		return;
	}
	struct mrpc_call *call = r->call;
	r->call = NULL;
	ploop_timer_cancel(&r->heartbeat);
	ploop_timer_cancel(&r->throttle);
	mrpc_call_result(call, result);
}

/* The execution ended: its code mode calls are orphaned, code mode told. */
static void run_execution_ended(struct run *r)
{
	for (struct mtool_call *c = r->calls; c; c = c->next) {
		c->run = NULL;
		c->live = false;
	}
	r->calls = NULL;
	if (r->declared && r->exec_id && r->t->cm.execution_ended)
		r->t->cm.execution_ended(r->t->cm.ctx, r->exec_id);
	r->declared = false;
}

static void send_cancel(struct mtool *t, const char *exec_id, sdc_handler *fn, void *arg);

/* The timeout an execution runs under: the request's, else the daemon's
 * default (health), else the documented default. */
static uint64_t timeout_of(const struct mtool *t, uint64_t requested)
{
	if (requested)
		return requested;
	return t->daemon_timeout_ms ? t->daemon_timeout_ms : LIMIT_TIMEOUT_MS_DEFAULT;
}

static struct bg *bg_find(struct mtool *t, const char *exec_id)
{
	for (struct bg *b = t->bgs; exec_id && b; b = b->next)
		if (strcmp(b->exec_id, exec_id) == 0)
			return b;
	return NULL;
}

/* Forgets b: its calls are no longer live (their answers only freed), its
 * poll dropped. Code mode is not told (bg_ended does that). */
static void bg_free(struct mtool *t, struct bg *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		t->bgs = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		t->bgs_tail = b->prev;
	t->nbg--;
	for (struct mtool_call *c = b->calls; c; c = c->next) {
		c->bg = NULL;
		c->live = false;
	}
	if (b->poll_rid && t->conn)
		sdc_forget(t->conn, b->poll_rid);
	free(b->exec_id);
	free(b);
}

/* b has ended (or can no longer be answered): forgotten, and code mode
 * told, so that its upstream calls are cancelled. */
static void bg_ended(struct mtool *t, struct bg *b)
{
	char *id = b->exec_id;
	b->exec_id = NULL;
	bg_free(t, b);
	if (id && t->cm.execution_ended)
		t->cm.execution_ended(t->cm.ctx, id);
	free(id);
}

/*
 * Remembers an async execution (to bound and end its calls, and to cancel
 * it at the session's end): timeout_ms the request's (0: the daemon's
 * default); running when the reply said so (its timeout then counts from
 * now at the latest). Past LIMIT_MCP_BACKGROUND, the oldest with no call
 * waiting is forgotten (else the oldest, ended). NULL when out of memory.
 */
static struct bg *remember_background(struct mtool *t, const char *exec_id, uint64_t timeout_ms,
				      bool running)
{
	if (t->nbg >= LIMIT_MCP_BACKGROUND) {
		struct bg *old = t->bgs;
		while (old && old->calls)
			old = old->next;
		if (old)
			bg_free(t, old);
		else
			bg_ended(t, t->bgs);
	}
	struct bg *b = calloc(1, sizeof *b);
	if (b)
		b->exec_id = strdup(exec_id);
	if (!b || !b->exec_id) {
		free(b);
		return NULL;
	}
	b->t = t;
	b->timeout_ms = timeout_ms;
	b->base_ms = running ? ploop_now_ms() : 0;
	b->prev = t->bgs_tail;
	if (t->bgs_tail)
		t->bgs_tail->next = b;
	else
		t->bgs = b;
	t->bgs_tail = b;
	t->nbg++;
	return b;
}

static bool is_background(struct mtool *t, const char *exec_id)
{
	return bg_find(t, exec_id) != NULL;
}

static void bg_poll(struct bg *b);

/* The long-poll's answer: the execution ended (its calls end with it), or
 * the wait passed (polled again while calls of it wait). */
static void on_bg_poll(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct bg *b = arg;
	struct mtool *t = b->t;
	if (frame && !sdc_is_final(frame))
		return;
	b->poll_rid = 0;
	if (!frame || !json_is_true(json_object_get(frame, "ok"))) {
		/* The connection is gone (nobody can answer its calls now),
		 * or the daemon no longer knows it. */
		bg_ended(t, b);
		return;
	}
	const char *state = json_string_value(json_object_get(frame, "state"));
	if (!state || (strcmp(state, "pending") != 0 && strcmp(state, "running") != 0)) {
		/* Seen ended here first: its writes are applied here. */
		if (json_is_true(json_object_get(frame, "success")))
			store_apply(t, json_object_get(frame, "store_writes"));
		bg_ended(t, b);
		return;
	}
	const json_t *on = json_object_get(frame, "stdout_next");
	const json_t *en = json_object_get(frame, "stderr_next");
	if (json_is_integer(on))
		b->out_off = (uint64_t)json_integer_value(on);
	if (json_is_integer(en))
		b->err_off = (uint64_t)json_integer_value(en);
	if (b->calls)
		bg_poll(b);
}

/* Starts b's long-poll unless one runs: `status` with wait, from the output
 * already seen on (so its chunk is only what is new). */
static void bg_poll(struct bg *b)
{
	struct mtool *t = b->t;
	if (b->poll_rid || t->shutting_down)
		return;
	json_t *req = json_pack("{s:s, s:s, s:b, s:I, s:I}", "op", "status", "execution_id",
				b->exec_id, "wait", 1, "stdout_offset", (json_int_t)b->out_off,
				"stderr_offset", (json_int_t)b->err_off);
	const char *why = NULL;
	long long rid = req ? conn_send(t, req, on_bg_poll, b, &why) : 0;
	json_decref(req);
	if (rid > 0)
		b->poll_rid = rid;
	else
		log_msg("execution %s: cannot watch for its end: %s", b->exec_id,
			why ? why : "out of memory");
}

/* Sends a progress notification now: the next count, the last line. */
static void progress_send(struct run *r)
{
	if (!r->call || !r->progress)
		return;
	r->progress_n += 1;
	const char *msg = r->last_line;
	char fallback[64];
	if (!msg) {
		snprintf(fallback, sizeof fallback, "%s",
			 r->exec_id ? "running" : "waiting for the daemon");
		msg = fallback;
	}
	mrpc_call_progress(r->call, r->progress_n, -1, msg);
	r->line_unsent = false;
	r->last_progress_ms = ploop_now_ms();
}

static void on_heartbeat(struct ploop_timer *tm)
{
	struct run *r = tm->arg;
	if (!r->call)
		return;
	if (ploop_now_ms() - r->last_progress_ms + 10 >= LIMIT_MCP_HEARTBEAT_MS)
		progress_send(r);
	uint64_t since = ploop_now_ms() - r->last_progress_ms;
	uint64_t wait = since >= LIMIT_MCP_HEARTBEAT_MS ? 1 : LIMIT_MCP_HEARTBEAT_MS - since;
	ploop_timer_set(r->t->loop, &r->heartbeat, wait, on_heartbeat, r);
}

static void on_throttle(struct ploop_timer *tm)
{
	struct run *r = tm->arg;
	if (r->line_unsent)
		progress_send(r);
}

/* New output of a stream run: kept (up to the cut), and its last line sent
 * as progress, at most one every LIMIT_MCP_PROGRESS_MS. */
static void run_output(struct run *r, const json_t *ev)
{
	const char *stream = json_string_value(json_object_get(ev, "stream"));
	const json_t *data = json_object_get(ev, "data");
	if (!stream || !json_is_string(data))
		return;
	const char *s = json_string_value(data);
	size_t len = json_string_length(data);
	bool is_err = strcmp(stream, "stderr") == 0;
	struct buf *b = is_err ? &r->err : &r->out;
	uint64_t *total = is_err ? &r->err_len : &r->out_len;
	uint64_t before = *total;
	*total += len;
	/* Kept while nothing before was left out, so the bytes kept are the
	 * stream's first ones, with no gap. */
	if (buf_len(b) == before && before < LIMIT_MCP_OUTPUT_BYTES) {
		size_t room = LIMIT_MCP_OUTPUT_BYTES - buf_len(b);
		/* Whole characters only: the rest is status's to give. */
		size_t n = len <= room ? len : room;
		while (n < len && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		buf_append(b, s, n);
	}
	if (!r->progress || !r->call)
		return;
	char *line = mtool_last_line(s, len);
	if (line) {
		free(r->last_line);
		r->last_line = line;
	}
	r->line_unsent = true;
	uint64_t now = ploop_now_ms();
	if (now - r->last_progress_ms >= LIMIT_MCP_PROGRESS_MS)
		progress_send(r);
	else if (!ploop_timer_armed(&r->throttle))
		ploop_timer_set(r->t->loop, &r->throttle,
				LIMIT_MCP_PROGRESS_MS - (now - r->last_progress_ms), on_throttle,
				r);
}

/* A tool_call event, of run r, or of a background execution (r NULL). */
static void tool_call(struct mtool *t, struct run *r, json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "name"));
	if (!t->cm.tool_call || !name) {
		sdc_tool_result(t->conn, ev, NULL, "no tool of that name is served by this bridge",
				NULL, NULL);
		conn_watch_update(t);
		return;
	}
	struct mtool_call *c = calloc(1, sizeof *c);
	if (!c) {
		sdc_tool_result(t->conn, ev, NULL, "out of memory", NULL, NULL);
		conn_watch_update(t);
		return;
	}
	c->t = t;
	c->run = r;
	c->live = true;
	c->event = json_incref(ev);
	const char *exec_id = json_string_value(json_object_get(ev, "execution_id"));
	uint64_t deadline;
	if (r) {
		c->next = r->calls;
		r->calls = c;
		deadline = r->base_ms + timeout_of(t, r->timeout_ms);
	} else {
		/* A background execution's: one the bridge does not know (one
		 * forgotten past LIMIT_MCP_BACKGROUND) is remembered now, its
		 * timeout the daemon's default. */
		struct bg *b = bg_find(t, exec_id);
		if (!b && exec_id)
			b = remember_background(t, exec_id, 0, false);
		if (b) {
			if (!b->base_ms)
				b->base_ms = ploop_now_ms(); /* it runs now at the latest */
			c->bg = b;
			c->next = b->calls;
			b->calls = c;
			deadline = b->base_ms + timeout_of(t, b->timeout_ms);
			bg_poll(b);
		} else {
			deadline = ploop_now_ms() + timeout_of(t, 0);
		}
	}
	t->cm.tool_call(t->cm.ctx, c, exec_id ? exec_id : "", name, json_object_get(ev, "args"),
			deadline);
}

void mtool_call_answer(struct mtool_call *c, const json_t *value, const char *error)
{
	if (!c)
		return;
	struct run *r = c->run;
	if (c->live) {
		struct mtool_call **head = r ? &r->calls : c->bg ? &c->bg->calls : NULL;
		for (struct mtool_call **p = head; p && *p; p = &(*p)->next) {
			if (*p == c) {
				*p = c->next;
				break;
			}
		}
		if (c->t->conn && sdc_status(c->t->conn) == SDC_OK) {
			sdc_tool_result(c->t->conn, c->event, value, error, NULL, NULL);
			conn_watch_update(c->t);
		}
	}
	json_decref(c->event);
	free(c);
}

/* The final reply: the result rendered, the store updated, code mode told. */
static void run_final(struct run *r, json_t *reply)
{
	struct mtool *t = r->t;
	const char *exec_id = json_string_value(json_object_get(reply, "execution_id"));
	if (exec_id && !r->exec_id)
		r->exec_id = strdup(exec_id);
	bool ok = json_is_true(json_object_get(reply, "ok"));
	if (ok && json_is_true(json_object_get(reply, "success"))) {
		/* An execution's writes, once: a background one's come with the
		 * status that first sees it ended. */
		bool apply = true;
		if (r->id == MTOOL_STATUS) {
			apply = exec_id && is_background(t, exec_id); /* forgotten below */
		}
		if (apply)
			store_apply(t, json_object_get(reply, "store_writes"));
	}
	if (ok && r->id == MTOOL_STATUS && exec_id && is_background(t, exec_id)) {
		const char *state = json_string_value(json_object_get(reply, "state"));
		if (state && strcmp(state, "pending") != 0 && strcmp(state, "running") != 0)
			bg_ended(t, bg_find(t, exec_id));
	}
	if (ok && r->id == MTOOL_CANCEL && exec_id && is_background(t, exec_id))
		bg_ended(t, bg_find(t, exec_id));
	if (ok && strcmp(r->op, "async") == 0 && exec_id) {
		const char *state = json_string_value(json_object_get(reply, "state"));
		struct bg *b = bg_find(t, exec_id); /* its first call may have come first */
		if (!b && !remember_background(t, exec_id, r->timeout_ms,
					       state && strcmp(state, "running") == 0))
			log_msg("execution %s: out of memory remembering it", exec_id);
		if (b && !b->timeout_ms)
			b->timeout_ms = r->timeout_ms;
		if (r->cancel_wanted)
			send_cancel(t, exec_id, NULL, NULL);
	}
	/* Code mode's servers that are down as the call ends (one that died
	 * during the execution among them). */
	json_t *problems = NULL;
	if (ok && (r->id == MTOOL_EXECUTE || r->id == MTOOL_TEST) && t->cm.problems)
		problems = t->cm.problems(t->cm.ctx);
	json_t *result;
	if (ok && (strcmp(r->op, "stream") == 0 || problems)) {
		json_t *copy = json_copy(reply);
		if (copy && strcmp(r->op, "stream") == 0) {
			json_object_set_new(copy, "stdout",
					    json_stringn(buf_peek(&r->out), buf_len(&r->out)));
			json_object_set_new(copy, "stderr",
					    json_stringn(buf_peek(&r->err), buf_len(&r->err)));
			json_object_set_new(copy, "stdout_length",
					    json_integer((json_int_t)r->out_len));
			json_object_set_new(copy, "stderr_length",
					    json_integer((json_int_t)r->err_len));
		}
		if (copy && problems)
			json_object_set(copy, "upstream_errors", problems);
		result = copy ? mtool_result(r->id, copy) : NULL;
		json_decref(copy);
	} else {
		result = mtool_result(r->id, reply);
	}
	json_decref(problems);
	run_answer(r, result);
	if (strcmp(r->op, "async") != 0)
		run_execution_ended(r);
}

/* The answer to a call whose session ended (stdin closed, a signal, or
 * stdout gone) before its reply came: an execution the bridge cancelled,
 * or (no id known yet) one the closed connection cancels. */
static void run_answer_session_end(struct run *r)
{
	char *msg = NULL;
	if (r->exec_id) {
		if (asprintf(&msg,
			     "the session ended before execution %s finished: the bridge "
			     "cancelled it",
			     r->exec_id) < 0)
			msg = NULL;
	} else if (asprintf(&msg, "the session ended before the daemon answered the %s request%s",
			    mtool_name(r->id),
			    r->id == MTOOL_EXECUTE || r->id == MTOOL_TEST
				    ? ": its execution, if it started, was cancelled"
				    : "") < 0) {
		msg = NULL;
	}
	run_answer(r, mtool_error_result(msg ? msg : "the session ended: cancelled"));
	free(msg);
}

static void on_run_frame(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct run *r = arg;
	struct mtool *t = r->t;
	if (!frame && t->shutting_down) {
		/* The bridge closed the connection at the session's end. */
		run_answer_session_end(r);
		run_execution_ended(r);
		run_free(r);
		return;
	}
	if (!frame) {
		/* The connection failed before the final reply. */
		char *msg = NULL;
		if (asprintf(&msg,
			     "the connection to the daemon failed (%s) before %s%s%s answered; the "
			     "execution, if it started, was cancelled with it",
			     sdc_error(c), r->exec_id ? "execution " : "the ",
			     r->exec_id ? r->exec_id : mtool_name(r->id),
			     r->exec_id ? "" : " request") < 0)
			msg = NULL;
		run_answer(r, mtool_error_result(msg ? msg : "the daemon connection failed"));
		free(msg);
		run_execution_ended(r);
		run_free(r);
		if (t->conn == c) /* not being closed already */
			ploop_timer_set(t->loop, &t->reap, 0, on_reap, t);
		return;
	}
	if (sdc_is_final(frame)) {
		r->rid = 0;
		run_final(r, frame);
		run_free(r);
		return;
	}
	const char *ev = json_string_value(json_object_get(frame, "event"));
	if (!ev)
		return;
	if (strcmp(ev, "started") == 0) {
		const char *id = json_string_value(json_object_get(frame, "execution_id"));
		if (id && !r->exec_id) {
			r->exec_id = strdup(id);
			/* Queued: its timeout starts when it runs, which no event
			 * tells; its first tool call is the next best bound. */
			const char *state = json_string_value(json_object_get(frame, "state"));
			r->queued = state && strcmp(state, "pending") == 0;
			r->base_ms = ploop_now_ms();
			if (r->cancel_wanted)
				send_cancel(t, id, NULL, NULL);
		}
		return;
	}
	/* Output and tool calls name the execution too: a daemon without
	 * `started` still tells its id once the script writes or calls. */
	const char *id = json_string_value(json_object_get(frame, "execution_id"));
	if (id && !r->exec_id) {
		r->exec_id = strdup(id);
		if (r->cancel_wanted)
			send_cancel(t, id, NULL, NULL);
	}
	if (strcmp(ev, "output") == 0)
		run_output(r, frame);
	else if (strcmp(ev, "tool_call") == 0) {
		if (r->queued) {
			r->queued = false;
			r->base_ms = ploop_now_ms();
		}
		tool_call(t, r, frame);
	}
}

static void send_cancel(struct mtool *t, const char *exec_id, sdc_handler *fn, void *arg)
{
	json_t *req = json_pack("{s:s, s:s}", "op", "cancel", "execution_id", exec_id);
	const char *why = NULL;
	if (!req || conn_send(t, req, fn, arg, &why) == 0) {
		if (why)
			log_msg("cancel %s: %s", exec_id, why);
		if (fn)
			fn(NULL, NULL, arg);
	}
	json_decref(req);
}

/* The host cancelled the call: nothing more is sent for it; its execution
 * is cancelled on the daemon (once its id is known). */
static void on_call_cancel(void *arg, struct mrpc_call *call)
{
	(void)call;
	struct run *r = arg;
	run_answer(r, mtool_error_result("cancelled"));
	bool runs_code = r->id == MTOOL_EXECUTE || r->id == MTOOL_TEST;
	if (!runs_code || strcmp(r->op, "async") == 0) {
		/* Nothing to stop: a status, list or cancel, or a background
		 * start (cancelled once its id is known, in run_final). */
		r->cancel_wanted = strcmp(r->op, "async") == 0;
		if (!r->cancel_wanted && r->rid && r->t->conn) {
			sdc_forget(r->t->conn, r->rid);
			run_free(r);
		}
		return;
	}
	if (r->exec_id)
		send_cancel(r->t, r->exec_id, NULL, NULL);
	else
		r->cancel_wanted = true;
}

static uint64_t req_uint(const json_t *req, const char *key, uint64_t def)
{
	const json_t *v = json_object_get(req, key);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : def;
}

static void tool_fn(void *arg, struct mrpc_call *call, json_t *args)
{
	struct tool_slot *slot = arg;
	struct mtool *t = slot->t;
	if (t->shutting_down) {
		mrpc_call_tool_error(call, "the bridge is shutting down");
		return;
	}
	char *why = NULL;
	bool progress = mrpc_call_progress_token(call) != NULL;
	json_t *req = mtool_request(slot->id, args, &t->lim, progress, &why);
	if (!req) {
		mrpc_call_tool_error(call, "%s", why ? why : "out of memory");
		free(why);
		return;
	}
	struct run *r = calloc(1, sizeof *r);
	if (!r) {
		json_decref(req);
		mrpc_call_tool_error(call, "out of memory");
		return;
	}
	*r = (struct run){.t = t,
			  .call = call,
			  .id = slot->id,
			  .out = BUF_INIT,
			  .err = BUF_INIT,
			  .heartbeat = PLOOP_TIMER_INIT,
			  .throttle = PLOOP_TIMER_INIT};
	r->op = json_string_value(json_object_get(req, "op"));
	static const char *const ops[] = {"execute", "stream", "async", "status",
					  "cancel",  "list",   "test",	"cache_list"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(ops[i], r->op) == 0)
			r->op = ops[i]; /* static: the request is freed below */
	r->timeout_ms = req_uint(req, "timeout_ms", 0);
	r->base_ms = ploop_now_ms();
	if (slot->id == MTOOL_EXECUTE || slot->id == MTOOL_TEST) {
		if (t->cm.tools) {
			json_t *tools = t->cm.tools(t->cm.ctx);
			if (json_array_size(tools) > 0) {
				json_object_set(req, "tools", tools);
				r->declared = true;
			}
			json_decref(tools);
		}
		if (json_object_size(t->store) > 0)
			json_object_set(req, "store", t->store);
	}
	r->next = t->runs;
	if (t->runs)
		t->runs->prev = r;
	t->runs = r;
	const char *err = NULL;
	r->rid = conn_send(t, req, on_run_frame, r, &err);
	json_decref(req);
	if (r->rid == 0) {
		run_answer(r, mtool_error_result(err ? err : "cannot reach the daemon"));
		run_free(r);
		return;
	}
	mrpc_call_on_cancel(call, on_call_cancel, r);
	if (progress) {
		r->progress = true;
		r->last_progress_ms = ploop_now_ms();
		ploop_timer_set(t->loop, &r->heartbeat, LIMIT_MCP_HEARTBEAT_MS, on_heartbeat, r);
	}
}

/* ---- The runner. */

struct mtool *mtool_new(struct ploop *p, struct mrpc *m, const struct mtool_options *o, char **why)
{
	*why = NULL;
	struct mtool *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->loop = p;
	t->rpc = m;
	t->watch = (struct ploop_watch)PLOOP_WATCH_INIT;
	t->reap = (struct ploop_timer)PLOOP_TIMER_INIT;
	t->shutdown_timer = (struct ploop_timer)PLOOP_TIMER_INIT;
	t->lim = o->limits;
	t->socket_path = strdup(o->socket_path ? o->socket_path : sdc_default_socket());
	t->store_file = o->store_file ? strdup(o->store_file) : NULL;
	if (!t->socket_path || (o->store_file && !t->store_file))
		goto err;
	if (store_load(t, why) < 0)
		goto err;
	for (int i = 0; i < MTOOL_COUNT; i++) {
		t->slots[i] = (struct tool_slot){t, (enum mtool_id)i};
		json_t *d = mtool_definition((enum mtool_id)i, NULL);
		if (!d)
			goto err;
		struct mrpc_tool_def def = {
			.name = mtool_name((enum mtool_id)i),
			.title = json_string_value(json_object_get(d, "title")),
			.description = json_string_value(json_object_get(d, "description")),
			.input_schema = json_object_get(d, "inputSchema"),
			.output_schema = json_object_get(d, "outputSchema"),
			.annotations = json_object_get(d, "annotations"),
			.fn = tool_fn,
			.arg = &t->slots[i],
		};
		int rc = mrpc_tool_add(m, &def);
		json_decref(d);
		if (rc < 0)
			goto err;
	}
	return t;
err:
	if (!*why && asprintf(why, "the tools could not be set up: %s", strerror(errno)) < 0)
		*why = NULL;
	mtool_free(t);
	return NULL;
}

void mtool_set_codemode(struct mtool *t, const struct mtool_codemode *cm)
{
	if (cm)
		t->cm = *cm;
	else
		memset(&t->cm, 0, sizeof t->cm);
}

int mtool_set_execute_suffix(struct mtool *t, const char *suffix)
{
	json_t *d = mtool_definition(MTOOL_EXECUTE, suffix);
	if (!d)
		return -1;
	int rc = mrpc_tool_set_description(t->rpc, "execute",
					   json_string_value(json_object_get(d, "description")));
	json_decref(d);
	if (rc == 0)
		mrpc_tools_changed(t->rpc);
	return rc;
}

struct decl_req {
	void (*done)(void *ctx, const char *typescript, const char *error);
	void *ctx;
};

static void on_decl(struct sdc *c, json_t *frame, void *arg)
{
	struct decl_req *d = arg;
	if (frame && !sdc_is_final(frame))
		return;
	if (!frame) {
		d->done(d->ctx, NULL, sdc_error(c));
	} else if (json_is_true(json_object_get(frame, "ok"))) {
		const char *ts = json_string_value(json_object_get(frame, "typescript"));
		d->done(d->ctx, ts, ts ? NULL : "the daemon's answer has no typescript");
	} else {
		const char *msg = json_string_value(
			json_object_get(json_object_get(frame, "error"), "message"));
		d->done(d->ctx, NULL, msg ? msg : "the daemon refused the declarations");
	}
	free(d);
}

int mtool_declarations(struct mtool *t, const json_t *tools,
		       void (*done)(void *ctx, const char *typescript, const char *error),
		       void *ctx)
{
	struct decl_req *d = malloc(sizeof *d);
	json_t *req = json_pack("{s:s, s:O}", "op", "declarations", "tools", tools);
	const char *why = NULL;
	if (!d || !req) {
		free(d);
		json_decref(req);
		return -1;
	}
	d->done = done;
	d->ctx = ctx;
	long long id = conn_send(t, req, on_decl, d, &why);
	json_decref(req);
	if (id == 0) {
		free(d);
		return -1;
	}
	return 0;
}

static void shutdown_finish(struct mtool *t)
{
	ploop_timer_cancel(&t->shutdown_timer);
	void (*done)(void *) = t->shutdown_done;
	t->shutdown_done = NULL;
	if (done)
		done(t->shutdown_arg);
}

static void on_shutdown_cancel(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct mtool *t = arg;
	if (frame && !sdc_is_final(frame))
		return;
	/* Confirmed: the host's call for it (if still open) is answered
	 * now, saying why; its final reply, if it comes before the bridge
	 * ends, is then only taken in. */
	const char *id = json_string_value(json_object_get(frame, "execution_id"));
	for (struct run *r = t->runs; id && json_is_true(json_object_get(frame, "ok")) && r;
	     r = r->next) {
		if (r->call && r->exec_id && strcmp(r->exec_id, id) == 0 &&
		    strcmp(r->op, "async") != 0)
			run_answer_session_end(r);
	}
	if (t->cancels_pending > 0 && --t->cancels_pending == 0)
		shutdown_finish(t);
}

static void on_shutdown_timer(struct ploop_timer *tm)
{
	struct mtool *t = tm->arg;
	log_msg("the daemon did not confirm %u cancel%s in time", t->cancels_pending,
		t->cancels_pending == 1 ? "" : "s");
	t->cancels_pending = 0;
	shutdown_finish(t);
}

void mtool_shutdown(struct mtool *t, void (*done)(void *arg), void *arg)
{
	t->shutting_down = true;
	t->shutdown_done = done;
	t->shutdown_arg = arg;
	/* One more than the cancels, so replies that come at once cannot
	 * finish before all are sent. */
	t->cancels_pending = 1;
	if (t->conn && sdc_status(t->conn) == SDC_OK) {
		for (struct run *r = t->runs; r; r = r->next) {
			if (r->exec_id && strcmp(r->op, "async") != 0 &&
			    (r->id == MTOOL_EXECUTE || r->id == MTOOL_TEST)) {
				t->cancels_pending++;
				send_cancel(t, r->exec_id, on_shutdown_cancel, t);
			}
		}
		for (struct bg *b = t->bgs; b; b = b->next) {
			t->cancels_pending++;
			send_cancel(t, b->exec_id, on_shutdown_cancel, t);
		}
	}
	if (--t->cancels_pending == 0) {
		shutdown_finish(t);
		return;
	}
	ploop_timer_set(t->loop, &t->shutdown_timer, LIMIT_MCP_SHUTDOWN_MS, on_shutdown_timer, t);
}

void mtool_free(struct mtool *t)
{
	if (!t)
		return;
	ploop_timer_cancel(&t->shutdown_timer);
	ploop_timer_cancel(&t->reap);
	t->shutdown_done = NULL;
	conn_drop(t); /* ends every run still waiting */
	while (t->runs) {
		struct run *r = t->runs;
		run_answer_session_end(r);
		run_execution_ended(r);
		run_free(r);
	}
	json_decref(t->store);
	while (t->bgs)
		bg_free(t, t->bgs);
	free(t->socket_path);
	free(t->store_file);
	free(t->suffix);
	free(t);
}
