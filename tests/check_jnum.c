/*
 * check_jnum.c - JSON with JavaScript's numbers (protocol/jnum.c): every
 * double of tests/data/numbers.txt written as Node's JSON.stringify writes
 * it (tests/numbers-node.js checks the file against Node); trees without
 * reals dumped byte for byte as jansson dumps them, under every flag
 * sandboxd uses, and refused where jansson refuses them; integers beyond
 * 64 bits read as reals and nothing else changed; and the speed of both
 * beside jansson's.
 */
#include <check.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/jnum.h"

#ifndef NUMBERS_FILE
#define NUMBERS_FILE "tests/data/numbers.txt"
#endif

static double bits_double(const char *hex)
{
	uint64_t b = strtoull(hex, NULL, 16);
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

START_TEST(numbers_as_node)
{
	FILE *f = fopen(NUMBERS_FILE, "r");
	ck_assert_msg(f != NULL, "cannot open %s", NUMBERS_FILE);
	char line[256];
	unsigned n = 0, bad = 0, lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *want = strchr(line, '\t');
		ck_assert_msg(want != NULL, "numbers.txt:%u: no tab", lineno);
		*want++ = '\0';
		want[strcspn(want, "\n")] = '\0';
		char got[JNUM_BYTES];
		size_t len = jnum_format(bits_double(line), got);
		n++;
		if (strcmp(got, want) != 0 || len != strlen(want)) {
			if (bad++ < 10)
				fprintf(stderr, "numbers.txt:%u: %s gives %s, Node %s\n", lineno,
					line, got, want);
		}
	}
	fclose(f);
	ck_assert_msg(bad == 0, "%u of %u numbers unlike Node's (first on stderr)", bad, n);
	ck_assert_uint_ge(n, 4000);
	/* Reals inside a tree, and an integral real written as an integer. */
	json_t *v = json_pack("[f, f, f, f, f, I]", 1.0 / 3, 5.0, -0.0, 1e21, 1e-7,
			      (json_int_t)-9007199254740993LL);
	char *s = jnum_dumps(v, JSON_COMPACT);
	ck_assert_str_eq(s, "[0.3333333333333333,5,0,1e+21,1e-7,-9007199254740993]");
	free(s);
	json_decref(v);
}
END_TEST

/* A random string: ASCII heavy in what JSON escapes, some UTF-8, a NUL. */
static json_t *random_string(unsigned *seed)
{
	static const char *const bits[] = {"a", "\"", "\\", "\n", "\x01", "\x7f", "é",
					   "€", "😀",  "/",  " ",  "z",	  "\t",	  "0"};
	char s[64];
	size_t n = 0, want = (size_t)rand_r(seed) % 12;
	for (size_t i = 0; i < want; i++) {
		const char *b = bits[rand_r(seed) % (int)(sizeof bits / sizeof *bits)];
		memcpy(s + n, b, strlen(b));
		n += strlen(b);
	}
	if (rand_r(seed) % 10 == 0)
		s[n++] = '\0';
	return json_stringn(s, n);
}

/* A random tree without reals (which is where jnum and jansson differ). */
static json_t *random_tree(unsigned *seed, int depth)
{
	int kind = rand_r(seed) % (depth > 4 ? 5 : 7);
	switch (kind) {
	case 0: return json_null();
	case 1: return json_boolean(rand_r(seed) % 2);
	case 2: {
		static const json_int_t ints[] = {0, 1, -1, 42, INT64_MAX, INT64_MIN, 1000000007};
		return json_integer(ints[rand_r(seed) % 7]);
	}
	case 3:
	case 4: return random_string(seed);
	case 5: {
		json_t *a = json_array();
		for (int i = rand_r(seed) % 5; i > 0; i--)
			json_array_append_new(a, random_tree(seed, depth + 1));
		return a;
	}
	default: {
		json_t *o = json_object();
		for (int i = rand_r(seed) % 5; i > 0; i--) {
			json_t *k = random_string(seed);
			json_object_setn_new(o, json_string_value(k), json_string_length(k),
					     random_tree(seed, depth + 1));
			json_decref(k);
		}
		return o;
	}
	}
}

static const size_t all_flags[] = {
	0,
	JSON_COMPACT,
	JSON_ENCODE_ANY,
	JSON_COMPACT | JSON_ENCODE_ANY,
	JSON_INDENT(2),
	JSON_INDENT(2) | JSON_SORT_KEYS,
	JSON_INDENT(31) | JSON_ENCODE_ANY,
	JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY,
	JSON_INDENT(1) | JSON_COMPACT,
	JSON_PRESERVE_ORDER,
};

static int to_buf(const char *p, size_t n, void *data)
{
	char **s = data;
	size_t have = strlen(*s);
	*s = realloc(*s, have + n + 1);
	memcpy(*s + have, p, n);
	(*s)[have + n] = '\0';
	return 0;
}

START_TEST(dump_as_jansson)
{
	unsigned seed = 12;
	for (int t = 0; t < 3000; t++) {
		json_t *v = random_tree(&seed, 0);
		for (size_t f = 0; f < sizeof all_flags / sizeof *all_flags; f++) {
			char *j = json_dumps(v, all_flags[f]);
			char *m = jnum_dumps(v, all_flags[f]);
			ck_assert_msg((j == NULL) == (m == NULL), "tree %d flags %zx: %s vs %s", t,
				      all_flags[f], j ? j : "NULL", m ? m : "NULL");
			if (j)
				ck_assert_str_eq(m, j);
			/* json_dumpb's sizes and bytes. */
			char small[16];
			size_t jn = json_dumpb(v, small, sizeof small, all_flags[f]);
			char small2[16];
			size_t mn = jnum_dumpb(v, small2, sizeof small2, all_flags[f]);
			ck_assert_uint_eq(mn, jn);
			if (jn <= sizeof small) /* else what it holds is unspecified */
				ck_assert(memcmp(small, small2, jn) == 0);
			ck_assert_uint_eq(jnum_dumpb(v, NULL, 0, all_flags[f]), jn);
			/* The callback form, piece by piece. */
			char *c = calloc(1, 1);
			int rc = jnum_dump_callback(v, to_buf, &c, all_flags[f]);
			ck_assert_int_eq(rc, j ? 0 : -1);
			if (j)
				ck_assert_str_eq(c, j);
			free(c);
			free(j);
			free(m);
		}
		json_decref(v);
	}
}
END_TEST

static int failing(const char *p, size_t n, void *data)
{
	(void)p;
	(void)n;
	return ++*(int *)data > 1 ? -1 : 0;
}

START_TEST(refused_as_jansson)
{
	/* A string that is not UTF-8 (jansson refuses it too). */
	json_t *bad = json_pack("[o]", json_stringn_nocheck("\xff\xfe", 2));
	ck_assert_ptr_null(json_dumps(bad, JSON_COMPACT));
	ck_assert_ptr_null(jnum_dumps(bad, JSON_COMPACT));
	json_decref(bad);
	/* A scalar without JSON_ENCODE_ANY, and NULL. */
	json_t *one = json_integer(1);
	ck_assert_ptr_null(jnum_dumps(one, JSON_COMPACT));
	char *s = jnum_dumps(one, JSON_ENCODE_ANY);
	ck_assert_str_eq(s, "1");
	free(s);
	json_decref(one);
	ck_assert_ptr_null(jnum_dumps(NULL, JSON_ENCODE_ANY));
	/* A cycle. */
	json_t *a = json_array(), *b = json_array();
	json_array_append(a, b);
	json_array_append(b, a);
	ck_assert_ptr_null(json_dumps(a, JSON_COMPACT));
	ck_assert_ptr_null(jnum_dumps(a, JSON_COMPACT));
	json_array_clear(b);
	json_decref(b);
	json_array_clear(a);
	/* Flags unlike jansson's output here: refused, not ignored. */
	json_array_append_new(a, json_string("/é"));
	ck_assert_ptr_null(jnum_dumps(a, JSON_ENSURE_ASCII));
	ck_assert_ptr_null(jnum_dumps(a, JSON_ESCAPE_SLASH));
	ck_assert_ptr_null(jnum_dumps(a, JSON_REAL_PRECISION(5)));
	/* A callback that fails: the whole dump fails. */
	json_t *big = json_array();
	for (int i = 0; i < 5000; i++)
		json_array_append_new(big, json_string("0123456789"));
	int calls = 0;
	ck_assert_int_eq(jnum_dump_callback(big, failing, &calls, JSON_COMPACT), -1);
	json_decref(big);
	json_decref(a);
}
END_TEST

START_TEST(load_big_integers)
{
	json_error_t e;
	const char *text = "{\"a\":[123456789012345680000,-99999999999999999999,"
			   "9223372036854775807,-9223372036854775808,9223372036854775808,"
			   "\"18446744073709551616 \\\" 18446744073709551616\",1.5,0,-0,"
			   "1e400000000000000000000]}";
	/* jansson refuses it at the first big integer; jnum reads every one,
	 * then stops at the real jansson cannot hold either. */
	ck_assert_ptr_null(json_loads(text, 0, &e));
	ck_assert_ptr_null(jnum_loads(text, 0, &e));
	ck_assert_int_eq(json_error_code(&e), json_error_numeric_overflow);
	ck_assert_ptr_nonnull(strstr(e.text, "real number overflow"));
	const char *ok = "{\"a\":[123456789012345680000,-99999999999999999999,"
			 "9223372036854775807,-9223372036854775808,9223372036854775808,"
			 "\"18446744073709551616 \\\" 18446744073709551616\",1.5,0,-0]}";
	json_t *v = jnum_loads(ok, 0, &e);
	ck_assert_msg(v != NULL, "%s", e.text);
	json_t *a = json_object_get(v, "a");
	ck_assert(json_is_real(json_array_get(a, 0)));
	ck_assert(json_real_value(json_array_get(a, 0)) == 123456789012345680000.0);
	ck_assert(json_real_value(json_array_get(a, 1)) == -99999999999999999999.0);
	ck_assert(json_is_integer(json_array_get(a, 2)));
	ck_assert(json_integer_value(json_array_get(a, 2)) == INT64_MAX);
	ck_assert(json_is_integer(json_array_get(a, 3)));
	ck_assert(json_integer_value(json_array_get(a, 3)) == INT64_MIN);
	ck_assert(json_is_real(json_array_get(a, 4)));
	ck_assert_str_eq(json_string_value(json_array_get(a, 5)),
			 "18446744073709551616 \" 18446744073709551616");
	char *s = jnum_dumps(v, JSON_COMPACT);
	ck_assert_str_eq(s, "{\"a\":[123456789012345680000,-100000000000000000000,"
			    "9223372036854775807,-9223372036854775808,9223372036854776000,"
			    "\"18446744073709551616 \\\" 18446744073709551616\",1.5,0,0]}");
	free(s);
	json_decref(v);
	/* Not JSON stays not JSON, with jansson's words. */
	json_error_t je;
	ck_assert_ptr_null(jnum_loads("[1,", 0, &e));
	ck_assert_ptr_null(json_loads("[1,", 0, &je));
	ck_assert_str_eq(e.text, je.text);
	ck_assert_ptr_null(jnum_loads("[123456789012345678901234567890,", 0, &e));
	/* A file. */
	char path[] = "/tmp/check_jnum.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"n\": 123456789012345680000}", f);
	fclose(f);
	v = jnum_load_file(path, 0, &e);
	ck_assert_msg(v != NULL, "%s", e.text);
	ck_assert(json_real_value(json_object_get(v, "n")) == 123456789012345680000.0);
	ck_assert_int_eq(jnum_dump_file(v, path, JSON_INDENT(2)), 0);
	json_decref(v);
	size_t n;
	char buf[128];
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_str_eq(buf, "{\n  \"n\": 123456789012345680000\n}");
	unlink(path);
	ck_assert_ptr_null(jnum_load_file(path, 0, &e));
}
END_TEST

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The best of 5 dumps of v, in seconds, by jnum (mine) and jansson. */
static void time_dumps(const json_t *v, double *mine, double *theirs)
{
	*mine = *theirs = 1e9;
	for (int r = 0; r < 5; r++) {
		double t0 = now_s();
		char *a = jnum_dumps(v, JSON_COMPACT);
		double t1 = now_s();
		char *b = json_dumps(v, JSON_COMPACT);
		double t2 = now_s();
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		free(a);
		free(b);
		if (t1 - t0 < *mine)
			*mine = t1 - t0;
		if (t2 - t1 < *theirs)
			*theirs = t2 - t1;
	}
}

/* Replies are not slower: a value of 200k integers and short strings
 * dumps at least as fast as jansson does it (within noise), and 200k
 * random reals (a formatting and a read back or two each) within a small
 * factor; the rates are printed. */
START_TEST(speed)
{
	unsigned seed = 5;
	json_t *plain = json_array(), *reals = json_array();
	for (int i = 0; i < 200000; i++) {
		json_array_append_new(plain, i % 2 ? json_integer(rand_r(&seed))
						   : json_string("a short string"));
		uint64_t b = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 11) ^
			     (uint64_t)rand_r(&seed);
		double d;
		memcpy(&d, &b, sizeof d);
		json_array_append_new(reals, json_real(isfinite(d) ? d : (double)i / 7));
	}
	double mine, theirs;
	time_dumps(plain, &mine, &theirs);
	printf("jnum: 200k integers and strings %.1f ms, jansson %.1f ms\n", mine * 1e3,
	       theirs * 1e3);
	ck_assert_msg(mine <= theirs * 1.25, "integers and strings: %.1f ms, jansson %.1f ms",
		      mine * 1e3, theirs * 1e3);
	time_dumps(reals, &mine, &theirs);
	printf("jnum: 200k random reals %.1f ms (%.2f us each), jansson %.1f ms\n", mine * 1e3,
	       mine * 1e6 / 200000, theirs * 1e3);
	ck_assert_msg(mine <= theirs * 3, "reals: %.1f ms, jansson %.1f ms", mine * 1e3,
		      theirs * 1e3);
	json_decref(plain);
	json_decref(reals);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jnum");
	TCase *tc = tcase_create("jnum");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, numbers_as_node);
	tcase_add_test(tc, dump_as_jansson);
	tcase_add_test(tc, refused_as_jansson);
	tcase_add_test(tc, load_big_integers);
	tcase_add_test(tc, speed);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
