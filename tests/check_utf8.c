/*
 * check_utf8.c - UTF-8 validation and repair (protocol/utf8.c): what
 * reaches a client inside a JSON string must be valid UTF-8 whatever the
 * worker wrote, and however its pipe reads happened to split it.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/buf.h"
#include "../protocol/utf8.h"

#define FFFD "\xEF\xBF\xBD"

/* A byte string with its length, so that NULs may be part of it. */
struct bytes {
	const char *s;
	size_t len;
};

#define B(lit)                      \
	{                           \
		lit, sizeof lit - 1 \
	}

static void assert_buf_eq(const struct buf *b, const char *want, size_t want_len, const char *what)
{
	ck_assert_msg(buf_len(b) == want_len &&
			      (want_len == 0 || memcmp(buf_peek(b), want, want_len) == 0),
		      "%s: got %zu bytes, want %zu", what, buf_len(b), want_len);
}

/* ---- utf8_valid */

START_TEST(valid_accepts)
{
	static const struct bytes ok[] = {
		B(""),
		B("plain ASCII"),
		B("nul\0inside"),
		B("\x7F"),
		B("\xC2\x80"),	       /* U+0080, the smallest 2-byte */
		B("\xDF\xBF"),	       /* U+07FF */
		B("\xE0\xA0\x80"),     /* U+0800, the smallest 3-byte */
		B("\xED\x9F\xBF"),     /* U+D7FF, just below the surrogates */
		B("\xEE\x80\x80"),     /* U+E000, just above them */
		B("\xEF\xBF\xBD"),     /* U+FFFD */
		B("\xEF\xBF\xBF"),     /* U+FFFF */
		B("\xF0\x90\x80\x80"), /* U+10000, the smallest 4-byte */
		B("\xF0\x9F\x98\x80"), /* U+1F600 */
		B("\xF4\x8F\xBF\xBF"), /* U+10FFFF, the largest */
		B("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80!"),
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		ck_assert_msg(utf8_valid(ok[i].s, ok[i].len), "case %zu should be valid", i);
}
END_TEST

START_TEST(valid_rejects)
{
	static const struct bytes bad[] = {
		/* overlongs */
		B("\xC0\x80"),
		B("\xC0\xAF"),
		B("\xC1\xBF"),
		B("\xE0\x80\x80"),
		B("\xE0\x9F\xBF"),
		B("\xF0\x80\x80\x80"),
		B("\xF0\x8F\xBF\xBF"),
		/* UTF-16 surrogates, alone or as a CESU-8 pair */
		B("\xED\xA0\x80"),
		B("\xED\xAF\xBF"),
		B("\xED\xB0\x80"),
		B("\xED\xBF\xBF"),
		B("\xED\xA0\xBD\xED\xB8\x80"),
		/* above U+10FFFF, and bytes that never occur */
		B("\xF4\x90\x80\x80"),
		B("\xF4\xBF\xBF\xBF"),
		B("\xF5\x80\x80\x80"),
		B("\xF7\xBF\xBF\xBF"),
		B("\xF8\x88\x80\x80\x80"),
		B("\xFC\x84\x80\x80\x80\x80"),
		B("\xFE"),
		B("\xFF"),
		/* continuation bytes without a lead */
		B("\x80"),
		B("\xBF"),
		B("a\x80"),
		B("\xC3\xA9\xA9"),
		/* truncated sequences, at the end or followed by something else */
		B("\xC2"),
		B("\xE2\x82"),
		B("\xE2"),
		B("\xF0\x9F\x98"),
		B("\xF0\x9F"),
		B("\xF0"),
		B("\xE2\x82"
		  "A"),
		B("\xC2"
		  "A"),
		B("\xC2\xC2\x80"),
		B("\xF0\x9F\x98"
		  "A"),
		B("ok so far \xE2\x82"),
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!utf8_valid(bad[i].s, bad[i].len), "case %zu should be invalid", i);
}
END_TEST

START_TEST(valid_every_two_byte_lead)
{
	/* Exhaustively: which (lead, continuation) pairs are valid. */
	for (unsigned a = 0; a < 256; a++) {
		for (unsigned b = 0; b < 256; b++) {
			char s[2] = {(char)a, (char)b};
			bool want = (a < 0x80 && b < 0x80) ||
				    (a >= 0xC2 && a <= 0xDF && b >= 0x80 && b <= 0xBF);
			ck_assert_msg(utf8_valid(s, 2) == want, "%02X %02X", a, b);
		}
	}
}
END_TEST

/* ---- utf8_sanitize */

START_TEST(sanitize_valid_unchanged)
{
	static const char text[] = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 nul\0end";
	struct buf out = BUF_INIT;
	ck_assert_uint_eq(utf8_sanitize(&out, text, sizeof text - 1, false), sizeof text - 1);
	assert_buf_eq(&out, text, sizeof text - 1, "valid text");
	/* It appends to what the buffer holds. */
	ck_assert_uint_eq(utf8_sanitize(&out, "!", 1, true), 1);
	ck_assert_uint_eq(buf_len(&out), sizeof text);
	ck_assert_int_eq(buf_peek(&out)[sizeof text - 1], '!');
	/* Nothing in, nothing out. */
	ck_assert_uint_eq(utf8_sanitize(&out, "", 0, false), 0);
	ck_assert_uint_eq(utf8_sanitize(&out, "", 0, true), 0);
	ck_assert_uint_eq(buf_len(&out), sizeof text);
	buf_free(&out);
}
END_TEST

START_TEST(sanitize_replaces_invalid)
{
	static const struct {
		struct bytes in, out;
	} cases[] = {
		{B("a\xFF"
		   "b"),
		 B("a" FFFD "b")},
		{B("\xFE\xFF"), B(FFFD FFFD)},
		{B("\x80"), B(FFFD)},
		{B("x\xBF\xBFy"), B("x" FFFD FFFD "y")},
		/* Overlongs: neither byte starts anything valid. */
		{B("\xC0\x80"), B(FFFD FFFD)},
		{B("\xC1\xBF"
		   "a"),
		 B(FFFD FFFD "a")},
		{B("\xE0\x80\xAF"), B(FFFD FFFD FFFD)},
		{B("\xF0\x80\x80\xAF"), B(FFFD FFFD FFFD FFFD)},
		/* Surrogates: ED A0..BF is never a valid start. */
		{B("\xED\xA0\x80"), B(FFFD FFFD FFFD)},
		{B("\xED\xBF\xBF"
		   "z"),
		 B(FFFD FFFD FFFD "z")},
		/* Above U+10FFFF. */
		{B("\xF4\x90\x80\x80"), B(FFFD FFFD FFFD FFFD)},
		{B("\xF5\x80"), B(FFFD FFFD)},
		/* A good character right after a bad byte survives. */
		{B("\xFF\xC3\xA9"), B(FFFD "\xC3\xA9")},
		{B("\xC3\xC3\xA9"), B(FFFD "\xC3\xA9")},
		{B("\xE2\x82\xAC\x80\xE2\x82\xAC"), B("\xE2\x82\xAC" FFFD "\xE2\x82\xAC")},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int final = 0; final <= 1; final++) {
			struct buf out = BUF_INIT;
			char what[64];
			snprintf(what, sizeof what, "case %zu final=%d", i, final);
			ck_assert_uint_eq(
				utf8_sanitize(&out, cases[i].in.s, cases[i].in.len, final),
				cases[i].in.len);
			assert_buf_eq(&out, cases[i].out.s, cases[i].out.len, what);
			buf_free(&out);
		}
	}
}
END_TEST

START_TEST(sanitize_truncated_inside)
{
	/* A sequence cut short by a non-continuation byte is replaced (how
	 * many U+FFFD it becomes is not part of the contract), and the byte
	 * that cut it is kept. */
	static const struct bytes cases[] = {
		B("\xE2\x82"
		  "A"),
		B("\xF0\x9F\x98"
		  "A"),
		B("\xC2"
		  "A"),
		B("\xF0\x9F"
		  "A"),
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf out = BUF_INIT;
		ck_assert_uint_eq(utf8_sanitize(&out, cases[i].s, cases[i].len, false),
				  cases[i].len);
		ck_assert(utf8_valid(buf_peek(&out), buf_len(&out)));
		ck_assert_uint_ge(buf_len(&out), 4);
		ck_assert_mem_eq(buf_peek(&out), FFFD, 3);
		ck_assert_int_eq(buf_peek(&out)[buf_len(&out) - 1], 'A');
		for (size_t j = 0; j + 1 < buf_len(&out); j += 3)
			ck_assert_mem_eq(buf_peek(&out) + j, FFFD, 3);
		buf_free(&out);
	}
}
END_TEST

START_TEST(sanitize_incomplete_tail)
{
	static const struct {
		struct bytes in;
		size_t consumed; /* with final = false */
		struct bytes out_more, out_final;
	} cases[] = {
		{B("ab\xC3"), 2, B("ab"), B("ab" FFFD)},
		{B("ab\xE2\x82"), 2, B("ab"), B("ab" FFFD)},
		{B("ab\xE2"), 2, B("ab"), B("ab" FFFD)},
		{B("\xF0\x9F\x98"), 0, B(""), B(FFFD)},
		{B("\xF0\x9F"), 0, B(""), B(FFFD)},
		{B("\xF0"), 0, B(""), B(FFFD)},
		{B("\xFF\xE2\x82"), 1, B(FFFD), B(FFFD FFFD)},
		{B("\xE2\x82\xAC\xF4\x8F\xBF"), 3, B("\xE2\x82\xAC"), B("\xE2\x82\xAC" FFFD)},
		/* Tails that can never become valid are not held back. */
		{B("ab\xED\xA0"), 4, B("ab" FFFD FFFD), B("ab" FFFD FFFD)},
		{B("ab\xE0\x80"), 4, B("ab" FFFD FFFD), B("ab" FFFD FFFD)},
		{B("ab\xF4\x90"), 4, B("ab" FFFD FFFD), B("ab" FFFD FFFD)},
		{B("ab\xC3\xA9"), 4, B("ab\xC3\xA9"), B("ab\xC3\xA9")},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf out = BUF_INIT;
		char what[64];
		snprintf(what, sizeof what, "case %zu, more to come", i);
		ck_assert_uint_eq(utf8_sanitize(&out, cases[i].in.s, cases[i].in.len, false),
				  cases[i].consumed);
		assert_buf_eq(&out, cases[i].out_more.s, cases[i].out_more.len, what);
		buf_clear(&out);
		snprintf(what, sizeof what, "case %zu, final", i);
		ck_assert_uint_eq(utf8_sanitize(&out, cases[i].in.s, cases[i].in.len, true),
				  cases[i].in.len);
		assert_buf_eq(&out, cases[i].out_final.s, cases[i].out_final.len, what);
		buf_free(&out);
	}
}
END_TEST

/* Sanitizes in[0..len) as a stream cut at the given points, the way a pipe
 * reader does: what a call leaves unconsumed is carried into the next. */
static void sanitize_stream(struct buf *out, const char *in, size_t len, const size_t *cuts,
			    size_t ncuts)
{
	struct buf carry = BUF_INIT;
	size_t from = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;
		bool final = i == ncuts;
		ck_assert_int_eq(buf_append(&carry, in + from, to - from), 0);
		from = to;
		size_t held = buf_len(&carry);
		size_t used = utf8_sanitize(out, buf_peek(&carry), held, final);
		ck_assert_uint_ne(used, (size_t)-1);
		ck_assert_uint_le(used, held);
		if (final)
			ck_assert_uint_eq(used, held);
		else
			ck_assert_uint_le(held - used, 3); /* at most a partial character */
		/* What has gone out so far is always whole, valid UTF-8. */
		ck_assert(utf8_valid(buf_peek(out), buf_len(out)));
		buf_consume(&carry, used);
	}
	ck_assert_uint_eq(buf_len(&carry), 0);
	buf_free(&carry);
}

START_TEST(sanitize_split_anywhere)
{
	static const struct bytes texts[] = {
		B("h\xC3\xA9llo \xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xDF\xBF.\xEF\xBF\xBD"),
		/* Invalid bytes mixed in, and a truncated tail. */
		B("a\xFF\xC3\xA9\xED\xA0\x80\xE2\x82"
		  "A\xF0\x9F\x98\x80\xC0\x80\xF4\x90\x80\x80z\xF0\x9F\x98"),
		B("\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC"),
	};
	for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
		const char *in = texts[t].s;
		size_t len = texts[t].len;
		struct buf whole = BUF_INIT;
		ck_assert_uint_eq(utf8_sanitize(&whole, in, len, true), len);
		ck_assert(utf8_valid(buf_peek(&whole), buf_len(&whole)));
		if (t != 1)
			ck_assert_uint_eq(buf_len(&whole), len); /* valid: unchanged */

		/* Two calls, cut at every position (0 and len included). */
		for (size_t k = 0; k <= len; k++) {
			struct buf out = BUF_INIT;
			sanitize_stream(&out, in, len, &k, 1);
			ck_assert_msg(buf_len(&out) == buf_len(&whole) &&
					      memcmp(buf_peek(&out), buf_peek(&whole),
						     buf_len(&out)) == 0,
				      "text %zu cut at %zu differs from one call", t, k);
			buf_free(&out);
		}
		/* One byte at a time. */
		size_t cuts[64];
		ck_assert_uint_le(len, 64);
		for (size_t i = 0; i + 1 < len; i++)
			cuts[i] = i + 1;
		struct buf out = BUF_INIT;
		sanitize_stream(&out, in, len, cuts, len - 1);
		ck_assert_msg(buf_len(&out) == buf_len(&whole) &&
				      memcmp(buf_peek(&out), buf_peek(&whole), buf_len(&out)) == 0,
			      "text %zu byte at a time differs from one call", t);
		buf_free(&out);
		buf_free(&whole);
	}
}
END_TEST

START_TEST(sanitize_output_always_valid)
{
	/* Pseudo-random bytes, biased towards the interesting ranges. */
	unsigned seed = 12345;
	char in[512];
	for (int round = 0; round < 500; round++) {
		for (size_t i = 0; i < sizeof in; i++) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = seed >> 16;
			in[i] = (char)(r % 3 == 0 ? 0x80 + r % 64 : r % 3 == 1 ? 0xC0 + r % 64 : r);
		}
		size_t len = 1 + (seed >> 8) % sizeof in;
		struct buf out = BUF_INIT;
		ck_assert_uint_eq(utf8_sanitize(&out, in, len, true), len);
		ck_assert(utf8_valid(buf_peek(&out), buf_len(&out)));
		/* Valid input stays exactly as it was. */
		if (utf8_valid(in, len))
			ck_assert(buf_len(&out) == len && memcmp(buf_peek(&out), in, len) == 0);
		buf_free(&out);
	}
}
END_TEST

/* ---- utf8_from_cesu */

START_TEST(cesu_pairs_joined)
{
	static const struct {
		struct bytes in, out;
	} cases[] = {
		{B("\xED\xA0\xBD\xED\xB8\x80"), B("\xF0\x9F\x98\x80")}, /* U+1F600 */
		{B("\xED\xA0\x80\xED\xB0\x80"), B("\xF0\x90\x80\x80")}, /* U+10000 */
		{B("\xED\xAF\xBF\xED\xBF\xBF"), B("\xF4\x8F\xBF\xBF")}, /* U+10FFFF */
		{B("a\xED\xA0\xBD\xED\xB8\x80"
		   "b"),
		 B("a\xF0\x9F\x98\x80"
		   "b")},
		{B("\xED\xA0\xBD\xED\xB8\x80\xED\xA0\xBD\xED\xB8\x81"),
		 B("\xF0\x9F\x98\x80\xF0\x9F\x98\x81")},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf out = BUF_INIT;
		char what[32];
		snprintf(what, sizeof what, "pair case %zu", i);
		ck_assert_int_eq(utf8_from_cesu(&out, cases[i].in.s, cases[i].in.len), 0);
		assert_buf_eq(&out, cases[i].out.s, cases[i].out.len, what);
		buf_free(&out);
	}
}
END_TEST

START_TEST(cesu_lone_surrogates)
{
	static const struct {
		struct bytes in, out;
	} cases[] = {
		{B("\xED\xA0\xBD"), B(FFFD)}, /* high, at the end */
		{B("\xED\xB8\x80"), B(FFFD)}, /* low alone */
		{B("\xED\xA0\xBD"
		   "A"),
		 B(FFFD "A")}, /* high, then ASCII */
		{B("x\xED\xB8\x80y"), B("x" FFFD "y")},
		{B("\xED\xB8\x80\xED\xA0\xBD"), B(FFFD FFFD)}, /* low before high */
		{B("\xED\xA0\xBD\xED\xA0\xBD"), B(FFFD FFFD)}, /* two highs */
		{B("\xED\xA0\xBD\xED\xA0\xBD\xED\xB8\x80"), B(FFFD "\xF0\x9F\x98\x80")},
		{B("\xED\xA0\xBD\xC3\xA9"), B(FFFD "\xC3\xA9")}, /* high, then é */
		/* Other invalid bytes become U+FFFD as in utf8_sanitize. */
		{B("a\xFF"
		   "b"),
		 B("a" FFFD "b")},
		{B("\xC0\x80"), B(FFFD FFFD)},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf out = BUF_INIT;
		char what[32];
		snprintf(what, sizeof what, "lone case %zu", i);
		ck_assert_int_eq(utf8_from_cesu(&out, cases[i].in.s, cases[i].in.len), 0);
		assert_buf_eq(&out, cases[i].out.s, cases[i].out.len, what);
		buf_free(&out);
	}
	/* A surrogate cut short is still replaced, never copied. */
	struct buf out = BUF_INIT;
	ck_assert_int_eq(utf8_from_cesu(&out, "\xED\xA0\xBD\xED\xB8", 5), 0);
	ck_assert(utf8_valid(buf_peek(&out), buf_len(&out)));
	ck_assert_mem_eq(buf_peek(&out), FFFD, 3);
	buf_free(&out);
}
END_TEST

START_TEST(cesu_valid_passes_through)
{
	static const char text[] = "plain h\xC3\xA9llo \xE2\x82\xAC \xED\x9F\xBF \xEE\x80\x80 "
				   "\xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF nul\0end";
	struct buf out = BUF_INIT;
	ck_assert_int_eq(buf_append(&out, "pre:", 4), 0);
	ck_assert_int_eq(utf8_from_cesu(&out, text, sizeof text - 1), 0);
	ck_assert_uint_eq(buf_len(&out), 4 + sizeof text - 1);
	ck_assert_mem_eq(buf_peek(&out), "pre:", 4);
	ck_assert_mem_eq(buf_peek(&out) + 4, text, sizeof text - 1);
	ck_assert_int_eq(utf8_from_cesu(&out, "", 0), 0);
	ck_assert_uint_eq(buf_len(&out), 4 + sizeof text - 1);
	buf_free(&out);
}
END_TEST

START_TEST(cesu_every_code_unit)
{
	/* Every BMP code point in CESU-8 (which is UTF-8 there) and every
	 * surrogate pair: the result is valid and, for pairs, exact. */
	struct buf out = BUF_INIT;
	for (unsigned hi = 0xD800; hi <= 0xDBFF; hi += 0x3F) {
		for (unsigned lo = 0xDC00; lo <= 0xDFFF; lo += 0x1F) {
			char in[6] = {(char)0xED,
				      (char)(0x80 | (hi >> 6 & 0x3F)),
				      (char)(0x80 | (hi & 0x3F)),
				      (char)0xED,
				      (char)(0x80 | (lo >> 6 & 0x3F)),
				      (char)(0x80 | (lo & 0x3F))};
			unsigned cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
			char want[4] = {(char)(0xF0 | cp >> 18), (char)(0x80 | (cp >> 12 & 0x3F)),
					(char)(0x80 | (cp >> 6 & 0x3F)),
					(char)(0x80 | (cp & 0x3F))};
			buf_clear(&out);
			ck_assert_int_eq(utf8_from_cesu(&out, in, 6), 0);
			ck_assert_msg(buf_len(&out) == 4 && memcmp(buf_peek(&out), want, 4) == 0,
				      "pair %04X %04X", hi, lo);
		}
	}
	for (unsigned cp = 0x80; cp < 0x10000; cp++) {
		char in[3];
		size_t n;
		if (cp < 0x800) {
			in[0] = (char)(0xC0 | cp >> 6);
			in[1] = (char)(0x80 | (cp & 0x3F));
			n = 2;
		} else {
			in[0] = (char)(0xE0 | cp >> 12);
			in[1] = (char)(0x80 | (cp >> 6 & 0x3F));
			in[2] = (char)(0x80 | (cp & 0x3F));
			n = 3;
		}
		buf_clear(&out);
		ck_assert_int_eq(utf8_from_cesu(&out, in, n), 0);
		if (cp >= 0xD800 && cp <= 0xDFFF)
			ck_assert_msg(buf_len(&out) == 3 && memcmp(buf_peek(&out), FFFD, 3) == 0,
				      "lone %04X", cp);
		else
			ck_assert_msg(buf_len(&out) == n && memcmp(buf_peek(&out), in, n) == 0,
				      "U+%04X changed", cp);
	}
	buf_free(&out);
}
END_TEST

static Suite *utf8_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("valid");
	tcase_add_test(tc, valid_accepts);
	tcase_add_test(tc, valid_rejects);
	tcase_add_test(tc, valid_every_two_byte_lead);
	suite_add_tcase(s, tc);

	tc = tcase_create("sanitize");
	tcase_add_test(tc, sanitize_valid_unchanged);
	tcase_add_test(tc, sanitize_replaces_invalid);
	tcase_add_test(tc, sanitize_truncated_inside);
	tcase_add_test(tc, sanitize_incomplete_tail);
	tcase_add_test(tc, sanitize_split_anywhere);
	tcase_add_test(tc, sanitize_output_always_valid);
	suite_add_tcase(s, tc);

	tc = tcase_create("cesu");
	tcase_add_test(tc, cesu_pairs_joined);
	tcase_add_test(tc, cesu_lone_surrogates);
	tcase_add_test(tc, cesu_valid_passes_through);
	tcase_add_test(tc, cesu_every_code_unit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(utf8_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
