/*
 * check_jstr.c - the JSON string escaper (protocol/jstr.c) and the replies
 * produced piecewise with it (msg_stream in protocol/msg.c), against
 * jansson: for every byte, for random valid UTF-8 heavy in what needs
 * escaping, escaped whole, in slices cut anywhere and into any room, the
 * bytes must be exactly those jansson's JSON_COMPACT dump gives, and a
 * streamed message exactly what msg_encode gives for the same message.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../protocol/buf.h"
#include "../protocol/jstr.h"
#include "../protocol/msg.h"

/* jansson's escaping of s[0..n), quotes stripped; caller frees. */
static char *jansson_escape(const char *s, size_t n, size_t *len)
{
	json_t *j = json_stringn(s, n);
	ck_assert_ptr_nonnull(j);
	char *d = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(j);
	ck_assert_ptr_nonnull(d);
	*len = strlen(d) - 2;
	memmove(d, d + 1, *len);
	d[*len] = '\0';
	return d;
}

/* Escapes s in slices of at most `slice` bytes of input into rooms of at
 * most `room` bytes of output; returns the text (caller frees). */
static char *escape_pieces(const char *s, size_t n, size_t slice, size_t room, size_t *len)
{
	size_t cap = jstr_escaped_len(s, n) + 1, out = 0, i = 0;
	char *d = malloc(cap);
	ck_assert_ptr_nonnull(d);
	while (i < n) {
		size_t take = n - i < slice ? n - i : slice, used;
		size_t r = cap - 1 - out < room ? cap - 1 - out : room;
		size_t w = jstr_escape(d + out, r, s + i, take, &used);
		/* Progress whenever the room holds the longest escape. */
		ck_assert(room < 6 || used > 0);
		if (!used && room < 6) {
			free(d);
			*len = 0;
			return NULL;
		}
		out += w;
		i += used;
	}
	d[out] = '\0';
	*len = out;
	return d;
}

static void check_same(const char *s, size_t n)
{
	size_t jl, ml;
	char *j = jansson_escape(s, n, &jl);
	ck_assert_uint_eq(jstr_escaped_len(s, n), jl);
	static const size_t slices[] = {1, 2, 3, 7, 8, 9, 64, 1u << 20};
	static const size_t rooms[] = {6, 7, 11, 64, 1u << 20};
	for (size_t a = 0; a < sizeof slices / sizeof *slices; a++)
		for (size_t b = 0; b < sizeof rooms / sizeof *rooms; b++) {
			char *m = escape_pieces(s, n, slices[a], rooms[b], &ml);
			ck_assert_uint_eq(ml, jl);
			ck_assert(memcmp(m, j, jl) == 0);
			free(m);
		}
	free(j);
}

START_TEST(every_byte)
{
	for (int c = 0; c < 0x80; c++) {
		char s[3] = {'a', (char)c, 'b'};
		check_same(s, 3);
		check_same(s + 1, 1);
	}
	const char *u = "\xc2\x80\xdf\xbf\xe2\x80\xa8\xe2\x80\xa9\xef\xbf\xbd\xf0\x9f\x98\x80\x7f";
	check_same(u, strlen(u));
	check_same("", 0);
}
END_TEST

/* Random valid UTF-8: ASCII, control characters, quotes, backslashes and
 * characters of two, three and four bytes, in runs long and short. */
static size_t random_utf8(char *s, size_t max, unsigned *seed)
{
	size_t n = 0;
	int plain_bias = rand_r(seed) % 4;
	while (n + 4 <= max) {
		int k = rand_r(seed) % 16;
		if (k < 6 + plain_bias * 3) {
			s[n++] = (char)(0x20 + rand_r(seed) % 0x60);
		} else if (k < 11) {
			static const char special[] = "\"\\\b\f\n\r\t\x01\x1f\x7f\x00/";
			s[n++] = special[rand_r(seed) % (sizeof special - 1)];
		} else if (k < 13) {
			unsigned cp = 0x80 + (unsigned)rand_r(seed) % 0x780;
			s[n++] = (char)(0xC0 | cp >> 6);
			s[n++] = (char)(0x80 | (cp & 0x3F));
		} else if (k < 15) {
			unsigned cp =
				0x800 + (unsigned)rand_r(seed) % 0xD000; /* below surrogates */
			s[n++] = (char)(0xE0 | cp >> 12);
			s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
			s[n++] = (char)(0x80 | (cp & 0x3F));
		} else {
			unsigned cp = 0x10000 + (unsigned)rand_r(seed) % 0x100000;
			s[n++] = (char)(0xF0 | cp >> 18);
			s[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
			s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
			s[n++] = (char)(0x80 | (cp & 0x3F));
		}
	}
	return n;
}

START_TEST(random_strings)
{
	unsigned seed = 12345;
	static char s[4096];
	for (int t = 0; t < 2000; t++) {
		size_t n = random_utf8(s, 4 + (size_t)rand_r(&seed) % sizeof s, &seed);
		check_same(s, n);
	}
}
END_TEST

/* A streamed message is byte for byte what msg_encode gives, whatever the
 * room each fill is given. */
START_TEST(stream_matches_encode)
{
	unsigned seed = 777;
	static char s[2][20000];
	for (int t = 0; t < 300; t++) {
		struct buf out[2] = {BUF_INIT, BUF_INIT}, kept = BUF_INIT;
		for (int i = 0; i < 2; i++) {
			size_t n = random_utf8(s[i], (size_t)rand_r(&seed) % sizeof s[i], &seed);
			buf_append(&out[i], s[i], n);
		}
		const char *k = t % 3 ? ",\"value\":[1,\"x\\n\",{\"a\":null}],\"calls\":[]" : "";
		buf_append(&kept, k, strlen(k));
		json_t *head = json_pack("{s:s, s:b, s:{s:s}}", "id", "r\"1", "ok", 1, "error",
					 "message", "line\n2");
		json_t *tail = json_pack("{s:i}", "n", t);
		/* The message as a tree, encoded at once. */
		json_t *whole = json_deep_copy(head);
		for (int i = 0; i < 2; i++)
			json_object_set_new(whole, i ? "stderr" : "stdout",
					    json_stringn(buf_len(&out[i]) ? buf_peek(&out[i]) : "",
							 buf_len(&out[i])));
		json_object_update(whole, tail);
		struct buf want = BUF_INIT;
		ck_assert_int_eq(msg_encode_raw(&want, FRAME_MODE_LINE, whole, buf_peek(&kept),
						buf_len(&kept)),
				 0);
		want.end--; /* the newline */
		/* The same, streamed. */
		struct msg_stream m;
		msg_stream_init(&m);
		msg_stream_object(&m, head);
		for (int i = 0; i < 2; i++)
			msg_stream_string(&m, i ? "stderr" : "stdout", &out[i], 0, buf_len(&out[i]),
					  jstr_escaped_len(buf_peek(&out[i]), buf_len(&out[i])));
		msg_stream_object(&m, tail);
		msg_stream_members(&m, &kept, 0, buf_len(&kept));
		ck_assert_int_eq(msg_stream_end(&m), 0);
		ck_assert_uint_eq(m.total, buf_len(&want));
		struct buf got = BUF_INIT;
		long r;
		while ((r = msg_stream_fill(&m, &got, 1 + (size_t)rand_r(&seed) % 300)) > 0)
			;
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(buf_len(&got), buf_len(&want));
		ck_assert(memcmp(buf_peek(&got), buf_peek(&want), buf_len(&want)) == 0);
		msg_stream_free(&m);
		json_decref(head);
		json_decref(tail);
		json_decref(whole);
		buf_free(&got);
		buf_free(&want);
		buf_free(&kept);
		buf_free(&out[0]);
		buf_free(&out[1]);
	}
}
END_TEST

/* A message asks the buffer it fills for room for what is left of it, not
 * for the whole chunk it may take: a job or reply of a hundred bytes,
 * filled with a chunk's limit (256 KiB, over the daemon's mmap threshold),
 * used to cost an mmap and an munmap each. */
START_TEST(fill_reserves_what_is_left)
{
	static const char code[] = "return \"a\tb\" + 1";
	json_t *head = json_pack("{s:i, s:i}", "memory_bytes", 67108864, "max_cpu_ms", 30000);
	struct buf src = {(char *)code, 0, sizeof code - 1, sizeof code - 1};
	struct msg_stream m;
	msg_stream_init(&m);
	msg_stream_object(&m, head);
	msg_stream_string(&m, "code", &src, 0, sizeof code - 1,
			  jstr_escaped_len(code, sizeof code - 1));
	ck_assert_int_eq(msg_stream_end(&m), 0);
	struct buf out = BUF_INIT;
	ck_assert_int_eq(msg_stream_fill(&m, &out, 256u * 1024u), (long)m.total);
	ck_assert(msg_stream_finished(&m));
	ck_assert_int_eq(msg_stream_fill(&m, &out, 256u * 1024u), 0);
	ck_assert_uint_le(out.cap, 1024);
	json_t *back = json_loadb(buf_peek(&out), buf_len(&out), 0, NULL);
	ck_assert_ptr_nonnull(back);
	ck_assert_str_eq(json_string_value(json_object_get(back, "code")), code);
	json_decref(back);
	/* Filled a few bytes at a time, from a buffer with room already: the
	 * same bytes, and the room asked for never beyond what is left. */
	msg_stream_free(&m);
	msg_stream_init(&m);
	msg_stream_object(&m, head);
	msg_stream_string(&m, "code", &src, 0, sizeof code - 1,
			  jstr_escaped_len(code, sizeof code - 1));
	ck_assert_int_eq(msg_stream_end(&m), 0);
	struct buf got = BUF_INIT;
	long r;
	while ((r = msg_stream_fill(&m, &got, 7)) > 0)
		;
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(buf_len(&got), buf_len(&out));
	ck_assert(memcmp(buf_peek(&got), buf_peek(&out), buf_len(&out)) == 0);
	msg_stream_free(&m);
	json_decref(head);
	buf_free(&out);
	buf_free(&got);
}
END_TEST

/* This thread's CPU time: the speed of the code, not of a shared machine
 * (on a loaded one, wall time counts the turns other processes take). */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fast enough that a chunk of a reply is far below a millisecond: prints
 * MB/s for log-like text and for the worst case (every byte a control
 * character), beside jansson's. */
START_TEST(speed)
{
	size_t n = 16u << 20;
	char *s = malloc(n), *d = malloc(6 * n);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(d);
	for (size_t i = 0; i < n; i++)
		s[i] = i % 61 == 60 ? '\n' : (char)('a' + i % 26);
	for (int worst = 0; worst < 2; worst++) {
		if (worst)
			memset(s, 1, n);
		double t0 = now_s();
		size_t len = jstr_escaped_len(s, n), used;
		double t1 = now_s();
		size_t w = jstr_escape(d, 6 * n, s, n, &used);
		double t2 = now_s();
		ck_assert_uint_eq(w, len);
		ck_assert_uint_eq(used, n);
		json_t *j = json_stringn(s, n);
		char *jd = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		double t3 = now_s();
		ck_assert_uint_eq(strlen(jd), len + 2);
		ck_assert(memcmp(jd + 1, d, len) == 0);
		free(jd);
		json_decref(j);
		double mb = (double)n / 1e6;
		printf("jstr %s: length %.0f MB/s, escape %.0f MB/s; jansson %.0f MB/s\n",
		       worst ? "control characters" : "text", mb / (t1 - t0), mb / (t2 - t1),
		       mb / (t3 - t2));
		/* A 256 KiB chunk must take well under the 10 ms a turn may. */
		ck_assert(mb / (t2 - t1) > 100.0);
	}
	free(s);
	free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jstr");
	TCase *tc = tcase_create("escape");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_byte);
	tcase_add_test(tc, random_strings);
	tcase_add_test(tc, stream_matches_encode);
	tcase_add_test(tc, fill_reserves_what_is_left);
	tcase_add_test(tc, speed);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
