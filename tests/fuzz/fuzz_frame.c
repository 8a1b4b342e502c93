/*
 * fuzz_frame.c - the frame decoder (protocol/frame.c).
 *
 * The first byte picks the decoder's mode (auto, binary, line) and a small
 * maximum, the second how the rest is fed: all at once (coalesced) or in
 * pieces whose sizes come from the input (split reads, as recv delivers
 * them). Both feedings must yield the same frames, every payload must lie
 * inside the bytes given, and every frame re-encoded with frame_append
 * must decode to itself.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/buf.h"
#include "../../protocol/frame.h"
#include "fuzz.h"

#define MAX_FRAMES 4096

struct seen {
	size_t n;
	size_t off[MAX_FRAMES], len[MAX_FRAMES]; /* payload offsets in the input */
	enum frame_status end;
};

/* Feeds data[0..len) to a fresh decoder, step bytes more at a time (0: all
 * at once), recording each frame; stops at the first error. */
static void decode(enum frame_mode mode, size_t max, const char *data, size_t len,
		   const uint8_t *steps, size_t n_steps, struct seen *out)
{
	struct frame_decoder d;
	frame_decoder_init(&d, mode, max);
	size_t start = 0, avail = n_steps ? 0 : len, k = 0;
	out->n = 0;
	out->end = FRAME_MORE;
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st =
			frame_next(&d, data + start, avail - start, &payload, &plen, &used);
		if (used > avail - start)
			abort();
		if (st == FRAME_OK) {
			if (payload < data + start || payload + plen > data + start + used ||
			    plen == 0 || plen > max)
				abort();
			if (out->n < MAX_FRAMES) {
				out->off[out->n] = (size_t)(payload - data);
				out->len[out->n] = plen;
			}
			out->n++;
			start += used;
			continue;
		}
		if (st != FRAME_MORE) {
			out->end = st;
			return;
		}
		start += used;
		if (avail == len)
			return;
		size_t step = n_steps ? (size_t)steps[k++ % n_steps] % 64 + 1 : len;
		avail = avail + step > len ? len : avail + step;
	}
}

/* A payload re-framed in mode decodes to exactly itself. */
static void roundtrip(enum frame_mode mode, const char *p, size_t n)
{
	struct buf b = BUF_INIT;
	if (frame_append(&b, mode, p, n) < 0) {
		buf_free(&b);
		return; /* a newline in line mode cannot be framed */
	}
	struct frame_decoder d;
	frame_decoder_init(&d, mode, n);
	const char *payload;
	size_t plen, used;
	enum frame_status st = frame_next(&d, buf_peek(&b), buf_len(&b), &payload, &plen, &used);
	/* A line payload that is all "\r" or ends in one cannot round-trip:
	 * the decoder strips one '\r' before the newline. */
	bool cr_end = mode == FRAME_MODE_LINE && p[n - 1] == '\r';
	if (!cr_end &&
	    (st != FRAME_OK || plen != n || memcmp(payload, p, n) != 0 || used != buf_len(&b)))
		abort();
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static const enum frame_mode modes[] = {FRAME_MODE_AUTO, FRAME_MODE_BINARY,
						FRAME_MODE_LINE};
	enum frame_mode mode = modes[data[0] % 3];
	size_t max = (size_t)(data[0] >> 2) * 16 + 1; /* 1 .. 1009 */
	size_t n_steps = data[1] % 8;
	if (size < 2 + n_steps)
		return 0;
	const uint8_t *steps = data + 2;
	const char *body = (const char *)data + 2 + n_steps;
	size_t len = size - 2 - n_steps;

	static struct seen whole, split;
	decode(mode, max, body, len, NULL, 0, &whole);
	decode(mode, max, body, len, steps, n_steps, &split);
	/* Splitting changes nothing but when an error is noticed: a frame
	 * over the maximum may be seen before all of it arrived. */
	size_t common = whole.n < split.n ? whole.n : split.n;
	if (common > MAX_FRAMES)
		common = MAX_FRAMES;
	for (size_t i = 0; i < common; i++)
		if (whole.off[i] != split.off[i] || whole.len[i] != split.len[i])
			abort();
	if (whole.end == FRAME_MORE && split.end == FRAME_MORE && whole.n != split.n)
		abort();
	for (size_t i = 0; i < common && i < 16; i++) {
		enum frame_mode m = mode == FRAME_MODE_AUTO
					    ? (body[0] == '{' ? FRAME_MODE_LINE : FRAME_MODE_BINARY)
					    : mode;
		roundtrip(m, body + whole.off[i], whole.len[i]);
	}
	return 0;
}
