/*
 * fuzz_jstr.c - the JSON string escaper (protocol/jstr.c) and the replies
 * produced piecewise with it (msg_stream in protocol/msg.c), against
 * jansson.
 *
 * Input: a flags byte, a count byte and that many step bytes (the sizes
 * of rooms, slices, pipe reads and fills, used in turn), then up to five
 * strings separated by 0xFF: the escaped string, stdout, stderr, the kept
 * value (JSON text, or a string when it does not parse) and a field.
 *
 * The escaped string must be refused by jansson exactly when utf8_valid
 * refuses it; refused, it is checked once sanitized (as the daemon
 * relays output). Escaped whole, and in slices cut anywhere into rooms of
 * any size, its bytes must be exactly those msg_encode gives for it, and
 * each call must write as much as fits: it stops only before an escape
 * longer than the room left. A reply built as the daemon builds it (a
 * final reply as exec.c on_room does, a status reply as ops.c does, a
 * call event as exec.c does) and drained in chunks of any size must be
 * byte for byte what msg_encode gives for the same object, be as long as
 * msg_stream_end announced, and parse back with the same output.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/buf.h"
#include "../../protocol/frame.h"
#include "../../protocol/jnum.h"
#include "../../protocol/jstr.h"
#include "../../protocol/msg.h"
#include "../../protocol/utf8.h"
#include "fuzz.h"

#define SEP 0xFF
#define N_STR 5
#define LONGEST_ESCAPE 6 /* \u00XX */

enum { F_LINE = 1, F_STATUS = 2, F_EVENT = 4, F_NO_OUTPUT = 8, F_GROW = 16, F_STRING_ID = 32 };

/* The step bytes, used in turn (0xFF each when there are none). */
struct steps {
	const uint8_t *b;
	size_t n, k;
};

/* buf_peek, but "" for a buffer never written (NULL data, where adding
 * even 0 is undefined). */
static const char *peek(const struct buf *b) { return b->data ? buf_peek(b) : ""; }

static unsigned next(struct steps *s) { return s->n ? s->b[s->k++ % s->n] : 0xFF; }

static void check(bool ok)
{
	if (!ok)
		abort();
}

/* What msg_encode gives for msg as a line frame, newline dropped, into
 * out (cleared first). */
static void encode(struct buf *out, const json_t *msg)
{
	buf_clear(out);
	check(msg_encode(out, FRAME_MODE_LINE, msg) == 0);
	check(buf_len(out) > 0 && peek(out)[buf_len(out) - 1] == '\n');
	out->end--;
}

/* jansson's escaping of s[0..n) as msg_encode does it, into out; false
 * when jansson refuses the bytes. */
static bool jansson_escape(struct buf *out, const char *s, size_t n)
{
	json_t *str = json_stringn(s, n);
	if (!str)
		return false;
	json_t *o = json_object();
	check(o && json_object_set_new(o, "s", str) == 0);
	encode(out, o);
	json_decref(o);
	static const char pre[] = "{\"s\":\"", post[] = "\"}";
	size_t lp = sizeof pre - 1, lq = sizeof post - 1;
	check(buf_len(out) >= lp + lq && memcmp(peek(out), pre, lp) == 0 &&
	      memcmp(peek(out) + buf_len(out) - lq, post, lq) == 0);
	buf_consume(out, lp);
	out->end -= lq;
	return true;
}

/* s[0..n) (valid UTF-8) escaped whole, then in slices into rooms, against
 * jansson's bytes. */
static void check_escape(const char *s, size_t n, struct steps *st)
{
	struct buf want = BUF_INIT;
	check(jansson_escape(&want, s, n));
	size_t wl = buf_len(&want);
	check(jstr_escaped_len(s, n) == wl);

	size_t cap = wl + 32, used, out = 0, i = 0;
	char *d = malloc(cap);
	check(d != NULL);
	check(jstr_escape(d, wl, s, n, &used) == wl && used == n);
	check(memcmp(d, peek(&want), wl) == 0);

	while (i < n) {
		unsigned b = next(st);
		size_t room = b % 16, take = (b >> 4) + 1;
		if (room == 15)
			room = wl - out + 15; /* more than enough */
		if (take == 16 || take > n - i)
			take = n - i;
		size_t w = jstr_escape(d + out, room, s + i, take, &used);
		check(w <= room && used <= take && out + w <= wl);
		check(jstr_escaped_len(s + i, used) == w);
		/* As much as fits: what stopped it is an escape too long. */
		if (used < take)
			check(jstr_escaped_len(s + i + used, 1) > room - w);
		if (used == 0) {
			/* The longest escape always fits. */
			w = jstr_escape(d + out, LONGEST_ESCAPE, s + i, take, &used);
			check(used > 0 && w <= LONGEST_ESCAPE && out + w <= wl);
		}
		out += w;
		i += used;
	}
	check(out == wl && memcmp(d, peek(&want), wl) == 0);
	free(d);
	buf_free(&want);
}

/* The first string: jansson and utf8_valid agree on it, and it is
 * escaped as it is when valid, else as sanitized. */
static void check_string(const char *s, size_t n, struct steps *st)
{
	struct buf tmp = BUF_INIT;
	bool valid = utf8_valid(s, n);
	check(jansson_escape(&tmp, s, n) == valid);
	buf_clear(&tmp);
	check(utf8_sanitize(&tmp, s, n, true) == n);
	check(utf8_valid(peek(&tmp), buf_len(&tmp)));
	if (valid)
		check(buf_len(&tmp) == n && memcmp(peek(&tmp), s, n) == 0);
	check_escape(peek(&tmp), buf_len(&tmp), st);
	buf_free(&tmp);
}

/* Relays s[0..n) into out as run.c take_output does: in reads of any
 * size, sanitized with an incomplete tail carried over, *esc kept up to
 * date as exec_output_added keeps it. */
static void relay(struct buf *out, size_t *esc, const char *s, size_t n, struct steps *st)
{
	char joined[4 + 64];
	size_t carry = 0, i = 0;
	*esc = 0;
	do {
		unsigned b = next(st);
		size_t take = b >= 0xC0 ? 64 : b % 64 + 1;
		if (take > n - i)
			take = n - i;
		memcpy(joined + carry, s + i, take);
		size_t len = carry + take, before = buf_len(out);
		i += take;
		size_t used = utf8_sanitize(out, joined, len, i == n);
		check(used != (size_t)-1 && used <= len && len - used <= 3);
		carry = len - used;
		memmove(joined, joined + used, carry);
		*esc += jstr_escaped_len(peek(out) + before, buf_len(out) - before);
	} while (i < n);
	check(carry == 0 && utf8_valid(peek(out), buf_len(out)));
}

/* A JSON value for the kept text: s parsed, or as a string (sanitized). */
static json_t *value_of(const char *s, size_t n)
{
	json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (v)
		return v;
	struct buf t = BUF_INIT;
	check(utf8_sanitize(&t, s, n, true) == n);
	v = json_stringn(peek(&t), buf_len(&t));
	buf_free(&t);
	check(v != NULL);
	return v;
}

/* Appends compact JSON text of v to b. */
static void dump_value(struct buf *b, const json_t *v)
{
	char *t = jnum_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	check(t != NULL && buf_append(b, t, strlen(t)) == 0);
	free(t);
}

/* o's members added to want as msg_stream_object adds them to m. */
static void add_object(struct msg_stream *m, json_t *want, json_t *o)
{
	msg_stream_object(m, o);
	check(json_object_update(want, o) == 0);
	json_decref(o);
}

/* src[off..off+len) as the string member key, in m and want. */
static void add_string(struct msg_stream *m, json_t *want, const char *key, const struct buf *src,
		       size_t off, size_t len, size_t esc)
{
	msg_stream_string(m, key, src, off, len, esc);
	json_t *v = json_stringn(peek(src) + off, len);
	check(v != NULL && json_object_set_new(want, key, v) == 0);
}

/* Moves off forward to the start of a character of b. */
static size_t on_char(const struct buf *b, size_t off)
{
	while (off < buf_len(b) && ((unsigned char)peek(b)[off] & 0xC0) == 0x80)
		off++;
	return off;
}

/* The end of a status chunk from off, as ops.c chunk_end cuts it. */
static size_t chunk_end(const struct buf *b, size_t off, size_t max)
{
	size_t end = buf_len(b) - off > max ? off + max : buf_len(b);
	while (end > off && end < buf_len(b) && ((unsigned char)peek(b)[end] & 0xC0) == 0x80)
		end--;
	return end;
}

struct input {
	unsigned flags;
	const char *s[N_STR];
	size_t n[N_STR];
	unsigned count; /* strings given */
};

/* Builds a reply in m as the daemon would, and the same object in want. */
static void build(struct msg_stream *m, json_t *want, struct buf out[2], size_t esc[2],
		  struct buf *kept, const struct input *in, struct steps *st)
{
	json_t *id = in->flags & F_STRING_ID ? value_of(in->s[4], in->n[4])
					     : json_integer((json_int_t)in->n[4]);
	msg_stream_init(m);
	if (in->flags & F_EVENT) {
		/* exec.c's call event: its fields, then the arguments as text. */
		json_t *ev = msg_event(id, "tool_call");
		json_object_set_new(ev, "name", value_of(in->s[2], in->n[2]));
		add_object(m, want, ev);
		json_t *args = value_of(in->s[3], in->n[3]);
		size_t mark = buf_len(kept);
		dump_value(kept, args);
		msg_stream_json(m, "args", kept, mark, buf_len(kept) - mark);
		json_object_set_new(want, "args", args);
		json_decref(id);
		return;
	}
	json_t *r = msg_reply_ok(id);
	json_decref(id);
	if (in->flags & F_STATUS) {
		/* ops.c's status reply: chunks of output from offsets. */
		json_object_set_new(r, "state", json_string("running"));
		add_object(m, want, r);
		size_t room = next(st) * 17;
		bool more = false;
		for (int i = 0; i < 2; i++) {
			size_t off = on_char(&out[i], next(st) % (buf_len(&out[i]) + 1));
			size_t end = chunk_end(&out[i], off, room);
			room -= end - off;
			more = more || end < buf_len(&out[i]);
			size_t e = end - off == buf_len(&out[i])
					   ? esc[i]
					   : jstr_escaped_len(peek(&out[i]) + off, end - off);
			add_string(m, want, i ? "stderr" : "stdout", &out[i], off, end - off, e);
			add_object(m, want,
				   json_pack("{s:I, s:I}", i ? "stderr_length" : "stdout_length",
					     (json_int_t)buf_len(&out[i]),
					     i ? "stderr_next" : "stdout_next", (json_int_t)end));
		}
		json_t *tail = json_pack("{s:b}", "output_more", more);
		json_object_set_new(tail, "field", value_of(in->s[4], in->n[4]));
		add_object(m, want, tail);
	} else {
		/* exec.c on_room: the fields, stdout and stderr whole. */
		json_t *fields = json_pack("{s:s, s:i}", "state", "completed", "exit_code", 0);
		json_object_set_new(fields, "field", value_of(in->s[4], in->n[4]));
		json_object_update(r, fields);
		json_decref(fields);
		add_object(m, want, r);
		if (!(in->flags & F_NO_OUTPUT))
			for (int i = 0; i < 2; i++)
				add_string(m, want, i ? "stderr" : "stdout", &out[i], 0,
					   buf_len(&out[i]), esc[i]);
	}
	/* The kept members, from a buffer that was consumed from the front
	 * (as a result frame kept whole is). */
	if (in->count > 3) {
		json_t *v = value_of(in->s[3], in->n[3]);
		buf_append(kept, "xx,\"value\":", 11);
		buf_consume(kept, 2);
		dump_value(kept, v);
		json_object_set_new(want, "value", v);
		buf_append(kept, ",\"calls\":[]", 11);
		json_object_set_new(want, "calls", json_array());
	}
	msg_stream_members(m, kept, 0, buf_len(kept));
}

/* Drains m in chunks of any size (the sources growing meanwhile when
 * grow), into got; checks each fill's bounds. */
static void drain(struct msg_stream *m, struct buf *got, struct buf out[2], struct buf *kept,
		  bool grow, struct steps *st)
{
	size_t calls = 0;
	while (!msg_stream_finished(m)) {
		unsigned b = next(st);
		size_t max = b < 0x80 ? b % 16 : (b - 0x80) * 61 + 1, before = buf_len(got);
		long k = msg_stream_fill(m, got, max);
		check(k >= 1 && (size_t)k <= (max < 8 ? 8 : max));
		check(buf_len(got) - before == (size_t)k && buf_len(got) <= m->total);
		check(++calls <= m->total);
		if (grow) {
			/* A running execution's output and a buffer slid down
			 * under the stream change nothing of it. */
			buf_append(&out[b & 1], "\"\\\n\xc3\xa9", 5);
			buf_append(kept, "\x01", 1);
		}
	}
	check(msg_stream_fill(m, got, 64) == 0);
}

/* got parses back, with the output it should carry. */
static void check_parse(const struct buf *got, const json_t *want)
{
	json_error_t err;
	json_t *j = json_loadb(peek(got), buf_len(got), JSON_ALLOW_NUL, &err);
	check(j != NULL && json_is_object(j));
	const char *keys[] = {"stdout", "stderr", "args"};
	for (int i = 0; i < 3; i++) {
		json_t *a = json_object_get(j, keys[i]), *b = json_object_get(want, keys[i]);
		check(!a == !b);
		if (a && i < 2) {
			check(json_equal(a, b));
		} else if (a) {
			/* Numbers as JavaScript has them: a real 5.0 or -0.0
			 * reads back as the integer it is written as. */
			char *ta = jnum_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
			char *tb = jnum_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
			check(ta && tb && strcmp(ta, tb) == 0);
			free(ta);
			free(tb);
		}
	}
	json_decref(j);
}

static void check_stream(const struct input *in, struct steps *st)
{
	struct buf out[2] = {BUF_INIT, BUF_INIT}, kept = BUF_INIT, got = BUF_INIT, enc = BUF_INIT;
	size_t esc[2];
	for (int i = 0; i < 2; i++)
		relay(&out[i], &esc[i], in->s[1 + i], in->n[1 + i], st);
	struct msg_stream m;
	json_t *want = json_object();
	check(want != NULL);
	build(&m, want, out, esc, &kept, in, st);
	check(msg_stream_end(&m) == 0);

	drain(&m, &got, out, &kept, in->flags & F_GROW, st);
	check(buf_len(&got) == m.total);
	/* Exactly what msg_encode gives, in either mode. */
	enum frame_mode mode = in->flags & F_LINE ? FRAME_MODE_LINE : FRAME_MODE_BINARY;
	check(msg_encode(&enc, mode, want) == 0);
	if (mode == FRAME_MODE_LINE) {
		check(buf_len(&enc) == m.total + 1 && peek(&enc)[m.total] == '\n');
		check(memchr(peek(&got), '\n', buf_len(&got)) == NULL);
	} else {
		unsigned char hdr[4];
		frame_put_header(hdr, (uint32_t)m.total);
		check(buf_len(&enc) == m.total + 4 && memcmp(peek(&enc), hdr, 4) == 0);
		buf_consume(&enc, 4);
	}
	check(memcmp(peek(&enc), peek(&got), m.total) == 0);
	check_parse(&got, want);

	msg_stream_free(&m);
	json_decref(want);
	buf_free(&out[0]);
	buf_free(&out[1]);
	buf_free(&kept);
	buf_free(&got);
	buf_free(&enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size < 2u + data[1] % 16)
		return 0;
	struct input in = {.flags = data[0]};
	struct steps st = {data + 2, data[1] % 16, 0};
	const char *p = (const char *)data + 2 + st.n, *end = (const char *)data + size;
	bool given = true;
	for (unsigned i = 0; i < N_STR; i++) {
		const char *sep = i < N_STR - 1 ? memchr(p, SEP, (size_t)(end - p)) : NULL;
		in.s[i] = p;
		in.n[i] = sep ? (size_t)(sep - p) : (size_t)(end - p);
		in.count += given;
		given = sep != NULL;
		p = sep ? sep + 1 : end;
	}
	check_string(in.s[0], in.n[0], &st);
	check_stream(&in, &st);
	return 0;
}
