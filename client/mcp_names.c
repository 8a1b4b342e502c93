/*
 * mcp_names.c - identifiers from upstream names, and result unwrapping
 * (see mcp_names.h).
 */
#include "mcp_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/jnum.h"
#include "../protocol/limits.h"

/* ES5.1's reserved words (strict mode's included), the literals,
 * __proto__, which as a property would set the group's prototype, and
 * then, which would make a group (or `tools` itself) a thenable that
 * `await` calls instead of returning. */
static const char *const reserved[] = {
	"break",   "case",	 "catch",     "class",	  "const",     "continue",   "debugger",
	"default", "delete",	 "do",	      "else",	  "enum",      "export",     "extends",
	"false",   "finally",	 "for",	      "function", "if",	       "implements", "import",
	"in",	   "instanceof", "interface", "let",	  "new",       "null",	     "package",
	"private", "protected",	 "public",    "return",	  "static",    "super",	     "switch",
	"this",	   "throw",	 "true",      "try",	  "typeof",    "var",	     "void",
	"while",   "with",	 "yield",     "await",	  "__proto__", "then",
};

bool mname_reserved(const char *s)
{
	for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
		if (strcmp(s, reserved[i]) == 0)
			return true;
	return false;
}

static bool ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

char *mname_base(const char *name)
{
	size_t len = strlen(name);
	char *out = malloc(len + 2);
	if (!out)
		return NULL;
	size_t o = 0;
	if (name[0] >= '0' && name[0] <= '9')
		out[o++] = '_';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if ((*p & 0xc0) == 0x80)
			continue; /* the rest of a character already replaced */
		out[o++] = ident_char(*p) ? (char)*p : '_';
	}
	if (o == 0)
		out[o++] = '_';
	if (o > LIMIT_MCP_IDENT_BYTES)
		o = LIMIT_MCP_IDENT_BYTES;
	out[o] = '\0';
	return out;
}

struct order {
	const char *name;
	size_t index;
	bool exact; /* already an identifier, unchanged by the rule */
};

static int order_cmp(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->exact != y->exact)
		return x->exact ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The identifiers assigned so far, as an open-addressing hash set of
 * borrowed strings: an upstream server names its tools, so many names
 * that share a base (thousands of 70-byte names cut to the same 63 bytes)
 * must cost a lookup per candidate, not a scan of every name before it.
 */
struct taken_set {
	const char **slot;
	unsigned long *next; /* per slot: the first suffix still worth trying */
	size_t mask;
};

static size_t ident_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* Room for n identifiers at a load of at most a half. 0, or -1 (ENOMEM). */
static int set_init(struct taken_set *t, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	t->slot = calloc(cap, sizeof *t->slot);
	t->next = calloc(cap, sizeof *t->next);
	t->mask = cap - 1;
	return t->slot && t->next ? 0 : -1;
}

/* Frees the set, and its strings when it owns them. */
static void set_free(struct taken_set *t, bool owned)
{
	for (size_t i = 0; owned && t->slot && i <= t->mask; i++)
		free((char *)t->slot[i]);
	free(t->slot);
	free(t->next);
}

/* The slot of s in t, or the empty slot where it would go. */
static size_t set_find(const struct taken_set *t, const char *s)
{
	size_t i = ident_hash(s) & t->mask;
	while (t->slot[i] && strcmp(t->slot[i], s) != 0)
		i = (i + 1) & t->mask;
	return i;
}

static bool taken(const struct taken_set *t, const char *cand)
{
	return t->slot[set_find(t, cand)] != NULL;
}

/* Adds s (borrowed; the set has room for it) unless it is there. */
static void set_add(struct taken_set *t, const char *s)
{
	size_t i = set_find(t, s);
	if (!t->slot[i])
		t->slot[i] = s;
}

int mname_assign(const char *const *names, size_t n, char **out)
{
	struct order *ord = calloc(n ? n : 1, sizeof *ord);
	/* set: the identifiers given; bases: each base that collided, with
	 * the suffix to try next for it (those below were taken, and what is
	 * taken stays taken), so that k names of one base cost k tries. */
	struct taken_set set = {0}, bases = {0};
	if (!ord || set_init(&set, n) < 0 || set_init(&bases, n) < 0) {
		free(ord);
		set_free(&set, false);
		set_free(&bases, true);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = mname_base(names[i]);
		if (!out[i])
			goto fail;
		ord[i] = (struct order){names[i], i, strcmp(out[i], names[i]) == 0};
	}
	qsort(ord, n, sizeof *ord, order_cmp);
	for (size_t k = 0; k < n; k++) {
		char *base = out[ord[k].index];
		if (!mname_reserved(base) && !taken(&set, base)) {
			set_add(&set, base);
			continue;
		}
		size_t blen = strlen(base);
		char cand[LIMIT_MCP_IDENT_BYTES + 1];
		size_t bi = set_find(&bases, base);
		unsigned long suffix = bases.slot[bi] ? bases.next[bi] : 2;
		for (;; suffix++) {
			char tail[24];
			int tl = snprintf(tail, sizeof tail, "_%lu", suffix);
			size_t keep = blen;
			if (keep + (size_t)tl > LIMIT_MCP_IDENT_BYTES)
				keep = LIMIT_MCP_IDENT_BYTES - (size_t)tl;
			memcpy(cand, base, keep);
			memcpy(cand + keep, tail, (size_t)tl + 1);
			if (!mname_reserved(cand) && !taken(&set, cand))
				break;
		}
		char *c = strdup(cand);
		if (!c)
			goto fail;
		if (!bases.slot[bi] && !(bases.slot[bi] = strdup(base))) {
			free(c);
			goto fail;
		}
		bases.next[bi] = suffix + 1;
		free(base);
		out[ord[k].index] = c;
		set_add(&set, c);
	}
	free(ord);
	set_free(&set, false);
	set_free(&bases, true);
	return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
	free(ord);
	set_free(&set, false);
	set_free(&bases, true);
	return -1;
}

/* One content block as the script sees it (a new reference). */
static json_t *block_value(json_t *b)
{
	json_t *type = json_object_get(b, "type");
	json_t *text = json_object_get(b, "text");
	if (json_is_string(type) && strcmp(json_string_value(type), "text") == 0 &&
	    json_is_string(text)) {
		json_t *v = jnum_loadb(json_string_value(text), json_string_length(text),
				       JSON_DECODE_ANY, NULL);
		return v ? v : json_incref(text);
	}
	return json_incref(b);
}

/* The text blocks of content joined by newlines; a new string or NULL. */
static char *joined_text(json_t *content)
{
	size_t len = 0, i;
	json_t *b;
	json_array_foreach (content, i, b) {
		json_t *t = json_object_get(b, "text");
		if (json_is_string(t))
			len += json_string_length(t) + 1;
	}
	if (!len)
		return NULL;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t o = 0;
	json_array_foreach (content, i, b) {
		json_t *t = json_object_get(b, "text");
		if (!json_is_string(t))
			continue;
		if (o)
			s[o++] = '\n';
		memcpy(s + o, json_string_value(t), json_string_length(t));
		o += json_string_length(t);
	}
	s[o] = '\0';
	return s;
}

int mname_unwrap(json_t *result, json_t **value, char **error)
{
	*value = NULL;
	*error = NULL;
	if (!json_is_object(result)) {
		*error = strdup("the server's tools/call result is not an object");
		return -1;
	}
	json_t *content = json_object_get(result, "content");
	if (content && !json_is_array(content)) {
		*error = strdup("the server's tools/call result: content is not an array");
		return -1;
	}
	json_t *structured = json_object_get(result, "structuredContent");
	if (json_is_true(json_object_get(result, "isError"))) {
		*error = joined_text(content);
		if (!*error && structured)
			*error = jnum_dumps(structured, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!*error)
			*error = strdup("the tool reported an error without a message");
		return 1;
	}
	if (structured) {
		*value = json_incref(structured);
		return 0;
	}
	size_t n = json_array_size(content);
	if (n == 0) {
		*value = json_null();
		return 0;
	}
	if (n == 1) {
		*value = block_value(json_array_get(content, 0));
		return *value ? 0 : -1;
	}
	json_t *a = json_array();
	size_t i;
	json_t *b;
	json_array_foreach (content, i, b)
		if (json_array_append_new(a, block_value(b)) < 0) {
			json_decref(a);
			*error = strdup("out of memory unwrapping the result");
			return -1;
		}
	*value = a;
	return a ? 0 : -1;
}
