/*
 * check_conn.c - client connections (server/conn.c) alone: one end of a
 * socketpair is adopted as a connection, the test holds the other, and the
 * frame callback records what the connection hands it. Framing in both
 * modes, frames split across reads and many in one, the frame and idle
 * timeouts, back-pressure from a client that does not read, frames over
 * the limit, a frame cut by the end of input, a half-close, the count of
 * unanswered requests, replies that wait for the global budget, and big
 * frames parsed off the loop.
 *
 * The loop and the connections are process-global; Check forks each test,
 * so every test starts afresh. The test's end of the socketpair is watched
 * by the same loop, so the loop runs until what a test waits for happens
 * (a reply, EOF, a frame handed over) or a deadline fails it: no sleeps.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/frame.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/request.h"
#include "../server/conn.h"
#include "../server/log.h"
#include "../server/loop.h"
#include "../server/parse.h"

/* ---- what the callback saw */

struct seen {
	enum conn_frame_kind kind;
	struct conn *conn;
	char *payload; /* whole frames: a copy; parsed: the request's op */
	size_t len;
	enum frame_status status;
	size_t limit;
	uint64_t at_ms;
};

#define MAX_SEEN 512
static struct seen seen[MAX_SEEN];
static int n_seen;

/* How the callback answers a whole or parsed frame. */
enum policy {
	ANSWER,	       /* a reply {"id": n, "ok": true, "pad": pad_bytes of 'x'} */
	SILENT,	       /* handled, answered never */
	WAIT_ROOM,     /* asks conn_reply_waits for room_bound bytes first */
	FINISH_AFTER1, /* answers, then finishes the connection */
	SUBSCRIBE,     /* answers later: holds a conn_sub meanwhile, as an
			* execution does */
};
static enum policy policy = ANSWER;
static size_t pad_bytes;
static size_t room_bound;
static int later_count; /* CONN_LATER given */

/* The loop stops once this holds (checked after every callback). */
static bool (*stop_when)(void);

static void maybe_stop(void)
{
	if (stop_when && stop_when())
		loop_stop();
}

static void send_reply(struct conn *c, int n)
{
	json_t *id = json_integer(n);
	json_t *r = msg_reply_ok(id);
	json_decref(id);
	if (pad_bytes) {
		char *pad = malloc(pad_bytes + 1);
		ck_assert_ptr_nonnull(pad);
		memset(pad, 'x', pad_bytes);
		pad[pad_bytes] = '\0';
		json_object_set_new(r, "pad", json_string(pad));
		free(pad);
	}
	conn_send(c, r);
	json_decref(r);
}

static struct conn_sub sub;
static bool sub_was_gone;
static void sub_gone(struct conn_sub *s)
{
	(void)s;
	sub_was_gone = true;
	maybe_stop();
}
static void sub_drained(struct conn_sub *s) { (void)s; }
static const struct conn_sub_ops sub_ops = {sub_gone, sub_drained};

static enum conn_verdict on_frame(struct conn *c, const struct conn_frame *f)
{
	if (f->kind == CONN_FRAME_WHOLE || f->kind == CONN_FRAME_PARSED) {
		if (policy == WAIT_ROOM && conn_reply_waits(c, room_bound)) {
			later_count++;
			maybe_stop();
			return CONN_LATER;
		}
	}
	ck_assert_int_lt(n_seen, MAX_SEEN);
	struct seen *s = &seen[n_seen++];
	*s = (struct seen){f->kind, c, NULL, f->len, f->status, f->limit, loop_now_ms()};
	switch (f->kind) {
	case CONN_FRAME_WHOLE:
		s->payload = malloc(f->len + 1);
		memcpy(s->payload, f->payload, f->len);
		s->payload[f->len] = '\0';
		break;
	case CONN_FRAME_PARSED:
		s->payload = strdup(f->job->req.op_name ? f->job->req.op_name : "(failed)");
		s->len = f->job->req.code_len;
		break;
	default: {
		/* The input broke: a refusal, as ops.c sends one. */
		json_t *r = msg_reply_error(NULL, STATUS_INVALID_ARGUMENT, "input broke");
		conn_send(c, r);
		json_decref(r);
		maybe_stop();
		return CONN_HANDLED;
	}
	}
	if (policy == SUBSCRIBE) {
		sub.ops = &sub_ops;
		conn_subscribe(c, &sub);
	} else if (policy != SILENT) {
		send_reply(c, n_seen);
	}
	if (policy == FINISH_AFTER1)
		conn_finish(c);
	maybe_stop();
	return CONN_HANDLED;
}

/* ---- the test's end of the socket */

struct peer {
	int fd;
	struct loop_watch w;
	struct buf in;
	struct buf out; /* what the socket did not take yet */
	enum frame_mode mode;
	json_t *replies[MAX_SEEN];
	int n_replies;
	bool eof;
	uint64_t eof_ms;
	bool reading;
};
static struct peer peer;

static void peer_watch(void)
{
	if (!peer.eof)
		loop_mod(&peer.w,
			 (peer.reading ? EPOLLIN : 0) | (buf_len(&peer.out) ? EPOLLOUT : 0));
}

/* Sends what the peer has queued, as much as the socket takes. */
static void peer_flush(void)
{
	while (buf_len(&peer.out)) {
		ssize_t k = send(peer.fd, buf_peek(&peer.out), buf_len(&peer.out),
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		ck_assert_msg(k > 0, "send: %s", strerror(errno));
		buf_consume(&peer.out, (size_t)k);
	}
	peer_watch();
}

static void on_peer(struct loop_watch *w, uint32_t events)
{
	(void)w;
	if (events & EPOLLOUT)
		peer_flush();
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || !peer.reading)
		return;
	for (;;) {
		char *dst = buf_reserve(&peer.in, 65536);
		ck_assert_ptr_nonnull(dst);
		ssize_t n = recv(peer.fd, dst, 65536, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			peer.eof = true;
			peer.eof_ms = loop_now_ms();
			loop_mod(&peer.w, 0);
			break;
		}
		buf_commit(&peer.in, (size_t)n);
	}
	struct frame_decoder d;
	frame_decoder_init(&d, peer.mode, 1u << 30);
	for (;;) {
		const char *p;
		size_t plen, used;
		if (frame_next(&d, buf_peek(&peer.in), buf_len(&peer.in), &p, &plen, &used) !=
		    FRAME_OK)
			break;
		json_error_t e;
		json_t *r = json_loadb(p, plen, 0, &e);
		ck_assert_msg(r != NULL, "a reply that is not JSON: %s", e.text);
		ck_assert_int_lt(peer.n_replies, MAX_SEEN);
		peer.replies[peer.n_replies++] = r;
		buf_consume(&peer.in, used);
	}
	maybe_stop();
}

static void peer_read(bool on)
{
	peer.reading = on;
	peer_watch();
}

/* Queues bytes to send: what the socket does not take at once goes as the
 * loop runs. */
static void peer_write(const void *p, size_t n)
{
	ck_assert_int_eq(buf_append(&peer.out, p, n), 0);
	peer_flush();
}

/* One frame in the peer's mode. */
static void peer_frame(const char *json)
{
	struct buf b = BUF_INIT;
	ck_assert_int_eq(frame_append(&b, peer.mode, json, strlen(json)), 0);
	peer_write(buf_peek(&b), buf_len(&b));
	buf_free(&b);
}

/* ---- running the loop */

static bool timed_out;
static struct loop_timer deadline = LOOP_TIMER_INIT;

static void on_deadline(struct loop_timer *t)
{
	(void)t;
	timed_out = true;
	loop_stop();
}

/* Runs the loop until cond holds; false when timeout_ms passed first. */
static bool run_until(bool (*cond)(void), uint64_t timeout_ms)
{
	if (cond())
		return true;
	stop_when = cond;
	timed_out = false;
	ck_assert_int_eq(loop_timer_set(&deadline, timeout_ms, on_deadline), 0);
	ck_assert_int_eq(loop_run(), 0);
	loop_timer_cancel(&deadline);
	stop_when = NULL;
	return !timed_out && cond();
}

/* Runs n turns of the loop: whatever the bytes already in the sockets
 * cause is done by then (tasks queued for the next turn included). */
static int turns_left;
static struct loop_task turn_task = LOOP_TASK_INIT(turn_task);
static void on_turn(struct loop_task *t)
{
	(void)t;
	if (--turns_left <= 0)
		loop_stop();
	else
		loop_task_next(&turn_task, on_turn);
}
static void run_turns(int n)
{
	turns_left = n;
	loop_task_next(&turn_task, on_turn);
	ck_assert_int_eq(loop_run(), 0);
}

static int want_replies, want_seen;
static bool have_replies(void) { return peer.n_replies >= want_replies; }
static bool have_seen(void) { return n_seen >= want_seen; }
static bool have_eof(void) { return peer.eof; }

/* ---- set-up */

static struct conn_settings settings;
/* When not 0, the connection's socket send buffer: replies the client does
 * not read then stay queued in the connection rather than the kernel. */
static int conn_sndbuf;
static struct request_limits limits;

static void settings_default(void)
{
	request_limits_default(&limits);
	settings = (struct conn_settings){
		.max_frame_bytes = 4u << 20,
		.max_connections = 16,
		.frame_timeout_ms = 30000,
		.idle_timeout_ms = 600000,
		.reply_bytes = 32u << 20,
		.conn_reply_bytes = 4u << 20,
		.partial_bytes = 16u << 20,
		.frame = on_frame,
		.limits = &limits,
	};
}

static void setup(void)
{
	log_init(LOG_LEVEL_WARN);
	ck_assert_int_eq(loop_init(), 0);
	settings_default();
	n_seen = 0;
	later_count = 0;
	policy = ANSWER;
	pad_bytes = 0;
	room_bound = 0;
	memset(&peer, 0, sizeof peer);
	peer.fd = -1;
	conn_sndbuf = 0;
}

/* Starts conn.c with the settings, and one connection whose other end is
 * the peer's, in mode (the framing the peer writes and reads). */
static void start(enum frame_mode mode)
{
	ck_assert_uint_eq(conn_init(&settings), settings.max_connections);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	if (conn_sndbuf)
		ck_assert_int_eq(
			setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &conn_sndbuf, sizeof conn_sndbuf),
			0);
	peer.fd = sv[1];
	peer.mode = mode;
	peer.in = (struct buf)BUF_INIT;
	peer.out = (struct buf)BUF_INIT;
	peer.w = (struct loop_watch)LOOP_WATCH_INIT;
	ck_assert_int_eq(loop_add(&peer.w, peer.fd, EPOLLIN, on_peer), 0);
	peer.reading = true;
	ck_assert_int_eq(conn_adopt(sv[0]), 0);
	ck_assert_uint_eq(conn_count(), 1);
}

static long long reply_id(int i)
{
	ck_assert_int_lt(i, peer.n_replies);
	return json_integer_value(json_object_get(peer.replies[i], "id"));
}

/* ---- framing */

START_TEST(binary_frames_whole_in_order)
{
	start(FRAME_MODE_BINARY);
	/* Three frames in one write, the same bytes handed over. */
	struct buf b = BUF_INIT;
	static const char *const frames[] = {"{\"a\":1}", "[\"x y\"]",
					     "\"\\u0000 not json is fine\""};
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(frame_append(&b, FRAME_MODE_BINARY, frames[i], strlen(frames[i])),
				 0);
	peer_write(buf_peek(&b), buf_len(&b));
	buf_free(&b);
	want_replies = 3;
	ck_assert(run_until(have_replies, 10000));
	ck_assert_int_eq(n_seen, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(seen[i].kind, CONN_FRAME_WHOLE);
		ck_assert_uint_eq(seen[i].len, strlen(frames[i]));
		ck_assert_str_eq(seen[i].payload, frames[i]);
		/* Replies in the client's framing, in order. */
		ck_assert_int_eq(reply_id(i), i + 1);
	}
}
END_TEST

START_TEST(line_frames_and_blank_lines)
{
	start(FRAME_MODE_LINE);
	static const char in[] = "{\"op\":\"a\"}\n\n\r\n{\"op\":\"b\"}\r\n{\"op\":\"c\"}\n";
	peer_write(in, sizeof in - 1);
	want_replies = 3;
	ck_assert(run_until(have_replies, 10000));
	ck_assert_int_eq(n_seen, 3);
	ck_assert_str_eq(seen[0].payload, "{\"op\":\"a\"}");
	ck_assert_int_eq(strncmp(seen[1].payload, "{\"op\":\"b\"}", 10), 0);
	ck_assert_str_eq(seen[2].payload, "{\"op\":\"c\"}");
	/* A line-mode client is answered in lines. */
	ck_assert_int_eq(reply_id(2), 3);
}
END_TEST

START_TEST(partial_frames_wait_for_their_rest)
{
	start(FRAME_MODE_BINARY);
	static const char json[] = "{\"op\":\"health\",\"id\":\"split\"}";
	unsigned char hdr[4];
	frame_put_header(hdr, (uint32_t)(sizeof json - 1));
	/* The header in two pieces, the body in two: no frame until the last
	 * byte, then exactly one, whole. */
	peer_write(hdr, 2);
	run_turns(3);
	peer_write(hdr + 2, 2);
	run_turns(3);
	peer_write(json, 10);
	run_turns(3);
	ck_assert_int_eq(n_seen, 0);
	peer_write(json + 10, sizeof json - 1 - 10);
	want_seen = 1;
	ck_assert(run_until(have_seen, 10000));
	ck_assert_int_eq(n_seen, 1);
	ck_assert_str_eq(seen[0].payload, json);
	/* A frame and a half: the whole one now, the rest when it comes. */
	struct buf b = BUF_INIT;
	frame_append(&b, FRAME_MODE_BINARY, "{\"n\":2}", 7);
	frame_append(&b, FRAME_MODE_BINARY, "{\"n\":3}", 7);
	peer_write(buf_peek(&b), buf_len(&b) - 3);
	want_seen = 2;
	ck_assert(run_until(have_seen, 10000));
	run_turns(3);
	ck_assert_int_eq(n_seen, 2);
	peer_write(buf_peek(&b) + buf_len(&b) - 3, 3);
	want_seen = 3;
	ck_assert(run_until(have_seen, 10000));
	ck_assert_str_eq(seen[2].payload, "{\"n\":3}");
	buf_free(&b);
}
END_TEST

/* ---- timeouts */

START_TEST(frame_timeout_cuts_a_stalled_frame)
{
	settings.frame_timeout_ms = 150;
	start(FRAME_MODE_BINARY);
	uint64_t t0 = loop_now_ms();
	static const unsigned char half[] = {0, 0, 0, 40, '{', '"'};
	peer_write(half, sizeof half);
	ck_assert(run_until(have_eof, 10000));
	uint64_t took = peer.eof_ms - t0;
	printf("conn: a frame stalled half-sent was cut after %llu ms (frame timeout 150 ms)\n",
	       (unsigned long long)took);
	ck_assert_uint_ge(took, 150);
	ck_assert_uint_lt(took, 5000);
	ck_assert_int_eq(n_seen, 0);
	ck_assert_uint_eq(conn_count(), 0);
}
END_TEST

START_TEST(idle_timeout_closes_a_quiet_connection)
{
	settings.idle_timeout_ms = 200;
	settings.frame_timeout_ms = 50; /* not this one: no frame was begun */
	start(FRAME_MODE_BINARY);
	/* One request answered, then nothing: closed an idle timeout after
	 * the last bytes moved, not a frame timeout. */
	peer_frame("{\"op\":\"health\"}");
	want_replies = 1;
	ck_assert(run_until(have_replies, 10000));
	uint64_t t0 = loop_now_ms();
	ck_assert(run_until(have_eof, 10000));
	uint64_t took = peer.eof_ms - t0;
	printf("conn: an idle connection was closed after %llu ms (idle timeout 200 ms)\n",
	       (unsigned long long)took);
	ck_assert_uint_ge(took, 150);
	ck_assert_uint_lt(took, 5000);
	ck_assert_uint_eq(conn_count(), 0);
}
END_TEST

START_TEST(work_in_flight_is_not_idle)
{
	/* A request that is not answered yet (an execution running) keeps
	 * the connection: idle counts only once nothing is in flight. Here
	 * the callback holds a subscription for it, as exec.c does. */
	settings.idle_timeout_ms = 100;
	policy = SUBSCRIBE;
	start(FRAME_MODE_BINARY);
	peer_frame("{\"op\":\"execute\"}");
	want_seen = 1;
	ck_assert(run_until(have_seen, 10000));
	/* Three idle timeouts pass; it is still open. */
	static struct loop_timer t = LOOP_TIMER_INIT;
	ck_assert_int_eq(loop_timer_set(&t, 350, on_deadline), 0);
	timed_out = false;
	stop_when = have_eof;
	loop_run();
	stop_when = NULL;
	ck_assert(!peer.eof);
	ck_assert(!sub_was_gone);
	ck_assert_uint_eq(conn_count(), 1);
	/* Once the work is done and its reply sent, idle counts again. */
	conn_unsubscribe(seen[0].conn, &sub);
	send_reply(seen[0].conn, 1);
	ck_assert(run_until(have_eof, 10000));
	ck_assert_int_eq(peer.n_replies, 1);
}
END_TEST

static bool gone_told(void) { return sub_was_gone; }

START_TEST(client_gone_tells_the_work)
{
	/* The client closes while its request's work goes on: the work hears
	 * it (gone), and the connection is freed. */
	policy = SUBSCRIBE;
	start(FRAME_MODE_LINE);
	peer_write("{\"op\":\"execute\"}\n", 18);
	want_seen = 1;
	ck_assert(run_until(have_seen, 10000));
	ck_assert(!sub_was_gone);
	loop_del(&peer.w);
	close(peer.fd);
	ck_assert(run_until(gone_told, 10000));
	ck_assert_uint_eq(conn_count(), 0);
}
END_TEST

/* ---- back-pressure */

static size_t max_queued;
static bool track_queue(void)
{
	if (conn_reply_bytes_queued() > max_queued)
		max_queued = conn_reply_bytes_queued();
	return have_replies();
}

START_TEST(back_pressure_stops_reading)
{
	enum { N = 40 };
	settings.conn_reply_bytes = 64 * 1024;
	pad_bytes = 30 * 1024;
	/* The socket takes little of the replies: what is not sent is queued. */
	conn_sndbuf = 4096;
	start(FRAME_MODE_BINARY);
	peer_read(false);
	for (int i = 0; i < N; i++)
		peer_frame("{\"op\":\"x\"}");
	run_turns(20);
	/* It stops reading once its queue is past the connection's budget:
	 * not every request is handled, and it holds about its budget. */
	int handled = n_seen;
	size_t queued = conn_reply_bytes_queued();
	printf("conn: a client not reading had %d of %d requests handled, %zu bytes of replies "
	       "queued (budget %zu, a reply %zu bytes)\n",
	       handled, N, queued, settings.conn_reply_bytes, pad_bytes);
	ck_assert_int_lt(handled, N);
	ck_assert_int_gt(handled, 0);
	ck_assert_uint_le(queued, settings.conn_reply_bytes + 2 * (pad_bytes + 4096));
	/* More turns change nothing while it does not read. */
	run_turns(20);
	ck_assert_int_eq(n_seen, handled);
	/* It reads: every request is answered, in order, the queue held
	 * about the budget all along. */
	peer_read(true);
	want_replies = N;
	max_queued = 0;
	ck_assert(run_until(track_queue, 30000));
	ck_assert_int_eq(n_seen, N);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(reply_id(i), i + 1);
	ck_assert_uint_le(max_queued, settings.conn_reply_bytes + 2 * (pad_bytes + 4096));
	ck_assert_uint_eq(conn_reply_bytes_queued(), 0);
}
END_TEST

START_TEST(unanswered_requests_stop_reading)
{
	/* Requests the callback never answers count against
	 * LIMIT_CONN_OUTSTANDING: past it the connection is not read. */
	policy = SILENT;
	start(FRAME_MODE_BINARY);
	for (unsigned i = 0; i < LIMIT_CONN_OUTSTANDING + 10; i++)
		peer_frame("{\"op\":\"x\"}");
	run_turns(20);
	ck_assert_int_eq(n_seen, LIMIT_CONN_OUTSTANDING);
	/* One answered: one more read. */
	send_reply(seen[0].conn, 0);
	run_turns(10);
	ck_assert_int_eq(n_seen, LIMIT_CONN_OUTSTANDING + 1);
}
END_TEST

START_TEST(reply_waits_for_the_global_budget)
{
	/* One connection's unread replies fill the global budget; another's
	 * request whose reply may be big is not handled (CONN_LATER) until
	 * the first client reads, and then it is, once. */
	settings.reply_bytes = 128 * 1024;
	settings.conn_reply_bytes = 1u << 20;
	pad_bytes = 40 * 1024;
	conn_sndbuf = 4096;
	start(FRAME_MODE_BINARY);
	peer_read(false);
	for (int i = 0; i < 6; i++)
		peer_frame("{\"op\":\"x\"}");
	run_turns(20);
	ck_assert_uint_gt(conn_reply_bytes_queued(), settings.reply_bytes / 2);
	int first = n_seen;

	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(conn_adopt(sv[0]), 0);
	policy = WAIT_ROOM;
	room_bound = 100 * 1024;
	pad_bytes = 0;
	unsigned char hdr[4];
	frame_put_header(hdr, 12);
	ck_assert_int_eq(write(sv[1], hdr, 4), 4);
	ck_assert_int_eq(write(sv[1], "{\"op\":\"big\"}", 12), 12);
	run_turns(20);
	ck_assert_int_ge(later_count, 1);
	ck_assert_int_eq(n_seen, first);
	int later = later_count;
	run_turns(20);
	/* It is not asked again and again while nothing changes. */
	ck_assert_int_eq(later_count, later);
	/* The first client reads: room comes, the big one is handled. */
	policy = WAIT_ROOM;
	peer_read(true);
	want_seen = 7;
	ck_assert(run_until(have_seen, 30000));
	bool big = false;
	for (int i = 0; i < n_seen; i++)
		big = big || (seen[i].payload && strcmp(seen[i].payload, "{\"op\":\"big\"}") == 0);
	ck_assert(big);
	close(sv[1]);
}
END_TEST

/* ---- input that cannot go on */

static bool have_eof_and_seen(void) { return peer.eof && n_seen >= want_seen; }

START_TEST(frame_over_the_limit)
{
	settings.max_frame_bytes = 1024;
	start(FRAME_MODE_BINARY);
	peer_frame("{\"op\":\"ok\"}");
	unsigned char hdr[4];
	frame_put_header(hdr, 2000);
	peer_write(hdr, 4);
	peer_write("{\"op\":", 6);
	want_seen = 2;
	ck_assert(run_until(have_eof_and_seen, 10000));
	/* The frame before is answered; the one over the limit is handed as
	 * broken, with its length and the limit; its refusal is sent; then
	 * the connection closes. */
	ck_assert_int_eq(n_seen, 2);
	ck_assert_int_eq(seen[0].kind, CONN_FRAME_WHOLE);
	ck_assert_int_eq(seen[1].kind, CONN_FRAME_BROKEN);
	ck_assert_int_eq(seen[1].status, FRAME_ERR_TOO_BIG);
	ck_assert_uint_eq(seen[1].len, 2000);
	ck_assert_uint_eq(seen[1].limit, 1024);
	ck_assert_int_eq(peer.n_replies, 2);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(peer.replies[1], "error"), "message")),
			 "input broke");
	ck_assert_uint_eq(conn_count(), 0);
}
END_TEST

START_TEST(line_over_the_limit)
{
	settings.max_frame_bytes = 1024;
	start(FRAME_MODE_LINE);
	char line[3000];
	memset(line, ' ', sizeof line);
	line[0] = '{';
	peer_write(line, sizeof line); /* no newline within the limit */
	want_seen = 1;
	ck_assert(run_until(have_eof_and_seen, 10000));
	ck_assert_int_eq(seen[0].kind, CONN_FRAME_BROKEN);
	ck_assert_int_eq(seen[0].status, FRAME_ERR_TOO_BIG);
	ck_assert_int_eq(peer.n_replies, 1);
}
END_TEST

START_TEST(empty_binary_frame)
{
	start(FRAME_MODE_BINARY);
	static const unsigned char zero[] = {0, 0, 0, 0};
	peer_write(zero, 4);
	want_seen = 1;
	ck_assert(run_until(have_eof_and_seen, 10000));
	ck_assert_int_eq(seen[0].kind, CONN_FRAME_BROKEN);
	ck_assert_int_eq(seen[0].status, FRAME_ERR_EMPTY);
}
END_TEST

START_TEST(input_cut_inside_a_frame)
{
	start(FRAME_MODE_BINARY);
	peer_frame("{\"op\":\"one\"}");
	static const unsigned char half[] = {0, 0, 0, 50, '{'};
	peer_write(half, sizeof half);
	ck_assert_int_eq(shutdown(peer.fd, SHUT_WR), 0);
	want_seen = 2;
	ck_assert(run_until(have_eof_and_seen, 10000));
	ck_assert_int_eq(seen[0].kind, CONN_FRAME_WHOLE);
	ck_assert_int_eq(seen[1].kind, CONN_FRAME_CUT);
	/* Both answered before the close. */
	ck_assert_int_eq(peer.n_replies, 2);
}
END_TEST

START_TEST(half_close_still_gets_every_reply)
{
	/* As socat does at the end of its input: the requests sent are all
	 * answered, then it closes; no refusal. */
	start(FRAME_MODE_LINE);
	peer_write("{\"op\":\"a\"}\n{\"op\":\"b\"}\n", 22);
	ck_assert_int_eq(shutdown(peer.fd, SHUT_WR), 0);
	ck_assert(run_until(have_eof, 10000));
	ck_assert_int_eq(n_seen, 2);
	ck_assert_int_eq(peer.n_replies, 2);
	ck_assert_int_eq(seen[1].kind, CONN_FRAME_WHOLE);
}
END_TEST

START_TEST(finish_reads_no_more)
{
	/* A refusal that finishes the connection (a peer not admitted, one
	 * over the cap): the frames behind it are not handed over; the
	 * connection closes once its reply is out. */
	policy = FINISH_AFTER1;
	start(FRAME_MODE_BINARY);
	peer_frame("{\"op\":\"a\"}");
	peer_frame("{\"op\":\"b\"}");
	ck_assert(run_until(have_eof, 10000));
	ck_assert_int_eq(n_seen, 1);
	ck_assert_int_eq(peer.n_replies, 1);
}
END_TEST

START_TEST(over_cap_and_draining_are_told)
{
	settings.max_connections = 1;
	start(FRAME_MODE_BINARY);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	/* Past the cap it is still adopted, to be told why. */
	ck_assert_int_eq(conn_adopt(sv[0]), 0);
	ck_assert_uint_eq(conn_count(), 2);
	peer_frame("{\"op\":\"a\"}");
	unsigned char hdr[4];
	frame_put_header(hdr, 10);
	ck_assert_int_eq(write(sv[1], hdr, 4), 4);
	ck_assert_int_eq(write(sv[1], "{\"op\":\"b\"}", 10), 10);
	want_seen = 2;
	ck_assert(run_until(have_seen, 10000));
	ck_assert(!conn_over_cap(seen[0].conn) && conn_over_cap(seen[1].conn));
	ck_assert(!conn_refused(seen[0].conn) && !conn_refused(seen[1].conn));
	ck_assert(!conn_draining());
	conn_shutdown_all();
	ck_assert(conn_draining());
	close(sv[1]);
}
END_TEST

/* ---- big frames parsed off the loop */

START_TEST(big_frame_parsed_off_the_loop)
{
	ck_assert_int_eq(parse_init(), 0);
	start(FRAME_MODE_BINARY);
	size_t n = LIMIT_PARSE_INLINE_BYTES + 1000;
	char *json = malloc(n + 64);
	int k = snprintf(json, 64, "{\"op\":\"execute\",\"code\":\"");
	memset(json + k, 'a', n);
	strcpy(json + k + n, "\"}");
	/* A small frame behind it keeps its place: handed after the big one. */
	peer_frame(json);
	peer_frame("{\"op\":\"after\"}");
	want_replies = 2;
	ck_assert(run_until(have_replies, 30000));
	ck_assert_int_eq(n_seen, 2);
	ck_assert_int_eq(seen[0].kind, CONN_FRAME_PARSED);
	ck_assert_str_eq(seen[0].payload, "execute");
	ck_assert_uint_eq(seen[0].len, n);
	ck_assert_int_eq(seen[1].kind, CONN_FRAME_WHOLE);
	ck_assert_str_eq(seen[1].payload, "{\"op\":\"after\"}");
	free(json);
	conn_close_all();
	parse_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conn");
	TCase *tc = tcase_create("framing");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, binary_frames_whole_in_order);
	tcase_add_test(tc, line_frames_and_blank_lines);
	tcase_add_test(tc, partial_frames_wait_for_their_rest);
	suite_add_tcase(s, tc);
	tc = tcase_create("timeouts");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frame_timeout_cuts_a_stalled_frame);
	tcase_add_test(tc, idle_timeout_closes_a_quiet_connection);
	tcase_add_test(tc, work_in_flight_is_not_idle);
	tcase_add_test(tc, client_gone_tells_the_work);
	suite_add_tcase(s, tc);
	tc = tcase_create("pressure");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, back_pressure_stops_reading);
	tcase_add_test(tc, unanswered_requests_stop_reading);
	tcase_add_test(tc, reply_waits_for_the_global_budget);
	suite_add_tcase(s, tc);
	tc = tcase_create("input");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frame_over_the_limit);
	tcase_add_test(tc, line_over_the_limit);
	tcase_add_test(tc, empty_binary_frame);
	tcase_add_test(tc, input_cut_inside_a_frame);
	tcase_add_test(tc, half_close_still_gets_every_reply);
	tcase_add_test(tc, finish_reads_no_more);
	tcase_add_test(tc, over_cap_and_draining_are_told);
	tcase_add_test(tc, big_frame_parsed_off_the_loop);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
