/* msg.c - reply and event frames; see msg.h. */
#include "msg.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jnum.h"
#include "limits.h"

static unsigned long alloc_failures;
/* Memory set aside for jansson's next failed allocation: jansson 2.14
 * aborts (an assert in its string scanner) rather than fail a parse when
 * an allocation there returns NULL, so the first failure frees this and
 * tries again; the reserve is taken back once allocations succeed. Only
 * the loop's thread uses jansson. */
static void *reserve;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);
	if (!p && reserve) {
		free(reserve);
		reserve = NULL;
		p = malloc(n);
	}
	if (!p) {
		__atomic_add_fetch(&alloc_failures, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (!reserve)
		reserve = malloc(LIMIT_JSON_RESERVE_BYTES);
	return p;
}

void msg_alloc_init(void)
{
	reserve = malloc(LIMIT_JSON_RESERVE_BYTES);
	json_set_alloc_funcs(counting_malloc, free);
}

unsigned long msg_alloc_failures(void)
{
	return __atomic_load_n(&alloc_failures, __ATOMIC_RELAXED);
}
#include "jstr.h"

static json_t *with_id(json_t *id)
{
	json_t *m = json_object();
	if (m && id)
		json_object_set(m, "id", id);
	return m;
}

json_t *msg_reply_ok(json_t *id)
{
	json_t *m = with_id(id);
	if (m)
		json_object_set_new(m, "ok", json_true());
	return m;
}

json_t *msg_reply_error(json_t *id, enum status code, const char *message)
{
	json_t *m = with_id(id);
	if (!m)
		return NULL;
	json_object_set_new(m, "ok", json_false());
	json_t *e = json_pack("{s:s, s:s}", "code", status_name(code), "message",
			      message ? message : status_name(code));
	if (!e) /* a message that is not UTF-8: the code must still get out */
		e = json_pack("{s:s, s:s}", "code", status_name(code), "message",
			      status_name(code));
	json_object_set_new(m, "error", e);
	return m;
}

json_t *msg_event(json_t *id, const char *name)
{
	json_t *m = with_id(id);
	if (m)
		json_object_set_new(m, "event", json_string(name));
	return m;
}

/* jansson ignores a failed write of an object's key and goes on, so one
 * failed append would leave a key without its closing quote in an
 * otherwise complete frame: once an append fails, every later one fails
 * too, and the error reaches a write jansson checks. */
struct dump_state {
	struct buf *out;
	bool failed;
};

static int dump_to_buf(const char *p, size_t n, void *data)
{
	struct dump_state *st = data;
	if (!st->failed && buf_append(st->out, p, n) < 0)
		st->failed = true;
	return st->failed ? -1 : 0;
}

int msg_encode_raw(struct buf *out, enum frame_mode mode, const json_t *msg, const char *members,
		   size_t len)
{
	/* Offsets are kept relative to the unconsumed start: an append may
	 * slide the buffer's contents down, never reorder them. */
	size_t mark = buf_len(out);
	if (len && (!json_is_object(msg) || members[0] != ','))
		return -1;
	if (mode != FRAME_MODE_LINE) {
		if (!buf_reserve(out, 4))
			return -1;
		buf_commit(out, 4);
	}
	size_t body = buf_len(out);
	struct dump_state st = {out, false};
	if (jnum_dump_callback(msg, dump_to_buf, &st, JSON_COMPACT) < 0 || st.failed)
		goto undo;
	if (len) {
		/* Drop the closing brace; an empty object takes no comma. */
		out->end--;
		bool empty = buf_len(out) - body == 1;
		if (buf_append(out, members + empty, len - empty) < 0 ||
		    buf_append(out, "}", 1) < 0)
			goto undo;
	}
	size_t n = buf_len(out) - body;
	if (mode == FRAME_MODE_LINE) {
		if (buf_append(out, "\n", 1) < 0)
			goto undo;
	} else {
		if (n > UINT32_MAX)
			goto undo;
		frame_put_header((unsigned char *)out->data + out->start + mark, (uint32_t)n);
	}
	return 0;
undo:
	out->end = out->start + mark;
	return -1;
}

int msg_encode(struct buf *out, enum frame_mode mode, const json_t *msg)
{
	return msg_encode_raw(out, mode, msg, NULL, 0);
}

/* ---- messages produced piecewise */

enum { PIECE_TEXT, PIECE_STRING, PIECE_MEMBERS };

void msg_stream_init(struct msg_stream *m) { *m = (struct msg_stream){.text = BUF_INIT}; }

static void add_piece(struct msg_stream *m, int kind, const struct buf *src, size_t off, size_t len)
{
	if (m->n == MSG_STREAM_PIECES) {
		m->err = 1;
		return;
	}
	if (len == 0)
		return;
	m->piece[m->n++] = (struct msg_piece){kind, src, off, len};
	m->total += len;
}

static void add_text(struct msg_stream *m, const char *p, size_t n)
{
	size_t off = buf_len(&m->text);
	if (buf_append(&m->text, p, n) < 0) {
		m->err = 1;
		return;
	}
	/* Extends the last piece when it is text too. */
	struct msg_piece *last = m->n ? &m->piece[m->n - 1] : NULL;
	if (last && last->kind == PIECE_TEXT && last->off + last->len == off) {
		last->len += n;
		m->total += n;
		return;
	}
	add_piece(m, PIECE_TEXT, NULL, off, n);
}

void msg_stream_object(struct msg_stream *m, const json_t *o)
{
	char *s = json_is_object(o) ? jnum_dumps(o, JSON_COMPACT) : NULL;
	size_t n = s ? strlen(s) : 0;
	if (!s || n < 2) {
		m->err = 1;
	} else if (m->n == 0) {
		if (n == 2)
			m->err = 1; /* an empty opening object */
		else
			add_text(m, s, n - 1);
	} else if (n > 2) {
		add_text(m, ",", 1);
		add_text(m, s + 1, n - 2);
	}
	free(s);
}

void msg_stream_string(struct msg_stream *m, const char *key, const struct buf *src, size_t off,
		       size_t len, size_t esc_len)
{
	add_text(m, ",\"", 2);
	add_text(m, key, strlen(key));
	add_text(m, "\":\"", 3);
	if (len) {
		add_piece(m, PIECE_STRING, src, off, len);
		m->total += esc_len - len; /* add_piece counted the raw bytes */
	}
	add_text(m, "\"", 1);
}

void msg_stream_members(struct msg_stream *m, const struct buf *src, size_t off, size_t len)
{
	if (len && (!m->n || buf_peek(src)[off] != ','))
		m->err = 1;
	add_piece(m, PIECE_MEMBERS, src, off, len);
}

void msg_stream_json(struct msg_stream *m, const char *key, const struct buf *src, size_t off,
		     size_t len)
{
	add_text(m, ",\"", 2);
	add_text(m, key, strlen(key));
	add_text(m, "\":", 2);
	if (len == 0)
		m->err = 1;
	add_piece(m, PIECE_MEMBERS, src, off, len);
}

int msg_stream_end(struct msg_stream *m)
{
	if (m->n == 0)
		m->err = 1;
	add_text(m, "}", 1);
	return m->err ? -1 : 0;
}

long msg_stream_fill(struct msg_stream *m, struct buf *out, size_t max)
{
	if (max < 8)
		max = 8; /* room for any one escape */
	long produced = 0;
	while (m->cur < m->n && max > 0) {
		const struct msg_piece *p = &m->piece[m->cur];
		const char *from = p->kind == PIECE_TEXT ? buf_peek(&m->text) + p->off
							 : buf_peek(p->src) + p->off;
		size_t left = p->len - m->done;
		/* Room for what is left of the message, not for max: a job or
		 * reply of a hundred bytes asks for a hundred, not for a
		 * chunk's worth (which, over the daemon's mmap threshold,
		 * cost an mmap, a fault and an munmap per message). The 8
		 * spare cover any one escape should esc_len have been short. */
		size_t rest = m->total > m->produced ? m->total - m->produced : 0;
		size_t room = rest + 8 < max ? rest + 8 : max;
		char *dst = buf_reserve(out, room);
		if (!dst)
			return -1;
		size_t wrote, used;
		if (p->kind == PIECE_STRING) {
			wrote = jstr_escape(dst, room, from + m->done, left, &used);
		} else {
			used = wrote = left < room ? left : room;
			memcpy(dst, from + m->done, wrote);
		}
		buf_commit(out, wrote);
		produced += (long)wrote;
		m->produced += wrote;
		max -= wrote;
		m->done += used;
		if (m->done < p->len)
			break; /* out of room this time */
		m->cur++;
		m->done = 0;
	}
	return produced;
}

void msg_stream_free(struct msg_stream *m)
{
	buf_free(&m->text);
	m->n = m->cur = 0;
	m->produced = 0;
}
