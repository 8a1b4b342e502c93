/*
 * testlib.h - start the real daemon on a temporary socket and talk to it
 * over the real protocol, in either framing.
 */
#ifndef SANDBOXD_TESTLIB_H
#define SANDBOXD_TESTLIB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../client/sdc.h"
#include "../protocol/buf.h"
#include "../protocol/frame.h"

struct daemon {
	pid_t pid;
	char dir[64];	/* temporary directory holding the socket */
	char sock[128]; /* socket path */
	char log[128];	/* the daemon's stderr */
};

/* Starts bin/sandboxd (SANDBOXD_BIN) with extra args (NULL-terminated) on a
 * fresh socket and waits for its sd_notify READY=1. Aborts the test on
 * failure. The script cache and the --uid-lock file are in the test's
 * directory unless args name their own. */
void daemon_start(struct daemon *d, const char *const *args);
/* SIGTERM, then waits; returns the wait status. */
int daemon_stop(struct daemon *d);
/* Waits for the daemon to exit (after a signal); returns the wait status. */
int daemon_wait(struct daemon *d, int timeout_ms);
/* Everything the daemon logged so far; the caller frees it. */
char *daemon_log(const struct daemon *d);

/* Count of the daemon's open fds, and of its child processes (any state). */
int daemon_fd_count(const struct daemon *d);
int daemon_child_count(const struct daemon *d, int *zombies);
/* The daemon's child pids (at most max); returns how many. */
int daemon_children(const struct daemon *d, pid_t *pids, int max);

/* A connection through client/sdc (frames of every id come back in order
 * through client_recv); fd is sdc's, for tests that use the socket
 * directly. */
struct client {
	int fd;
	enum frame_mode mode;
	struct sdc *sdc;
};

/* Connects in the given framing (binary or line). -1 when it cannot. */
int client_open(struct client *c, const char *sock, enum frame_mode mode);
/* As root: a binary-mode connection whose peer is uid:gid, made by a child
 * switched to them (the socket and its directory must let them in). */
void client_open_as(struct client *c, const char *sock, uid_t uid, gid_t gid);
/* An id above `after` (and TESTLIB_ID_BASE) that no account or group uses:
 * far from system, user and dynamic ranges and from worker uids. */
#define TESTLIB_ID_BASE 4000000000u
unsigned testlib_unused_id(unsigned after);
void client_close(struct client *c);
/* Sends raw bytes / one JSON message (encoded in the client's mode). */
void client_send_raw(struct client *c, const void *p, size_t n);
void client_send(struct client *c, const json_t *msg);
void client_sendf(struct client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next frame, or NULL on EOF or after timeout_ms. */
json_t *client_recv(struct client *c, int timeout_ms);
/* The next frame that is a final reply (has "ok"); events before it are
 * appended to *events when events is not NULL. */
json_t *client_reply(struct client *c, json_t *events, int timeout_ms);
/* True when the daemon closed the connection within timeout_ms. */
bool client_eof(struct client *c, int timeout_ms);

/* The started event that is the first frame answering an execute, stream
 * or test request: fails the test unless the next frame is one, for the
 * request id (a string id, or an integer id in decimal; NULL: a request
 * without one), with an execution id and a
 * state of pending (with a queue position when queued) or running. The
 * caller frees it. */
json_t *client_started(struct client *c, const char *id, int timeout_ms);

/* One execute round trip on a fresh connection with a JSON request built
 * from fmt. */
json_t *exec_once(const char *sock, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends req (stolen; NULL fails the test). */
void client_request(struct client *c, json_t *req);
/* Sends req (stolen) and returns the final reply, dropping events before
 * it; fails the test when none comes within 10 s. */
json_t *client_call(struct client *c, json_t *req);
/* client_call on a connection of its own. */
json_t *call_once(const char *sock, json_t *req);

/* A reply's error object, and its fields ("" when absent). */
json_t *err_obj(json_t *r);
const char *err_code(json_t *r);
const char *err_msg(json_t *r);
const char *err_kind(json_t *r);
/* Fails the test unless r is an error reply with this code whose message
 * contains needle (when not NULL). */
void assert_error(json_t *r, const char *code, const char *needle);

/* A file's whole contents, NUL-terminated (the caller frees them), and its
 * length when len is not NULL; fails the test when it cannot be read
 * (data files are read from the source tree). */
char *test_read_file(const char *path, size_t *len);

/* Shorthands for reply fields. */
const char *jstr(json_t *o, const char *key);
long long jint(json_t *o, const char *key);
bool jtrue(json_t *o, const char *key);

/* ---- The warm pool (server/spawn.c): parked workers are children of the
 * daemon too, named sandboxd-work like running ones. */

/* The forkserver: the child named sandboxd-fork that leads a session of
 * its own (a worker just cloned from it bears its name for a moment). -1
 * when there is none. */
pid_t daemon_forkserver(const struct daemon *d);
/* A field of health's "pool" object (-1 when there is none). */
long long daemon_pool_stat(const struct daemon *d, const char *field);
/* Waits (bounded by timeout_ms) until the pool is full: parked equals its
 * target, no refill is under way and every worker of the daemon has
 * finished confining itself (its seccomp filter is loaded). The target;
 * fails the test when the pool does not fill in time. */
int daemon_pool_full(const struct daemon *d, int timeout_ms);
/* The daemon's workers running a job with this timeout_ms, told from the
 * parked ones (which hold the daemon's largest backstops) by the RLIMIT_CPU
 * they lowered themselves to: timeout_ms / 1000 + 1 s. Fills pids (at most
 * max) and returns how many there are. */
int daemon_workers_by_timeout(const struct daemon *d, long long timeout_ms, pid_t *pids, int max);
/* The one such worker, or -1 when there is none. */
pid_t daemon_worker_by_timeout(const struct daemon *d, long long timeout_ms);

#endif
