/* jsonv.c - JSON validation and compaction as a push parser; see jsonv.h. */
#include "jsonv.h"

#include <stdlib.h>
#include <string.h>

enum {
	S_VALUE,     /* a value must come */
	S_ARR_FIRST, /* after '[': a value or ']' */
	S_OBJ_FIRST, /* after '{': a key or '}' */
	S_KEY,	     /* after ',' in an object: a key */
	S_COLON,
	S_AFTER, /* after a value: ',', a closer, or the end */
	S_STRING,
	S_ESC,	   /* after a backslash */
	S_HEX,	   /* the 4 digits of \u; sub counts them */
	S_LOW_BS,  /* a high surrogate was escaped: "\" of its pair next */
	S_LOW_U,   /* then "u" */
	S_LOW_HEX, /* then 4 digits of a low surrogate */
	S_NUMBER,  /* sub is one of N_* */
	S_LITERAL,
	S_DONE,
	S_ERROR,
};

/* Number states; the *_END ones may end the number. */
enum { N_MINUS, N_ZERO_END, N_INT_END, N_DOT, N_FRAC_END, N_E, N_ESIGN, N_EXP_END };

static bool number_may_end(uint8_t sub)
{
	return sub == N_ZERO_END || sub == N_INT_END || sub == N_FRAC_END || sub == N_EXP_END;
}

void jsonv_init(struct jsonv *v, const struct jsonv_limits *lim, struct buf *out)
{
	memset(v, 0, offsetof(struct jsonv, stack));
	v->lim = *lim;
	if (v->lim.max_depth > JSONV_DEPTH_MAX)
		v->lim.max_depth = JSONV_DEPTH_MAX;
	v->out = out;
	v->out_base = out ? buf_len(out) : 0;
	v->state = S_VALUE;
	v->cur = -1;
}

struct cursor {
	char *w;     /* where the next output byte goes, or NULL */
	size_t olen; /* output bytes so far (of this jsonv) */
	int cur;     /* index of the top-level member being read, or -1 */
};

static inline void emit(struct cursor *c, char ch)
{
	if (c->w)
		*c->w++ = ch;
	c->olen++;
}

static int fail(struct jsonv *v, const char *why, size_t at)
{
	v->state = S_ERROR;
	v->why = why;
	v->err_at = at;
	return -1;
}

/* Top-level member bookkeeping: spans of the member at depth 1. */
static bool at_top_member(const struct jsonv *v) { return v->depth == 1 && v->stack[0] == '{'; }

static void value_end(struct jsonv *v, struct cursor *c)
{
	if (v->depth == 0) {
		v->state = S_DONE;
		return;
	}
	v->state = S_AFTER;
	if (at_top_member(v) && c->cur >= 0) {
		struct jsonv_member *m = &v->members[c->cur];
		m->value.len = c->olen - m->value.off;
		m->nodes = v->nodes - m->nodes;
	}
}

/* A value begins with ch: one more node. 0, or -1 on a bad start. */
static int value_start(struct jsonv *v, struct cursor *c, char ch, size_t at)
{
	if (at_top_member(v) && c->cur >= 0) {
		v->members[c->cur].value.off = c->olen;
		v->members[c->cur].nodes = v->nodes;
	}
	if (++v->nodes > v->lim.max_nodes)
		return fail(v, "too many values", at);
	switch (ch) {
	case '{':
	case '[':
		if (v->depth >= v->lim.max_depth)
			return fail(v, "nested too deeply", at);
		v->stack[v->depth++] = (uint8_t)ch;
		v->state = ch == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
		emit(c, ch);
		return 0;
	case '"':
		v->key = false;
		v->state = S_STRING;
		emit(c, ch);
		return 0;
	case 't':
	case 'f':
	case 'n':
		v->lit = ch == 't' ? "true" : ch == 'f' ? "false" : "null";
		v->lit_at = 1;
		v->state = S_LITERAL;
		emit(c, ch);
		return 0;
	case '-':
		v->state = S_NUMBER;
		v->sub = N_MINUS;
		emit(c, ch);
		return 0;
	default:
		if (ch >= '0' && ch <= '9') {
			v->state = S_NUMBER;
			v->sub = ch == '0' ? N_ZERO_END : N_INT_END;
			emit(c, ch);
			return 0;
		}
		return fail(v, "expected a value", at);
	}
}

static void key_start(struct jsonv *v, struct cursor *c)
{
	v->key = true;
	v->state = S_STRING;
	if (at_top_member(v)) {
		if (v->n_members < JSONV_MEMBERS) {
			c->cur = (int)v->n_members++;
			struct jsonv_member *m = &v->members[c->cur];
			memset(m, 0, sizeof *m);
			m->key.off = c->olen;
			m->key_in = v->in_at;
		} else {
			c->cur = -1;
			v->members_overflow = true;
		}
	}
	emit(c, '"');
}

/* A closer ']' or '}' in S_AFTER or after an opener. */
static int close_container(struct jsonv *v, struct cursor *c, char ch, size_t at)
{
	char open = ch == ']' ? '[' : '{';
	if (v->depth == 0 || v->stack[v->depth - 1] != (uint8_t)open)
		return fail(v, "mismatched bracket", at);
	v->depth--;
	emit(c, ch);
	value_end(v, c);
	return 0;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

static int hex_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A byte inside a string that is not ASCII: the UTF-8 rules. */
static int string_high_byte(struct jsonv *v, unsigned char b, size_t at)
{
	if (v->need) {
		if (b < v->lo || b > v->hi)
			return fail(v, "invalid UTF-8 in a string", at);
		v->lo = 0x80;
		v->hi = 0xBF;
		v->need--;
		return 0;
	}
	v->lo = 0x80;
	v->hi = 0xBF;
	if (b >= 0xC2 && b <= 0xDF) {
		v->need = 1;
	} else if (b >= 0xE0 && b <= 0xEF) {
		v->need = 2;
		if (b == 0xE0)
			v->lo = 0xA0; /* no overlongs */
		else if (b == 0xED)
			v->hi = 0x9F; /* no surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		v->need = 3;
		if (b == 0xF0)
			v->lo = 0x90;
		else if (b == 0xF4)
			v->hi = 0x8F; /* nothing past U+10FFFF */
	} else {
		return fail(v, "invalid UTF-8 in a string", at);
	}
	return 0;
}

static void string_end(struct jsonv *v, struct cursor *c)
{
	emit(c, '"');
	if (v->key) {
		if (at_top_member(v) && c->cur >= 0)
			v->members[c->cur].key.len = c->olen - v->members[c->cur].key.off;
		v->state = S_COLON;
	} else {
		value_end(v, c);
	}
}

int jsonv_feed(struct jsonv *v, const char *p, size_t n)
{
	if (v->state == S_ERROR)
		return -1;
	size_t base = v->in_bytes;
	v->in_bytes += n;
	if (v->lim.max_bytes && v->in_bytes > v->lim.max_bytes)
		return fail(v, "too big", v->lim.max_bytes);
	struct cursor c = {NULL, v->olen, v->cur};
	char *w0 = NULL;
	if (v->out && n) {
		/* The compact form is never longer than the input. */
		w0 = buf_reserve(v->out, n);
		if (!w0)
			return fail(v, "out of memory", base);
		c.w = w0;
	}
	size_t i = 0;
	int rc = 0;
	while (i < n) {
		char ch = p[i];
		unsigned char b = (unsigned char)ch;
		switch (v->state) {
		case S_STRING:
			/* The common case first: plain ASCII, copied as is. */
			while (!v->need && b >= 0x20 && b < 0x80 && ch != '"' && ch != '\\') {
				emit(&c, ch);
				if (++i == n)
					goto out;
				ch = p[i];
				b = (unsigned char)ch;
			}
			if (b >= 0x80 || v->need) {
				if (b < 0x80 || string_high_byte(v, b, base + i) < 0) {
					rc = fail(v, "invalid UTF-8 in a string", base + i);
					goto out;
				}
				emit(&c, ch);
			} else if (ch == '"') {
				string_end(v, &c);
			} else if (ch == '\\') {
				emit(&c, ch);
				v->state = S_ESC;
			} else {
				rc = fail(v, "a control character in a string", base + i);
				goto out;
			}
			i++;
			continue;
		case S_ESC:
			if (ch == 'u') {
				v->state = S_HEX;
				v->sub = 0;
				v->cp = 0;
			} else if (strchr("\"\\/bfnrt", ch) && ch) {
				v->state = S_STRING;
			} else {
				rc = fail(v, "a bad escape in a string", base + i);
				goto out;
			}
			emit(&c, ch);
			i++;
			continue;
		case S_HEX:
		case S_LOW_HEX: {
			int h = hex_value(ch);
			if (h < 0) {
				rc = fail(v, "a bad \\u escape in a string", base + i);
				goto out;
			}
			v->cp = (v->cp << 4) | (uint32_t)h;
			emit(&c, ch);
			i++;
			if (++v->sub < 4)
				continue;
			uint32_t u = v->cp & 0xFFFF;
			if (v->state == S_HEX) {
				if (u >= 0xD800 && u <= 0xDBFF) {
					v->state = S_LOW_BS;
				} else if (u >= 0xDC00 && u <= 0xDFFF) {
					rc = fail(v, "an unpaired surrogate escape", base + i - 1);
					goto out;
				} else {
					v->state = S_STRING;
				}
			} else {
				if (u < 0xDC00 || u > 0xDFFF) {
					rc = fail(v, "an unpaired surrogate escape", base + i - 1);
					goto out;
				}
				v->state = S_STRING;
			}
			continue;
		}
		case S_LOW_BS:
		case S_LOW_U:
			if (ch != (v->state == S_LOW_BS ? '\\' : 'u')) {
				rc = fail(v, "an unpaired surrogate escape", base + i);
				goto out;
			}
			emit(&c, ch);
			if (v->state == S_LOW_BS) {
				v->state = S_LOW_U;
			} else {
				v->state = S_LOW_HEX;
				v->sub = 0;
				v->cp = 0;
			}
			i++;
			continue;
		case S_NUMBER: {
			bool digit = ch >= '0' && ch <= '9';
			uint8_t next = 0xFF;
			switch (v->sub) {
			case N_MINUS:
				next = digit ? (ch == '0' ? N_ZERO_END : N_INT_END) : 0xFF;
				break;
			case N_ZERO_END:
				next = ch == '.' ? N_DOT : (ch == 'e' || ch == 'E') ? N_E : 0xFF;
				break;
			case N_INT_END:
				next = digit			  ? N_INT_END
				       : ch == '.'		  ? N_DOT
				       : (ch == 'e' || ch == 'E') ? N_E
								  : 0xFF;
				break;
			case N_DOT: next = digit ? N_FRAC_END : 0xFF; break;
			case N_FRAC_END:
				next = digit ? N_FRAC_END : (ch == 'e' || ch == 'E') ? N_E : 0xFF;
				break;
			case N_E:
				next = digit			  ? N_EXP_END
				       : (ch == '+' || ch == '-') ? N_ESIGN
								  : 0xFF;
				break;
			case N_ESIGN:
			case N_EXP_END: next = digit ? N_EXP_END : 0xFF; break;
			}
			if (next != 0xFF) {
				v->sub = next;
				emit(&c, ch);
				i++;
				continue;
			}
			if (!number_may_end(v->sub)) {
				rc = fail(v, "a malformed number", base + i);
				goto out;
			}
			value_end(v, &c);
			continue; /* ch is looked at again in the new state */
		}
		case S_LITERAL:
			if (ch != v->lit[v->lit_at]) {
				rc = fail(v, "expected a value", base + i);
				goto out;
			}
			emit(&c, ch);
			i++;
			if (v->lit[++v->lit_at] == '\0')
				value_end(v, &c);
			continue;
		default: break;
		}
		/* The structural states: whitespace between tokens is dropped. */
		if (is_space(ch)) {
			i++;
			continue;
		}
		switch (v->state) {
		case S_VALUE: rc = value_start(v, &c, ch, base + i); break;
		case S_ARR_FIRST:
			rc = ch == ']' ? close_container(v, &c, ch, base + i)
				       : value_start(v, &c, ch, base + i);
			break;
		case S_OBJ_FIRST:
		case S_KEY:
			if (ch == '"') {
				v->in_at = base + i;
				key_start(v, &c);
			} else if (ch == '}' && v->state == S_OBJ_FIRST)
				rc = close_container(v, &c, ch, base + i);
			else
				rc = fail(v, "expected a string key", base + i);
			break;
		case S_COLON:
			if (ch == ':') {
				emit(&c, ch);
				v->state = S_VALUE;
			} else {
				rc = fail(v, "expected ':'", base + i);
			}
			break;
		case S_AFTER:
			if (ch == ',') {
				emit(&c, ch);
				v->state = v->stack[v->depth - 1] == '[' ? S_VALUE : S_KEY;
			} else if (ch == ']' || ch == '}') {
				rc = close_container(v, &c, ch, base + i);
			} else {
				rc = fail(v, "expected ',' or a closing bracket", base + i);
			}
			break;
		case S_DONE: rc = fail(v, "text after the value", base + i); break;
		default: rc = fail(v, "invalid state", base + i); break;
		}
		if (rc < 0)
			goto out;
		i++;
	}
out:
	if (v->out && w0)
		buf_commit(v->out, (size_t)(c.w - w0));
	v->olen = c.olen;
	v->cur = c.cur;
	return rc < 0 || v->state == S_ERROR ? -1 : 0;
}

int jsonv_finish(struct jsonv *v)
{
	if (v->state == S_ERROR)
		return -1;
	if (v->state == S_NUMBER && v->depth == 0 && number_may_end(v->sub)) {
		struct cursor c = {NULL, v->olen, v->cur};
		value_end(v, &c);
	}
	if (v->state != S_DONE)
		return fail(v, v->in_bytes ? "the text ends inside a value" : "no value",
			    v->in_bytes);
	return 0;
}

int jsonv_compact(const char *in, size_t len, const struct jsonv_limits *lim, struct buf *out,
		  uint64_t *nodes, const char **why)
{
	struct jsonv *v = malloc(sizeof *v);
	if (!v) {
		*why = "out of memory";
		return -1;
	}
	size_t mark = out ? buf_len(out) : 0;
	jsonv_init(v, lim, out);
	int rc = jsonv_feed(v, in, len) < 0 ? -1 : jsonv_finish(v);
	*why = v->why;
	if (nodes)
		*nodes = v->nodes;
	if (rc < 0 && out)
		out->end = out->start + mark;
	free(v);
	return rc;
}

const struct jsonv_member *jsonv_member(const struct jsonv *v, const char *name, bool *dup)
{
	const struct jsonv_member *found = NULL;
	if (dup)
		*dup = false;
	if (!v->out)
		return NULL;
	const char *text = buf_peek(v->out) + v->out_base;
	for (unsigned i = 0; i < v->n_members; i++) {
		if (!jsonv_key_is(text, &v->members[i].key, name))
			continue;
		if (found && dup)
			*dup = true;
		found = &v->members[i];
	}
	return found;
}

bool jsonv_key_is(const char *s, const struct jsonv_span *key, const char *name)
{
	size_t n = strlen(name);
	return key->len == n + 2 && memcmp(s + key->off + 1, name, n) == 0;
}

/* The end of the compact value starting at s[i] (valid by construction). */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	unsigned depth = 0;
	bool in_str = false;
	for (; i < len; i++) {
		char ch = s[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"') {
				in_str = false;
				if (depth == 0)
					return i + 1;
			}
			continue;
		}
		switch (ch) {
		case '"': in_str = true; break;
		case '[':
		case '{': depth++; break;
		case ']':
		case '}':
			if (depth == 0)
				return i; /* the enclosing container's closer */
			if (--depth == 0)
				return i + 1;
			break;
		case ',':
			if (depth == 0)
				return i;
			break;
		default: break;
		}
	}
	return len;
}

bool jsonv_next(const char *s, size_t len, size_t *pos, struct jsonv_span *key,
		struct jsonv_span *val)
{
	size_t i = *pos ? *pos : 1;
	if (len < 2 || i >= len || s[i] == ']' || s[i] == '}')
		return false;
	key->off = key->len = 0;
	if (s[0] == '{') {
		size_t end = skip_value(s, len, i);
		key->off = i;
		key->len = end - i;
		i = end + 1; /* the ':' */
	}
	size_t end = skip_value(s, len, i);
	val->off = i;
	val->len = end - i;
	*pos = end < len && s[end] == ',' ? end + 1 : end;
	return true;
}
