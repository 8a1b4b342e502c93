/*
 * log.h - one line per event on stderr.
 *
 * Under systemd (JOURNAL_STREAM set) each line carries a <N> priority
 * prefix that journald turns into the entry's priority; on a terminal the
 * level is spelled out. Lines never contain script bodies or outputs.
 */
#ifndef SANDBOXD_LOG_H
#define SANDBOXD_LOG_H

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

/* Start-up failures and broken invariants only: logs and exits 1. fatal
 * appends strerror(errno). */
__attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void fatalx(const char *fmt, ...);

#endif
