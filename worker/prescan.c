/*
 * prescan.c - a one-pass reading of a script's tokens, with just enough of
 * the grammar (what the next token may be, what each bracket opened, where
 * an operand began) to find the constructs whose ES5.1 and ES2022 readings
 * differ; see prescan.h.
 *
 * The reading follows the ES5.1 grammar, which is all that matters: code
 * outside it is rejected by the engine and lowered anyway. Where it cannot
 * be sure, it answers "lower".
 */
#include "prescan.h"

#include <stdbool.h>
#include <string.h>

#include "../protocol/limits.h"

/* What a bracket opened. */
enum kind {
	K_TOP,	       /* the script itself (a function body or a program) */
	K_BLOCK,       /* { statements } */
	K_FBODY_DECL,  /* a function declaration's body */
	K_FBODY_EXPR,  /* a function expression's body */
	K_OBJECT,      /* an object literal */
	K_GROUP,       /* ( expression ) */
	K_CALL,	       /* f( arguments ) */
	K_HEAD,	       /* if/while/with/switch/catch ( ... ) */
	K_FORHEAD,     /* for ( ... ) */
	K_PARAMS_DECL, /* a function declaration's parameters */
	K_PARAMS_EXPR, /* a function expression's parameters */
	K_MEMBER,      /* a[ key ] */
	K_ARRAY,       /* an array literal */
};

/* What the next token may be. */
enum state {
	S_STMT,	    /* the start of a statement */
	S_OPERAND,  /* an operand (an expression's start) */
	S_OPERATOR, /* an operator, after an operand */
};

/* One open bracket, and the operand being read inside it. */
struct level {
	unsigned char kind;
	bool assign_ok;	  /* an operand starting now may be assigned to */
	bool chain;	  /* an operand is being read */
	bool valid;	  /* ... and is so far a variable or a property */
	bool single;	  /* ... and is one identifier */
	bool clean;	  /* ... and began where an assignment may */
	bool newed;	  /* ... and follows `new` */
	bool new_pending; /* `new` waits for its operand */
	bool update;	  /* a prefix ++/-- waits for its operand's end */
	bool key;	  /* K_OBJECT: a property name comes next */
	bool colon;	  /* K_OBJECT: the `:` after a property name comes next */
	bool for_semi;	  /* K_FORHEAD: a `;` was seen */
	bool for_var;	  /* K_FORHEAD: it declares with var */
	bool for_init;	  /* K_FORHEAD: ... with an initializer */
	unsigned ternary; /* `?` waiting for their `:` */
};

/* Tokens: the structural punctuators stand for themselves; the rest are
 * classes. */
enum {
	T_EOF = 'E',
	T_IDENT = 'I',
	T_NUMBER = 'N',
	T_STRING = 'S',
	T_REGEX = 'R',
	T_ASSIGN = 'A', /* = and the compound assignments ES5 has */
	T_UPDATE = 'U', /* ++ -- */
	T_BINARY = 'B', /* a binary operator that is never unary */
	T_SIGN = '+',	/* + - */
	T_NOT = '!',	/* ! ~ */
};

struct token {
	int type;
	const char *s; /* T_IDENT: the name */
	size_t len;
	bool plain;   /* T_ASSIGN: `=` itself */
	bool special; /* T_STRING: "__proto__", or an escape that may spell it */
};

struct scan {
	const char *p, *end;
	int depth;
	enum state st;
	bool nl;	 /* a line terminator before this token */
	bool after_dot;	 /* a property name comes next */
	bool naming;	 /* an anonymous function here gets a name in ES2022 */
	bool stmt_body;	 /* the statement is the body of if/for/while/else/do/a label */
	bool restricted; /* after return/throw: a line terminator ends it */
	bool label_next; /* after break/continue: a label may follow */
	bool accessor;	 /* the property name just read was get or set */
	int fn;		 /* 1: `function` read, name or ( next; 2: ( next */
	bool fn_decl, fn_naming;
	bool want_body; /* a function's { comes next */
	bool body_decl;
	int head; /* 1: HEAD's ( next; 2: FORHEAD's ( next */
	struct level lv[LIMIT_PRESCAN_DEPTH];
};

enum keyword {
	KW_NONE,
	KW_ROUTE, /* ES2015+ words the engine reads otherwise or not at all */
	KW_LET,
	KW_VALUE, /* this null true false */
	KW_FUNCTION,
	KW_HEAD, /* if while with switch catch */
	KW_FOR,
	KW_BODY,  /* else do: the next statement is their body */
	KW_BLOCK, /* try finally */
	KW_VAR,
	KW_RETURN, /* return throw */
	KW_CASE,
	KW_DEFAULT,
	KW_JUMP, /* break continue */
	KW_DEBUGGER,
	KW_NEW,
	KW_UNARY, /* delete typeof void */
	KW_IN,
	KW_INSTANCEOF,
};

static const struct {
	const char *word;
	enum keyword kw;
} keywords[] = {
	{"break", KW_JUMP},
	{"case", KW_CASE},
	{"catch", KW_HEAD},
	{"class", KW_ROUTE},
	{"const", KW_ROUTE},
	{"continue", KW_JUMP},
	{"debugger", KW_DEBUGGER},
	{"default", KW_DEFAULT},
	{"delete", KW_UNARY},
	{"do", KW_BODY},
	{"else", KW_BODY},
	{"enum", KW_ROUTE},
	{"export", KW_ROUTE},
	{"extends", KW_ROUTE},
	{"false", KW_VALUE},
	{"finally", KW_BLOCK},
	{"for", KW_FOR},
	{"function", KW_FUNCTION},
	{"if", KW_HEAD},
	{"import", KW_ROUTE},
	{"in", KW_IN},
	{"instanceof", KW_INSTANCEOF},
	{"let", KW_LET},
	{"new", KW_NEW},
	{"null", KW_VALUE},
	{"return", KW_RETURN},
	{"super", KW_ROUTE},
	{"switch", KW_HEAD},
	{"this", KW_VALUE},
	{"throw", KW_RETURN},
	{"true", KW_VALUE},
	{"try", KW_BLOCK},
	{"typeof", KW_UNARY},
	{"var", KW_VAR},
	{"void", KW_UNARY},
	{"while", KW_HEAD},
	{"with", KW_HEAD},
};

static enum keyword keyword(const struct token *t)
{
	if (t->len < 2 || t->len > 10 || t->s[0] < 'b' || t->s[0] > 'w')
		return KW_NONE;
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (keywords[i].word[0] == t->s[0] &&
		    strncmp(keywords[i].word, t->s, t->len) == 0 &&
		    keywords[i].word[t->len] == '\0')
			return keywords[i].kw;
	return KW_NONE;
}

static bool is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static bool is_ident_part(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The length of the line terminator at p (LF, CR, U+2028, U+2029), or 0. */
static size_t line_terminator(const char *p, const char *end)
{
	if (*p == '\n' || *p == '\r')
		return 1;
	if (end - p >= 3 && (unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
	    ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9))
		return 3;
	return 0;
}

/* Skips white space and comments before a token, noting line terminators.
 * NULL, or why the code must be lowered. */
static const char *skip_space(struct scan *s)
{
	s->nl = false;
	while (s->p < s->end) {
		unsigned char c = (unsigned char)*s->p;
		if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
			s->p++;
		} else if (c == '\n' || c == '\r') {
			s->nl = true;
			s->p++;
		} else if (c == '/' && s->end - s->p >= 2 && s->p[1] == '/') {
			while (s->p < s->end && !line_terminator(s->p, s->end))
				s->p++;
		} else if (c == '/' && s->end - s->p >= 2 && s->p[1] == '*') {
			const char *q = s->p + 2;
			for (;; q++) {
				if (s->end - q < 2)
					return "an unterminated comment";
				if (q[0] == '*' && q[1] == '/')
					break;
				if (line_terminator(q, s->end))
					s->nl = true;
			}
			s->p = q + 2;
		} else if (c >= 0x80) {
			/* Other white space and line terminators, and what
			 * Duktape's tables may read otherwise. */
			return "a non-ASCII character outside strings and comments";
		} else {
			break;
		}
	}
	return NULL;
}

static const char *lex_string(struct scan *s, struct token *t)
{
	char quote = *s->p++;
	const char *start = s->p;
	bool escaped = false;
	while (s->p < s->end) {
		char c = *s->p;
		if (c == quote) {
			size_t n = (size_t)(s->p - start);
			t->special = escaped || (n == 9 && memcmp(start, "__proto__", 9) == 0);
			s->p++;
			return NULL;
		}
		if (c == '\n' || c == '\r')
			return "an unterminated string";
		s->p++;
		if (c != '\\')
			continue;
		escaped = true;
		if (s->p >= s->end)
			break;
		c = *s->p;
		size_t lt = line_terminator(s->p, s->end);
		if (lt) {
			s->p += lt;
			if (c == '\r' && s->p < s->end && *s->p == '\n')
				s->p++;
			continue;
		}
		s->p++;
		if (c == '0' && s->p < s->end && is_digit((unsigned char)*s->p))
			return "a legacy octal escape in a string";
		if (c >= '1' && c <= '9')
			return "a legacy octal escape or \\8 or \\9 in a string";
		if (c == 'x') {
			if (s->end - s->p < 2 || !is_hex((unsigned char)s->p[0]) ||
			    !is_hex((unsigned char)s->p[1]))
				return "a \\x escape without two hex digits";
		} else if (c == 'u') {
			if (s->end - s->p < 4 || !is_hex((unsigned char)s->p[0]) ||
			    !is_hex((unsigned char)s->p[1]) || !is_hex((unsigned char)s->p[2]) ||
			    !is_hex((unsigned char)s->p[3]))
				return "a \\u escape without four hex digits (\\u{...})";
		}
	}
	return "an unterminated string";
}

static const char *lex_regex(struct scan *s)
{
	bool in_class = false;
	s->p++;
	for (;;) {
		if (s->p >= s->end || line_terminator(s->p, s->end))
			return "an unterminated regular expression";
		char c = *s->p++;
		if (c == '\\') {
			if (s->p >= s->end || line_terminator(s->p, s->end))
				return "an unterminated regular expression";
			c = *s->p++;
			if ((c == 'u' || c == 'p' || c == 'P') && s->p < s->end && *s->p == '{')
				return "\\u{...} or \\p{...} in a regular expression";
		} else if (c == '[') {
			in_class = true;
		} else if (c == ']') {
			in_class = false;
		} else if (c == '(' && !in_class && s->end - s->p >= 2 && s->p[0] == '?' &&
			   s->p[1] == '<') {
			return "a named group or lookbehind in a regular expression";
		} else if (c == '/' && !in_class) {
			break;
		}
	}
	while (s->p < s->end && (is_ident_part((unsigned char)*s->p) || *s->p == '\\' ||
				 (unsigned char)*s->p >= 0x80)) {
		char f = *s->p++;
		if (f != 'g' && f != 'i' && f != 'm')
			return "a regular expression flag other than g, i and m";
	}
	return NULL;
}

static const char *lex_number(struct scan *s)
{
	const char *p = s->p;
	if (p[0] == '0' && s->end - p >= 2 && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		while (p < s->end && is_hex((unsigned char)*p))
			p++;
	} else if (p[0] == '0' && s->end - p >= 2 && is_digit((unsigned char)p[1])) {
		return "a legacy octal (or 08, 09) number";
	} else {
		while (p < s->end && is_digit((unsigned char)*p))
			p++;
		if (p < s->end && *p == '.')
			for (p++; p < s->end && is_digit((unsigned char)*p);)
				p++;
		if (p < s->end && (*p == 'e' || *p == 'E')) {
			const char *q = p + 1;
			if (q < s->end && (*q == '+' || *q == '-'))
				q++;
			if (q < s->end && is_digit((unsigned char)*q)) {
				for (p = q; p < s->end && is_digit((unsigned char)*p);)
					p++;
			}
		}
	}
	if (p < s->end &&
	    (is_ident_part((unsigned char)*p) || *p == '\\' || (unsigned char)*p >= 0x80))
		return "a number followed by a letter (0b, 0o, 1n, 1_000)";
	s->p = p;
	return NULL;
}

/* The operators after the structural punctuators, by first character and
 * longest first; type 0: the code must be lowered. */
struct op {
	const char *op;
	int type;
};
static const struct op ops_lt[] = {
	{"<<=", T_ASSIGN}, {"<<", T_BINARY}, {"<=", T_BINARY}, {"<", T_BINARY}, {NULL, 0}};
static const struct op ops_gt[] = {{">>>=", T_ASSIGN}, {">>>", T_BINARY}, {">>=", T_ASSIGN},
				   {">>", T_BINARY},   {">=", T_BINARY},  {">", T_BINARY},
				   {NULL, 0}};
static const struct op ops_eq[] = {
	{"===", T_BINARY}, {"==", T_BINARY}, {"=>", 0}, {"=", T_ASSIGN}, {NULL, 0}};
static const struct op ops_not[] = {{"!==", T_BINARY}, {"!=", T_BINARY}, {"!", T_NOT}, {NULL, 0}};
static const struct op ops_plus[] = {{"++", T_UPDATE}, {"+=", T_ASSIGN}, {"+", T_SIGN}, {NULL, 0}};
static const struct op ops_minus[] = {{"--", T_UPDATE}, {"-=", T_ASSIGN}, {"-", T_SIGN}, {NULL, 0}};
static const struct op ops_star[] = {{"**", 0}, {"*=", T_ASSIGN}, {"*", T_BINARY}, {NULL, 0}};
static const struct op ops_slash[] = {{"/=", T_ASSIGN}, {"/", T_BINARY}, {NULL, 0}};
static const struct op ops_pct[] = {{"%=", T_ASSIGN}, {"%", T_BINARY}, {NULL, 0}};
static const struct op ops_and[] = {
	{"&&=", 0}, {"&&", T_BINARY}, {"&=", T_ASSIGN}, {"&", T_BINARY}, {NULL, 0}};
static const struct op ops_or[] = {
	{"||=", 0}, {"||", T_BINARY}, {"|=", T_ASSIGN}, {"|", T_BINARY}, {NULL, 0}};
static const struct op ops_xor[] = {{"^=", T_ASSIGN}, {"^", T_BINARY}, {NULL, 0}};
static const struct op ops_tilde[] = {{"~", T_NOT}, {NULL, 0}};

static const struct op *operators(unsigned char c)
{
	switch (c) {
	case '<': return ops_lt;
	case '>': return ops_gt;
	case '=': return ops_eq;
	case '!': return ops_not;
	case '+': return ops_plus;
	case '-': return ops_minus;
	case '*': return ops_star;
	case '/': return ops_slash;
	case '%': return ops_pct;
	case '&': return ops_and;
	case '|': return ops_or;
	case '^': return ops_xor;
	case '~': return ops_tilde;
	default: return NULL;
	}
}

/* Reads the next token into t; regex_ok: a / starts a regular expression.
 * NULL, or why the code must be lowered. */
static const char *lex(struct scan *s, struct token *t, bool regex_ok)
{
	const char *why = skip_space(s);
	if (why)
		return why;
	memset(t, 0, sizeof *t);
	if (s->p >= s->end) {
		t->type = T_EOF;
		return NULL;
	}
	unsigned char c = (unsigned char)*s->p;
	if (is_ident_start(c) || c == '\\') {
		t->type = T_IDENT;
		t->s = s->p;
		while (s->p < s->end && is_ident_part((unsigned char)*s->p))
			s->p++;
		t->len = (size_t)(s->p - t->s);
		if (s->p < s->end && (*s->p == '\\' || (unsigned char)*s->p >= 0x80))
			return *s->p == '\\' ? "an escaped identifier"
					     : "a non-ASCII character in an identifier";
		return NULL;
	}
	if (is_digit(c) || (c == '.' && s->end - s->p >= 2 && is_digit((unsigned char)s->p[1]))) {
		t->type = T_NUMBER;
		return lex_number(s);
	}
	if (c == '"' || c == '\'') {
		t->type = T_STRING;
		return lex_string(s, t);
	}
	if (c == '/' && regex_ok) {
		t->type = T_REGEX;
		return lex_regex(s);
	}
	switch (c) {
	case '`': return "a template literal";
	case '#': return "a private name or #!";
	case '@': return "a decorator";
	case '{':
	case '}':
	case '(':
	case ')':
	case '[':
	case ']':
	case ';':
	case ',':
	case ':':
	case '.':
		if (c == '.' && s->end - s->p >= 3 && s->p[1] == '.' && s->p[2] == '.')
			return "spread or rest (...)";
		t->type = c;
		s->p++;
		return NULL;
	case '?':
		/* ?. before a digit is ? and a number. */
		if (s->end - s->p >= 2 && s->p[1] == '?')
			return s->end - s->p >= 3 && s->p[2] == '=' ? "an ES2015+ operator (?\?=)"
								    : "?? or ?.";
		if (s->end - s->p >= 2 &&
		    ((s->p[1] == '.' && !(s->end - s->p >= 3 && is_digit((unsigned char)s->p[2])))))
			return "?? or ?.";
		t->type = c;
		s->p++;
		return NULL;
	case '<':
		if (s->end - s->p >= 4 && memcmp(s->p, "<!--", 4) == 0)
			return "an HTML-like comment (<!--)";
		break;
	default: break;
	}
	const struct op *o = operators(c);
	for (; o && o->op; o++) {
		size_t n = strlen(o->op);
		if ((size_t)(s->end - s->p) >= n && memcmp(s->p, o->op, n) == 0) {
			if (!o->type)
				return o->op[0] == '*' ? "the ** operator"
						       : "an ES2015+ operator (=>, ??, &&=, ...)";
			t->type = o->type;
			t->plain = n == 1 && c == '=';
			s->p += n;
			return NULL;
		}
	}
	return "a character that is no token";
}

/* Starts an operand at L: valid, it may be assigned to; single, it is one
 * identifier so far. */
static void operand(struct level *L, bool valid, bool single)
{
	L->chain = true;
	L->valid = valid;
	L->single = single;
	L->clean = L->assign_ok;
	L->newed = L->new_pending;
	L->new_pending = false;
	L->assign_ok = false;
}

/* Ends the operand at L: a prefix ++/-- before it needs a variable or a
 * property. NULL, or why the code must be lowered. */
static const char *end_operand(struct level *L)
{
	bool bad = L->update && (!L->chain || !L->valid || L->newed);
	L->update = false;
	L->chain = false;
	return bad ? "++ or -- on something other than a variable or property" : NULL;
}

static const char *push(struct scan *s, enum kind kind)
{
	if (s->depth + 1 >= LIMIT_PRESCAN_DEPTH)
		return "brackets nested deeper than LIMIT_PRESCAN_DEPTH";
	struct level *L = &s->lv[++s->depth];
	memset(L, 0, sizeof *L);
	L->kind = (unsigned char)kind;
	L->assign_ok = true;
	L->key = kind == K_OBJECT;
	s->st = kind == K_BLOCK || kind == K_FBODY_DECL || kind == K_FBODY_EXPR ? S_STMT
										: S_OPERAND;
	return NULL;
}

/* Closes the innermost bracket with the token type close, and sets what
 * may come after it. */
static const char *pop(struct scan *s, int close)
{
	struct level *L = &s->lv[s->depth];
	const char *why = end_operand(L);
	if (why)
		return why;
	int want;
	switch (L->kind) {
	case K_BLOCK:
	case K_FBODY_DECL:
	case K_FBODY_EXPR:
	case K_OBJECT: want = '}'; break;
	case K_MEMBER:
	case K_ARRAY: want = ']'; break;
	case K_TOP: want = 0; break;
	default: want = ')'; break;
	}
	if (want != close)
		return "unbalanced brackets";
	if (L->kind == K_OBJECT && L->colon)
		return "a shorthand property or method";
	enum kind kind = L->kind;
	struct level *O = &s->lv[--s->depth];
	switch (kind) {
	case K_BLOCK:
	case K_FBODY_DECL:
	case K_HEAD:
	case K_FORHEAD:
		s->st = S_STMT;
		O->assign_ok = true;
		s->stmt_body = kind == K_HEAD || kind == K_FORHEAD;
		break;
	case K_PARAMS_DECL:
	case K_PARAMS_EXPR:
		s->want_body = true;
		s->body_decl = kind == K_PARAMS_DECL;
		break;
	case K_MEMBER:
		O->valid = true;
		O->single = false;
		s->st = S_OPERATOR;
		break;
	case K_CALL:
		O->valid = false;
		O->single = false;
		s->st = S_OPERATOR;
		break;
	default: /* the operand the bracket began */ s->st = S_OPERATOR; break;
	}
	return NULL;
}

/* True when t may follow an operand on the same statement (else a line
 * terminator before it ends the statement, or it is a syntax error). */
static bool continues(const struct scan *s, const struct token *t)
{
	switch (t->type) {
	case '{':
	case T_NOT:
	case T_NUMBER:
	case T_STRING:
	case T_REGEX: return false;
	case T_UPDATE: return !s->nl;
	case T_IDENT: {
		enum keyword k = keyword(t);
		return k == KW_IN || k == KW_INSTANCEOF;
	}
	default: return true;
	}
}

/* One token read in the state the scan is in. NULL, or why the code must
 * be lowered. */
static const char *step(struct scan *s, const struct token *t)
{
	struct level *L = &s->lv[s->depth];
	bool naming = s->naming, body = s->stmt_body;
	s->naming = false;
	s->stmt_body = false;
	const char *why;

	if (s->restricted) {
		s->restricted = false;
		if (s->nl) {
			s->st = S_STMT;
			L->assign_ok = true;
		}
	}
	if (s->label_next) {
		s->label_next = false;
		if (t->type == T_IDENT && !s->nl && keyword(t) == KW_NONE)
			return NULL;
	}
	if (s->after_dot) {
		s->after_dot = false;
		if (t->type != T_IDENT)
			return "a property access that is not .name";
		L->valid = true;
		L->single = false;
		s->st = S_OPERATOR;
		return NULL;
	}
	if (s->fn == 1 && t->type == T_IDENT && keyword(t) == KW_NONE) {
		s->fn = 2;
		return NULL;
	}
	if (s->fn) {
		if (t->type != '(')
			return "a function without its parameters";
		if (s->fn == 1 && s->fn_decl)
			return "a function statement without a name";
		if (s->fn == 1 && s->fn_naming)
			return "an anonymous function in a position that names it";
		s->fn = 0;
		return push(s, s->fn_decl ? K_PARAMS_DECL : K_PARAMS_EXPR);
	}
	if (s->want_body) {
		s->want_body = false;
		if (t->type != '{')
			return "a function without its body";
		return push(s, s->body_decl ? K_FBODY_DECL : K_FBODY_EXPR);
	}
	if (s->head) {
		enum kind kind = s->head == 2 ? K_FORHEAD : K_HEAD;
		s->head = 0;
		if (t->type != '(')
			return "a statement head without its (";
		return push(s, kind);
	}
	if (L->kind == K_OBJECT && L->key) {
		if (t->type == '}')
			return pop(s, '}');
		if (t->type != T_IDENT && t->type != T_STRING && t->type != T_NUMBER)
			return "a computed, spread or generator property";
		if ((t->type == T_IDENT && t->len == 9 && memcmp(t->s, "__proto__", 9) == 0) ||
		    (t->type == T_STRING && t->special))
			return "__proto__ in an object literal";
		s->accessor = t->type == T_IDENT && t->len == 3 &&
			      (memcmp(t->s, "get", 3) == 0 || memcmp(t->s, "set", 3) == 0);
		L->key = false;
		L->colon = true;
		return NULL;
	}
	if (L->kind == K_OBJECT && L->colon) {
		bool accessor = s->accessor;
		s->accessor = false;
		if (t->type != ':')
			return accessor ? "an accessor in an object literal"
					: "a shorthand property or method";
		L->colon = false;
		L->assign_ok = true;
		s->st = S_OPERAND;
		s->naming = true;
		return NULL;
	}

	/* A line terminator ends a statement where the next token cannot
	 * continue it (automatic semicolon insertion). */
	if (s->st == S_OPERATOR && t->type != T_EOF && !continues(s, t)) {
		if ((why = end_operand(L)))
			return why;
		s->st = S_STMT;
		L->assign_ok = true;
	}

	switch (t->type) {
	case T_EOF:
		if ((why = end_operand(L)))
			return why;
		if (s->depth)
			return "unbalanced brackets";
		return NULL;
	case '{':
		if (s->st == S_OPERAND) {
			operand(L, false, false);
			return push(s, K_OBJECT);
		}
		s->st = S_STMT;
		return push(s, K_BLOCK);
	case '}': return pop(s, '}');
	case ')': return pop(s, ')');
	case ']': return pop(s, ']');
	case '(':
		if (s->st == S_OPERATOR)
			return push(s, K_CALL);
		operand(L, false, false);
		s->naming = naming;
		s->st = S_OPERAND;
		return push(s, K_GROUP);
	case '[':
		if (s->st == S_OPERATOR)
			return push(s, K_MEMBER);
		operand(L, false, false);
		s->st = S_OPERAND;
		return push(s, K_ARRAY);
	case '.':
		if (s->st != S_OPERATOR)
			return "a . without an object";
		s->after_dot = true;
		return NULL;
	case ';':
		if ((why = end_operand(L)))
			return why;
		L->assign_ok = true;
		L->ternary = 0;
		if (L->kind == K_FORHEAD) {
			L->for_semi = true;
			s->st = S_OPERAND;
		} else {
			s->st = S_STMT;
		}
		return NULL;
	case ',':
		if ((why = end_operand(L)))
			return why;
		if (L->kind == K_OBJECT) {
			L->key = true;
			L->ternary = 0;
		}
		L->assign_ok = true;
		s->st = S_OPERAND;
		return NULL;
	case '?':
		if ((why = end_operand(L)))
			return why;
		L->ternary++;
		L->assign_ok = true;
		s->st = S_OPERAND;
		return NULL;
	case ':':
		if ((why = end_operand(L)))
			return why;
		L->assign_ok = true;
		if (L->ternary) {
			L->ternary--;
			s->st = S_OPERAND;
		} else if (L->kind == K_OBJECT) {
			return "a : out of place in an object literal";
		} else { /* a label, case or default */
			s->st = S_STMT;
			s->stmt_body = true;
		}
		return NULL;
	case T_ASSIGN:
		if (s->st != S_OPERATOR)
			return "an assignment without a target";
		if (!L->chain || !L->valid || !L->clean || L->newed || L->update)
			return "assignment to something other than a variable or property "
			       "(destructuring, f() = x)";
		if (L->kind == K_FORHEAD && L->for_var && !L->for_semi)
			L->for_init = true;
		s->naming = t->plain && L->single;
		L->chain = false;
		L->assign_ok = true;
		s->st = S_OPERAND;
		return NULL;
	case T_UPDATE:
		if (s->st == S_OPERATOR) { /* postfix */
			if (!L->chain || !L->valid || L->newed || L->update)
				return "++ or -- on something other than a variable or property";
			L->valid = false;
			L->single = false;
			return NULL;
		}
		if (L->update)
			return "++ or -- on something other than a variable or property";
		L->update = true;
		L->assign_ok = false;
		s->st = S_OPERAND;
		return NULL;
	case T_BINARY:
	case T_SIGN:
	case T_NOT:
		if (s->st == S_OPERATOR) {
			if ((why = end_operand(L)))
				return why;
		} else if (t->type == T_BINARY) {
			return "a binary operator without its left operand";
		} else if (L->update) {
			return "++ or -- on something other than a variable or property";
		}
		L->assign_ok = false;
		s->st = S_OPERAND;
		return NULL;
	case T_NUMBER:
	case T_STRING:
	case T_REGEX:
		operand(L, false, false);
		s->st = S_OPERATOR;
		return NULL;
	default: break;
	}

	/* Identifiers and keywords. */
	enum keyword k = keyword(t);
	if (s->st == S_OPERATOR) { /* in, instanceof */
		if (k == KW_IN && L->kind == K_FORHEAD && !L->for_semi) {
			if (L->for_var
				    ? L->for_init
				    : !L->chain || !L->valid || !L->clean || L->newed || L->update)
				return "a for-in head that is not a variable, a property or var "
				       "without an initializer";
		}
		if ((why = end_operand(L)))
			return why;
		L->assign_ok = false;
		s->st = S_OPERAND;
		return NULL;
	}
	switch (k) {
	case KW_NONE:
		operand(L, true, true);
		s->st = S_OPERATOR;
		return NULL;
	case KW_ROUTE:
	case KW_LET: return "an ES2015+ keyword (let, const, class, super, import, ...)";
	case KW_VALUE:
		operand(L, false, false);
		s->st = S_OPERATOR;
		return NULL;
	case KW_FUNCTION:
		s->fn = 1;
		s->fn_decl = s->st == S_STMT;
		if (s->fn_decl) {
			if (body || (L->kind != K_TOP && L->kind != K_FBODY_DECL &&
				     L->kind != K_FBODY_EXPR))
				return "a function declaration in a block or as a statement's body";
		} else {
			s->fn_naming = naming;
			operand(L, false, false);
		}
		return NULL;
	case KW_HEAD:
	case KW_FOR: s->head = k == KW_FOR ? 2 : 1; return NULL;
	case KW_BODY:
	case KW_BLOCK:
		s->st = S_STMT;
		s->stmt_body = k == KW_BODY;
		L->assign_ok = true;
		return NULL;
	case KW_VAR:
		if (L->kind == K_FORHEAD && !L->for_semi)
			L->for_var = true;
		L->assign_ok = true;
		s->st = S_OPERAND;
		return NULL;
	case KW_RETURN: s->restricted = true; /* fall through */
	case KW_CASE:
		L->assign_ok = true;
		s->st = S_OPERAND;
		return NULL;
	case KW_DEFAULT:
	case KW_DEBUGGER: s->st = S_STMT; return NULL;
	case KW_JUMP:
		s->label_next = true;
		s->st = S_STMT;
		return NULL;
	case KW_NEW:
	case KW_UNARY:
		if (L->update)
			return "++ or -- on something other than a variable or property";
		if (k == KW_NEW)
			L->new_pending = true;
		L->assign_ok = false;
		s->st = S_OPERAND;
		return NULL;
	case KW_IN:
	case KW_INSTANCEOF: return "a binary operator without its left operand";
	}
	return NULL;
}

const char *prescan_reason(const char *code, size_t len)
{
	struct scan s;
	memset(&s, 0, offsetof(struct scan, lv));
	s.p = code;
	s.end = code + len;
	s.st = S_STMT;
	memset(&s.lv[0], 0, sizeof s.lv[0]);
	s.lv[0].kind = K_TOP;
	s.lv[0].assign_ok = true;
	for (;;) {
		struct token t;
		const char *why = lex(&s, &t, s.st != S_OPERATOR);
		if (!why)
			why = step(&s, &t);
		if (why || t.type == T_EOF)
			return why;
	}
}
