/* frame.c - protocol v1 framing; see frame.h. */
#include "frame.h"

#include <string.h>

void frame_decoder_init(struct frame_decoder *d, enum frame_mode mode, size_t max)
{
	d->mode = mode;
	d->max = max;
	d->scanned = 0;
}

static enum frame_status next_binary(struct frame_decoder *d, const char *data, size_t len,
				     const char **payload, size_t *plen, size_t *used)
{
	if (len < 4)
		return FRAME_MORE;
	const unsigned char *u = (const unsigned char *)data;
	uint32_t n = (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
	*plen = n;
	if (n == 0)
		return FRAME_ERR_EMPTY;
	if (n > d->max)
		return FRAME_ERR_TOO_BIG;
	if (len - 4 < n)
		return FRAME_MORE;
	*payload = data + 4;
	*used = 4 + (size_t)n;
	return FRAME_OK;
}

static enum frame_status next_line(struct frame_decoder *d, const char *data, size_t len,
				   const char **payload, size_t *plen, size_t *used)
{
	size_t skip = 0;
	for (;;) {
		const char *p = data + skip;
		size_t avail = len - skip;
		size_t from = d->scanned < avail ? d->scanned : avail;
		const char *nl = avail > from ? memchr(p + from, '\n', avail - from) : NULL;
		if (!nl) {
			d->scanned = avail;
			*used = skip;
			if (avail > d->max + 1) { /* +1: a '\r' before the newline */
				*plen = avail;
				return FRAME_ERR_TOO_BIG;
			}
			return FRAME_MORE;
		}
		size_t n = (size_t)(nl - p);
		size_t body = n;
		if (body > 0 && p[body - 1] == '\r')
			body--;
		d->scanned = 0;
		if (body == 0) { /* blank line: nothing to answer */
			skip += n + 1;
			continue;
		}
		*plen = body;
		if (body > d->max) {
			*used = skip;
			return FRAME_ERR_TOO_BIG;
		}
		*payload = p;
		*used = skip + n + 1;
		return FRAME_OK;
	}
}

enum frame_status frame_next(struct frame_decoder *d, const char *data, size_t len,
			     const char **payload, size_t *plen, size_t *used)
{
	*used = 0;
	*plen = 0;
	*payload = NULL;
	if (d->mode == FRAME_MODE_AUTO) {
		if (len == 0)
			return FRAME_MORE;
		d->mode = data[0] == '{' ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	}
	if (d->mode == FRAME_MODE_LINE)
		return next_line(d, data, len, payload, plen, used);
	return next_binary(d, data, len, payload, plen, used);
}

void frame_put_header(unsigned char out[4], uint32_t len)
{
	out[0] = (unsigned char)(len >> 24);
	out[1] = (unsigned char)(len >> 16);
	out[2] = (unsigned char)(len >> 8);
	out[3] = (unsigned char)len;
}

int frame_append(struct buf *out, enum frame_mode mode, const char *payload, size_t len)
{
	if (mode == FRAME_MODE_LINE) {
		if (memchr(payload, '\n', len))
			return -1;
		char *dst = buf_reserve(out, len + 1);
		if (!dst)
			return -1;
		memcpy(dst, payload, len);
		dst[len] = '\n';
		buf_commit(out, len + 1);
		return 0;
	}
	if (len > UINT32_MAX)
		return -1;
	char *dst = buf_reserve(out, len + 4);
	if (!dst)
		return -1;
	frame_put_header((unsigned char *)dst, (uint32_t)len);
	memcpy(dst + 4, payload, len);
	buf_commit(out, len + 4);
	return 0;
}

const char *frame_status_str(enum frame_status st)
{
	switch (st) {
	case FRAME_MORE: return "incomplete frame";
	case FRAME_OK: return "ok";
	case FRAME_ERR_EMPTY: return "frame length is zero";
	case FRAME_ERR_TOO_BIG: return "frame exceeds the maximum frame size";
	}
	return "unknown frame status";
}
