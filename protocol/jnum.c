/* jnum.c - JSON with numbers as JavaScript writes and reads them; see jnum.h. */
#include "jnum.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jstr.h"
#include "limits.h"
#include "utf8.h"

/* ---- Numbers */

/* A decimal m * 10^q. */
struct decimal {
	uint64_t m;
	int q;
};

/* d (finite, > 0) correctly rounded to p significant digits (p <= 17), as
 * printf's %e rounds. */
static struct decimal round_to(double d, int p)
{
	char t[40];
	snprintf(t, sizeof t, "%.*e", p - 1, d);
	struct decimal r = {0, 0};
	const char *s = t;
	for (; *s && *s != 'e'; s++)
		if (*s != '.')
			r.m = r.m * 10 + (uint64_t)(*s - '0');
	r.q = atoi(s + 1) - (p - 1);
	return r;
}

static bool reads_back(struct decimal x, double d)
{
	char t[48];
	snprintf(t, sizeof t, "%" PRIu64 "e%d", x.m, x.q);
	return strtod(t, NULL) == d;
}

/* The decimal of p < 17 significant digits closest to d, from x, d's
 * 17-digit rounding: x cut to p digits and rounded by the digits cut, save
 * where they are exactly half a unit (d may lie either side of that:
 * then d is rounded again, directly). *far is set when it is too far from
 * x to read back to d: more than half an ulp of d (at most x.m * 2^-53
 * units of x's last digit), and the half unit x itself may be off, away. */
static struct decimal closest(double d, struct decimal x, int p, bool *far)
{
	uint64_t unit = 1;
	for (int i = p; i < 17; i++)
		unit *= 10;
	uint64_t rest = x.m % unit, half = unit / 2;
	*far = false;
	if (rest == half)
		return round_to(d, p);
	uint64_t dist = rest > half ? unit - rest : rest;
	*far = (double)dist > (double)x.m * 0x1p-53 + 1;
	struct decimal r = {x.m / unit + (rest > half), x.q + (17 - p)};
	return r;
}

/*
 * The shortest decimal that reads back to d (finite, > 0), the closest to d
 * when several of that length do: Number::toString's digits (ECMA-262
 * 6.1.6.1.20). A double has at most one decimal of 15 significant digits or
 * fewer that reads back to it (10^15 < 2^53: such decimals are further
 * apart than doubles are), and when one exists the 15-digit rounding of d
 * is it, trailing zeros aside. Past that, the 16-digit rounding is the
 * closest 16-digit decimal; when it falls outside d's rounding interval a
 * neighbour can still fall inside only when the interval is lopsided, its
 * lower half half as wide (d a power of two), so only then are the
 * neighbours tried. 17 digits always read back. Both roundings come from
 * the 17-digit one (one printf for all), and one too far from d to read
 * back is not tried. Subnormals have fewer digits' worth of precision and
 * evenly spaced neighbours: the first rounding that reads back is theirs.
 */
static struct decimal shortest(double d)
{
	struct decimal r;
	if (d < 0x1p-1022) {
		for (int p = 1; p < 17; p++)
			if (reads_back(r = round_to(d, p), d))
				return r;
		return round_to(d, 17);
	}
	struct decimal x = round_to(d, 17);
	bool far;
	r = closest(d, x, 15, &far);
	if (far || !reads_back(r, d)) {
		r = closest(d, x, 16, &far);
		if (far || !reads_back(r, d)) {
			int e;
			bool pow2 = frexp(d, &e) == 0.5;
			struct decimal up = {r.m + 1, r.q}, down = {r.m - 1, r.q};
			if (pow2 && reads_back(up, d))
				r = up;
			else if (pow2 && reads_back(down, d))
				r = down;
			else
				r = x;
		}
	}
	while (r.m % 10 == 0) {
		r.m /= 10;
		r.q++;
	}
	return r;
}

size_t jnum_format(double d, char *out)
{
	if (!isfinite(d)) {
		memcpy(out, "null", 5);
		return 4;
	}
	if (d == 0) { /* -0 too */
		memcpy(out, "0", 2);
		return 1;
	}
	/* Integers below 2^53 are their own shortest digits (the doubles
	 * about them are at most 1 apart). */
	if (fabs(d) < 9007199254740992.0 && d == (double)(int64_t)d)
		return (size_t)snprintf(out, JNUM_BYTES, "%" PRId64, (int64_t)d);
	char *o = out;
	if (d < 0) {
		*o++ = '-';
		d = -d;
	}
	struct decimal x = shortest(d);
	char dig[24];
	int k = snprintf(dig, sizeof dig, "%" PRIu64, x.m);
	int n = k + x.q; /* d is 0.dig * 10^n */
	if (k <= n && n <= 21) {
		memcpy(o, dig, (size_t)k);
		o += k;
		memset(o, '0', (size_t)(n - k));
		o += n - k;
	} else if (0 < n && n <= 21) {
		memcpy(o, dig, (size_t)n);
		o += n;
		*o++ = '.';
		memcpy(o, dig + n, (size_t)(k - n));
		o += k - n;
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		memset(o, '0', (size_t)-n);
		o += -n;
		memcpy(o, dig, (size_t)k);
		o += k;
	} else {
		*o++ = dig[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)(k - 1));
			o += k - 1;
		}
		o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
	}
	*o = '\0';
	return (size_t)(o - out);
}

/* ---- Dumping, as jansson's dump.c lays it out */

/* The flags jnum_dump* knows; JSON_PRESERVE_ORDER is a no-op in jansson. */
#define KNOWN_FLAGS                                                                      \
	((size_t)JSON_MAX_INDENT | JSON_COMPACT | JSON_SORT_KEYS | JSON_PRESERVE_ORDER | \
	 JSON_ENCODE_ANY)

/* Output gathered in a block and handed to the callback a block at a time
 * (jansson calls it for every token). */
struct sink {
	json_dump_callback_t cb;
	void *data;
	size_t flags;
	bool failed;
	size_t n;
	char block[4096];
};

static int flush(struct sink *s)
{
	if (!s->failed && s->n && s->cb(s->block, s->n, s->data) != 0)
		s->failed = true;
	s->n = 0;
	return s->failed ? -1 : 0;
}

static int put(struct sink *s, const char *p, size_t n)
{
	while (n > 0) {
		if (s->n == sizeof s->block && flush(s) < 0)
			return -1;
		size_t room = sizeof s->block - s->n, take = n < room ? n : room;
		memcpy(s->block + s->n, p, take);
		s->n += take;
		p += take;
		n -= take;
	}
	return s->failed ? -1 : 0;
}

static int put_string(struct sink *s, const char *p, size_t n)
{
	if (!utf8_valid(p, n) || put(s, "\"", 1) < 0)
		return -1;
	while (n > 0) {
		size_t used;
		size_t wrote = jstr_escape(s->block + s->n, sizeof s->block - s->n, p, n, &used);
		s->n += wrote;
		p += used;
		n -= used;
		if (n > 0 && flush(s) < 0)
			return -1;
	}
	return put(s, "\"", 1);
}

/* jansson's dump_indent: a newline and depth indents with JSON_INDENT,
 * else a space where one goes unless JSON_COMPACT. */
static int indent(struct sink *s, unsigned depth, bool space)
{
	static const char blanks[] = "                                ";
	size_t per = s->flags & JSON_MAX_INDENT;
	if (per > 0) {
		if (put(s, "\n", 1) < 0)
			return -1;
		for (size_t left = per * depth; left > 0;) {
			size_t take = left < sizeof blanks - 1 ? left : sizeof blanks - 1;
			if (put(s, blanks, take) < 0)
				return -1;
			left -= take;
		}
		return 0;
	}
	return space && !(s->flags & JSON_COMPACT) ? put(s, " ", 1) : 0;
}

struct key {
	const char *p;
	size_t len;
};

/* jansson's order for JSON_SORT_KEYS: bytes, then length. */
static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int dump(struct sink *s, const json_t *v, unsigned depth);

/* One member and what follows it: a comma and indent, or the closing
 * indent after the last. */
static int member(struct sink *s, const char *key, size_t klen, const json_t *val, unsigned depth,
		  bool last)
{
	if (put_string(s, key, klen) < 0 || put(s, ": ", s->flags & JSON_COMPACT ? 1 : 2) < 0 ||
	    dump(s, val, depth + 1) < 0)
		return -1;
	if (!last)
		return put(s, ",", 1) < 0 ? -1 : indent(s, depth + 1, true);
	return indent(s, depth, false);
}

static int dump_object(struct sink *s, const json_t *v, unsigned depth)
{
	size_t size = json_object_size(v);
	if (put(s, "{", 1) < 0)
		return -1;
	if (size == 0)
		return put(s, "}", 1);
	if (indent(s, depth + 1, false) < 0)
		return -1;
	const char *k;
	size_t klen, i = 0;
	json_t *val;
	if (s->flags & JSON_SORT_KEYS) {
		struct key *keys = malloc(size * sizeof *keys);
		if (!keys)
			return -1;
		json_object_keylen_foreach((json_t *)v, k, klen, val) keys[i++] =
			(struct key){k, klen};
		qsort(keys, size, sizeof *keys, key_cmp);
		int rc = 0;
		for (i = 0; i < size && rc == 0; i++)
			rc = member(s, keys[i].p, keys[i].len,
				    json_object_getn(v, keys[i].p, keys[i].len), depth,
				    i + 1 == size);
		free(keys);
		if (rc < 0)
			return -1;
	} else {
		json_object_keylen_foreach((json_t *)v, k, klen, val)
		{
			if (member(s, k, klen, val, depth, ++i == size) < 0)
				return -1;
		}
	}
	return put(s, "}", 1);
}

static int dump_array(struct sink *s, const json_t *v, unsigned depth)
{
	size_t n = json_array_size(v);
	if (put(s, "[", 1) < 0)
		return -1;
	if (n == 0)
		return put(s, "]", 1);
	if (indent(s, depth + 1, false) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (dump(s, json_array_get(v, i), depth + 1) < 0)
			return -1;
		if (i + 1 < n ? put(s, ",", 1) < 0 || indent(s, depth + 1, true) < 0
			      : indent(s, depth, false) < 0)
			return -1;
	}
	return put(s, "]", 1);
}

/* A tree deeper than any jansson parses is taken for a cycle. */
static int dump(struct sink *s, const json_t *v, unsigned depth)
{
	char num[JNUM_BYTES];
	if (!v || depth > LIMIT_JSON_DUMP_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_NULL: return put(s, "null", 4);
	case JSON_TRUE: return put(s, "true", 4);
	case JSON_FALSE: return put(s, "false", 5);
	case JSON_INTEGER:
		return put(s, num,
			   (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
					    json_integer_value(v)));
	case JSON_REAL: return put(s, num, jnum_format(json_real_value(v), num));
	case JSON_STRING: return put_string(s, json_string_value(v), json_string_length(v));
	case JSON_ARRAY: return dump_array(s, v, depth);
	case JSON_OBJECT: return dump_object(s, v, depth);
	}
	return -1;
}

int jnum_dump_callback(const json_t *v, json_dump_callback_t cb, void *data, size_t flags)
{
	if ((flags & ~KNOWN_FLAGS) || !v ||
	    (!(flags & JSON_ENCODE_ANY) && !json_is_array(v) && !json_is_object(v)))
		return -1;
	/* On the stack: a dump costs no allocation of its own (every frame
	 * the daemon sends is one, and a failed malloc here would cost it). */
	struct sink sink = {.cb = cb, .data = data, .flags = flags, .failed = false, .n = 0};
	struct sink *s = &sink;
	int rc = dump(s, v, 0);
	if (rc == 0)
		rc = flush(s);
	return rc;
}

static int to_buf(const char *p, size_t n, void *data) { return buf_append(data, p, n); }

char *jnum_dumps(const json_t *v, size_t flags)
{
	struct buf b = BUF_INIT;
	if (jnum_dump_callback(v, to_buf, &b, flags) < 0 || buf_append(&b, "", 1) < 0) {
		buf_free(&b);
		return NULL;
	}
	return b.data; /* nothing is consumed: the text starts the block */
}

struct counted {
	char *dst;
	size_t size, total;
};

static int to_counted(const char *p, size_t n, void *data)
{
	struct counted *c = data;
	if (c->total < c->size)
		memcpy(c->dst + c->total, p, n < c->size - c->total ? n : c->size - c->total);
	c->total += n;
	return 0;
}

size_t jnum_dumpb(const json_t *v, char *buffer, size_t size, size_t flags)
{
	struct counted c = {buffer, buffer ? size : 0, 0};
	return jnum_dump_callback(v, to_counted, &c, flags) < 0 ? 0 : c.total;
}

static int to_file(const char *p, size_t n, void *data)
{
	return fwrite(p, 1, n, data) == n ? 0 : -1;
}

int jnum_dump_file(const json_t *v, const char *path, size_t flags)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = jnum_dump_callback(v, to_file, f, flags);
	return fclose(f) != 0 ? -1 : rc;
}

/* ---- Loading */

/* Whether the integer literal p[0..n) ([-]digits) is beyond 64 bits. */
static bool int_overflows(const char *p, size_t n)
{
	char t[64];
	if (n >= sizeof t)
		return true; /* 63 digits and more */
	memcpy(t, p, n);
	t[n] = '\0';
	errno = 0;
	(void)strtoll(t, NULL, 10);
	return errno == ERANGE;
}

/* text with every integer beyond 64 bits made a real ("e0" after its
 * digits), strings left as they are; 0, or -1 without memory. */
static int reals_for_big_ints(const char *text, size_t len, struct buf *out)
{
	for (size_t i = 0; i < len;) {
		size_t j = i + 1;
		bool big = false;
		if (text[i] == '"') { /* a string, its escapes included */
			while (j < len && text[j] != '"')
				j += text[j] == '\\' ? 2 : 1;
			j = j < len ? j + 1 : len;
		} else if (text[i] == '-' || (text[i] >= '0' && text[i] <= '9')) {
			bool integer = true;
			for (; j < len && text[j] && strchr("0123456789+-.eE", text[j]); j++)
				integer = integer && text[j] >= '0' && text[j] <= '9';
			big = integer && int_overflows(text + i, j - i);
		}
		if (buf_append(out, text + i, j - i) < 0 || (big && buf_append(out, "e0", 2) < 0))
			return -1;
		i = j;
	}
	return 0;
}

json_t *jnum_loadb(const char *buffer, size_t len, size_t flags, json_error_t *error)
{
	json_error_t local;
	json_error_t *e = error ? error : &local;
	json_t *v = json_loadb(buffer, len, flags, e);
	if (v || json_error_code(e) != json_error_numeric_overflow ||
	    (flags & JSON_DECODE_INT_AS_REAL))
		return v;
	struct buf b = BUF_INIT;
	if (reals_for_big_ints(buffer, len, &b) == 0 && b.data)
		v = json_loadb(buf_peek(&b), buf_len(&b), flags, e);
	buf_free(&b);
	return v;
}

json_t *jnum_loads(const char *text, size_t flags, json_error_t *error)
{
	return jnum_loadb(text, strlen(text), flags, error);
}

json_t *jnum_load_file(const char *path, size_t flags, json_error_t *error)
{
	json_error_t local;
	json_error_t *e = error ? error : &local;
	json_t *v = json_load_file(path, flags, e);
	if (v || json_error_code(e) != json_error_numeric_overflow)
		return v;
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char block[8192];
	size_t n;
	bool ok = f != NULL;
	while (ok && (n = fread(block, 1, sizeof block, f)) > 0)
		ok = buf_append(&b, block, n) == 0;
	if (f) {
		ok = ok && !ferror(f);
		ok = fclose(f) == 0 && ok;
	}
	if (ok)
		v = jnum_loadb(b.data ? buf_peek(&b) : "", buf_len(&b), flags, e);
	buf_free(&b);
	return v;
}
