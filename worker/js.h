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

/* The ES2017-ES2024 built-ins beyond the polyfills (builtins.js), and
 * EventTarget, Event, AbortController and AbortSignal (abort.js): each an
 * expression evaluating to a function of (global, hidden keys) that
 * installs them. */
extern const char js_builtins[];
extern const unsigned long js_builtins_len;
extern const char js_abort[];
extern const unsigned long js_abort_len;
/* String.prototype.normalize's tables, made by scripts/unicode-norm.js: an
 * expression evaluating to an object of strings. */
extern const char js_normtables[];
extern const unsigned long js_normtables_len;

/* The lowering of ES2015+ and TypeScript to ES5 (see engine_run): acorn,
 * the ES2022 parser, from Debian's node-acorn (program code defining the
 * global acorn); the TypeScript plugin for it and the passes and printer,
 * each an expression evaluating to a factory; and the runtime lowered code
 * calls, an expression evaluating to a function of Duktape's Thread. */
extern const char js_acorn[];
extern const unsigned long js_acorn_len;
extern const char js_typescript[];
extern const unsigned long js_typescript_len;
extern const char js_lower[];
extern const unsigned long js_lower_len;
extern const char js_runtime[];
extern const unsigned long js_runtime_len;

/* URL and URLSearchParams: an expression evaluating to a function that
 * installs them on its first argument, keeping their state under the
 * hidden keys of its second. */
extern const char js_url[];
extern const unsigned long js_url_len;

/* util.inspect and util.format as Node's: an expression evaluating to a
 * function of the polyfills' internals, the hidden keys and the global
 * object, returning {inspect, format, formatWithOptions}. */
extern const char js_inspect[];
extern const unsigned long js_inspect_len;
/* DOMException, structuredClone, atob/btoa, crypto and the rest of the web
 * globals (see prepare_web): an expression evaluating to a function of the
 * global, the engine's primitives and the hidden keys. */
extern const char js_web[];
extern const unsigned long js_web_len;

/* The console object: an expression evaluating to a function of the
 * engine's write and clock primitives, util and the script's file names
 * (see console.js). */
extern const char js_console[];
extern const unsigned long js_console_len;

/* setTimeout and the rest, and the event loop: an expression evaluating to
 * a function that installs them and returns the loop (see prepare_timers). */
extern const char js_timers[];
extern const unsigned long js_timers_len;

#endif
