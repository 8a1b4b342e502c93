/* sdc.c - the sandboxd client connection; see sdc.h. */
#include "sdc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"

/* One request waiting for its final reply. fn NULL: its frames are
 * dropped (sdc_forget, or sent without a handler). */
struct reg {
	long long id;
	sdc_handler *fn;
	void *arg;
};

struct sdc {
	int fd;
	enum frame_mode mode;
	unsigned flags;
	struct buf in, out;
	struct frame_decoder dec;
	long long next_id;
	struct reg *regs; /* in id order */
	size_t nregs, capregs;
	sdc_handler *def_fn;
	void *def_arg;
	int status; /* SDC_OK, or the failure that ended the connection */
	char err[256];
};

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *sdc_default_socket(void)
{
	const char *env = getenv("SANDBOXD_SOCKET");
	if (env && *env)
		return env;
	return access(SDC_LOCAL_SOCKET, F_OK) == 0 ? SDC_LOCAL_SOCKET : SDC_SYSTEM_SOCKET;
}

const char *sdc_strerror(int status)
{
	switch (status) {
	case SDC_OK: return "no error";
	case SDC_EOF: return "the daemon closed the connection";
	case SDC_ESYS: return "a system call failed";
	case SDC_EFRAME: return "the daemon sent a bad frame";
	case SDC_EJSON: return "the daemon sent a frame that is not a JSON object";
	case SDC_ETIMEOUT: return "no answer in time";
	case SDC_ENOMEM: return "out of memory";
	case SDC_EINVAL: return "the request cannot be sent";
	default: return "unknown error";
	}
}

struct sdc *sdc_adopt(int fd, enum frame_mode mode, unsigned flags)
{
	struct sdc *c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	c->fd = fd;
	c->mode = mode == FRAME_MODE_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	c->flags = flags;
	c->in = (struct buf)BUF_INIT;
	c->out = (struct buf)BUF_INIT;
	frame_decoder_init(&c->dec, c->mode, LIMIT_CLIENT_REPLY_BYTES);
	c->next_id = 1;
	if (flags & SDC_NONBLOCK) {
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
			int e = errno;
			close(fd);
			free(c);
			errno = e;
			return NULL;
		}
	}
	return c;
}

struct sdc *sdc_connect(const char *path, enum frame_mode mode, unsigned flags)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(path);
	if (len >= sizeof addr.sun_path) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(addr.sun_path, path, len + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	return sdc_adopt(fd, mode, flags);
}

/* Ends the connection with status: the message is kept for sdc_error and
 * every registration gets its NULL frame (after the table is emptied, so a
 * handler that sends sees the failure). Only the first failure counts. */
__attribute__((format(printf, 3, 4))) static int fail(struct sdc *c, int status, const char *fmt,
						      ...)
{
	if (c->status != SDC_OK)
		return c->status;
	c->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	struct reg *regs = c->regs;
	size_t n = c->nregs;
	c->regs = NULL;
	c->nregs = c->capregs = 0;
	for (size_t i = 0; i < n; i++)
		if (regs[i].fn)
			regs[i].fn(c, NULL, regs[i].arg);
	free(regs);
	return status;
}

void sdc_close(struct sdc *c)
{
	if (!c)
		return;
	fail(c, SDC_EOF, "%s", "the connection was closed");
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	buf_free(&c->in);
	buf_free(&c->out);
	free(c->regs);
	free(c);
}

void sdc_set_max_frame(struct sdc *c, size_t max) { c->dec.max = max; }

void sdc_set_default(struct sdc *c, sdc_handler *fn, void *arg)
{
	c->def_fn = fn;
	c->def_arg = arg;
}

int sdc_fd(const struct sdc *c) { return c->fd; }
enum frame_mode sdc_mode(const struct sdc *c) { return c->mode; }
int sdc_status(const struct sdc *c) { return c->status; }
const char *sdc_error(const struct sdc *c) { return c->err; }
size_t sdc_pending(const struct sdc *c) { return c->nregs; }
bool sdc_want_write(const struct sdc *c) { return c->status == SDC_OK && buf_len(&c->out) > 0; }

/* ---- the registrations */

/* The index of id in the table, or where it would go (*found false). */
static size_t reg_find(const struct sdc *c, long long id, bool *found)
{
	size_t lo = 0, hi = c->nregs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->regs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < c->nregs && c->regs[lo].id == id;
	return lo;
}

/* Room for one more registration: 0, or -1 out of memory. Taken before a
 * request is sent, so that registering it afterwards cannot fail. */
static int reg_reserve(struct sdc *c)
{
	if (c->nregs < c->capregs)
		return 0;
	size_t cap = c->capregs ? c->capregs * 2 : 8;
	struct reg *r = realloc(c->regs, cap * sizeof *r);
	if (!r)
		return -1;
	c->regs = r;
	c->capregs = cap;
	return 0;
}

static void reg_add(struct sdc *c, long long id, sdc_handler *fn, void *arg)
{
	bool found;
	size_t i = reg_find(c, id, &found);
	if (found) { /* the caller reused an id: the newest handler wins */
		c->regs[i].fn = fn;
		c->regs[i].arg = arg;
		return;
	}
	memmove(c->regs + i + 1, c->regs + i, (c->nregs - i) * sizeof *c->regs);
	c->regs[i] = (struct reg){id, fn, arg};
	c->nregs++;
}

static void reg_remove(struct sdc *c, size_t i)
{
	memmove(c->regs + i, c->regs + i + 1, (c->nregs - i - 1) * sizeof *c->regs);
	c->nregs--;
}

void sdc_forget(struct sdc *c, long long id)
{
	bool found;
	size_t i = reg_find(c, id, &found);
	if (found)
		c->regs[i].fn = NULL;
}

bool sdc_is_pending(const struct sdc *c, long long id)
{
	bool found;
	reg_find(c, id, &found);
	return found;
}

/* Hands one frame (a JSON object) to its handler, ending the registration
 * first when it is the final reply. */
static void dispatch(struct sdc *c, json_t *frame)
{
	json_t *id = json_object_get(frame, "id");
	if (json_is_integer(id)) {
		bool found;
		size_t i = reg_find(c, json_integer_value(id), &found);
		if (found) {
			struct reg r = c->regs[i];
			if (sdc_is_final(frame))
				reg_remove(c, i);
			if (r.fn)
				r.fn(c, frame, r.arg);
			return;
		}
	}
	if (c->def_fn)
		c->def_fn(c, frame, c->def_arg);
}

/* ---- reading */

/*
 * Where the next whole frame's payload lies in the input: 1 (payload, plen;
 * consume *used once done with it), 0 none yet, or the failure on a bad
 * one.
 */
static int next_payload(struct sdc *c, const char **payload, size_t *plen, size_t *used)
{
	enum frame_status st =
		frame_next(&c->dec, buf_peek(&c->in), buf_len(&c->in), payload, plen, used);
	if (st == FRAME_MORE) {
		buf_consume(&c->in, *used);
		return 0;
	}
	if (st != FRAME_OK)
		return fail(c, SDC_EFRAME, "the daemon sent a bad frame: %s (%zu bytes)",
			    frame_status_str(st), *plen);
	return 1;
}

/* The frame at payload[0..plen), parsed (a new reference), its used bytes
 * consumed; NULL when the connection failed on it. */
static json_t *parse_frame(struct sdc *c, const char *payload, size_t plen, size_t used)
{
	json_error_t jerr;
	json_t *m = jnum_loadb(payload, plen, JSON_ALLOW_NUL, &jerr);
	buf_consume(&c->in, used);
	if (!m) {
		fail(c, SDC_EJSON, "the daemon sent invalid JSON: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(m)) {
		json_decref(m);
		fail(c, SDC_EJSON, "%s", "the daemon sent a frame that is not a JSON object");
		return NULL;
	}
	return m;
}

/*
 * The next whole frame in the input, parsed (a new reference), or NULL:
 * none yet (status SDC_OK), or the connection failed on a bad one.
 */
static json_t *next_frame(struct sdc *c)
{
	const char *payload;
	size_t plen, used;
	if (next_payload(c, &payload, &plen, &used) <= 0)
		return NULL;
	return parse_frame(c, payload, plen, used);
}

/* Dispatches every whole frame read; how many. Stops at a failure. */
static int dispatch_read(struct sdc *c)
{
	int n = 0;
	json_t *m;
	while (c->status == SDC_OK && (m = next_frame(c))) {
		dispatch(c, m);
		json_decref(m);
		n++;
	}
	return n;
}

/* One read into the input: 1 when bytes came, 0 when the socket had none
 * (non-blocking), or the failure (EOF included). */
static int read_once(struct sdc *c)
{
	char *dst = buf_reserve(&c->in, LIMIT_CLIENT_READ_BYTES);
	if (!dst)
		return fail(c, SDC_ENOMEM, "%s", "out of memory reading the daemon's frames");
	for (;;) {
		ssize_t n = recv(c->fd, dst, LIMIT_CLIENT_READ_BYTES, 0);
		if (n > 0) {
			buf_commit(&c->in, (size_t)n);
			return 1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* A frame begun and never finished is worth saying. */
		const char *inside = buf_len(&c->in) ? " inside a frame" : "";
		if (n == 0)
			return fail(c, SDC_EOF, "the daemon closed the connection%s", inside);
		if (errno == ECONNRESET)
			return fail(c, SDC_EOF, "the daemon reset the connection%s", inside);
		return fail(c, SDC_ESYS, "cannot read from the daemon: %s", strerror(errno));
	}
}

/* Waits for the fd to be readable until deadline (-1: none). 1 ready, 0
 * timed out, or a failure. */
static int wait_readable(struct sdc *c, long long deadline)
{
	for (;;) {
		int left = -1;
		if (deadline >= 0) {
			long long l = deadline - now_ms();
			left = l > 0 ? (l > 1000000000 ? 1000000000 : (int)l) : 0;
		}
		struct pollfd p = {c->fd, POLLIN, 0};
		int r = poll(&p, 1, left);
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return fail(c, SDC_ESYS, "poll: %s", strerror(errno));
	}
}

static long long deadline_of(int timeout_ms) { return timeout_ms < 0 ? -1 : now_ms() + timeout_ms; }

int sdc_pump(struct sdc *c, int timeout_ms)
{
	long long deadline = deadline_of(timeout_ms);
	for (;;) {
		if (dispatch_read(c) > 0)
			return SDC_OK;
		if (c->status != SDC_OK)
			return c->status;
		int r = wait_readable(c, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return SDC_ETIMEOUT;
		if ((r = read_once(c)) < 0)
			return r;
	}
}

int sdc_wait(struct sdc *c, long long id, int timeout_ms)
{
	long long deadline = deadline_of(timeout_ms);
	while (sdc_is_pending(c, id)) {
		int left = -1;
		if (deadline >= 0) {
			long long l = deadline - now_ms();
			if (l <= 0)
				return SDC_ETIMEOUT;
			left = l > 1000000000 ? 1000000000 : (int)l;
		}
		int r = sdc_pump(c, left);
		if (r != SDC_OK)
			return r == SDC_ETIMEOUT && !sdc_is_pending(c, id) ? SDC_OK : r;
	}
	return SDC_OK;
}

/* Waits up to the deadline for a whole frame in the input: SDC_OK with
 * where it lies (as next_payload gives it), else SDC_ETIMEOUT or the
 * failure. */
static int wait_frame(struct sdc *c, long long deadline, const char **payload, size_t *plen,
		      size_t *used)
{
	for (;;) {
		int r = c->status != SDC_OK ? c->status : next_payload(c, payload, plen, used);
		if (r != 0)
			return r < 0 ? r : SDC_OK;
		if ((r = wait_readable(c, deadline)) <= 0)
			return r == 0 ? SDC_ETIMEOUT : r;
		if ((r = read_once(c)) < 0)
			return r;
	}
}

json_t *sdc_recv(struct sdc *c, int timeout_ms, int *status)
{
	const char *payload;
	size_t plen, used;
	int r = wait_frame(c, deadline_of(timeout_ms), &payload, &plen, &used);
	json_t *m = r == SDC_OK ? parse_frame(c, payload, plen, used) : NULL;
	if (status)
		*status = m ? SDC_OK : r != SDC_OK ? r : c->status;
	return m;
}

char *sdc_recv_text(struct sdc *c, int timeout_ms, size_t *len, int *status)
{
	const char *payload;
	size_t plen, used;
	int r = wait_frame(c, deadline_of(timeout_ms), &payload, &plen, &used);
	char *text = NULL;
	if (r == SDC_OK) {
		text = malloc(plen + 1);
		if (!text) {
			r = fail(c, SDC_ENOMEM, "%s", "out of memory reading the daemon's frames");
		} else {
			memcpy(text, payload, plen);
			text[plen] = '\0';
			buf_consume(&c->in, used);
			if (len)
				*len = plen;
		}
	}
	if (status)
		*status = text ? SDC_OK : r;
	return text;
}

int sdc_on_readable(struct sdc *c)
{
	/* A blocking fd is read once: a second read could wait. */
	int reads = c->flags & SDC_NONBLOCK ? SDC_READS_PER_CALL : 1;
	for (int i = 0; i < reads && c->status == SDC_OK; i++) {
		int r = read_once(c);
		if (r < 0)
			break;
		dispatch_read(c);
		if (r == 0)
			break;
	}
	return c->status;
}

/* ---- writing */

/* Sends what is queued: all of it in blocking mode, as much as the socket
 * takes in event-loop mode. SDC_OK or the failure. */
static int flush(struct sdc *c)
{
	while (buf_len(&c->out) > 0) {
		ssize_t n = send(c->fd, buf_peek(&c->out), buf_len(&c->out), MSG_NOSIGNAL);
		if (n > 0) {
			buf_consume(&c->out, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->flags & SDC_NONBLOCK)
				return SDC_OK;
			struct pollfd p = {c->fd, POLLOUT, 0};
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return fail(c, SDC_ESYS, "poll: %s", strerror(errno));
			continue;
		}
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return fail(c, SDC_EOF, "%s", "the daemon closed the connection");
		return fail(c, SDC_ESYS, "cannot send to the daemon: %s", strerror(errno));
	}
	return SDC_OK;
}

int sdc_on_writable(struct sdc *c)
{
	if (c->status != SDC_OK)
		return c->status;
	return flush(c);
}

/*
 * Sends the bytes of parts[0..n) in order, written straight from the
 * caller's memory while nothing is queued before them (no copy); what the
 * socket does not take at once in event-loop mode is queued. SDC_OK, the
 * failure, or SDC_ENOMEM when the rest cannot be queued (then nothing
 * was sent, or the connection is failed: a request cut in two cannot be
 * taken back).
 */
static int send_parts(struct sdc *c, struct iovec *parts, int n)
{
	int i = 0;
	bool sent_any = false;
	while (buf_len(&c->out) == 0 && i < n) {
		/* sendmsg for MSG_NOSIGNAL: a closed peer is EPIPE, not a
		 * signal. */
		struct msghdr m = {.msg_iov = parts + i, .msg_iovlen = (size_t)(n - i)};
		ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->flags & SDC_NONBLOCK)
				break;
			struct pollfd p = {c->fd, POLLOUT, 0};
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return fail(c, SDC_ESYS, "poll: %s", strerror(errno));
			continue;
		}
		if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
			return fail(c, SDC_EOF, "%s", "the daemon closed the connection");
		if (w < 0)
			return fail(c, SDC_ESYS, "cannot send to the daemon: %s", strerror(errno));
		sent_any |= w > 0;
		size_t k = (size_t)w;
		while (i < n && k >= parts[i].iov_len)
			k -= parts[i++].iov_len;
		if (i < n) {
			parts[i].iov_base = (char *)parts[i].iov_base + k;
			parts[i].iov_len -= k;
		}
	}
	size_t mark = buf_len(&c->out);
	for (int k = i; k < n; k++)
		if (buf_append(&c->out, parts[k].iov_base, parts[k].iov_len) < 0) {
			c->out.end = c->out.start + mark;
			return sent_any ? fail(c, SDC_ENOMEM, "%s",
					       "out of memory queueing a request")
					: SDC_ENOMEM;
		}
	return flush(c);
}

int sdc_send_raw(struct sdc *c, const void *bytes, size_t len)
{
	if (c->status != SDC_OK)
		return c->status;
	struct iovec part = {(void *)bytes, len};
	return send_parts(c, &part, 1);
}

int sdc_send_msg(struct sdc *c, const json_t *msg)
{
	if (c->status != SDC_OK)
		return c->status;
	if (!json_is_object(msg) || msg_encode(&c->out, c->mode, msg) < 0)
		return SDC_EINVAL;
	return flush(c);
}

long long sdc_next_id(struct sdc *c) { return c->next_id++; }

int sdc_request_text(struct sdc *c, long long id, const char *json, size_t len, sdc_handler *fn,
		     void *arg)
{
	if (c->status != SDC_OK)
		return c->status;
	if (len == 0 || len > UINT32_MAX)
		return SDC_EINVAL;
	if (reg_reserve(c) < 0)
		return SDC_ENOMEM;
	unsigned char h[4];
	frame_put_header(h, (uint32_t)len);
	struct iovec parts[2];
	bool line = c->mode == FRAME_MODE_LINE;
	/* Binary: the header, then the text; line: the text, then "\n". */
	parts[!line] = (struct iovec){(void *)json, len};
	parts[line] = line ? (struct iovec){"\n", 1} : (struct iovec){h, 4};
	int r = send_parts(c, parts, 2);
	if (r != SDC_OK)
		return r;
	reg_add(c, id, fn, arg);
	return SDC_OK;
}

long long sdc_request(struct sdc *c, json_t *req, sdc_handler *fn, void *arg)
{
	if (c->status != SDC_OK)
		return c->status;
	if (!json_is_object(req))
		return SDC_EINVAL;
	if (reg_reserve(c) < 0)
		return SDC_ENOMEM;
	long long id = c->next_id;
	if (json_object_set_new(req, "id", json_integer(id)) < 0)
		return SDC_ENOMEM;
	if (msg_encode(&c->out, c->mode, req) < 0)
		return SDC_EINVAL;
	c->next_id++;
	int r = flush(c);
	if (r != SDC_OK)
		return r;
	reg_add(c, id, fn, arg);
	return id;
}

long long sdc_tool_result(struct sdc *c, const json_t *call, const json_t *value, const char *error,
			  sdc_handler *fn, void *arg)
{
	json_t *exec = json_object_get(call, "execution_id");
	json_t *call_id = json_object_get(call, "call_id");
	if (!json_is_string(exec) || !json_is_integer(call_id))
		return SDC_EINVAL;
	json_t *req = json_object();
	if (!req)
		return SDC_ENOMEM;
	int bad = json_object_set_new(req, "op", json_string("tool_result"));
	bad |= json_object_set(req, "execution_id", exec);
	bad |= json_object_set(req, "call_id", call_id);
	long long r = SDC_ENOMEM;
	if (error) {
		json_t *e = json_string(error);
		if (!e)
			r = SDC_EINVAL; /* not UTF-8 */
		bad |= json_object_set_new(req, "error", e);
	} else {
		/* jansson's reference count is not the value's contents. */
		bad |= json_object_set(req, "value", value ? (json_t *)value : json_null());
	}
	if (!bad)
		r = sdc_request(c, req, fn, arg);
	json_decref(req);
	return r;
}

/* ---- blocking calls */

struct call {
	sdc_handler *on_event;
	void *arg;
	json_t *reply;
};

static void call_frame(struct sdc *c, json_t *frame, void *arg)
{
	struct call *k = arg;
	if (!frame)
		return;
	if (sdc_is_final(frame))
		k->reply = json_incref(frame);
	else if (k->on_event)
		k->on_event(c, frame, k->arg);
}

json_t *sdc_call(struct sdc *c, json_t *req, sdc_handler *on_event, void *arg, int timeout_ms,
		 int *status)
{
	struct call k = {on_event, arg, NULL};
	long long id = sdc_request(c, req, call_frame, &k);
	int r = id < 0 ? (int)id : sdc_wait(c, id, timeout_ms);
	if (r == SDC_ETIMEOUT)
		sdc_forget(c, id); /* k is about to go */
	if (!k.reply && r == SDC_OK)
		r = c->status != SDC_OK ? c->status : SDC_EOF;
	if (status)
		*status = k.reply ? SDC_OK : r;
	return k.reply;
}
