/*
 * js.h - JavaScript sources the worker loads, embedded at build time from
 * worker/js/ (see scripts/embed.sh).
 */
#ifndef SANDBOXD_JS_H
#define SANDBOXD_JS_H

/* test() and assert for test mode: an expression evaluating to a function
 * that installs them on its argument and returns the runner. */
extern const char js_harness[];
extern const unsigned long js_harness_len;

/* Promise, Map, Set and the rest of what Duktape 2.7 lacks: an expression
 * evaluating to a function that installs them on its argument and returns
 * the engine's internals (drain, inspect). */
extern const char js_polyfills[];
extern const unsigned long js_polyfills_len;

/* acorn, the ES2022 parser, from Debian's node-acorn: it places syntax
 * errors (line and column) and tells modern JavaScript from mistakes. */
extern const char js_acorn[];
extern const unsigned long js_acorn_len;

#endif
