/* log.c - line-per-event logging to stderr; see log.h. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/limits.h"

static enum log_level max_level = LOG_LEVEL_INFO;
static bool journal;

void log_init(enum log_level level)
{
	max_level = level;
	journal = getenv("JOURNAL_STREAM") != NULL;
}

int log_level_parse(const char *s)
{
	if (strcmp(s, "error") == 0)
		return LOG_LEVEL_ERR;
	if (strcmp(s, "warn") == 0)
		return LOG_LEVEL_WARN;
	if (strcmp(s, "info") == 0)
		return LOG_LEVEL_INFO;
	if (strcmp(s, "debug") == 0)
		return LOG_LEVEL_DEBUG;
	return -1;
}

static const char *level_name(enum log_level l)
{
	switch (l) {
	case LOG_LEVEL_ERR: return "error";
	case LOG_LEVEL_WARN: return "warning";
	case LOG_LEVEL_INFO: return "info";
	case LOG_LEVEL_DEBUG: return "debug";
	}
	return "info";
}

__attribute__((format(printf, 3, 0))) static void vlog(enum log_level level, const char *suffix,
						       const char *fmt, va_list ap)
{
	char line[1024];
	int n;
	if (journal)
		n = snprintf(line, sizeof line, "<%d>", (int)level);
	else
		n = snprintf(line, sizeof line, "sandboxd: %s: ", level_name(level));
	if (n < 0)
		return;
	int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (m < 0)
		return;
	size_t len = (size_t)n + (size_t)m;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	if (suffix) {
		int k = snprintf(line + len, sizeof line - len, ": %s", suffix);
		if (k > 0)
			len += (size_t)k;
		if (len > sizeof line - 2)
			len = sizeof line - 2;
	}
	/* Untrusted text must not forge a second log line. */
	for (size_t i = (size_t)n; i < len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[len++] = '\n';
	/* One write per line keeps lines whole between processes. */
	(void)!write(2, line, len);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > max_level)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(level, NULL, fmt, ap);
	va_end(ap);
}

bool log_every_pass(struct log_every *r, unsigned long *held)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	if (now < r->next_ms) {
		r->held++;
		return false;
	}
	r->next_ms = now + LIMIT_LOG_REPEAT_MS;
	*held = r->held;
	r->held = 0;
	return true;
}

void fatal(const char *fmt, ...)
{
	const char *why = strerror(errno);
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERR, why, fmt, ap);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERR, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}
