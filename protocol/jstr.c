/* jstr.c - JSON string escaping; see jstr.h. */
#include "jstr.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The escaped length of each byte: 1 as it is, 2 for \X, 6 for \u00XX. */
static const unsigned char esc_len[256] = {
	6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 6, 2, 2, 6, 6, /* 0x00 */
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, /* 0x10 */
	1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, /* 0x50: '\\' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 on: as they are */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Whether any of the 8 bytes in w needs escaping: a byte below 0x20, '"'
 * or '\\' (bytes of 0x80 and up never do). */
static int word_needs_escape(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t low = (w - ones * 0x20) & ~w; /* bytes < 0x20 */
	uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
	uint64_t zq = (q - ones) & ~q, zb = (b - ones) & ~b; /* bytes equal to them */
	return ((low | zq | zb) & high) != 0;
}

/* The length of the run of bytes at s that need no escaping: 16 bytes a
 * step with SSE2 (every x86-64 has it), else 8 as a word. */
static size_t plain_run(const char *s, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
	const __m128i control = _mm_set1_epi8(0x1F);
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		/* x <= 0x1F, unsigned: the larger of x and 0x1F is 0x1F. */
		__m128i bad = _mm_or_si128(
			_mm_cmpeq_epi8(_mm_max_epu8(x, control), control),
			_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
		int mask = _mm_movemask_epi8(bad);
		if (mask)
			return i + (size_t)__builtin_ctz((unsigned)mask);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (word_needs_escape(w))
			break;
	}
	while (i < n && esc_len[(unsigned char)s[i]] == 1)
		i++;
	return i;
}

size_t jstr_escaped_len(const char *s, size_t n)
{
	size_t len = 0, i = 0;
	while (i < n) {
		size_t run = plain_run(s + i, n - i);
		len += run;
		i += run;
		for (; i < n && esc_len[(unsigned char)s[i]] != 1; i++)
			len += esc_len[(unsigned char)s[i]];
	}
	return len;
}

/* Each byte's escape, for the bytes that have one (padded to 8 bytes so
 * that it is copied in one fixed-size move). */
static const char esc_seq[256][8] = {
	[0x00] = "\\u0000", [0x01] = "\\u0001", [0x02] = "\\u0002", [0x03] = "\\u0003",
	[0x04] = "\\u0004", [0x05] = "\\u0005", [0x06] = "\\u0006", [0x07] = "\\u0007",
	[0x08] = "\\b",	    [0x09] = "\\t",	[0x0a] = "\\n",	    [0x0b] = "\\u000B",
	[0x0c] = "\\f",	    [0x0d] = "\\r",	[0x0e] = "\\u000E", [0x0f] = "\\u000F",
	[0x10] = "\\u0010", [0x11] = "\\u0011", [0x12] = "\\u0012", [0x13] = "\\u0013",
	[0x14] = "\\u0014", [0x15] = "\\u0015", [0x16] = "\\u0016", [0x17] = "\\u0017",
	[0x18] = "\\u0018", [0x19] = "\\u0019", [0x1a] = "\\u001A", [0x1b] = "\\u001B",
	[0x1c] = "\\u001C", [0x1d] = "\\u001D", [0x1e] = "\\u001E", [0x1f] = "\\u001F",
	['"'] = "\\\"",	    ['\\'] = "\\\\",
};

size_t jstr_escape(char *dst, size_t cap, const char *s, size_t n, size_t *used)
{
	size_t out = 0, i = 0;
	while (i < n) {
		size_t run = plain_run(s + i, n - i);
		if (run > cap - out)
			run = cap - out;
		memcpy(dst + out, s + i, run);
		out += run;
		i += run;
		/* The escapes that follow, while they fit. */
		while (i < n) {
			unsigned char c = (unsigned char)s[i];
			size_t k = esc_len[c];
			if (k == 1)
				break;
			if (cap - out < 6) {
				if (cap - out < k)
					goto full;
				memcpy(dst + out, esc_seq[c], k);
			} else {
				memcpy(dst + out, esc_seq[c], 6); /* a fixed size: one move */
			}
			out += k;
			i++;
		}
		if (out == cap)
			break;
	}
full:
	*used = i;
	return out;
}
