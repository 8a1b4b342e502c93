/* decl.c - TypeScript declarations of the tools a script may call; see decl.h. */
#include "decl.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/buf.h"

/* Nesting beyond this renders as unknown: schemas are client data. */
#define MAX_DEPTH 32
/* $refs being expanded, to render recursion as unknown. */
#define MAX_REFS 64

struct ctx {
	struct buf *out;
	const json_t *root; /* the schema $refs resolve against */
	const char *refs[MAX_REFS];
	int n_refs;
};

/* An append that failed leaves a hole in the text: decl_typescript then
 * returns NULL rather than declarations that say something else. */
static bool out_of_memory;

static void append(struct buf *b, const char *s, size_t n)
{
	if (buf_append(b, s, n) < 0)
		out_of_memory = true;
}

static void put(struct buf *b, const char *s) { append(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3))) static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		append(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void indent(struct buf *b, int level)
{
	for (int i = 0; i < level; i++)
		put(b, "  ");
}

/* A JSDoc comment; "*" "/" inside the text is broken up. */
static void jsdoc(struct buf *b, const char *text, int level)
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
		for (size_t i = 0; i < n; i++) {
			append(b, p + i, 1);
			if (p[i] == '*' && i + 1 < n && p[i + 1] == '/')
				put(b, "\\");
		}
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
static void prop_name(struct buf *b, const char *name)
{
	if (identifier(name)) {
		put(b, name);
		return;
	}
	json_t *s = json_string(name);
	char *q = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
	put(b, q ? q : "\"\"");
	free(q);
	json_decref(s);
}

static void literal(struct buf *b, const json_t *v)
{
	char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	put(b, text ? text : "unknown");
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

static void object_type(struct ctx *c, const json_t *s, int level, int depth)
{
	const json_t *props = json_object_get(s, "properties");
	const json_t *required = json_object_get(s, "required");
	const json_t *extra = json_object_get(s, "additionalProperties");
	if (!json_object_size(props) && !json_is_object(extra)) {
		put(c->out, json_is_false(extra) ? "{}" : "Record<string, unknown>");
		return;
	}
	put(c->out, "{\n");
	const char *key;
	json_t *p;
	json_object_foreach ((json_t *)props, key, p) {
		bool req = false;
		size_t i;
		json_t *r;
		json_array_foreach (required, i, r)
			req = req || (json_is_string(r) && strcmp(json_string_value(r), key) == 0);
		jsdoc(c->out, json_string_value(json_object_get(p, "description")), level + 1);
		indent(c->out, level + 1);
		prop_name(c->out, key);
		put(c->out, req ? ": " : "?: ");
		type_of(c, p, level + 1, depth + 1);
		put(c->out, ";\n");
	}
	if (json_is_object(extra)) {
		indent(c->out, level + 1);
		put(c->out, "[key: string]: ");
		type_of(c, extra, level + 1, depth + 1);
		put(c->out, ";\n");
	}
	indent(c->out, level);
	put(c->out, "}");
}

static void array_type(struct ctx *c, const json_t *s, int level, int depth)
{
	const json_t *tuple = json_object_get(s, "prefixItems");
	const json_t *items = json_object_get(s, "items");
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

static void simple_type(struct ctx *c, const char *t, const json_t *s, int level, int depth)
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
		array_type(c, s, level, depth);
	else if (strcmp(t, "object") == 0)
		object_type(c, s, level, depth);
	else
		put(c->out, "unknown");
}

/* The TypeScript type of schema s. */
static void type_of(struct ctx *c, const json_t *s, int level, int depth)
{
	if (depth > MAX_DEPTH || !s || json_is_true(s) || !json_is_object(s)) {
		put(c->out, json_is_false(s) ? "never" : "unknown");
		return;
	}
	const char *ref = json_string_value(json_object_get(s, "$ref"));
	if (ref) {
		for (int i = 0; i < c->n_refs; i++)
			if (strcmp(c->refs[i], ref) == 0) {
				put(c->out, "unknown"); /* recursive */
				return;
			}
		const json_t *target = resolve(c->root, ref);
		if (!target || c->n_refs == MAX_REFS) {
			put(c->out, "unknown"); /* remote, or not there */
			return;
		}
		c->refs[c->n_refs++] = ref;
		type_of(c, target, level, depth + 1);
		c->n_refs--;
		return;
	}
	const json_t *v;
	if ((v = json_object_get(s, "const")) != NULL) {
		literal(c->out, v);
		return;
	}
	if (json_is_array(v = json_object_get(s, "enum")) && json_array_size(v)) {
		size_t i;
		json_t *m;
		json_array_foreach (v, i, m) {
			if (i)
				put(c->out, " | ");
			literal(c->out, m);
		}
		return;
	}
	if ((v = json_object_get(s, "anyOf")) != NULL || (v = json_object_get(s, "oneOf")) != NULL) {
		joined(c, v, " | ", level, depth);
		return;
	}
	if ((v = json_object_get(s, "allOf")) != NULL) {
		joined(c, v, " & ", level, depth);
		return;
	}
	const json_t *type = json_object_get(s, "type");
	if (json_is_string(type)) {
		simple_type(c, json_string_value(type), s, level, depth);
	} else if (json_is_array(type) && json_array_size(type)) {
		size_t i;
		json_t *t;
		json_array_foreach (type, i, t) {
			if (i)
				put(c->out, " | ");
			simple_type(c, json_is_string(t) ? json_string_value(t) : "", s, level, depth);
		}
	} else if (json_object_get(s, "properties")) {
		object_type(c, s, level, depth);
	} else if (json_object_get(s, "items")) {
		array_type(c, s, level, depth);
	} else {
		put(c->out, "unknown");
	}
}

/* One tool: its JSDoc and its signature. */
static void tool_decl(struct buf *out, const json_t *tool, const char *leaf, int level)
{
	jsdoc(out, json_string_value(json_object_get(tool, "description")), level);
	indent(out, level);
	prop_name(out, leaf);
	const json_t *in = json_object_get(tool, "input_schema");
	put(out, in ? "(args: " : "(args?: ");
	struct ctx c = {out, in, {NULL}, 0};
	type_of(&c, in, level, 0);
	put(out, "): ");
	const json_t *result = json_object_get(tool, "output_schema");
	struct ctx r = {out, result, {NULL}, 0};
	type_of(&r, result, level, 0);
	put(out, ";\n");
}

/* Emits the tools whose names start with prefix, grouping dotted ones. */
static void group(struct buf *out, const json_t *tools, const char *prefix, int level)
{
	size_t plen = strlen(prefix);
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t) {
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
			const char *other = json_string_value(json_object_get(json_array_get(tools, k), "name"));
			seen = strncmp(other, prefix, plen) == 0 &&
			       strncmp(other + plen, rest, glen + 1) == 0;
		}
		if (seen)
			continue;
		char *sub = malloc(plen + glen + 2);
		if (!sub) {
			out_of_memory = true;
			continue;
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

char *decl_typescript(const json_t *tools)
{
	struct buf out = BUF_INIT;
	out_of_memory = false;
	put(&out, "/** The client's tools. Each call is synchronous: it returns the result\n"
		  " * (or throws the tool's error) before the script goes on. */\n"
		  "declare const tools: {\n");
	group(&out, tools, "", 1);
	put(&out, "};\n");
	put(&out, "/** A copy of the stored value, or undefined. */\n"
		  "declare function load(key: string): unknown;\n"
		  "/** Stores a JSON value (undefined deletes it); at most 256 KiB each, 1 MiB in all. */\n"
		  "declare function store(key: string, value: unknown): void;\n");
	append(&out, "", 1);
	if (out_of_memory) {
		buf_free(&out);
		return NULL;
	}
	return out.data;
}
