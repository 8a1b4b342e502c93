/*
 * jnum.h - JSON with numbers as JavaScript writes and reads them.
 *
 * jansson writes a real with %.17g, so 1/3 leaves as 0.33333333333333331
 * and 0.1 as 0.10000000000000001, and its parser refuses an integer beyond
 * 64 bits, which JSON.stringify writes for any double from 2^63 to 1e21
 * (123456789012345680000). Everything sandboxd emits for a script's value,
 * a tool call's arguments, a stream frame, an error's data or the store
 * is written through jnum_dump* (byte for byte what jansson's json_dump*
 * gives, reals aside), and every such JSON it reads goes through
 * jnum_load*: a real is written in the shortest form that reads back to
 * the same double, laid out as Number.prototype.toString lays it out, which
 * is what JSON.stringify gives.
 */
#ifndef SANDBOXD_JNUM_H
#define SANDBOXD_JNUM_H

#include <jansson.h>
#include <stddef.h>

/* The longest number jnum_format writes, with its NUL
 * ("-1.2345678901234567e-308", "-0.0000012345678901234567"). */
#define JNUM_BYTES 32

/*
 * Writes d as JSON.stringify would into out (JNUM_BYTES) and returns its
 * length: the shortest digits that read back to d (the closest of those
 * when several do), as 1e+21, 1e-7, 0.1, 123456789012345680000, 5e-324;
 * -0 as 0; NaN and the infinities as null.
 */
size_t jnum_format(double d, char *out);

/*
 * jansson's json_dump_callback, json_dumps, json_dumpb and json_dump_file
 * with reals written by jnum_format (an integral real as an integer: a real
 * 5.0 is 5, as JavaScript has one kind of number). The flags are jansson's
 * and have its meaning: JSON_COMPACT, JSON_INDENT(n), JSON_SORT_KEYS and
 * JSON_ENCODE_ANY (JSON_PRESERVE_ORDER is jansson's default and ignored);
 * any other flag fails the dump rather than be silently unlike jansson's.
 * Errors as jansson's: -1 (NULL, 0) for a NULL or cyclic value, a string
 * that is not UTF-8, a scalar without JSON_ENCODE_ANY, a failed callback or
 * no memory. jnum_dumps's text is malloc'd (free it).
 */
int jnum_dump_callback(const json_t *v, json_dump_callback_t cb, void *data, size_t flags);
char *jnum_dumps(const json_t *v, size_t flags);
size_t jnum_dumpb(const json_t *v, char *buffer, size_t size, size_t flags);
int jnum_dump_file(const json_t *v, const char *path, size_t flags);

/*
 * jansson's json_loadb, json_loads and json_load_file, except that an
 * integer beyond 64 bits reads as a real (the double JavaScript reads it
 * as) instead of failing as "too big integer"; every other integer stays an
 * integer. The cost is only that of a text holding such a number.
 */
json_t *jnum_loadb(const char *buffer, size_t len, size_t flags, json_error_t *error);
json_t *jnum_loads(const char *text, size_t flags, json_error_t *error);
json_t *jnum_load_file(const char *path, size_t flags, json_error_t *error);

#endif
