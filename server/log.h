/*
 * log.h - one line per event on stderr.
 *
 * Under systemd (JOURNAL_STREAM set) each line carries a <N> priority
 * prefix that journald turns into the entry's priority; on a terminal the
 * level is spelled out. Lines never contain script bodies or outputs.
 */
#ifndef SANDBOXD_LOG_H
#define SANDBOXD_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARN = 4,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

void log_init(enum log_level max_level);
/* Parses "error", "warn", "info" or "debug"; -1 when unknown. */
int log_level_parse(const char *s);

__attribute__((format(printf, 2, 3))) void log_msg(enum log_level level, const char *fmt, ...);
#define log_err(...) log_msg(LOG_LEVEL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

/* A warning that may recur with every event (a failing accept, a refused
 * connection) goes through one of these: at most one line each
 * LIMIT_LOG_REPEAT_MS. */
struct log_every {
	uint64_t next_ms;
	unsigned long held; /* lines held back since the last one logged */
};

/* True when a line may be logged now; *held then gets how many were held
 * back since the previous one. False counts this one as held back. */
bool log_every_pass(struct log_every *r, unsigned long *held);

/* Start-up failures and broken invariants only: logs and exits 1. fatal
 * appends strerror(errno). */
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void fatalx(const char *fmt, ...);

#endif
