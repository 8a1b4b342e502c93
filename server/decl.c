/* decl.c - TypeScript declarations of the tools a script may call; see decl.h. */
#include "decl.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/buf.h"
#include "../protocol/jnum.h"
#include "../protocol/limits.h"

/* Nesting beyond this renders as unknown: schemas are client data. */
#define MAX_DEPTH 32
/* Steps one required name costs: adding it to a set allocates. */
#define REQUIRED_STEPS 16u
/* $refs being expanded, to render recursion as unknown. */
#define MAX_REFS 64

/*
 * A $ref rendered once, kept as where its text sits in the output (which
 * only grows, so the bytes stay there): the next use at the same
 * indentation and depth copies them instead of expanding the ref again.
 * Without this a schema whose definitions each refer to the next several
 * times renders in time exponential in its size.
 */
struct memo {
	const json_t *target; /* NULL: free slot */
	int level, depth;
	size_t off, len;
};

/* The rendering of one tools array; errors are sticky: once one is set,
 * nothing more is written. */
struct out {
	struct buf b;
	enum decl_err err;
	size_t steps; /* work done, against LIMIT_DECL_STEPS */
	struct memo *memo;
	size_t memo_cap, memo_len;
};

struct ctx {
	struct out *out;
	const json_t *root; /* the schema $refs resolve against */
	const char *refs[MAX_REFS];
	int n_refs;
	/* The lowest index in refs that a recursion cut hit while rendering:
	 * a ref's text depends on the refs around it only if this falls below
	 * its own slot, and then it is not memoised. */
	int lowest_cut;
};

static bool failed(struct out *o) { return o->err != DECL_OK; }

/* Counts n units of work; false (and the error set) once past the budget. */
static bool work(struct out *o, size_t n)
{
	o->steps += n;
	if (o->steps > LIMIT_DECL_STEPS && !failed(o))
		o->err = DECL_ERR_WORK;
	return !failed(o);
}

static void put_n(struct out *o, const char *s, size_t n)
{
	if (failed(o))
		return;
	if (buf_len(&o->b) + n > LIMIT_DECL_OUTPUT_BYTES) {
		o->err = DECL_ERR_OUTPUT;
		return;
	}
	char *dst = buf_reserve(&o->b, n);
	if (!dst) {
		o->err = DECL_ERR_NOMEM;
		return;
	}
	memcpy(dst, s, n);
	buf_commit(&o->b, n);
}

static void put(struct out *o, const char *s) { put_n(o, s, strlen(s)); }

/* Appends a copy of bytes already in the output. */
static void put_again(struct out *o, size_t off, size_t n)
{
	if (failed(o))
		return;
	if (buf_len(&o->b) + n > LIMIT_DECL_OUTPUT_BYTES) {
		o->err = DECL_ERR_OUTPUT;
		return;
	}
	/* Reserve first: it may move the data the copy comes from. */
	char *dst = buf_reserve(&o->b, n);
	if (!dst) {
		o->err = DECL_ERR_NOMEM;
		return;
	}
	memcpy(dst, o->b.data + o->b.start + off, n);
	buf_commit(&o->b, n);
}

__attribute__((format(printf, 2, 3))) static void putf(struct out *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		put_n(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void indent(struct out *o, int level)
{
	static const char spaces[] =
		"                                                                ";
	for (size_t n = 2 * (size_t)level; n > 0;) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		put_n(o, spaces, k);
		n -= k;
	}
}

/* ---- the memo: open addressing on (target, level, depth) */

static size_t memo_hash(const json_t *t, int level, int depth, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull;
	h ^= ((uint64_t)(unsigned)level << 32 | (unsigned)depth) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct memo *memo_find(struct out *o, const json_t *t, int level, int depth)
{
	if (!o->memo_cap)
		return NULL;
	for (size_t i = memo_hash(t, level, depth, o->memo_cap);; i = (i + 1) & (o->memo_cap - 1)) {
		struct memo *m = &o->memo[i];
		if (!m->target)
			return NULL;
		if (m->target == t && m->level == level && m->depth == depth)
			return m;
	}
}

/* Remembers a rendering; a failed allocation, or a full memo, only costs
 * the reuse (the budgets still bound the work). */
static void memo_add(struct out *o, const json_t *t, int level, int depth, size_t off, size_t len)
{
	if (o->memo_len >= LIMIT_DECL_MEMO_ENTRIES)
		return;
	if (2 * (o->memo_len + 1) > o->memo_cap) {
		size_t cap = o->memo_cap ? 2 * o->memo_cap : 64;
		struct memo *m = calloc(cap, sizeof *m);
		if (!m)
			return;
		struct memo *old = o->memo;
		size_t old_cap = o->memo_cap;
		o->memo = m;
		o->memo_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].target) {
				size_t k =
					memo_hash(old[i].target, old[i].level, old[i].depth, cap);
				while (m[k].target)
					k = (k + 1) & (cap - 1);
				m[k] = old[i];
			}
		free(old);
	}
	size_t k = memo_hash(t, level, depth, o->memo_cap);
	while (o->memo[k].target)
		k = (k + 1) & (o->memo_cap - 1);
	o->memo[k] = (struct memo){t, level, depth, off, len};
	o->memo_len++;
}

/* A JSDoc comment; "*" "/" inside the text is broken up. */
static void jsdoc(struct out *b, const char *text, int level)
{
	if (!text || !*text)
		return;
	indent(b, level);
	bool multi = strchr(text, '\n') != NULL;
	put(b, multi ? "/**\n" : "/** ");
	const char *p = text;
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (multi) {
			indent(b, level);
			put(b, " * ");
		}
		/* In runs up to each star that a slash follows. */
		for (size_t i = 0; i < n;) {
			const char *star = memmem(p + i, n - i, "*/", 2);
			size_t k = star ? (size_t)(star - (p + i)) + 1 : n - i;
			put_n(b, p + i, k);
			if (star)
				put(b, "\\");
			i += k;
		}
		if (failed(b))
			return;
		p += n;
		if (*p == '\n')
			p++;
		if (multi)
			put(b, "\n");
	}
	if (multi)
		indent(b, level);
	put(b, multi ? " */\n" : " */\n");
}

static bool identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '$'))
			return false;
	return true;
}

/* A property name as TypeScript takes it: bare when it can be. */
static void prop_name(struct out *b, const char *name)
{
	if (identifier(name)) {
		put(b, name);
		return;
	}
	json_t *s = json_string(name);
	char *q = s ? jnum_dumps(s, JSON_ENCODE_ANY) : NULL;
	put(b, q ? q : "\"\"");
	free(q);
	json_decref(s);
}

static void literal(struct out *b, const json_t *v)
{
	char *text = jnum_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!text) {
		b->err = failed(b) ? b->err : DECL_ERR_NOMEM;
		return;
	}
	size_t n = strlen(text);
	if (work(b, n / 16))
		put_n(b, text, n);
	free(text);
}

static void type_of(struct ctx *c, const json_t *s, int level, int depth);

/* Resolves a local JSON pointer ("#/$defs/Node") in the root schema. */
static const json_t *resolve(const json_t *root, const char *ref)
{
	if (strcmp(ref, "#") == 0)
		return root;
	if (strncmp(ref, "#/", 2) != 0)
		return NULL;
	const json_t *at = root;
	char token[256];
	const char *p = ref + 2;
	while (at && *p) {
		size_t n = strcspn(p, "/");
		size_t k = 0;
		for (size_t i = 0; i < n && k < sizeof token - 1; i++) {
			if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
				token[k++] = p[i + 1] == '0' ? '~' : '/';
				i++;
			} else {
				token[k++] = p[i];
			}
		}
		token[k] = '\0';
		at = json_is_array(at) ? json_array_get(at, strtoul(token, NULL, 10))
				       : json_object_get(at, token);
		p += n;
		if (*p == '/')
			p++;
	}
	return at;
}

/* The keywords of one schema object that shape its type, read in one pass
 * over its keys rather than a hash lookup per keyword. */
struct keys {
	const json_t *ref, *cnst, *enm, *any_of, *one_of, *all_of, *type;
	const json_t *props, *required, *extra, *prefix_items, *items;
};

static bool read_keys(struct ctx *c, const json_t *s, struct keys *k)
{
	memset(k, 0, sizeof *k);
	if (!work(c->out, json_object_size(s)))
		return false;
	const char *key;
	json_t *v;
	json_object_foreach ((json_t *)s, key, v) {
		const json_t **slot = NULL;
		switch (key[0]) {
		case '$': slot = strcmp(key, "$ref") == 0 ? &k->ref : NULL; break;
		case 'c': slot = strcmp(key, "const") == 0 ? &k->cnst : NULL; break;
		case 'e': slot = strcmp(key, "enum") == 0 ? &k->enm : NULL; break;
		case 'a':
			slot = strcmp(key, "anyOf") == 0		  ? &k->any_of
			       : strcmp(key, "allOf") == 0		  ? &k->all_of
			       : strcmp(key, "additionalProperties") == 0 ? &k->extra
									  : NULL;
			break;
		case 'o': slot = strcmp(key, "oneOf") == 0 ? &k->one_of : NULL; break;
		case 't': slot = strcmp(key, "type") == 0 ? &k->type : NULL; break;
		case 'p':
			slot = strcmp(key, "properties") == 0	 ? &k->props
			       : strcmp(key, "prefixItems") == 0 ? &k->prefix_items
								 : NULL;
			break;
		case 'r': slot = strcmp(key, "required") == 0 ? &k->required : NULL; break;
		case 'i': slot = strcmp(key, "items") == 0 ? &k->items : NULL; break;
		}
		if (slot)
			*slot = v;
	}
	return true;
}

/* Joins a list of schemas with sep (" | " or " & "). */
static void joined(struct ctx *c, const json_t *list, const char *sep, int level, int depth)
{
	if (!json_is_array(list) || !json_array_size(list)) {
		put(c->out, "unknown");
		return;
	}
	if (json_array_size(list) > 1)
		put(c->out, "(");
	size_t i;
	json_t *m;
	json_array_foreach (list, i, m) {
		if (i)
			put(c->out, sep);
		type_of(c, m, level, depth + 1);
	}
	if (json_array_size(list) > 1)
		put(c->out, ")");
}

static void object_type(struct ctx *c, const struct keys *k, int level, int depth)
{
	const json_t *props = k->props, *required = k->required, *extra = k->extra;
	if (!json_object_size(props) && !json_is_object(extra)) {
		put(c->out, json_is_false(extra) ? "{}" : "Record<string, unknown>");
		return;
	}
	put(c->out, "{\n");
	/* The required names as a set, so that each property is one lookup
	 * rather than a scan of the list. */
	size_t i;
	json_t *r;
	json_t *req_set = json_object();
	if (!req_set || !work(c->out, REQUIRED_STEPS * json_array_size(required))) {
		c->out->err = failed(c->out) ? c->out->err : DECL_ERR_NOMEM;
		json_decref(req_set);
		return;
	}
	json_array_foreach (required, i, r)
		if (json_is_string(r) &&
		    json_object_set(req_set, json_string_value(r), json_true()) < 0)
			c->out->err = DECL_ERR_NOMEM;
	const char *key;
	json_t *p;
	json_object_foreach ((json_t *)props, key, p) {
		if (!work(c->out, 1))
			break;
		bool req = json_object_get(req_set, key) != NULL;
		jsdoc(c->out, json_string_value(json_object_get(p, "description")), level + 1);
		indent(c->out, level + 1);
		prop_name(c->out, key);
		put(c->out, req ? ": " : "?: ");
		type_of(c, p, level + 1, depth + 1);
		put(c->out, ";\n");
	}
	json_decref(req_set);
	if (json_is_object(extra)) {
		indent(c->out, level + 1);
		put(c->out, "[key: string]: ");
		type_of(c, extra, level + 1, depth + 1);
		put(c->out, ";\n");
	}
	indent(c->out, level);
	put(c->out, "}");
}

static void array_type(struct ctx *c, const struct keys *k, int level, int depth)
{
	const json_t *tuple = k->prefix_items, *items = k->items;
	if (!tuple && json_is_array(items))
		tuple = items; /* the older tuple form */
	if (tuple) {
		put(c->out, "[");
		size_t i;
		json_t *m;
		json_array_foreach (tuple, i, m) {
			if (i)
				put(c->out, ", ");
			type_of(c, m, level, depth + 1);
		}
		put(c->out, "]");
		return;
	}
	put(c->out, "Array<");
	if (items)
		type_of(c, items, level, depth + 1);
	else
		put(c->out, "unknown");
	put(c->out, ">");
}

static void simple_type(struct ctx *c, const char *t, const struct keys *k, int level, int depth)
{
	if (strcmp(t, "string") == 0)
		put(c->out, "string");
	else if (strcmp(t, "number") == 0 || strcmp(t, "integer") == 0)
		put(c->out, "number");
	else if (strcmp(t, "boolean") == 0)
		put(c->out, "boolean");
	else if (strcmp(t, "null") == 0)
		put(c->out, "null");
	else if (strcmp(t, "array") == 0)
		array_type(c, k, level, depth);
	else if (strcmp(t, "object") == 0)
		object_type(c, k, level, depth);
	else
		put(c->out, "unknown");
}

/* The type a local $ref names: expanded once per indentation and depth,
 * copied after that; recursion (a ref inside its own expansion) is unknown. */
static void ref_type(struct ctx *c, const char *ref, int level, int depth)
{
	if (!work(c->out, 1 + (size_t)c->n_refs + strlen(ref) / 16))
		return;
	for (int i = 0; i < c->n_refs; i++)
		if (strcmp(c->refs[i], ref) == 0) {
			if (i < c->lowest_cut)
				c->lowest_cut = i;
			put(c->out, "unknown"); /* recursive */
			return;
		}
	const json_t *target = resolve(c->root, ref);
	if (!target || c->n_refs == MAX_REFS) {
		put(c->out, "unknown"); /* remote, or not there */
		return;
	}
	const struct memo *m = memo_find(c->out, target, level, depth);
	if (m) {
		put_again(c->out, m->off, m->len);
		return;
	}
	int slot = c->n_refs, outer_cut = c->lowest_cut;
	size_t start = buf_len(&c->out->b);
	c->refs[c->n_refs++] = ref;
	c->lowest_cut = MAX_REFS;
	type_of(c, target, level, depth + 1);
	c->n_refs--;
	/* Its text stands for it anywhere only if no cut reached outside it. */
	if (c->lowest_cut >= slot && !failed(c->out))
		memo_add(c->out, target, level, depth, start, buf_len(&c->out->b) - start);
	if (outer_cut < c->lowest_cut)
		c->lowest_cut = outer_cut;
}

/* The TypeScript type of schema s. */
static void type_of(struct ctx *c, const json_t *s, int level, int depth)
{
	if (!work(c->out, 1))
		return;
	if (depth > MAX_DEPTH || !s || json_is_true(s) || !json_is_object(s)) {
		put(c->out, json_is_false(s) ? "never" : "unknown");
		return;
	}
	struct keys k;
	if (!read_keys(c, s, &k))
		return;
	const char *ref = json_string_value(k.ref);
	if (ref) {
		ref_type(c, ref, level, depth);
		return;
	}
	const json_t *v;
	if ((v = k.cnst) != NULL) {
		literal(c->out, v);
		return;
	}
	if (json_is_array(v = k.enm) && json_array_size(v)) {
		size_t i;
		json_t *m;
		json_array_foreach (v, i, m) {
			if (i)
				put(c->out, " | ");
			literal(c->out, m);
			if (failed(c->out))
				return;
		}
		return;
	}
	if ((v = k.any_of) != NULL || (v = k.one_of) != NULL) {
		joined(c, v, " | ", level, depth);
		return;
	}
	if ((v = k.all_of) != NULL) {
		joined(c, v, " & ", level, depth);
		return;
	}
	const json_t *type = k.type;
	if (json_is_string(type)) {
		simple_type(c, json_string_value(type), &k, level, depth);
	} else if (json_is_array(type) && json_array_size(type)) {
		size_t i;
		json_t *t;
		json_array_foreach (type, i, t) {
			if (i)
				put(c->out, " | ");
			simple_type(c, json_is_string(t) ? json_string_value(t) : "", &k, level,
				    depth);
			if (failed(c->out))
				return;
		}
	} else if (k.props) {
		object_type(c, &k, level, depth);
	} else if (k.items) {
		array_type(c, &k, level, depth);
	} else {
		put(c->out, "unknown");
	}
}

/* One tool: its JSDoc and its signature. */
static void tool_decl(struct out *out, const json_t *tool, const char *leaf, int level)
{
	jsdoc(out, json_string_value(json_object_get(tool, "description")), level);
	indent(out, level);
	prop_name(out, leaf);
	const json_t *in = json_object_get(tool, "input_schema");
	put(out, in ? "(args: " : "(args?: ");
	/* Each schema is its own root: its $refs resolve in it alone. */
	struct ctx c = {out, in, {NULL}, 0, MAX_REFS};
	type_of(&c, in, level, 0);
	put(out, "): ");
	const json_t *result = json_object_get(tool, "output_schema");
	struct ctx r = {out, result, {NULL}, 0, MAX_REFS};
	type_of(&r, result, level, 0);
	put(out, ";\n");
}

/* Emits the tools whose names start with prefix, grouping dotted ones. */
static void group(struct out *out, const json_t *tools, const char *prefix, int level)
{
	size_t plen = strlen(prefix);
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t) {
		if (!work(out, 1))
			return;
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || strncmp(name, prefix, plen) != 0)
			continue;
		const char *rest = name + plen;
		const char *dot = strchr(rest, '.');
		if (!dot) {
			tool_decl(out, t, rest, level);
			continue;
		}
		/* A group: emitted at its first tool, holding all of them. */
		size_t glen = (size_t)(dot - rest);
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const char *other = json_string_value(
				json_object_get(json_array_get(tools, k), "name"));
			seen = other && strncmp(other, prefix, plen) == 0 &&
			       strncmp(other + plen, rest, glen + 1) == 0;
		}
		if (!work(out, i))
			return;
		if (seen)
			continue;
		char *sub = malloc(plen + glen + 2);
		if (!sub) {
			out->err = DECL_ERR_NOMEM;
			return;
		}
		memcpy(sub, name, plen + glen + 1);
		sub[plen + glen + 1] = '\0';
		indent(out, level);
		putf(out, "%.*s: {\n", (int)glen, rest);
		group(out, tools, sub, level + 1);
		indent(out, level);
		put(out, "};\n");
		free(sub);
	}
}

char *decl_render(const json_t *tools, enum decl_err *err)
{
	struct out out = {BUF_INIT, DECL_OK, 0, NULL, 0, 0};
	put(&out, "/** The client's tools. Each call is synchronous: it returns the result\n"
		  " * (or throws the tool's error) before the script goes on. */\n"
		  "declare const tools: {\n");
	group(&out, tools, "", 1);
	put(&out, "};\n");
	put(&out, "/** A copy of the stored value, or undefined. */\n"
		  "declare function load(key: string): unknown;\n"
		  "/** Stores a JSON value (undefined deletes it); at most 256 KiB each, 1 MiB in "
		  "all. */\n"
		  "declare function store(key: string, value: unknown): void;\n");
	if (!failed(&out) && buf_append(&out.b, "", 1) < 0)
		out.err = DECL_ERR_NOMEM;
	free(out.memo);
	*err = out.err;
	if (failed(&out)) {
		buf_free(&out.b);
		return NULL;
	}
	return out.b.data;
}

char *decl_typescript(const json_t *tools)
{
	enum decl_err err;
	return decl_render(tools, &err);
}

void decl_describe(enum decl_err err, char *msg, size_t n)
{
	switch (err) {
	case DECL_OK: snprintf(msg, n, "no error"); return;
	case DECL_ERR_NOMEM: snprintf(msg, n, "out of memory"); return;
	case DECL_ERR_OUTPUT:
		snprintf(msg, n,
			 "the declarations would be longer than %u bytes, their output budget",
			 (unsigned)LIMIT_DECL_OUTPUT_BYTES);
		return;
	case DECL_ERR_WORK:
		snprintf(msg, n,
			 "the schemas need more than %u rendering steps, the declarations' work "
			 "budget",
			 (unsigned)LIMIT_DECL_STEPS);
		return;
	}
	snprintf(msg, n, "unknown error");
}
