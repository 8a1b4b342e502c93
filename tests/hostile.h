/*
 * hostile.h - replays the hostile corpus (tests/data/hostile/, described
 * in its MANIFEST) against a running daemon, for make bench and the
 * check_hostile suite; and what the daemon's health and /proc say of it.
 */
#ifndef SANDBOXD_HOSTILE_H
#define SANDBOXD_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "testlib.h"

#define HOSTILE_DIR "tests/data/hostile"
#define HOSTILE_MAX_CASES 64
#define HOSTILE_MAX_CONNS 16

enum hostile_mode { HOSTILE_READ, HOSTILE_NOREAD, HOSTILE_LEAVE };

struct hostile_case {
	char name[64];
	int conns;
	enum hostile_mode mode;
	char what[200];
	char *setup; /* "@setup" lines, prefix removed, one a line */
	char *body;  /* the other lines, one a line */
	int body_lines;
};

/* Reads the MANIFEST and every file it names under dir; fails the test on
 * anything malformed. Returns how many cases; free with hostile_free. */
int hostile_load(const char *dir, struct hostile_case *cases, int max);
void hostile_free(struct hostile_case *cases, int n);

struct hostile_run {
	const struct hostile_case *hc;
	struct client c[HOSTILE_MAX_CONNS];
	int n;
	int replies; /* final replies read (read mode) */
	int errors;  /* of them, error replies */
	char first_error[160];
};

/* Runs the case's setup, then sends its body on each of its connections
 * (and closes them at once in leave mode). */
void hostile_start(struct hostile_run *r, const char *sock, const struct hostile_case *hc);
/* Read mode: reads every reply (failing the test on a missing one within
 * timeout_ms each). Then closes the connections. */
void hostile_finish(struct hostile_run *r, int timeout_ms);

/* One health reply on a connection of its own; the caller decrefs. */
json_t *hostile_health(const char *sock);
/* health's loop.max_turn_us. */
long long hostile_max_turn_us(json_t *health);
/* The same in CPU time of the daemon's loop thread: what tests assert
 * on, since a loaded machine stretches wall time but not the work. */
long long hostile_max_turn_cpu_us(json_t *health);
/* Waits until the daemon runs and queues nothing (polling health), at most
 * timeout_ms; false when it did not get there. */
bool hostile_wait_idle(const char *sock, int timeout_ms);
/* A field of /proc/PID/status in KiB ("VmRSS", "VmHWM"); -1 when absent. */
long proc_status_kib(pid_t pid, const char *field);

#endif
