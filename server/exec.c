/* exec.c - one execution from request to final reply; see exec.h. */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/ctl.h"
#include "../protocol/frame.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/utf8.h"
#include "conn.h"
#include "log.h"
#include "loop.h"
#include "sched.h"
#include "spawn.h"

/* After SIGKILL a worker's pipes reach EOF at once; this only bounds the
 * wait should something else still hold them. */
#define KILL_SETTLE_MS 5000u

enum phase {
	PHASE_QUEUED,	/* waiting for a worker slot */
	PHASE_SPAWNING, /* slot taken, worker requested from the forkserver */
	PHASE_RUNNING,	/* worker exists (until reaped) */
};

enum kill_reason {
	KILL_NONE = 0,
	KILL_TIMEOUT,
	KILL_OUTPUT,
	KILL_CANCEL,   /* the client went away */
	KILL_SHUTDOWN, /* the daemon is stopping */
	KILL_PROTOCOL, /* the worker broke the control protocol */
};

enum { OUT = 0, ERR = 1 };

struct exec {
	struct list_node link; /* live executions */
	struct sched_entry sched;
	struct conn_sub sub;
	struct conn *conn; /* NULL once the client is gone */
	json_t *root;	   /* the request; code and req_id point into it */
	json_t *req_id;
	bool stream;
	char id[24];
	const char *code;
	size_t code_len;
	uint64_t timeout_ms, memory_bytes, output_bytes;

	enum phase phase;
	enum kill_reason killed;
	int spawn_err;
	pid_t pid;
	int pidfd, ctl_fd, pipe_fd[2];
	struct loop_watch w_pid, w_ctl, w_pipe[2];
	struct loop_timer timer; /* the timeout, then the settle bound */

	struct buf ctl_out, ctl_in; /* job to send; result frame arriving */
	struct frame_decoder ctl_dec;
	json_t *result_root;
	struct ctl_result result;
	bool have_result;

	struct buf out[2]; /* stdout/stderr as UTF-8 (kept for execute) */
	char carry[2][4];  /* a character split across two reads */
	size_t carry_len[2];
	bool paused;	       /* output relaying waits for the client */
	uint64_t output_total; /* raw bytes taken, against output_bytes */

	uint64_t t_start_us, t_end_us;
	bool reaped;
	siginfo_t status;
	struct rusage ru;
};

static struct list_node live = {&live, &live};
static unsigned live_count;
static unsigned long total;
static bool shutting_down;

unsigned long exec_total(void) { return total; }
unsigned exec_live(void) { return live_count; }

static void make_id(char *out, size_t len)
{
	uint64_t r;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = loop_clock_us() ^ ((uint64_t)total << 40);
	snprintf(out, len, "exec_%016" PRIx64, r);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* ---- finishing */

static const char *signal_text(int sig)
{
	switch (sig) {
	case SIGSYS:
		return "the seccomp filter killed the worker (SIGSYS): the script's engine made a "
		       "forbidden system call";
	case SIGKILL: return "the worker was killed (SIGKILL)";
	case SIGSEGV: return "the worker crashed (SIGSEGV)";
	case SIGBUS: return "the worker crashed (SIGBUS)";
	case SIGABRT: return "the worker aborted (SIGABRT)";
	default: return NULL;
	}
}

static json_t *error_obj(const char *kind, const char *message)
{
	return json_pack("{s:s, s:s}", "kind", kind, "message", message);
}

/* Decides state and error from how the execution ended. Returns the state;
 * *error gets a new reference or NULL. */
static const char *verdict(struct exec *e, json_t **error)
{
	char msg[256];
	*error = NULL;
	/* A result sent before the timer fired is a finished script. */
	enum kill_reason killed = e->killed;
	if (killed == KILL_TIMEOUT && e->have_result)
		killed = KILL_NONE;
	switch (killed) {
	case KILL_TIMEOUT:
		snprintf(msg, sizeof msg,
			 "the script ran longer than its timeout of %" PRIu64 " ms", e->timeout_ms);
		*error = error_obj("timeout", msg);
		return "timeout";
	case KILL_OUTPUT:
		snprintf(msg, sizeof msg,
			 "the script wrote more than its output limit of %" PRIu64
			 " bytes; output up to the limit is kept",
			 e->output_bytes);
		*error = error_obj("output_limit", msg);
		return "failed";
	case KILL_CANCEL:
		*error = error_obj("cancelled", "the execution was cancelled");
		return "cancelled";
	case KILL_SHUTDOWN:
		*error = error_obj("cancelled", "the daemon shut down before the script finished");
		return "cancelled";
	case KILL_PROTOCOL:
		*error = error_obj("sandbox",
				   "the worker broke the control protocol and was killed");
		return "failed";
	case KILL_NONE: break;
	}
	if (e->have_result) {
		if (e->result.ok)
			return "completed";
		*error = json_incref(e->result.error);
		return "failed";
	}
	if (e->status.si_code == CLD_KILLED || e->status.si_code == CLD_DUMPED) {
		int sig = e->status.si_status;
		if (sig == SIGXCPU) {
			*error = error_obj("timeout", "the script used up its CPU time limit");
			return "timeout";
		}
		const char *text = signal_text(sig);
		if (!text) {
			snprintf(msg, sizeof msg, "the worker died of signal %d (%s)", sig,
				 strsignal(sig));
			text = msg;
		}
		*error = error_obj("sandbox", text);
		return "failed";
	}
	int code = e->status.si_status;
	if (code == CTL_EXIT_MEMORY) {
		*error = error_obj("memory", "out of memory: the script exceeded its memory limit "
					     "(memory_bytes)");
	} else if (code == CTL_EXIT_FATAL) {
		*error = error_obj("sandbox", "the engine stopped with a fatal error");
	} else if (code == CTL_EXIT_CONFINE) {
		*error = error_obj("sandbox", "the worker could not be confined, so nothing ran");
	} else {
		snprintf(msg, sizeof msg, "the worker exited with status %d without a result",
			 code);
		*error = error_obj("sandbox", msg);
	}
	return "failed";
}

static uint64_t tv_ms(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

static void add_string(json_t *reply, const char *key, const struct buf *b)
{
	json_object_set_new(reply, key, json_stringn(b->data ? buf_peek(b) : "", buf_len(b)));
}

static json_t *final_reply(struct exec *e, const char **state_out)
{
	json_t *error;
	const char *state = verdict(e, &error);
	bool success = strcmp(state, "completed") == 0;
	json_t *r = msg_reply_ok(e->req_id);
	json_object_set_new(r, "execution_id", json_string(e->id));
	json_object_set_new(r, "state", json_string(state));
	json_object_set_new(r, "success", json_boolean(success));
	if (success && e->result.value)
		json_object_set(r, "value", e->result.value);
	if (!e->stream) {
		add_string(r, "stdout", &e->out[OUT]);
		add_string(r, "stderr", &e->out[ERR]);
	}
	if (error)
		json_object_set_new(r, "error", error);
	uint64_t end = e->t_end_us ? e->t_end_us : loop_clock_us();
	uint64_t elapsed = e->t_start_us ? (end - e->t_start_us) / 1000u : 0;
	json_object_set_new(r, "execution_time_ms", json_integer((json_int_t)elapsed));
	json_object_set_new(
		r, "cpu_time_ms",
		json_integer((json_int_t)(tv_ms(e->ru.ru_utime) + tv_ms(e->ru.ru_stime))));
	json_object_set_new(r, "memory_peak_bytes",
			    json_integer((json_int_t)e->ru.ru_maxrss * 1024));
	*state_out = state;
	return r;
}

static void release(struct exec *e)
{
	loop_timer_cancel(&e->timer);
	loop_del(&e->w_pid);
	loop_del(&e->w_ctl);
	loop_del(&e->w_pipe[OUT]);
	loop_del(&e->w_pipe[ERR]);
	close_fd(&e->pidfd);
	close_fd(&e->ctl_fd);
	close_fd(&e->pipe_fd[OUT]);
	close_fd(&e->pipe_fd[ERR]);
	if (e->conn)
		conn_unsubscribe(e->conn, &e->sub);
	list_del(&e->link);
	live_count--;
	buf_free(&e->ctl_out);
	buf_free(&e->ctl_in);
	buf_free(&e->out[OUT]);
	buf_free(&e->out[ERR]);
	json_decref(e->result.error);
	json_decref(e->result_root);
	json_decref(e->root);
	free(e);
}

/* Sends the final reply and frees e. Gives the worker slot back if e
 * held one. */
static void finish(struct exec *e)
{
	bool had_slot = e->phase != PHASE_QUEUED;
	const char *state;
	json_t *reply = final_reply(e, &state);
	if (e->conn)
		conn_send(e->conn, reply);
	log_info("%s %s in %lld ms (pid %d, conn %lu%s)", e->id, state,
		 (long long)json_integer_value(json_object_get(reply, "execution_time_ms")),
		 (int)e->pid, e->conn ? conn_serial(e->conn) : 0, e->conn ? "" : ", client gone");
	json_decref(reply);
	release(e);
	if (had_slot)
		sched_release();
}

/* Ends an execution that never got a worker with an error reply instead
 * of execution fields. */
static void refuse(struct exec *e, enum status code, const char *message)
{
	bool had_slot = e->phase != PHASE_QUEUED;
	if (e->conn) {
		json_t *r = msg_reply_error(e->req_id, code, message);
		conn_send(e->conn, r);
		json_decref(r);
	}
	log_info("%s refused: %s", e->id, message);
	release(e);
	if (had_slot)
		sched_release();
}

static void maybe_finish(struct exec *e)
{
	if (e->reaped && e->ctl_fd < 0 && e->pipe_fd[OUT] < 0 && e->pipe_fd[ERR] < 0)
		finish(e);
}

static void on_settle(struct loop_timer *t)
{
	struct exec *e = container_of(t, struct exec, timer);
	/* Stop waiting for EOFs that are not coming; the reap still decides. */
	loop_del(&e->w_ctl);
	loop_del(&e->w_pipe[OUT]);
	loop_del(&e->w_pipe[ERR]);
	close_fd(&e->ctl_fd);
	close_fd(&e->pipe_fd[OUT]);
	close_fd(&e->pipe_fd[ERR]);
	maybe_finish(e);
}

static void kill_exec(struct exec *e, enum kill_reason why)
{
	if (e->killed == KILL_NONE)
		e->killed = why;
	switch (e->phase) {
	case PHASE_QUEUED:
		sched_remove(&e->sched);
		finish(e);
		return;
	case PHASE_SPAWNING: return; /* killed as soon as the pid is known */
	case PHASE_RUNNING:
		if (e->reaped)
			return;
		/* The pidfd names this process only: a recycled pid is never hit. */
		if (pidfd_send_signal(e->pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
			log_err("%s: pidfd_send_signal: %s", e->id, strerror(errno));
		loop_timer_set(&e->timer, KILL_SETTLE_MS, on_settle);
		return;
	}
}

/* ---- output relaying */

static void set_paused(struct exec *e, bool paused)
{
	e->paused = paused;
	for (int i = 0; i < 2; i++)
		loop_mod(&e->w_pipe[i], paused ? 0 : EPOLLIN);
}

/* Takes n raw bytes of stream i: caps them, makes them UTF-8, keeps them
 * (execute) or sends them as an event (stream). */
static void take_output(struct exec *e, int i, const char *data, size_t n, bool eof)
{
	if (e->killed == KILL_OUTPUT)
		return; /* past the cap: drained and dropped */
	if (n > e->output_bytes - e->output_total) {
		n = (size_t)(e->output_bytes - e->output_total);
		kill_exec(e, KILL_OUTPUT);
		eof = true; /* nothing more of this stream will be kept */
	}
	e->output_total += n;

	char joined[4 + LIMIT_PIPE_READ_BYTES];
	size_t len = e->carry_len[i];
	memcpy(joined, e->carry[i], len);
	if (n)
		memcpy(joined + len, data, n);
	len += n;
	struct buf fresh = BUF_INIT;
	struct buf *dst = e->stream ? &fresh : &e->out[i];
	size_t before = buf_len(dst);
	size_t used = utf8_sanitize(dst, joined, len, eof);
	if (used == (size_t)-1) {
		log_err("%s: out of memory relaying output", e->id);
		used = len;
	}
	e->carry_len[i] = len - used;
	memcpy(e->carry[i], joined + used, e->carry_len[i]);

	if (e->stream && e->conn && buf_len(dst) > before) {
		json_t *ev = msg_event(e->req_id, "output");
		json_object_set_new(ev, "execution_id", json_string(e->id));
		json_object_set_new(ev, "stream", json_string(i == OUT ? "stdout" : "stderr"));
		json_object_set_new(ev, "data", json_stringn(buf_peek(dst), buf_len(dst)));
		json_object_set_new(ev, "ts_ms", json_integer((json_int_t)loop_wall_ms()));
		conn_send(e->conn, ev);
		json_decref(ev);
		if (conn_backlogged(e->conn))
			set_paused(e, true);
	}
	buf_free(&fresh);
}

static void on_pipe(struct exec *e, int i)
{
	char data[LIMIT_PIPE_READ_BYTES];
	ssize_t n = read(e->pipe_fd[i], data, sizeof data);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		take_output(e, i, data, (size_t)n, false);
		return;
	}
	take_output(e, i, NULL, 0, true); /* a split character at EOF is bad */
	loop_del(&e->w_pipe[i]);
	close_fd(&e->pipe_fd[i]);
	maybe_finish(e);
}

static void on_stdout(struct loop_watch *w, uint32_t ev)
{
	(void)ev;
	on_pipe(container_of(w, struct exec, w_pipe[OUT]), OUT);
}

static void on_stderr(struct loop_watch *w, uint32_t ev)
{
	(void)ev;
	on_pipe(container_of(w, struct exec, w_pipe[ERR]), ERR);
}

/* ---- control channel */

static void ctl_closed(struct exec *e)
{
	loop_del(&e->w_ctl);
	close_fd(&e->ctl_fd);
	maybe_finish(e);
}

static void ctl_frames(struct exec *e)
{
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st = frame_next(&e->ctl_dec, buf_peek(&e->ctl_in),
						  buf_len(&e->ctl_in), &payload, &plen, &used);
		if (st == FRAME_MORE)
			return;
		const char *why = frame_status_str(st);
		if (st == FRAME_OK && !e->have_result) {
			e->result_root = ctl_result_parse(payload, plen, &e->result, &why);
			e->have_result = e->result_root != NULL;
			buf_consume(&e->ctl_in, used);
			if (e->have_result)
				continue;
		}
		log_warn("%s: worker sent a bad control frame (%s)", e->id, why);
		kill_exec(e, KILL_PROTOCOL);
		buf_clear(&e->ctl_in);
		return;
	}
}

/* Sends what is left of the job; the socket buffer usually takes it all
 * at once, so this is tried before waiting for EPOLLOUT. */
static void ctl_flush(struct exec *e)
{
	while (buf_len(&e->ctl_out)) {
		ssize_t n =
			send(e->ctl_fd, buf_peek(&e->ctl_out), buf_len(&e->ctl_out), MSG_NOSIGNAL);
		if (n > 0) {
			buf_consume(&e->ctl_out, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			buf_clear(&e->ctl_out); /* the worker is gone; its exit tells why */
		break;
	}
	loop_mod(&e->w_ctl, EPOLLIN | (buf_len(&e->ctl_out) ? EPOLLOUT : 0));
}

static void on_ctl(struct loop_watch *w, uint32_t events)
{
	struct exec *e = container_of(w, struct exec, w_ctl);
	if (events & EPOLLOUT)
		ctl_flush(e);
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	char *dst = buf_reserve(&e->ctl_in, 65536);
	ssize_t n = dst ? recv(e->ctl_fd, dst, 65536, 0) : -1;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		ctl_closed(e);
		return;
	}
	buf_commit(&e->ctl_in, (size_t)n);
	if (e->killed != KILL_PROTOCOL)
		ctl_frames(e);
	else
		buf_clear(&e->ctl_in);
}

/* ---- worker process */

static void on_exit_ready(struct loop_watch *w, uint32_t events)
{
	(void)events;
	struct exec *e = container_of(w, struct exec, w_pid);
	memset(&e->status, 0, sizeof e->status);
	/* The raw syscall returns the rusage that glibc's waitid drops. */
	long rc = syscall(SYS_waitid, P_PIDFD, e->pidfd, &e->status, WEXITED | WNOHANG, &e->ru);
	if (rc < 0 && errno == EINTR)
		return;
	if (rc == 0 && e->status.si_pid == 0)
		return; /* not yet */
	if (rc < 0)
		log_err("%s: waitid: %s", e->id, strerror(errno));
	e->reaped = true;
	e->t_end_us = loop_clock_us();
	loop_del(&e->w_pid);
	close_fd(&e->pidfd);
	maybe_finish(e);
}

static void on_spawned(void *arg, pid_t pid, int err)
{
	struct exec *e = arg;
	if (pid < 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "could not start a worker: %s", strerror(err));
		log_err("%s: %s", e->id, msg);
		refuse(e, STATUS_UNAVAILABLE, msg);
		return;
	}
	e->pid = pid;
	e->phase = PHASE_RUNNING;
	/* pid is our unreaped child, so it cannot have been recycled yet. */
	e->pidfd = pidfd_open(pid, 0);
	if (e->pidfd < 0 || loop_add(&e->w_pid, e->pidfd, EPOLLIN, on_exit_ready) < 0) {
		log_err("%s: cannot watch worker %d: %s", e->id, (int)pid, strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_fd(&e->pidfd);
		e->reaped = true;
		e->t_end_us = loop_clock_us();
		kill_exec(e, KILL_PROTOCOL);
		maybe_finish(e);
		return;
	}
	if (e->killed)
		kill_exec(e, e->killed);
}

static void on_timeout(struct loop_timer *t)
{
	kill_exec(container_of(t, struct exec, timer), KILL_TIMEOUT);
}

/* Builds the job frame the worker reads first. */
static int encode_job(struct exec *e)
{
	json_t *job = json_object();
	json_object_set_new(job, "code", json_stringn(e->code, e->code_len));
	int rc = msg_encode(&e->ctl_out, FRAME_MODE_BINARY, job);
	json_decref(job);
	return rc;
}

static void on_start(struct sched_entry *s)
{
	struct exec *e = container_of(s, struct exec, sched);
	int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
	e->phase = PHASE_SPAWNING;
	e->t_start_us = loop_clock_us();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || encode_job(e) < 0) {
		int err = errno;
		int fds[] = {sv[0], sv[1], po[0], po[1], pe[0], pe[1]};
		for (size_t i = 0; i < 6; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		on_spawned(e, -1, err ? err : ENOMEM);
		return;
	}
	e->ctl_fd = sv[0];
	e->pipe_fd[OUT] = po[0];
	e->pipe_fd[ERR] = pe[0];
	set_nonblock(e->ctl_fd);
	set_nonblock(e->pipe_fd[OUT]);
	set_nonblock(e->pipe_fd[ERR]);
	loop_add(&e->w_ctl, e->ctl_fd, EPOLLIN, on_ctl);
	ctl_flush(e);
	loop_add(&e->w_pipe[OUT], e->pipe_fd[OUT], e->paused ? 0 : EPOLLIN, on_stdout);
	loop_add(&e->w_pipe[ERR], e->pipe_fd[ERR], e->paused ? 0 : EPOLLIN, on_stderr);
	/* The timeout counts from here, not from when the request queued. */
	loop_timer_set(&e->timer, e->timeout_ms, on_timeout);
	int child[FORKSERVER_FDS] = {sv[1], po[1], pe[1]};
	if (spawn_worker(e->memory_bytes, e->timeout_ms, child, on_spawned, e) < 0)
		on_spawned(e, -1, shutting_down ? ESHUTDOWN : ENOMEM);
}

/* ---- the client */

static void on_conn_gone(struct conn_sub *s)
{
	struct exec *e = container_of(s, struct exec, sub);
	e->conn = NULL;
	if (e->paused)
		set_paused(e, false); /* drain and drop */
	kill_exec(e, KILL_CANCEL);
}

static void on_conn_drained(struct conn_sub *s)
{
	struct exec *e = container_of(s, struct exec, sub);
	if (e->paused)
		set_paused(e, false);
}

static const struct conn_sub_ops sub_ops = {on_conn_gone, on_conn_drained};

void exec_submit(struct conn *c, json_t *root, const struct request *req)
{
	if (shutting_down) {
		json_t *r =
			msg_reply_error(req->id, STATUS_UNAVAILABLE, "the daemon is shutting down");
		conn_send(c, r);
		json_decref(r);
		return;
	}
	struct exec *e = calloc(1, sizeof *e);
	if (!e) {
		json_t *r = msg_reply_error(req->id, STATUS_RESOURCE_EXHAUSTED, "out of memory");
		conn_send(c, r);
		json_decref(r);
		return;
	}
	e->root = json_incref(root);
	e->req_id = req->id;
	e->conn = c;
	e->stream = req->op == OP_STREAM;
	e->code = req->code;
	e->code_len = req->code_len;
	e->timeout_ms = req->timeout_ms;
	e->memory_bytes = req->memory_bytes;
	e->output_bytes = req->output_bytes;
	e->pid = -1;
	e->pidfd = e->ctl_fd = e->pipe_fd[OUT] = e->pipe_fd[ERR] = -1;
	e->w_pid = e->w_ctl = e->w_pipe[OUT] = e->w_pipe[ERR] = (struct loop_watch)LOOP_WATCH_INIT;
	e->timer = (struct loop_timer)LOOP_TIMER_INIT;
	frame_decoder_init(&e->ctl_dec, FRAME_MODE_BINARY, CTL_RESULT_BYTES);
	make_id(e->id, sizeof e->id);
	e->sub.ops = &sub_ops;
	e->phase = PHASE_QUEUED;
	list_add_tail(&live, &e->link);
	live_count++;
	conn_subscribe(c, &e->sub);
	e->paused = e->stream && conn_backlogged(c);
	if (sched_submit(&e->sched) < 0) {
		char msg[96];
		snprintf(msg, sizeof msg, "the execution queue is full (%u waiting)",
			 sched_queued());
		refuse(e, STATUS_RESOURCE_EXHAUSTED, msg);
		return;
	}
	total++;
}

void exec_shutdown(void)
{
	shutting_down = true;
	struct sched_entry *s;
	while ((s = sched_first_queued()) != NULL) {
		struct exec *e = container_of(s, struct exec, sched);
		sched_remove(s);
		refuse(e, STATUS_UNAVAILABLE, "the daemon is shutting down");
	}
}

void exec_kill_all(void)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &live)
		kill_exec(container_of(n, struct exec, link), KILL_SHUTDOWN);
}

void exec_init(unsigned max_workers, unsigned queue_max)
{
	sched_init(max_workers, queue_max, on_start);
}
