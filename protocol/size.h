/*
 * size.h - the sizes and counts every program of sandboxd takes on its
 * command line: a decimal number with an optional K, M or G suffix.
 */
#ifndef SANDBOXD_SIZE_H
#define SANDBOXD_SIZE_H

#include <stdint.h>

/* s as a decimal count starting with a digit, optionally followed by K, M
 * or G (either case; powers of 1024), into *out; -1 when it is malformed
 * or does not fit 64 bits. */
int size_parse(const char *s, uint64_t *out);

#endif
