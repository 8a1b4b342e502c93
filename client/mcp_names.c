/*
 * mcp_names.c - identifiers from upstream names, and result unwrapping
 * (see mcp_names.h).
 */
#include "mcp_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"

/* ES5.1's reserved words (strict mode's included), the literals, and
 * __proto__, which as a property would set the group's prototype. */
static const char *const reserved[] = {
	"break",   "case",	 "catch",     "class",	  "const",     "continue",   "debugger",
	"default", "delete",	 "do",	      "else",	  "enum",      "export",     "extends",
	"false",   "finally",	 "for",	      "function", "if",	       "implements", "import",
	"in",	   "instanceof", "interface", "let",	  "new",       "null",	     "package",
	"private", "protected",	 "public",    "return",	  "static",    "super",	     "switch",
	"this",	   "throw",	 "true",      "try",	  "typeof",    "var",	     "void",
	"while",   "with",	 "yield",     "await",	  "__proto__",
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

static bool taken(char **out, const struct order *ord, size_t done, const char *cand)
{
	for (size_t i = 0; i < done; i++)
		if (strcmp(out[ord[i].index], cand) == 0)
			return true;
	return false;
}

int mname_assign(const char *const *names, size_t n, char **out)
{
	struct order *ord = calloc(n ? n : 1, sizeof *ord);
	if (!ord)
		return -1;
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
		if (!mname_reserved(base) && !taken(out, ord, k, base))
			continue;
		size_t blen = strlen(base);
		char cand[LIMIT_MCP_IDENT_BYTES + 1];
		for (unsigned long suffix = 2;; suffix++) {
			char tail[24];
			int tl = snprintf(tail, sizeof tail, "_%lu", suffix);
			size_t keep = blen;
			if (keep + (size_t)tl > LIMIT_MCP_IDENT_BYTES)
				keep = LIMIT_MCP_IDENT_BYTES - (size_t)tl;
			memcpy(cand, base, keep);
			memcpy(cand + keep, tail, (size_t)tl + 1);
			if (!mname_reserved(cand) && !taken(out, ord, k, cand))
				break;
		}
		char *c = strdup(cand);
		if (!c)
			goto fail;
		free(base);
		out[ord[k].index] = c;
	}
	free(ord);
	return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
	free(ord);
	return -1;
}

/* One content block as the script sees it (a new reference). */
static json_t *block_value(json_t *b)
{
	json_t *type = json_object_get(b, "type");
	json_t *text = json_object_get(b, "text");
	if (json_is_string(type) && strcmp(json_string_value(type), "text") == 0 &&
	    json_is_string(text)) {
		json_t *v = json_loadb(json_string_value(text), json_string_length(text),
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
			*error = json_dumps(structured, JSON_COMPACT | JSON_ENCODE_ANY);
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
