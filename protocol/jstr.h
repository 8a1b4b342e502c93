/*
 * jstr.h - JSON string escaping, fast and byte for byte as jansson does it.
 *
 * Replies carry an execution's output as JSON strings. jansson escapes
 * them at some 170 MB/s and only whole; these escape any slice of valid
 * UTF-8 (the output is, after utf8_sanitize), so a reply can be produced
 * in chunks as the client reads, and its length known up front. Escaped:
 * '"' and '\\' (\" and \\), \b \t \n \f \r, every other byte below 0x20 as
 * \u00XX with upper-case hex; everything else, 0x7F and non-ASCII
 * included, as it is (jansson's JSON_COMPACT without JSON_ENSURE_ASCII or
 * JSON_ESCAPE_SLASH). Escaping works byte by byte, so a slice may end
 * anywhere, even inside a character.
 */
#ifndef SANDBOXD_JSTR_H
#define SANDBOXD_JSTR_H

#include <stddef.h>

/* The length of s[0..n) escaped, without the quotes. */
size_t jstr_escaped_len(const char *s, size_t n);

/*
 * Escapes s[0..n) into dst[0..cap), stopping before an escape that would
 * not fit. Returns the bytes written; *used is how many bytes of s they
 * stand for.
 */
size_t jstr_escape(char *dst, size_t cap, const char *s, size_t n, size_t *used);

#endif
