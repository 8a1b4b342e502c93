/*
 * check_frame.c - the wire framing (protocol/frame.c) and the byte buffer
 * it works on (protocol/buf.c).
 *
 * Every decoding test drives the decoder the way a connection does: bytes
 * arrive in a struct buf, frame_next is called until it wants more, and
 * what it reports as used is consumed. Splitting the same stream at every
 * point must then yield the same frames as reading it whole.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/buf.h"
#include "../protocol/frame.h"

/* ---- helpers */

/* What a stream decoded to: each frame as "[payload]", then the status
 * that stopped decoding. */
struct decoded {
	char text[8192];
	size_t len;
	int frames;
	enum frame_status last;
	size_t last_plen;
};

/* Decodes every whole frame in *in, consuming what the decoder used. */
static enum frame_status drain(struct frame_decoder *d, struct buf *in, struct decoded *out)
{
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st =
			frame_next(d, buf_peek(in), buf_len(in), &payload, &plen, &used);
		ck_assert_uint_le(used, buf_len(in));
		out->last = st;
		out->last_plen = plen;
		if (st != FRAME_OK) {
			if (st == FRAME_MORE)
				buf_consume(in, used);
			return st;
		}
		ck_assert_ptr_nonnull(payload);
		ck_assert_uint_gt(used, 0);
		ck_assert_uint_le(out->len + plen + 2, sizeof out->text);
		out->text[out->len++] = '[';
		memcpy(out->text + out->len, payload, plen);
		out->len += plen;
		out->text[out->len++] = ']';
		out->text[out->len] = '\0';
		out->frames++;
		buf_consume(in, used);
	}
}

/* Feeds stream[0..len) to a fresh decoder in chunks that end at the given
 * cut points (ascending, each in 1..len-1); stops at the first error. */
static void feed_cuts(enum frame_mode mode, size_t max, const char *stream, size_t len,
		      const size_t *cuts, size_t ncuts, struct decoded *out)
{
	struct frame_decoder d;
	struct buf in = BUF_INIT;
	frame_decoder_init(&d, mode, max);
	memset(out, 0, sizeof *out);
	ck_assert_ptr_nonnull(buf_reserve(&in, 1)); /* never hand the decoder NULL */
	size_t from = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;
		ck_assert_int_eq(buf_append(&in, stream + from, to - from), 0);
		from = to;
		if (drain(&d, &in, out) != FRAME_MORE)
			break;
	}
	buf_free(&in);
}

static void feed_whole(enum frame_mode mode, size_t max, const char *stream, size_t len,
		       struct decoded *out)
{
	feed_cuts(mode, max, stream, len, NULL, 0, out);
}

/* Checks that stream decodes to expect (ending in FRAME_MORE) when read
 * whole, one byte at a time, in two pieces cut anywhere, and in three. */
static void check_all_splits(enum frame_mode mode, const char *stream, size_t len,
			     const char *expect, int nframes)
{
	struct decoded got;
	size_t *cuts = malloc(len * sizeof *cuts);
	ck_assert_ptr_nonnull(cuts);

	feed_whole(mode, 1024, stream, len, &got);
	ck_assert_int_eq(got.last, FRAME_MORE);
	ck_assert_int_eq(got.frames, nframes);
	ck_assert_str_eq(got.text, expect);

	for (size_t i = 0; i + 1 < len; i++)
		cuts[i] = i + 1;
	feed_cuts(mode, 1024, stream, len, cuts, len - 1, &got);
	ck_assert_msg(got.last == FRAME_MORE && strcmp(got.text, expect) == 0,
		      "byte at a time: got %s (status %d)", got.text, got.last);

	for (size_t k = 1; k < len; k++) {
		feed_cuts(mode, 1024, stream, len, &k, 1, &got);
		ck_assert_msg(got.last == FRAME_MORE && strcmp(got.text, expect) == 0,
			      "split at %zu: got %s (status %d)", k, got.text, got.last);
	}
	for (size_t a = 1; a < len; a += 3) {
		for (size_t b = a + 1; b < len; b += 5) {
			size_t two[2] = {a, b};
			feed_cuts(mode, 1024, stream, len, two, 2, &got);
			ck_assert_msg(got.last == FRAME_MORE && strcmp(got.text, expect) == 0,
				      "split at %zu and %zu: got %s", a, b, got.text);
		}
	}
	free(cuts);
}

/* Appends a binary frame (header + payload) to s at *n. */
static void put_binary(char *s, size_t *n, const char *payload, size_t plen)
{
	frame_put_header((unsigned char *)s + *n, (uint32_t)plen);
	memcpy(s + *n + 4, payload, plen);
	*n += 4 + plen;
}

/* ---- binary mode */

START_TEST(binary_single)
{
	char s[64];
	size_t n = 0;
	put_binary(s, &n, "{\"op\":\"health\"}", 15);
	ck_assert_uint_eq(n, 19);
	ck_assert_int_eq(s[0], 0);
	ck_assert_int_eq(s[3], 15);

	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 1024);
	const char *p;
	size_t plen, used;
	ck_assert_int_eq(frame_next(&d, s, n, &p, &plen, &used), FRAME_OK);
	ck_assert_ptr_eq(p, s + 4);
	ck_assert_uint_eq(plen, 15);
	ck_assert_uint_eq(used, 19);
	/* Anything short of the whole frame is "more", consuming nothing. */
	for (size_t k = 0; k < n; k++) {
		ck_assert_int_eq(frame_next(&d, s, k, &p, &plen, &used), FRAME_MORE);
		ck_assert_uint_eq(used, 0);
	}
}
END_TEST

START_TEST(binary_payload_may_hold_anything)
{
	/* Newlines, NULs and '{' are plain payload bytes in binary mode. */
	static const char body[] = "a\nb\0c{\r\n";
	char s[64];
	size_t n = 0;
	put_binary(s, &n, body, sizeof body - 1);
	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 1024);
	const char *p;
	size_t plen, used;
	ck_assert_int_eq(frame_next(&d, s, n, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, sizeof body - 1);
	ck_assert_mem_eq(p, body, plen);
}
END_TEST

START_TEST(binary_coalesced_and_split)
{
	char s[256];
	size_t n = 0;
	put_binary(s, &n, "{\"a\":1}", 7);
	put_binary(s, &n, "x", 1);
	put_binary(s, &n, "line\nbreak", 10);
	put_binary(s, &n, "{\"op\":\"execute\",\"code\":\"1+1\"}", 29);
	check_all_splits(FRAME_MODE_BINARY, s, n,
			 "[{\"a\":1}][x][line\nbreak][{\"op\":\"execute\",\"code\":\"1+1\"}]", 4);
	check_all_splits(FRAME_MODE_AUTO, s, n,
			 "[{\"a\":1}][x][line\nbreak][{\"op\":\"execute\",\"code\":\"1+1\"}]", 4);
}
END_TEST

START_TEST(binary_large_header_bytes)
{
	/* All four header bytes count, most significant first. */
	static char s[4 + 0x010203];
	frame_put_header((unsigned char *)s, 0x010203);
	memset(s + 4, 'x', 0x010203);
	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 0x010203);
	const char *p;
	size_t plen, used;
	ck_assert_int_eq(frame_next(&d, s, sizeof s, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 0x010203);
	ck_assert_uint_eq(used, sizeof s);
	ck_assert_int_eq(frame_next(&d, s, sizeof s - 1, &p, &plen, &used), FRAME_MORE);
}
END_TEST

START_TEST(binary_empty)
{
	static const char zero[4] = {0, 0, 0, 0};
	struct frame_decoder d;
	const char *p;
	size_t plen = 99, used = 99;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 1024);
	ck_assert_int_eq(frame_next(&d, zero, 3, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(frame_next(&d, zero, 4, &p, &plen, &used), FRAME_ERR_EMPTY);
	ck_assert_uint_eq(plen, 0);
	ck_assert_uint_eq(used, 0);

	/* In auto mode a first byte of 0 means binary, so the same. */
	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	ck_assert_int_eq(frame_next(&d, zero, 4, &p, &plen, &used), FRAME_ERR_EMPTY);
	ck_assert_int_eq(d.mode, FRAME_MODE_BINARY);

	/* An empty frame after a good one is reported once reached. */
	char s[32];
	size_t n = 0;
	put_binary(s, &n, "ok", 2);
	memcpy(s + n, zero, 4);
	n += 4;
	struct decoded got;
	feed_whole(FRAME_MODE_BINARY, 1024, s, n, &got);
	ck_assert_int_eq(got.frames, 1);
	ck_assert_str_eq(got.text, "[ok]");
	ck_assert_int_eq(got.last, FRAME_ERR_EMPTY);
}
END_TEST

START_TEST(binary_too_big_from_header)
{
	/* Refused from the header alone: no payload byte need arrive. */
	unsigned char h[4];
	struct frame_decoder d;
	const char *p;
	size_t plen, used;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 100);
	frame_put_header(h, 101);
	ck_assert_int_eq(frame_next(&d, (const char *)h, 3, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(frame_next(&d, (const char *)h, 4, &p, &plen, &used), FRAME_ERR_TOO_BIG);
	ck_assert_uint_eq(plen, 101);
	ck_assert_uint_eq(used, 0);

	frame_put_header(h, UINT32_MAX);
	ck_assert_int_eq(frame_next(&d, (const char *)h, 4, &p, &plen, &used), FRAME_ERR_TOO_BIG);
	ck_assert_uint_eq(plen, UINT32_MAX);

	/* Exactly the maximum is fine. */
	char s[4 + 100];
	size_t n = 0;
	memset(s, 'y', sizeof s);
	frame_put_header((unsigned char *)s, 100);
	n = sizeof s;
	ck_assert_int_eq(frame_next(&d, s, n, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 100);
	ck_assert_uint_eq(used, 104);
}
END_TEST

/* ---- line mode */

START_TEST(line_single)
{
	static const char s[] = "{\"op\":\"health\"}\n";
	struct frame_decoder d;
	const char *p;
	size_t plen, used;
	frame_decoder_init(&d, FRAME_MODE_LINE, 1024);
	ck_assert_int_eq(frame_next(&d, s, sizeof s - 1, &p, &plen, &used), FRAME_OK);
	ck_assert_ptr_eq(p, s);
	ck_assert_uint_eq(plen, 15);
	ck_assert_uint_eq(used, 16);
	/* Without its newline the line is not yet a frame. */
	frame_decoder_init(&d, FRAME_MODE_LINE, 1024);
	ck_assert_int_eq(frame_next(&d, s, sizeof s - 2, &p, &plen, &used), FRAME_MORE);
	ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(line_crlf)
{
	static const char s[] = "{\"a\":1}\r\n{\"b\":2}\n";
	struct frame_decoder d;
	const char *p;
	size_t plen, used;
	frame_decoder_init(&d, FRAME_MODE_LINE, 1024);
	ck_assert_int_eq(frame_next(&d, s, sizeof s - 1, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 7);
	ck_assert_mem_eq(p, "{\"a\":1}", 7);
	ck_assert_uint_eq(used, 9); /* the '\r' goes with the newline */
	check_all_splits(FRAME_MODE_LINE, s, sizeof s - 1, "[{\"a\":1}][{\"b\":2}]", 2);
}
END_TEST

START_TEST(line_blank_lines_skipped)
{
	static const char s[] = "{\"a\":1}\n\n\r\n\n{\"b\":2}\r\n\r\n\n{\"c\":3}\n\n";
	check_all_splits(FRAME_MODE_LINE, s, sizeof s - 1, "[{\"a\":1}][{\"b\":2}][{\"c\":3}]", 3);
	check_all_splits(FRAME_MODE_AUTO, s, sizeof s - 1, "[{\"a\":1}][{\"b\":2}][{\"c\":3}]", 3);

	/* Blank lines alone are consumed and reported as "more". */
	static const char blanks[] = "\n\r\n\n";
	struct frame_decoder d;
	const char *p;
	size_t plen, used;
	frame_decoder_init(&d, FRAME_MODE_LINE, 1024);
	ck_assert_int_eq(frame_next(&d, blanks, sizeof blanks - 1, &p, &plen, &used), FRAME_MORE);
	ck_assert_uint_eq(used, sizeof blanks - 1);

	/* Blank lines before a partial line are consumed, the line kept. */
	static const char partial[] = "\n\n{\"x\"";
	frame_decoder_init(&d, FRAME_MODE_LINE, 1024);
	ck_assert_int_eq(frame_next(&d, partial, sizeof partial - 1, &p, &plen, &used), FRAME_MORE);
	ck_assert_uint_eq(used, 2);
}
END_TEST

START_TEST(line_coalesced_and_split)
{
	static const char s[] = "{\"op\":\"health\",\"id\":1}\n"
				"{\"op\":\"execute\",\"code\":\"print('a\\\\nb')\"}\r\n"
				"{}\n"
				"{\"id\":\"\xc3\xa9\"}\n";
	static const char expect[] = "[{\"op\":\"health\",\"id\":1}]"
				     "[{\"op\":\"execute\",\"code\":\"print('a\\\\nb')\"}]"
				     "[{}]"
				     "[{\"id\":\"\xc3\xa9\"}]";
	check_all_splits(FRAME_MODE_LINE, s, sizeof s - 1, expect, 4);
	check_all_splits(FRAME_MODE_AUTO, s, sizeof s - 1, expect, 4);
}
END_TEST

START_TEST(line_too_big)
{
	char s[64];
	struct frame_decoder d;
	const char *p;
	size_t plen, used;

	/* A whole line of max bytes is fine, with or without '\r'. */
	memset(s, 'a', 16);
	s[16] = '\n';
	frame_decoder_init(&d, FRAME_MODE_LINE, 16);
	ck_assert_int_eq(frame_next(&d, s, 17, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 16);
	s[16] = '\r';
	s[17] = '\n';
	frame_decoder_init(&d, FRAME_MODE_LINE, 16);
	ck_assert_int_eq(frame_next(&d, s, 17, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(frame_next(&d, s, 18, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 16);
	ck_assert_uint_eq(used, 18);

	/* A whole line one byte over. */
	memset(s, 'a', 17);
	s[17] = '\n';
	frame_decoder_init(&d, FRAME_MODE_LINE, 16);
	ck_assert_int_eq(frame_next(&d, s, 18, &p, &plen, &used), FRAME_ERR_TOO_BIG);
	ck_assert_uint_eq(plen, 17);

	/* No newline yet: refused once the bytes cannot be a line of max
	 * (max, plus one for a '\r'), without waiting for the newline. */
	memset(s, 'a', sizeof s);
	frame_decoder_init(&d, FRAME_MODE_LINE, 16);
	ck_assert_int_eq(frame_next(&d, s, 16, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(frame_next(&d, s, 18, &p, &plen, &used), FRAME_ERR_TOO_BIG);
	ck_assert_uint_gt(plen, 16);

	/* The same when it arrives a byte at a time after a good frame. */
	char stream[80];
	memcpy(stream, "{}\n", 3);
	memset(stream + 3, 'b', 40);
	size_t cuts[42];
	for (size_t i = 0; i < 42; i++)
		cuts[i] = i + 1;
	struct decoded got;
	feed_cuts(FRAME_MODE_LINE, 16, stream, 43, cuts, 42, &got);
	ck_assert_int_eq(got.frames, 1);
	ck_assert_str_eq(got.text, "[{}]");
	ck_assert_int_eq(got.last, FRAME_ERR_TOO_BIG);

	/* Blank lines do not count towards a line's length. */
	char blanks[64];
	memset(blanks, '\n', 30);
	memcpy(blanks + 30, "{\"a\":1}\n", 8);
	frame_decoder_init(&d, FRAME_MODE_LINE, 16);
	ck_assert_int_eq(frame_next(&d, blanks, 38, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 7);
	ck_assert_uint_eq(used, 38);
}
END_TEST

/* ---- auto mode */

START_TEST(auto_detect)
{
	struct frame_decoder d;
	const char *p;
	size_t plen, used;

	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	ck_assert_int_eq(frame_next(&d, "", 0, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(d.mode, FRAME_MODE_AUTO); /* nothing to decide on yet */
	ck_assert_int_eq(frame_next(&d, "{", 1, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(d.mode, FRAME_MODE_LINE);

	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	ck_assert_int_eq(frame_next(&d, "\0", 1, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(d.mode, FRAME_MODE_BINARY);

	/* Only '{' picks line mode: a leading blank line or space does not
	 * (and " {}\n" read as a binary header is far over the maximum). */
	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	ck_assert_int_eq(frame_next(&d, " {}\n", 4, &p, &plen, &used), FRAME_ERR_TOO_BIG);
	ck_assert_int_eq(d.mode, FRAME_MODE_BINARY);
	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	frame_next(&d, "\n{}\n", 4, &p, &plen, &used);
	ck_assert_int_eq(d.mode, FRAME_MODE_BINARY);

	/* The mode sticks: a later frame starting with 0 is not binary. */
	frame_decoder_init(&d, FRAME_MODE_AUTO, 1024);
	ck_assert_int_eq(frame_next(&d, "{}\n", 3, &p, &plen, &used), FRAME_OK);
	ck_assert_int_eq(frame_next(&d, "\0\0\0\2{}\n", 7, &p, &plen, &used), FRAME_OK);
	ck_assert_uint_eq(plen, 6);

	/* And binary sticks: a '{' after a binary frame is a length byte. */
	char s[16];
	size_t n = 0;
	put_binary(s, &n, "{}", 2);
	frame_decoder_init(&d, FRAME_MODE_AUTO, (size_t)1 << 31);
	ck_assert_int_eq(frame_next(&d, s, n, &p, &plen, &used), FRAME_OK);
	ck_assert_int_eq(frame_next(&d, "{}\n\n", 4, &p, &plen, &used), FRAME_MORE);
	ck_assert_int_eq(d.mode, FRAME_MODE_BINARY);
}
END_TEST

/* ---- encoding */

START_TEST(put_header)
{
	unsigned char h[4];
	frame_put_header(h, 0x01020304u);
	ck_assert_int_eq(h[0], 1);
	ck_assert_int_eq(h[1], 2);
	ck_assert_int_eq(h[2], 3);
	ck_assert_int_eq(h[3], 4);
	frame_put_header(h, 0);
	ck_assert_int_eq(h[0] | h[1] | h[2] | h[3], 0);
	frame_put_header(h, UINT32_MAX);
	ck_assert_int_eq(h[0] & h[1] & h[2] & h[3], 0xFF);

	/* Round trip through the decoder for lengths that use each byte. */
	static const uint32_t lens[] = {1,	   0x7F,       0x80,	    0xFF,
					0x100,	   0xFFFF,     0x10000,	    0xFFFFFF,
					0x1000000, 0x7FFFFFFF, 0x80000000u, UINT32_MAX};
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		struct frame_decoder d;
		const char *p;
		size_t plen, used;
		frame_put_header(h, lens[i]);
		frame_decoder_init(&d, FRAME_MODE_BINARY, 1);
		enum frame_status st = frame_next(&d, (const char *)h, 4, &p, &plen, &used);
		ck_assert_uint_eq(plen, lens[i]);
		ck_assert_int_eq(st, lens[i] > 1 ? FRAME_ERR_TOO_BIG : FRAME_MORE);
	}
}
END_TEST

START_TEST(append_binary_round_trip)
{
	struct buf out = BUF_INIT;
	static const char *msgs[] = {"{\"ok\":true}", "x", "with\nnewline",
				     "{\"id\":\"\xe2\x82\xac\"}"};
	const size_t nmsgs = sizeof msgs / sizeof msgs[0];
	for (size_t i = 0; i < nmsgs; i++)
		ck_assert_int_eq(frame_append(&out, FRAME_MODE_BINARY, msgs[i], strlen(msgs[i])),
				 0);
	ck_assert_uint_eq(buf_len(&out), 4 * nmsgs + 11 + 1 + 12 + 12);
	ck_assert_mem_eq(buf_peek(&out), "\0\0\0\013{\"ok\":true}\0\0\0\1x", 20);

	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, 1024);
	for (size_t i = 0; i < nmsgs; i++) {
		const char *p;
		size_t plen, used;
		ck_assert_int_eq(frame_next(&d, buf_peek(&out), buf_len(&out), &p, &plen, &used),
				 FRAME_OK);
		ck_assert_uint_eq(plen, strlen(msgs[i]));
		ck_assert_mem_eq(p, msgs[i], plen);
		buf_consume(&out, used);
	}
	ck_assert_uint_eq(buf_len(&out), 0);
	buf_free(&out);
}
END_TEST

START_TEST(append_line_round_trip)
{
	struct buf out = BUF_INIT;
	static const char *msgs[] = {"{\"ok\":true}", "{\"event\":\"stdout\",\"data\":\"a\\nb\"}",
				     "{}"};
	const size_t nmsgs = sizeof msgs / sizeof msgs[0];
	for (size_t i = 0; i < nmsgs; i++)
		ck_assert_int_eq(frame_append(&out, FRAME_MODE_LINE, msgs[i], strlen(msgs[i])), 0);
	ck_assert_uint_eq(buf_len(&out), strlen(msgs[0]) + strlen(msgs[1]) + strlen(msgs[2]) + 3);
	ck_assert_mem_eq(buf_peek(&out), "{\"ok\":true}\n{", 13);

	struct decoded got;
	feed_whole(FRAME_MODE_AUTO, 1024, buf_peek(&out), buf_len(&out), &got);
	ck_assert_int_eq(got.frames, 3);
	ck_assert_str_eq(got.text,
			 "[{\"ok\":true}][{\"event\":\"stdout\",\"data\":\"a\\nb\"}][{}]");
	buf_free(&out);
}
END_TEST

START_TEST(append_line_refuses_newline)
{
	struct buf out = BUF_INIT;
	ck_assert_int_eq(frame_append(&out, FRAME_MODE_LINE, "{}", 2), 0);
	size_t before = buf_len(&out);
	ck_assert_int_eq(frame_append(&out, FRAME_MODE_LINE, "{\n}", 3), -1);
	ck_assert_int_eq(frame_append(&out, FRAME_MODE_LINE, "{}\n", 3), -1);
	ck_assert_int_eq(frame_append(&out, FRAME_MODE_LINE, "\n", 1), -1);
	ck_assert_uint_eq(buf_len(&out), before); /* nothing half-written */
	ck_assert_mem_eq(buf_peek(&out), "{}\n", 3);
	/* The same payload is fine in binary mode. */
	ck_assert_int_eq(frame_append(&out, FRAME_MODE_BINARY, "{\n}", 3), 0);
	ck_assert_uint_eq(buf_len(&out), before + 7);
	buf_free(&out);
}
END_TEST

START_TEST(status_strings)
{
	static const enum frame_status all[] = {FRAME_MORE, FRAME_OK, FRAME_ERR_EMPTY,
						FRAME_ERR_TOO_BIG};
	for (size_t i = 0; i < 4; i++) {
		ck_assert_ptr_nonnull(frame_status_str(all[i]));
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(frame_status_str(all[i]), frame_status_str(all[j]));
	}
	ck_assert_ptr_nonnull(strstr(frame_status_str(FRAME_ERR_TOO_BIG), "maximum"));
}
END_TEST

/* ---- buf */

START_TEST(buf_basic)
{
	struct buf b = BUF_INIT;
	ck_assert_uint_eq(buf_len(&b), 0);
	ck_assert_int_eq(buf_append(&b, "hello", 5), 0);
	ck_assert_uint_eq(buf_len(&b), 5);
	ck_assert_mem_eq(buf_peek(&b), "hello", 5);
	ck_assert_int_eq(buf_append(&b, " world", 6), 0);
	ck_assert_mem_eq(buf_peek(&b), "hello world", 11);
	ck_assert_int_eq(buf_append(&b, NULL, 0), 0); /* nothing to do */
	ck_assert_uint_eq(buf_len(&b), 11);

	buf_consume(&b, 6);
	ck_assert_uint_eq(buf_len(&b), 5);
	ck_assert_mem_eq(buf_peek(&b), "world", 5);
	buf_consume(&b, 5);
	ck_assert_uint_eq(buf_len(&b), 0);
	ck_assert_uint_eq(b.start, 0); /* emptied: back to the front */
	ck_assert_uint_eq(b.end, 0);

	ck_assert_int_eq(buf_append(&b, "abc", 3), 0);
	buf_clear(&b);
	ck_assert_uint_eq(buf_len(&b), 0);
	ck_assert_ptr_nonnull(b.data); /* clear keeps the memory */

	buf_free(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.cap, 0);
	ck_assert_uint_eq(buf_len(&b), 0);
	buf_free(&b); /* twice is harmless */
	ck_assert_int_eq(buf_append(&b, "again", 5), 0);
	ck_assert_mem_eq(buf_peek(&b), "again", 5);
	buf_free(&b);
}
END_TEST

START_TEST(buf_reserve_commit)
{
	struct buf b = BUF_INIT;
	char *p = buf_reserve(&b, 10);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(b.cap, 10);
	ck_assert_uint_eq(buf_len(&b), 0); /* reserving adds nothing */
	memcpy(p, "0123456789", 10);
	buf_commit(&b, 4); /* a short read: only part is kept */
	ck_assert_uint_eq(buf_len(&b), 4);
	ck_assert_mem_eq(buf_peek(&b), "0123", 4);

	p = buf_reserve(&b, 3);
	ck_assert_ptr_eq(p, b.data + 4); /* right after what is held */
	memcpy(p, "abc", 3);
	buf_commit(&b, 3);
	ck_assert_mem_eq(buf_peek(&b), "0123abc", 7);

	/* Reserving nothing is not a failure, even on a fresh buffer. */
	struct buf e = BUF_INIT;
	ck_assert_ptr_nonnull(buf_reserve(&e, 0));
	ck_assert_ptr_nonnull(buf_reserve(&b, 0));
	buf_free(&e);
	buf_free(&b);
}
END_TEST

START_TEST(buf_growth)
{
	struct buf b = BUF_INIT;
	char chunk[100];
	for (int i = 0; i < 1000; i++) {
		memset(chunk, 'a' + i % 26, sizeof chunk);
		ck_assert_int_eq(buf_append(&b, chunk, sizeof chunk), 0);
		ck_assert_uint_ge(b.cap, b.end);
	}
	ck_assert_uint_eq(buf_len(&b), 100000);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(buf_peek(&b)[i * 100 + 99], 'a' + i % 26);
	/* Growth is geometric, not one chunk at a time. */
	ck_assert_uint_lt(b.cap, 2 * 100000 + 256);

	/* One big append grows enough in one step. */
	struct buf c = BUF_INIT;
	ck_assert_int_eq(buf_append(&c, "x", 1), 0);
	char *big = malloc(5000);
	ck_assert_ptr_nonnull(big);
	memset(big, 'z', 5000);
	ck_assert_int_eq(buf_append(&c, big, 5000), 0);
	ck_assert_uint_eq(buf_len(&c), 5001);
	ck_assert_int_eq(buf_peek(&c)[0], 'x');
	ck_assert_mem_eq(buf_peek(&c) + 1, big, 5000);
	free(big);
	buf_free(&c);
	buf_free(&b);
}
END_TEST

START_TEST(buf_slides_before_growing)
{
	struct buf b = BUF_INIT;
	char fill[256];
	for (size_t i = 0; i < sizeof fill; i++)
		fill[i] = (char)i;
	ck_assert_int_eq(buf_append(&b, fill, sizeof fill), 0);
	size_t cap = b.cap;
	ck_assert_uint_eq(b.end, cap); /* full */
	char *data = b.data;

	buf_consume(&b, 200);
	ck_assert_uint_eq(b.start, 200); /* consumed lazily */
	ck_assert_int_eq(buf_append(&b, "tail", 4), 0);
	/* The 56 unconsumed bytes moved to the front; no new memory. */
	ck_assert_uint_eq(b.cap, cap);
	ck_assert_ptr_eq(b.data, data);
	ck_assert_uint_eq(b.start, 0);
	ck_assert_uint_eq(buf_len(&b), 60);
	ck_assert_mem_eq(buf_peek(&b), fill + 200, 56);
	ck_assert_mem_eq(buf_peek(&b) + 56, "tail", 4);

	/* Sliding is not enough: slide and grow, keeping the bytes. */
	buf_consume(&b, 10);
	char more[400];
	memset(more, 'm', sizeof more);
	ck_assert_int_eq(buf_append(&b, more, sizeof more), 0);
	ck_assert_uint_gt(b.cap, cap);
	ck_assert_uint_eq(buf_len(&b), 450);
	ck_assert_mem_eq(buf_peek(&b), fill + 210, 46);
	ck_assert_mem_eq(buf_peek(&b) + 46, "tail", 4);
	ck_assert_mem_eq(buf_peek(&b) + 50, more, 400);
	buf_free(&b);
}
END_TEST

START_TEST(buf_refuses_impossible_sizes)
{
	struct buf b = BUF_INIT;
	ck_assert_ptr_null(buf_reserve(&b, (size_t)-1));
	ck_assert_int_eq(buf_append(&b, "abc", 3), 0);
	buf_consume(&b, 1);
	ck_assert_ptr_null(buf_reserve(&b, (size_t)-1));
	ck_assert_ptr_null(buf_reserve(&b, (size_t)-1 / 2 + 2));
	/* The buffer is unchanged by the failures. */
	ck_assert_uint_eq(buf_len(&b), 2);
	ck_assert_mem_eq(buf_peek(&b), "bc", 2);
	buf_free(&b);
}
END_TEST

static Suite *frame_suite(void)
{
	Suite *s = suite_create("frame");
	TCase *tc = tcase_create("binary");
	tcase_add_test(tc, binary_single);
	tcase_add_test(tc, binary_payload_may_hold_anything);
	tcase_add_test(tc, binary_coalesced_and_split);
	tcase_add_test(tc, binary_large_header_bytes);
	tcase_add_test(tc, binary_empty);
	tcase_add_test(tc, binary_too_big_from_header);
	suite_add_tcase(s, tc);

	tc = tcase_create("line");
	tcase_add_test(tc, line_single);
	tcase_add_test(tc, line_crlf);
	tcase_add_test(tc, line_blank_lines_skipped);
	tcase_add_test(tc, line_coalesced_and_split);
	tcase_add_test(tc, line_too_big);
	suite_add_tcase(s, tc);

	tc = tcase_create("auto");
	tcase_add_test(tc, auto_detect);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_add_test(tc, put_header);
	tcase_add_test(tc, append_binary_round_trip);
	tcase_add_test(tc, append_line_round_trip);
	tcase_add_test(tc, append_line_refuses_newline);
	tcase_add_test(tc, status_strings);
	suite_add_tcase(s, tc);

	tc = tcase_create("buf");
	tcase_add_test(tc, buf_basic);
	tcase_add_test(tc, buf_reserve_commit);
	tcase_add_test(tc, buf_growth);
	tcase_add_test(tc, buf_slides_before_growing);
	tcase_add_test(tc, buf_refuses_impossible_sizes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(frame_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
