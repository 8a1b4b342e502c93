/*
 * sdc.h - the sandboxd client connection: the one module every program
 * that talks to the daemon uses (sandboxctl, sandboxd-mcp, the tests and
 * the benchmark).
 *
 * A connection sends requests, giving each a fresh integer "id" (1, 2, ...),
 * and reads the daemon's frames, handing each to the handler registered for
 * its id: the events of a request (output, tool_call, started) and then its
 * final reply (the frame with "ok"), which ends the registration. Frames of
 * no registered id (a request the caller sent with an id of its own, or
 * none) go to the default handler, or are dropped when there is none.
 *
 * Two ways to drive it:
 * - blocking (sandboxctl, tests, bench): sdc_call sends a request and waits
 *   for its final reply; sdc_wait and sdc_pump wait for frames; writes
 *   block until written.
 * - event loop (SDC_NONBLOCK; the MCP bridge): the fd is non-blocking and
 *   nothing blocks. The caller polls sdc_fd for reading always and for
 *   writing while sdc_want_write; sdc_on_readable reads what is there and
 *   dispatches every whole frame, sdc_on_writable sends what was queued.
 *   Requests that do not go out at once are queued whole, in order.
 *
 * Costs: a frame is parsed once by jansson from the read buffer (no copy),
 * handed to its handler borrowed, and freed after; a request object is
 * encoded once into the output buffer and written from there, a request
 * given as text (and raw bytes) straight from the caller's memory while
 * nothing is queued before it. The registrations are an array kept in id
 * order (ids only grow), searched by bisection; nothing is allocated per
 * frame beyond what jansson allocates.
 *
 * Errors: functions returning int give SDC_OK (0) or a negative enum
 * sdc_status; sdc_error names the connection's failure for humans. A
 * failure of the connection itself (EOF, a bad frame, a read or write
 * error) is final: every handler still registered is called once with a
 * NULL frame, and later calls return the same status.
 *
 * Handlers may send requests (sdc_request, sdc_tool_result, ...), sdc_forget
 * registrations and, in blocking mode, dispatch further frames themselves
 * (sdc_pump: a handler that waits on something else and on the daemon at
 * once), but must not sdc_close the connection they are called for; close
 * it after the call that dispatched returns.
 */
#ifndef SANDBOXD_SDC_H
#define SANDBOXD_SDC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../protocol/frame.h"

enum sdc_status {
	SDC_OK = 0,
	SDC_EOF = -1,	   /* the daemon closed the connection */
	SDC_ESYS = -2,	   /* a system call failed (sdc_error says which, and errno) */
	SDC_EFRAME = -3,   /* the daemon sent a bad frame (empty, or over the size limit) */
	SDC_EJSON = -4,	   /* a frame that is not a JSON object */
	SDC_ETIMEOUT = -5, /* blocking: nothing came in time (the connection is still good) */
	SDC_ENOMEM = -6,   /* out of memory: sending, nothing was sent (the connection is
			    * good); reading, a frame was lost (the connection is failed) */
	SDC_EINVAL = -7,   /* a request that cannot be sent: not an object, not encodable */
};

/* Flags of sdc_connect and sdc_adopt. */
#define SDC_NONBLOCK 1u /* event-loop mode: the fd is made non-blocking */

struct sdc;

/*
 * Called for each frame of a request (or, as the default handler, each frame
 * of no registered id). frame is borrowed: it is freed after the call
 * (json_incref to keep it). frame NULL: the connection failed (or was
 * closed) before the final reply; sdc_error(c) says why. The call for the
 * final reply (sdc_is_final) or for NULL is the last for that
 * registration.
 */
typedef void sdc_handler(struct sdc *c, json_t *frame, void *arg);

/* True for a final reply (it has "ok") and for NULL (the end of the
 * connection), the last frame of a registration. */
static inline bool sdc_is_final(const json_t *frame)
{
	return !frame || json_object_get(frame, "ok") != NULL;
}

/*
 * The socket a client should use: $SANDBOXD_SOCKET when set and not empty,
 * else ./run/sandboxd.sock when it exists (a `make run` daemon), else
 * /run/sandboxd/sandboxd.sock. Borrowed (the environment or a constant).
 */
#define SDC_SYSTEM_SOCKET "/run/sandboxd/sandboxd.sock"
#define SDC_LOCAL_SOCKET "run/sandboxd.sock"
const char *sdc_default_socket(void);

/*
 * Connects to the Unix socket at path in mode (FRAME_MODE_BINARY or
 * FRAME_MODE_LINE). The connection is made blocking; with SDC_NONBLOCK the
 * fd is then made non-blocking. Returns a connection the caller frees with
 * sdc_close, or NULL with errno (ENAMETOOLONG for a path that does not fit,
 * else connect's or ENOMEM).
 */
struct sdc *sdc_connect(const char *path, enum frame_mode mode, unsigned flags);
/* The same over an fd already connected (a socketpair end, a descriptor
 * from another process); the connection owns fd from then on, and closes it
 * even when this fails (NULL, errno ENOMEM). */
struct sdc *sdc_adopt(int fd, enum frame_mode mode, unsigned flags);
/* Calls each handler still registered with a NULL frame, closes the fd and
 * frees everything. NULL is a no-op. Not from inside a handler of c. */
void sdc_close(struct sdc *c);

/* The largest frame accepted from the daemon (default
 * LIMIT_CLIENT_REPLY_BYTES, protocol/limits.h); bigger is SDC_EFRAME. */
void sdc_set_max_frame(struct sdc *c, size_t max);
/* The handler for frames of no registered id; NULL drops them. */
void sdc_set_default(struct sdc *c, sdc_handler *fn, void *arg);

int sdc_fd(const struct sdc *c);
enum frame_mode sdc_mode(const struct sdc *c);
/* SDC_OK while the connection is good, else its final status. */
int sdc_status(const struct sdc *c);
/* The connection's failure for humans ("the daemon closed the connection",
 * "the daemon sent invalid JSON: ...", "write: Broken pipe"), or "" while
 * it is good. Borrowed, valid until the next call on c. */
const char *sdc_error(const struct sdc *c);
/* A fixed phrase for a status (for SDC_ESYS: "a system call failed"). */
const char *sdc_strerror(int status);

/* ---- sending */

/*
 * Sends req (borrowed; an object) with its "id" member set to a fresh
 * integer id, which is returned (> 0), and registers fn (may be NULL: the
 * request's frames are dropped) with arg for its frames. Blocking mode:
 * written before returning. Event loop: written as far as the socket
 * takes, the rest queued. A negative enum sdc_status on failure (nothing
 * registered): SDC_EINVAL for req not an object or not encodable, or the
 * connection's failure.
 */
long long sdc_request(struct sdc *c, json_t *req, sdc_handler *fn, void *arg);
/*
 * The same for a request already encoded by the caller: json[0..len) is a
 * compact JSON object (no newline) whose "id" is id, from sdc_next_id. It is
 * framed and sent as it is (for callers that build requests as text, such as
 * the benchmark). SDC_OK or a negative status.
 */
long long sdc_next_id(struct sdc *c);
int sdc_request_text(struct sdc *c, long long id, const char *json, size_t len, sdc_handler *fn,
		     void *arg);
/* Sends msg (borrowed) framed as it is, its "id" (if any) untouched and no
 * handler registered: its frames go to the default handler. For tests. */
int sdc_send_msg(struct sdc *c, const json_t *msg);
/* Sends bytes as they are, unframed (tests of the daemon's framing). */
int sdc_send_raw(struct sdc *c, const void *bytes, size_t len);

/*
 * Answers a tool_call event (call, borrowed: its execution_id and call_id
 * are used) with a tool_result request: value (borrowed; any JSON, NULL
 * meaning null) when error is NULL, else the error message (UTF-8) the
 * script's Error gets. Its reply ({"ok": true}, or an error such as
 * NOT_FOUND when the call is no longer waiting) goes to fn, which may be
 * NULL to drop it. Returns the request's id (> 0) or a negative status
 * (SDC_EINVAL when call is not a tool_call event).
 */
long long sdc_tool_result(struct sdc *c, const json_t *call, const json_t *value, const char *error,
			  sdc_handler *fn, void *arg);

/*
 * Drops the handler of id without a call: its later frames, final reply
 * included, are dropped (not given to the default handler); the final reply
 * still ends the registration, so sdc_pending and sdc_is_pending count it
 * until then. For a request whose answer nobody waits for any more (a
 * cancelled MCP call). No-op for an id not registered.
 */
void sdc_forget(struct sdc *c, long long id);
/* Requests sent and not yet finally answered (registrations). */
size_t sdc_pending(const struct sdc *c);
/* True while id is registered: its final reply has not been handled. */
bool sdc_is_pending(const struct sdc *c, long long id);

/* ---- blocking mode */

/*
 * Sends req (borrowed; its "id" set as by sdc_request) and waits up to
 * timeout_ms (-1: no limit) for its final reply, which is returned (a new
 * reference the caller frees). Its events go to on_event (may be NULL)
 * before; frames of other ids are dispatched as usual meanwhile. NULL with
 * *status (may be NULL) SDC_ETIMEOUT (the request is then sdc_forget-ten:
 * its late reply is dropped), or the connection's failure.
 */
json_t *sdc_call(struct sdc *c, json_t *req, sdc_handler *on_event, void *arg, int timeout_ms,
		 int *status);
/* Dispatches frames until id's registration has ended (its final reply was
 * handled) or timeout_ms passes (-1: no limit). SDC_OK, SDC_ETIMEOUT, or
 * the connection's failure. */
int sdc_wait(struct sdc *c, long long id, int timeout_ms);
/* Dispatches the frames already read, else waits up to timeout_ms (-1: no
 * limit; 0: only what is there) for more and dispatches those. SDC_OK when
 * at least one frame was dispatched, SDC_ETIMEOUT, or the failure. */
int sdc_pump(struct sdc *c, int timeout_ms);
/*
 * The next frame itself, not dispatched (a new reference), waiting up to
 * timeout_ms (-1: no limit). For tests that read frames in order whatever
 * their ids. NULL with *status (may be NULL) as for sdc_pump.
 */
json_t *sdc_recv(struct sdc *c, int timeout_ms, int *status);
/* The same as text: the next frame's payload exactly as the daemon sent it,
 * not parsed (a NUL-terminated copy the caller frees; its length in *len
 * when len is not NULL). For tests of bytes a JSON parser would refuse. */
char *sdc_recv_text(struct sdc *c, int timeout_ms, size_t *len, int *status);

/* ---- event-loop mode */

/*
 * Reads what the socket holds (until it would block, or at most
 * SDC_READS_PER_CALL reads, so one busy daemon connection does not starve
 * the caller's other fds; poll reports the rest) and dispatches every whole
 * frame read. On a blocking connection it reads once (after poll said the
 * fd is readable). SDC_OK, or the connection's failure (handlers have then
 * had their NULL frames).
 */
#define SDC_READS_PER_CALL 16
int sdc_on_readable(struct sdc *c);
/* True while queued bytes wait for the socket: poll it for POLLOUT. */
bool sdc_want_write(const struct sdc *c);
/* Sends queued bytes as far as the socket takes them. SDC_OK or the
 * connection's failure. */
int sdc_on_writable(struct sdc *c);

#endif
