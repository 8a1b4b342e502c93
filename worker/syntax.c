/* syntax.c - lexical scan for ES2015+ constructs; see syntax.h. */
#include "syntax.h"

#include <stdbool.h>
#include <string.h>

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* Is the identifier at code[i..i+n) exactly word? */
static bool word_at(const char *code, size_t len, size_t i, const char *word)
{
	size_t n = strlen(word);
	if (i + n > len || memcmp(code + i, word, n) != 0)
		return false;
	if (i > 0 && ident_char(code[i - 1]))
		return false;
	return i + n == len || !ident_char(code[i + n]);
}

/* First non-blank character after position i, or 0. */
static char next_nonblank(const char *code, size_t len, size_t i)
{
	while (i < len && (code[i] == ' ' || code[i] == '\t' || code[i] == '\n' || code[i] == '\r'))
		i++;
	return i < len ? code[i] : 0;
}

struct keyword {
	const char *word;
	const char *feature;
	const char *followers; /* what must come next; NULL: anything */
};

static const struct keyword keywords[] = {
	{"let", "let declarations", "[{_$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{"class", "classes", "{_$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{"async", "async functions", "(_$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{"await", "await", NULL},
	{"yield", "generators", NULL},
	{"import", "modules (import)", NULL},
	{"export", "modules (export)", NULL},
};

static const struct {
	const char *token;
	const char *feature;
} puncts[] = {
	{"=>", "arrow functions"},   {"`", "template literals"}, {"...", "spread and rest syntax"},
	{"?.", "optional chaining"}, {"??", "the ?? operator"},	 {"**", "the ** operator"},
	{"function*", "generators"},
};

void syntax_find_es2015(const char *code, size_t len, struct syntax_hint *out)
{
	int line = 1;
	out->feature = NULL;
	out->line = 0;
	for (size_t i = 0; i < len; i++) {
		char c = code[i];
		if (c == '\n') {
			line++;
			continue;
		}
		if (c == '/' && i + 1 < len && code[i + 1] == '/') {
			while (i < len && code[i] != '\n')
				i++;
			line++;
			continue;
		}
		if (c == '/' && i + 1 < len && code[i + 1] == '*') {
			for (i += 2; i + 1 < len && !(code[i] == '*' && code[i + 1] == '/'); i++)
				if (code[i] == '\n')
					line++;
			i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < len && code[i] != c && code[i] != '\n'; i++)
				if (code[i] == '\\')
					i++;
			continue;
		}
		for (size_t k = 0; k < sizeof puncts / sizeof puncts[0]; k++) {
			size_t n = strlen(puncts[k].token);
			if (i + n <= len && memcmp(code + i, puncts[k].token, n) == 0) {
				out->feature = puncts[k].feature;
				out->line = line;
				return;
			}
		}
		if (!ident_char(c) || (i > 0 && ident_char(code[i - 1])))
			continue;
		for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++) {
			const struct keyword *kw = &keywords[k];
			if (!word_at(code, len, i, kw->word))
				continue;
			char next = next_nonblank(code, len, i + strlen(kw->word));
			if (kw->followers && !(next && strchr(kw->followers, next)))
				continue;
			out->feature = kw->feature;
			out->line = line;
			return;
		}
	}
}
