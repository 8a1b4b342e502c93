/*
 * check_sdc.c - client/sdc, the client connection module, against the real
 * daemon: ids and their handlers, the default handler, tool results, both
 * framings, queued writes in event-loop mode, and how the connection ends.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testlib.h"

static struct daemon d;
static void up(void) { daemon_start(&d, NULL); }
static void down(void) { daemon_stop(&d); }

static struct sdc *open_sdc(enum frame_mode mode, unsigned flags)
{
	struct sdc *c = sdc_connect(d.sock, mode, flags);
	ck_assert_msg(c != NULL, "connect: %s", strerror(errno));
	return c;
}

static json_t *req_new(const char *fmt)
{
	json_error_t err;
	json_t *r = json_loads(fmt, 0, &err);
	ck_assert_msg(r != NULL, "bad test JSON %s: %s", fmt, err.text);
	return r;
}

/* What a handler saw: the frames (copies), and whether it got NULL. */
struct seen {
	json_t *frames;
	int nulls;
	int calls;
};

static void seen_init(struct seen *s) { *s = (struct seen){json_array(), 0, 0}; }

static void record(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct seen *s = arg;
	s->calls++;
	if (frame)
		json_array_append(s->frames, frame);
	else
		s->nulls++;
}

static json_t *last(const struct seen *s)
{
	return json_array_get(s->frames, json_array_size(s->frames) - 1);
}

START_TEST(test_ids_and_handlers)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	struct seen slow, fast;
	seen_init(&slow);
	seen_init(&fast);
	json_t *a = req_new("{\"op\":\"stream\",\"code\":\"console.log('x'); "
			    "var t = Date.now(); while (Date.now() - t < 300) {} return 'slow'\"}");
	json_t *b = req_new("{\"op\":\"health\"}");
	long long ia = sdc_request(c, a, record, &slow);
	long long ib = sdc_request(c, b, record, &fast);
	/* Fresh integer ids, in order, set on the request. */
	ck_assert_int_gt(ia, 0);
	ck_assert_int_eq(ib, ia + 1);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "id")), ia);
	ck_assert_uint_eq(sdc_pending(c), 2);
	/* health overtakes the running script; each reply reaches its own. */
	ck_assert_int_eq(sdc_wait(c, ib, 10000), SDC_OK);
	ck_assert(sdc_is_pending(c, ia));
	ck_assert_int_eq(fast.calls, 1);
	ck_assert(jtrue(last(&fast), "ok"));
	ck_assert_ptr_nonnull(json_object_get(last(&fast), "sandbox"));
	ck_assert_int_eq(sdc_wait(c, ia, 10000), SDC_OK);
	ck_assert(!sdc_is_pending(c, ia));
	ck_assert_uint_eq(sdc_pending(c), 0);
	/* The events first, then the final reply, which ends it. */
	size_t n = json_array_size(slow.frames);
	ck_assert_uint_ge(n, 2);
	bool output = false;
	for (size_t i = 0; i + 1 < n; i++) {
		json_t *ev = json_array_get(slow.frames, i);
		ck_assert_int_eq(jint(ev, "id"), ia);
		ck_assert_ptr_null(json_object_get(ev, "ok"));
		output |= strcmp(jstr(ev, "event"), "output") == 0;
	}
	ck_assert(output);
	ck_assert_str_eq(jstr(last(&slow), "value"), "slow");
	ck_assert_int_eq(slow.nulls, 0);
	json_decref(a);
	json_decref(b);
	json_decref(slow.frames);
	json_decref(fast.frames);
	sdc_close(c);
}
END_TEST

START_TEST(test_default_handler_and_forget)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	struct seen def, mine;
	seen_init(&def);
	seen_init(&mine);
	sdc_set_default(c, record, &def);
	/* An id of the caller's own, and none: both to the default handler. */
	json_t *own = req_new("{\"op\":\"health\",\"id\":\"mine\"}");
	json_t *none = req_new("{\"op\":\"health\"}");
	ck_assert_int_eq(sdc_send_msg(c, own), SDC_OK);
	ck_assert_int_eq(sdc_send_msg(c, none), SDC_OK);
	ck_assert_int_eq(sdc_pump(c, 10000), SDC_OK);
	while (json_array_size(def.frames) < 2)
		ck_assert_int_eq(sdc_pump(c, 10000), SDC_OK);
	ck_assert_str_eq(jstr(json_array_get(def.frames, 0), "id"), "mine");
	ck_assert_ptr_null(json_object_get(json_array_get(def.frames, 1), "id"));
	/* A forgotten request's frames go nowhere, final reply included; a
	 * later request is still answered to its handler. */
	json_t *slow = req_new("{\"op\":\"stream\",\"code\":\"console.log(1); return 2\"}");
	long long is = sdc_request(c, slow, record, &mine);
	ck_assert_int_gt(is, 0);
	sdc_forget(c, is);
	json_t *h = req_new("{\"op\":\"health\"}");
	json_t *r = sdc_call(c, h, NULL, NULL, 10000, NULL);
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	/* The forgotten one stays registered (dropping) until its final reply. */
	ck_assert_int_eq(sdc_wait(c, is, 10000), SDC_OK);
	ck_assert(!sdc_is_pending(c, is));
	ck_assert_int_eq(mine.calls, 0);
	ck_assert_uint_eq(json_array_size(def.frames), 2);
	json_decref(own);
	json_decref(none);
	json_decref(slow);
	json_decref(h);
	json_decref(def.frames);
	json_decref(mine.frames);
	sdc_close(c);
}
END_TEST

/* Answers each tool_call: "echo" with its args, "fail" with an error. */
struct tools_state {
	int calls;
	struct seen replies; /* of the tool_result requests */
};

static void on_tool_event(struct sdc *c, json_t *frame, void *arg)
{
	struct tools_state *t = arg;
	if (strcmp(jstr(frame, "event"), "tool_call") != 0)
		return;
	t->calls++;
	long long r = strcmp(jstr(frame, "name"), "echo") == 0
			      ? sdc_tool_result(c, frame, json_object_get(frame, "args"), NULL,
						record, &t->replies)
			      : sdc_tool_result(c, frame, NULL, "it failed", record, &t->replies);
	ck_assert_int_gt(r, 0);
}

START_TEST(test_tool_result)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	struct tools_state t = {0, {NULL, 0, 0}};
	seen_init(&t.replies);
	json_t *req =
		req_new("{\"op\":\"execute\",\"tools\":[{\"name\":\"echo\"},{\"name\":\"fail\"}],"
			"\"code\":\"var v = tools.echo({a: [1, 'x']}); var e = null;"
			" try { tools.fail({}) } catch (x) { e = x.message } return [v, e]\"}");
	int st;
	json_t *r = sdc_call(c, req, on_tool_event, &t, 10000, &st);
	ck_assert_int_eq(st, SDC_OK);
	ck_assert_msg(jtrue(r, "success"), "%s", err_msg(r));
	char *v = json_dumps(json_object_get(r, "value"), JSON_COMPACT);
	ck_assert_str_eq(v, "[{\"a\":[1,\"x\"]},\"it failed\"]");
	free(v);
	ck_assert_int_eq(t.calls, 2);
	/* Both tool_results were accepted. */
	ck_assert_uint_eq(json_array_size(t.replies.frames), 2);
	for (size_t i = 0; i < 2; i++)
		ck_assert(jtrue(json_array_get(t.replies.frames, i), "ok"));
	/* Not a tool_call: refused before anything is sent. */
	ck_assert_int_eq(sdc_tool_result(c, r, NULL, NULL, NULL, NULL), SDC_EINVAL);
	/* A call that is not waiting: the daemon's NOT_FOUND reaches fn. */
	json_t *stale = json_pack("{s:s, s:O, s:i}", "event", "tool_call", "execution_id",
				  json_object_get(r, "execution_id"), "call_id", 99);
	struct seen late;
	seen_init(&late);
	long long id = sdc_tool_result(c, stale, json_null(), NULL, record, &late);
	ck_assert_int_gt(id, 0);
	ck_assert_int_eq(sdc_wait(c, id, 10000), SDC_OK);
	ck_assert(!jtrue(last(&late), "ok"));
	ck_assert_ptr_nonnull(json_object_get(last(&late), "error"));
	json_decref(stale);
	json_decref(late.frames);
	json_decref(r);
	json_decref(req);
	json_decref(t.replies.frames);
	sdc_close(c);
}
END_TEST

START_TEST(test_line_mode_and_text_requests)
{
	struct sdc *c = open_sdc(FRAME_MODE_LINE, 0);
	ck_assert_int_eq(sdc_mode(c), FRAME_MODE_LINE);
	json_t *h = req_new("{\"op\":\"health\"}");
	json_t *r = sdc_call(c, h, NULL, NULL, 10000, NULL);
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	json_decref(h);
	/* A request the caller encoded, with an id sdc gave it. */
	long long id = sdc_next_id(c);
	char text[128];
	int n = snprintf(text, sizeof text,
			 "{\"op\":\"execute\",\"id\":%lld,\"code\":\"return 6*7\"}", id);
	struct seen s;
	seen_init(&s);
	ck_assert_int_eq(sdc_request_text(c, id, text, (size_t)n, record, &s), SDC_OK);
	ck_assert_int_eq(sdc_wait(c, id, 10000), SDC_OK);
	ck_assert_int_eq(jint(last(&s), "value"), 42);
	ck_assert_int_eq(jint(last(&s), "id"), id);
	json_decref(s.frames);
	sdc_close(c);
}
END_TEST

/* Event-loop mode: a 3 MiB request into a socket whose send buffer holds
 * far less goes out in pieces from sdc_on_writable, nothing blocking, and
 * reads go on meanwhile. */
START_TEST(test_queued_writes_nonblocking)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, SDC_NONBLOCK);
	int small = 4096;
	ck_assert_int_eq(setsockopt(sdc_fd(c), SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
	enum { LEN = 3 * 1024 * 1024 };
	char *code = malloc(LEN + 64);
	int k = snprintf(code, 64, "return '");
	memset(code + k, 'a', LEN);
	strcpy(code + k + LEN, "'.length");
	json_t *req = json_pack("{s:s, s:s}", "op", "execute", "code", code);
	free(code);
	struct seen big, h;
	seen_init(&big);
	seen_init(&h);
	long long ib = sdc_request(c, req, record, &big);
	ck_assert_int_gt(ib, 0);
	/* Queued, not blocked on (how much the socket took at once depends
	 * on how fast the daemon reads: test_queued_writes_exact counts). */
	/* A second request queues behind it, in order. */
	json_t *hr = req_new("{\"op\":\"health\"}");
	long long ih = sdc_request(c, hr, record, &h);
	ck_assert_int_eq(ih, ib + 1);
	int writable_calls = 0;
	while (sdc_pending(c) > 0) {
		struct pollfd p = {sdc_fd(c), (short)(POLLIN | (sdc_want_write(c) ? POLLOUT : 0)),
				   0};
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		if (p.revents & POLLOUT) {
			ck_assert_int_eq(sdc_on_writable(c), SDC_OK);
			writable_calls++;
		}
		if (p.revents & (POLLIN | POLLHUP))
			ck_assert_int_eq(sdc_on_readable(c), SDC_OK);
	}
	printf("sdc: a 3 MiB request went out to the daemon in %d writable turns\n",
	       writable_calls);
	ck_assert(!sdc_want_write(c));
	ck_assert_msg(jtrue(last(&big), "success"), "%s", err_msg(last(&big)));
	ck_assert_int_eq(jint(last(&big), "value"), LEN);
	ck_assert(jtrue(last(&h), "ok"));
	/* sdc_on_readable with nothing there returns at once. */
	ck_assert_int_eq(sdc_on_readable(c), SDC_OK);
	/* The same request as the caller's text: written from its memory as
	 * far as the socket takes, the rest queued. */
	long long it = sdc_next_id(c);
	json_object_set_new(req, "id", json_integer(it));
	char *text = json_dumps(req, JSON_COMPACT);
	struct seen tx;
	seen_init(&tx);
	ck_assert_int_eq(sdc_request_text(c, it, text, strlen(text), record, &tx), SDC_OK);
	free(text);
	writable_calls = 0;
	while (sdc_is_pending(c, it)) {
		struct pollfd p = {sdc_fd(c), (short)(POLLIN | (sdc_want_write(c) ? POLLOUT : 0)),
				   0};
		ck_assert_int_eq(poll(&p, 1, 10000), 1);
		if (p.revents & POLLOUT) {
			ck_assert_int_eq(sdc_on_writable(c), SDC_OK);
			writable_calls++;
		}
		if (p.revents & (POLLIN | POLLHUP))
			ck_assert_int_eq(sdc_on_readable(c), SDC_OK);
	}
	ck_assert_int_eq(jint(last(&tx), "value"), LEN);
	json_decref(tx.frames);
	json_decref(req);
	json_decref(hr);
	json_decref(big.frames);
	json_decref(h.frames);
	sdc_close(c);
}
END_TEST

/* The same with a peer that reads only when the test says: exactly what
 * the socket did not take is queued, in order, and sdc_on_writable sends
 * it as room appears; the bytes are the frames, whole. */
START_TEST(test_queued_writes_exact)
{
	for (int mode = 0; mode < 2; mode++) {
		enum frame_mode fm = mode ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
		int sp[2];
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
		int small = 4096;
		ck_assert_int_eq(setsockopt(sp[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
		struct sdc *c = sdc_adopt(sp[0], fm, SDC_NONBLOCK);
		ck_assert_ptr_nonnull(c);
		enum { LEN = 1024 * 1024 };
		char *big = malloc(LEN + 1);
		memset(big, 'b', LEN);
		big[LEN] = '\0';
		json_t *r1 = json_pack("{s:s, s:s}", "op", "execute", "code", big);
		ck_assert_int_eq(sdc_request(c, r1, NULL, NULL), 1);
		ck_assert(sdc_want_write(c));
		/* Text and raw bytes queue behind it, copied only now. */
		long long id = sdc_next_id(c);
		char text[64];
		int n = snprintf(text, sizeof text, "{\"op\":\"health\",\"id\":%lld}", id);
		ck_assert_int_eq(sdc_request_text(c, id, text, (size_t)n, NULL, NULL), SDC_OK);
		ck_assert_int_eq(sdc_send_raw(c, "RAW", 3), SDC_OK);
		ck_assert_uint_eq(sdc_pending(c), 2);
		/* Drain: the peer reads, sdc writes when there is room. */
		struct buf got = BUF_INIT;
		int turns = 0;
		while (sdc_want_write(c)) {
			char chunk[65536];
			ssize_t k = read(sp[1], chunk, sizeof chunk);
			ck_assert_int_gt(k, 0);
			buf_append(&got, chunk, (size_t)k);
			struct pollfd p = {sdc_fd(c), POLLOUT, 0};
			if (poll(&p, 1, 1000) == 1) {
				ck_assert_int_eq(sdc_on_writable(c), SDC_OK);
				turns++;
			}
		}
		shutdown(sp[0], SHUT_WR);
		for (;;) {
			char chunk[65536];
			ssize_t k = read(sp[1], chunk, sizeof chunk);
			if (k <= 0)
				break;
			buf_append(&got, chunk, (size_t)k);
		}
		ck_assert_int_gt(turns, 1);
		/* Decode what arrived: the two frames, then the raw bytes. */
		struct frame_decoder dec;
		frame_decoder_init(&dec, fm, 1u << 30);
		const char *payload;
		size_t plen, used;
		ck_assert_int_eq(
			frame_next(&dec, buf_peek(&got), buf_len(&got), &payload, &plen, &used),
			FRAME_OK);
		json_t *m = json_loadb(payload, plen, 0, NULL);
		ck_assert_uint_eq(strlen(jstr(m, "code")), LEN);
		ck_assert_int_eq(jint(m, "id"), 1);
		json_decref(m);
		buf_consume(&got, used);
		ck_assert_int_eq(
			frame_next(&dec, buf_peek(&got), buf_len(&got), &payload, &plen, &used),
			FRAME_OK);
		ck_assert_uint_eq(plen, (size_t)n);
		ck_assert_int_eq(memcmp(payload, text, (size_t)n), 0);
		buf_consume(&got, used);
		ck_assert_uint_eq(buf_len(&got), 3);
		ck_assert_int_eq(memcmp(buf_peek(&got), "RAW", 3), 0);
		buf_free(&got);
		json_decref(r1);
		free(big);
		close(sp[1]);
		sdc_close(c);
	}
}
END_TEST

/* The daemon closes a connection that sent a bad frame: the error frame
 * first (to the default handler), then EOF, and later calls fail with the
 * same status. */
START_TEST(test_eof)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	struct seen def;
	seen_init(&def);
	sdc_set_default(c, record, &def);
	ck_assert_int_eq(sdc_send_raw(c, "\0\0\0\0", 4), SDC_OK);
	ck_assert_int_eq(sdc_pump(c, 10000), SDC_OK);
	assert_error(last(&def), "INVALID_ARGUMENT", NULL);
	ck_assert_int_eq(sdc_pump(c, 10000), SDC_EOF);
	ck_assert_int_eq(sdc_status(c), SDC_EOF);
	ck_assert_ptr_nonnull(strstr(sdc_error(c), "closed"));
	json_t *h = req_new("{\"op\":\"health\"}");
	ck_assert_int_eq(sdc_request(c, h, record, &def), SDC_EOF);
	ck_assert_int_eq(sdc_pump(c, 0), SDC_EOF);
	ck_assert_uint_eq(json_array_size(def.frames), 1);
	sdc_close(c);

	/* A peer that goes away with requests unanswered: each handler gets
	 * its NULL once, in the middle of a frame too. */
	int sp[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	c = sdc_adopt(sp[0], FRAME_MODE_BINARY, 0);
	struct seen p1, p2;
	seen_init(&p1);
	seen_init(&p2);
	long long i1 = sdc_request(c, h, record, &p1);
	long long i2 = sdc_request(c, h, record, &p2);
	ck_assert_int_eq(write(sp[1], "\0\0\0\20{\"id\":1", 11), 11);
	close(sp[1]);
	ck_assert_int_eq(sdc_wait(c, i1, 5000), SDC_EOF);
	ck_assert_ptr_nonnull(strstr(sdc_error(c), "inside a frame"));
	ck_assert(!sdc_is_pending(c, i1) && !sdc_is_pending(c, i2));
	ck_assert_int_eq(p1.nulls, 1);
	ck_assert_int_eq(p1.calls, 1);
	ck_assert_int_eq(p2.nulls, 1);
	ck_assert_int_eq(p2.calls, 1);
	sdc_close(c);
	ck_assert_int_eq(p1.calls, 1);
	json_decref(h);
	json_decref(def.frames);
	json_decref(p1.frames);
	json_decref(p2.frames);
}
END_TEST

START_TEST(test_bad_frames)
{
	/* A reply over the size limit: SDC_EFRAME, naming the size. */
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	sdc_set_max_frame(c, 64);
	json_t *h = req_new("{\"op\":\"health\"}");
	int st;
	ck_assert_ptr_null(sdc_call(c, h, NULL, NULL, 10000, &st));
	ck_assert_int_eq(st, SDC_EFRAME);
	ck_assert_ptr_nonnull(strstr(sdc_error(c), "bad frame"));
	sdc_close(c);
	json_decref(h);
	/* Bytes that are not JSON, or not an object, from an adopted fd. */
	static const char *const bad[] = {"\0\0\0\3{x}", "\0\0\0\0011", "\0\0\0\0"};
	static const size_t bad_len[] = {7, 5, 4};
	static const int want[] = {SDC_EJSON, SDC_EJSON, SDC_EFRAME};
	for (size_t i = 0; i < 3; i++) {
		int sp[2];
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
		struct sdc *a = sdc_adopt(sp[0], FRAME_MODE_BINARY, 0);
		ck_assert_ptr_nonnull(a);
		ck_assert_int_eq(write(sp[1], bad[i], bad_len[i]), (ssize_t)bad_len[i]);
		ck_assert_ptr_null(sdc_recv(a, 5000, &st));
		ck_assert_int_eq(st, want[i]);
		ck_assert_str_ne(sdc_error(a), "");
		close(sp[1]);
		sdc_close(a);
	}
	/* A timeout leaves the connection good. */
	int sp[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	struct sdc *a = sdc_adopt(sp[0], FRAME_MODE_LINE, 0);
	ck_assert_ptr_null(sdc_recv(a, 50, &st));
	ck_assert_int_eq(st, SDC_ETIMEOUT);
	ck_assert_int_eq(sdc_status(a), SDC_OK);
	ck_assert_int_eq(write(sp[1], "{\"ok\":true}\n", 12), 12);
	json_t *m = sdc_recv(a, 5000, &st);
	ck_assert(jtrue(m, "ok"));
	json_decref(m);
	close(sp[1]);
	ck_assert_ptr_null(sdc_recv(a, 5000, &st));
	ck_assert_int_eq(st, SDC_EOF);
	sdc_close(a);
}
END_TEST

START_TEST(test_call_timeout_and_close)
{
	struct sdc *c = open_sdc(FRAME_MODE_BINARY, 0);
	json_t *spin = req_new("{\"op\":\"execute\",\"timeout_ms\":2000,\"code\":\"for (;;) {}\"}");
	int st;
	ck_assert_ptr_null(sdc_call(c, spin, NULL, NULL, 100, &st));
	ck_assert_int_eq(st, SDC_ETIMEOUT);
	ck_assert_int_eq(sdc_status(c), SDC_OK);
	/* Forgotten: registered, dropping its frames, until its final reply. */
	ck_assert_uint_eq(sdc_pending(c), 1);
	/* The connection goes on: the late reply is dropped, health answered. */
	json_t *h = req_new("{\"op\":\"health\"}");
	json_t *r = sdc_call(c, h, NULL, NULL, 10000, &st);
	ck_assert(jtrue(r, "ok"));
	json_decref(r);
	/* Closing calls what is still registered with NULL. */
	struct seen s;
	seen_init(&s);
	ck_assert_int_gt(sdc_request(c, spin, record, &s), 0);
	sdc_close(c);
	ck_assert_int_eq(s.nulls, 1);
	json_decref(spin);
	json_decref(h);
	json_decref(s.frames);
	ck_assert_ptr_null(sdc_connect("/nonexistent/x.sock", FRAME_MODE_BINARY, 0));
	ck_assert_int_eq(errno, ENOENT);
	char longp[200];
	memset(longp, 'a', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	ck_assert_ptr_null(sdc_connect(longp, FRAME_MODE_BINARY, 0));
	ck_assert_int_eq(errno, ENAMETOOLONG);
}
END_TEST

START_TEST(test_default_socket)
{
	setenv("SANDBOXD_SOCKET", "/some/where.sock", 1);
	ck_assert_str_eq(sdc_default_socket(), "/some/where.sock");
	setenv("SANDBOXD_SOCKET", "", 1);
	/* The tests run from the source tree, where run/ is a `make run`'s. */
	const char *want = access("run/sandboxd.sock", F_OK) == 0 ? "run/sandboxd.sock"
								  : "/run/sandboxd/sandboxd.sock";
	ck_assert_str_eq(sdc_default_socket(), want);
	unsetenv("SANDBOXD_SOCKET");
	ck_assert_str_eq(sdc_default_socket(), want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sdc");
	TCase *tc = tcase_create("sdc");
	tcase_add_unchecked_fixture(tc, up, down);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ids_and_handlers);
	tcase_add_test(tc, test_default_handler_and_forget);
	tcase_add_test(tc, test_tool_result);
	tcase_add_test(tc, test_line_mode_and_text_requests);
	tcase_add_test(tc, test_queued_writes_nonblocking);
	tcase_add_test(tc, test_queued_writes_exact);
	tcase_add_test(tc, test_eof);
	tcase_add_test(tc, test_bad_frames);
	tcase_add_test(tc, test_call_timeout_and_close);
	tcase_add_test(tc, test_default_socket);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
