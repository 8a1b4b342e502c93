/*
 * utf8.h - turn arbitrary bytes into valid UTF-8 for JSON strings.
 *
 * Worker output is untrusted bytes that reach clients inside JSON strings,
 * which must be valid UTF-8. A pipe read may also end inside a multi-byte
 * character; the decoder leaves such a tail unconsumed until more bytes (or
 * the end of the stream) arrive, so a character is never split across two
 * output events.
 */
#ifndef SANDBOXD_UTF8_H
#define SANDBOXD_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Appends in[0..len) to out with every invalid sequence replaced by U+FFFD.
 * Unless final, an incomplete but so-far valid sequence at the end is left
 * out. Returns the number of input bytes consumed, or (size_t)-1 when out of
 * memory.
 */
size_t utf8_sanitize(struct buf *out, const char *in, size_t len, bool final);

/*
 * Appends a string in the engine's internal encoding (CESU-8: UTF-16
 * surrogates encoded one by one, possibly unpaired) to out as UTF-8:
 * surrogate pairs become one 4-byte sequence and anything else invalid
 * becomes U+FFFD. 0, or -1 when out of memory.
 */
int utf8_from_cesu(struct buf *out, const char *in, size_t len);

/*
 * Appends valid UTF-8 to out as CESU-8, the engine's own encoding: each
 * 4-byte sequence becomes its two UTF-16 surrogates, 3 bytes each, so that
 * the engine's strings count and index it as JavaScript does. 0, or -1
 * when out of memory.
 */
int utf8_to_cesu(struct buf *out, const char *in, size_t len);

/* True when s[0..len) is entirely valid UTF-8 (no surrogates, no overlongs). */
bool utf8_valid(const char *s, size_t len);

#endif
