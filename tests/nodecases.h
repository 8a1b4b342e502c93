/*
 * nodecases.h - runs a file of cases, one per line, each a function body and
 * the value Node 20 returns for it, through the engine in this process:
 *
 *   # comment
 *   name<TAB>expected value as JSON<TAB>function body
 *
 * Every case that differs is reported on stderr; the test fails when any
 * does, or when the file holds fewer than min cases.
 */
#ifndef SANDBOXD_NODECASES_H
#define SANDBOXD_NODECASES_H

#include "../worker/engine.h"

/* file is looked up in $SANDBOXD_TEST_DATA, else tests/data. The engine is
 * prepared first when it is not yet. */
void node_cases(const char *file, enum engine_language lang, int min);

/*
 * Runs a file of output cases, one per line:
 *
 *   name<TAB>value as JSON<TAB>stdout as a JSON string<TAB>stderr as a JSON
 *   string, or null when it is not compared<TAB>function body
 *
 * Each case runs in a child process of its own (a fresh copy of the
 * prepared engine, as a worker is), its stdout and stderr captured; the
 * value is the script's (null matches undefined). "(node:NNN)" reads as
 * "(node:PID)" in both outputs. Every case that differs is reported on
 * stderr; the test fails when any does, or when fewer than min cases.
 */
void node_output_cases(const char *file, enum engine_language lang, int min);

/* Prepares this process's engine once. */
void node_prepare(void);
/* The whole of a data file (looked up as above); the caller frees it. */
char *node_data(const char *file);

#endif
