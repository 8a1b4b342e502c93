/* utf8.c - UTF-8 validation and repair (RFC 3629); see utf8.h. */
#include "utf8.h"

#include <stdint.h>

static const char replacement[3] = {(char)0xEF, (char)0xBF, (char)0xBD};

/*
 * Length of the valid sequence at s (1..4), 0 when the bytes are invalid,
 * or -1 when s[0..len) is a valid prefix of a longer sequence.
 */
static int seq_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	int n;
	unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */
	if (c < 0x80)
		return 1;
	if (c < 0xC2)
		return 0; /* continuation byte or overlong 2-byte lead */
	if (c < 0xE0) {
		n = 2;
	} else if (c < 0xF0) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* UTF-16 surrogates */
	} else if (c < 0xF5) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((size_t)i >= len)
			return -1;
		unsigned char b = s[i];
		if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
			return 0;
	}
	return n;
}

size_t utf8_sanitize(struct buf *out, const char *in, size_t len, bool final)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, run = 0; /* run: start of the pending valid stretch */
	while (i < len) {
		int n = seq_len(s + i, len - i);
		if (n > 0) {
			i += (size_t)n;
			continue;
		}
		if (buf_append(out, in + run, i - run) < 0)
			return (size_t)-1;
		if (n < 0 && !final)
			return i; /* keep the incomplete tail for the next call */
		if (buf_append(out, replacement, sizeof replacement) < 0)
			return (size_t)-1;
		/* An incomplete tail at the end of the stream is one bad char. */
		i = n < 0 ? len : i + 1;
		run = i;
	}
	if (buf_append(out, in + run, i - run) < 0)
		return (size_t)-1;
	return len;
}

/* The surrogate code unit encoded at s (3 bytes ED A0..BF xx), or 0. */
static unsigned surrogate_at(const unsigned char *s, size_t len)
{
	if (len < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || (s[2] & 0xC0) != 0x80)
		return 0;
	return 0xD000u | (unsigned)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
}

int utf8_from_cesu(struct buf *out, const char *in, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, run = 0;
	while (i < len) {
		unsigned hi = surrogate_at(s + i, len - i);
		if (!hi) {
			int n = seq_len(s + i, len - i);
			if (n > 0) {
				i += (size_t)n;
				continue;
			}
		}
		if (buf_append(out, in + run, i - run) < 0)
			return -1;
		unsigned lo =
			hi >= 0xD800 && hi <= 0xDBFF ? surrogate_at(s + i + 3, len - i - 3) : 0;
		if (lo >= 0xDC00 && lo <= 0xDFFF) {
			uint32_t cp = 0x10000u + ((hi - 0xD800u) << 10) + (lo - 0xDC00u);
			char enc[4] = {(char)(0xF0 | cp >> 18), (char)(0x80 | (cp >> 12 & 0x3F)),
				       (char)(0x80 | (cp >> 6 & 0x3F)), (char)(0x80 | (cp & 0x3F))};
			if (buf_append(out, enc, 4) < 0)
				return -1;
			i += 6;
		} else {
			if (buf_append(out, replacement, sizeof replacement) < 0)
				return -1;
			i += hi ? 3 : 1;
		}
		run = i;
	}
	return buf_append(out, in + run, i - run);
}

static int put_surrogate(struct buf *out, unsigned u)
{
	char enc[3] = {(char)0xED, (char)(0x80 | (u >> 6 & 0x3F)), (char)(0x80 | (u & 0x3F))};
	return buf_append(out, enc, 3);
}

int utf8_to_cesu(struct buf *out, const char *in, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, run = 0;
	while (i < len) {
		if (s[i] < 0xF0 || i + 4 > len) {
			i++;
			continue;
		}
		uint32_t cp = (uint32_t)(s[i] & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
			      (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
		cp -= 0x10000u;
		if (buf_append(out, in + run, i - run) < 0 || put_surrogate(out, 0xD800u | cp >> 10) < 0 ||
		    put_surrogate(out, 0xDC00u | (cp & 0x3FF)) < 0)
			return -1;
		i += 4;
		run = i;
	}
	return buf_append(out, in + run, i - run);
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		int n = seq_len(u + i, len - i);
		if (n <= 0)
			return false;
		i += (size_t)n;
	}
	return true;
}
