/*
 * frame.h - the wire framing of protocol v1 (see PROTOCOL.md).
 *
 * Binary mode: a 4-byte big-endian length, then that many bytes of JSON.
 * Line mode: one JSON object per line. A connection's first byte picks the
 * mode for its life: '{' means line mode, anything else binary.
 *
 * The decoder never copies: it reports where the next whole frame lies in
 * the caller's bytes and how many bytes to consume, which makes split and
 * coalesced reads the same case.
 */
#ifndef SANDBOXD_FRAME_H
#define SANDBOXD_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum frame_mode {
	FRAME_MODE_AUTO = 0, /* not yet known: decided by the first byte */
	FRAME_MODE_BINARY,
	FRAME_MODE_LINE,
};

enum frame_status {
	FRAME_MORE = 0,	   /* no whole frame yet */
	FRAME_OK,	   /* a frame is ready */
	FRAME_ERR_EMPTY,   /* binary length 0 */
	FRAME_ERR_TOO_BIG, /* length (or line) over the maximum */
};

struct frame_decoder {
	enum frame_mode mode;
	size_t max;	/* largest payload accepted */
	size_t scanned; /* line mode: bytes already searched for '\n' */
};

void frame_decoder_init(struct frame_decoder *d, enum frame_mode mode, size_t max);

/*
 * Looks for the next frame at the start of data[0..len). On FRAME_OK,
 * payload and plen point at the frame body inside data and *used is how many
 * bytes the frame took (to consume). On FRAME_MORE, *used may be non-zero
 * when blank lines were skipped in line mode. On an error, *plen holds the
 * offending length when known. Only FRAME_OK and FRAME_MORE allow going on.
 */
enum frame_status frame_next(struct frame_decoder *d, const char *data, size_t len,
			     const char **payload, size_t *plen, size_t *used);

/* Once a frame of mode is complete, the bytes before its payload (4 in binary
 * mode); a caller that knows the mode needs no decoder for replies. */
void frame_put_header(unsigned char out[4], uint32_t len);

/* Appends payload as one frame in mode (binary or line). 0, or -1 when out
 * of memory or the payload cannot be framed (over 4 GiB, or a newline in
 * line mode). */
int frame_append(struct buf *out, enum frame_mode mode, const char *payload, size_t len);

const char *frame_status_str(enum frame_status st);

#endif
