/*
 * run.c - the worker process of one execution: its start through the
 * forkserver, the relaying of its stdout and stderr, the control channel,
 * the timeout and output cap (SIGKILL through a pidfd), its reaping with
 * rusage, and the verdict on how it ended. See exec_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/utf8.h"
#include "exec_int.h"
#include "log.h"
#include "spawn.h"

/* After SIGKILL a worker's pipes reach EOF at once; this only bounds the
 * wait should something else still hold them. */
#define KILL_SETTLE_MS 5000u

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* ---- how it ended */

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

enum exec_state run_verdict(struct exec *e, json_t **error)
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
		return STATE_TIMEOUT;
	case KILL_OUTPUT:
		snprintf(msg, sizeof msg,
			 "the script wrote more than its output limit of %" PRIu64
			 " bytes; output up to the limit is kept",
			 e->output_bytes);
		*error = error_obj("output_limit", msg);
		return STATE_FAILED;
	case KILL_CANCEL:
		*error = error_obj("cancelled", "the execution was cancelled");
		return STATE_CANCELLED;
	case KILL_SHUTDOWN:
		*error = error_obj("cancelled", "the daemon shut down before the script finished");
		return STATE_CANCELLED;
	case KILL_PROTOCOL:
		*error = error_obj("sandbox",
				   "the worker broke the control protocol and was killed");
		return STATE_FAILED;
	case KILL_NOMEM:
		*error = error_obj("sandbox", "the daemon ran out of memory keeping the script's "
					      "output or messages; the worker was killed");
		return STATE_FAILED;
	case KILL_NONE: break;
	}
	if (e->spawn_err) {
		snprintf(msg, sizeof msg, "could not start a worker: %s", strerror(e->spawn_err));
		*error = error_obj("sandbox", msg);
		return STATE_FAILED;
	}
	if (e->have_result) {
		if (e->result.ok)
			return STATE_COMPLETED;
		*error = json_incref(e->result.error);
		const char *kind = json_string_value(json_object_get(*error, "kind"));
		return kind && strcmp(kind, "timeout") == 0 ? STATE_TIMEOUT : STATE_FAILED;
	}
	if (e->status.si_code == CLD_KILLED || e->status.si_code == CLD_DUMPED) {
		int sig = e->status.si_status;
		if (sig == SIGXCPU) {
			*error = error_obj("timeout", "the script used up its CPU time limit");
			return STATE_TIMEOUT;
		}
		const char *text = signal_text(sig);
		if (!text) {
			snprintf(msg, sizeof msg, "the worker died of signal %d (%s)", sig,
				 strsignal(sig));
			text = msg;
		}
		*error = error_obj("sandbox", text);
		return STATE_FAILED;
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
	return STATE_FAILED;
}

void run_release(struct exec *e)
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
	buf_free(&e->ctl_out);
	buf_free(&e->ctl_in);
}

/* Ended once reaped and every pipe has reached its end. */
static void maybe_ended(struct exec *e)
{
	if (e->phase == PHASE_RUNNING && e->reaped && e->ctl_fd < 0 && e->pipe_fd[OUT] < 0 &&
	    e->pipe_fd[ERR] < 0)
		exec_ended(e);
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
	maybe_ended(e);
}

void run_kill(struct exec *e, enum kill_reason why)
{
	if (e->killed == KILL_NONE)
		e->killed = why;
	if (e->phase != PHASE_RUNNING || e->reaped || e->pidfd < 0)
		return; /* a worker still spawning is killed as soon as it exists */
	/* The pidfd names this process only: a recycled pid is never hit. */
	if (pidfd_send_signal(e->pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
		log_err("%s: pidfd_send_signal: %s", e->reg.id, strerror(errno));
	/* Without the settle timer the reap and the pipes' EOFs still end
	 * the execution; only a pipe held open elsewhere would keep it. */
	if (loop_timer_set(&e->timer, KILL_SETTLE_MS, on_settle) < 0)
		log_err("%s: cannot arm the settle timer (out of memory)", e->reg.id);
}

/* ---- output */

void run_pause(struct exec *e, bool paused)
{
	e->paused = paused;
	for (int i = 0; i < 2; i++)
		loop_mod(&e->w_pipe[i], paused ? 0 : EPOLLIN);
}

/* Takes n raw bytes of stream i: caps them and appends them as UTF-8. */
static void take_output(struct exec *e, int i, const char *data, size_t n, bool eof)
{
	if (e->killed == KILL_OUTPUT)
		return; /* past the cap: drained and dropped */
	if (n > e->output_bytes - e->output_total) {
		n = (size_t)(e->output_bytes - e->output_total);
		run_kill(e, KILL_OUTPUT);
		eof = true; /* nothing more of this stream will be kept */
	}
	e->output_total += n;

	char joined[4 + LIMIT_PIPE_READ_BYTES];
	size_t len = e->carry_len[i];
	memcpy(joined, e->carry[i], len);
	if (n)
		memcpy(joined + len, data, n);
	len += n;
	size_t before = buf_len(&e->out[i]);
	size_t used = utf8_sanitize(&e->out[i], joined, len, eof);
	if (used == (size_t)-1) {
		/* Output that cannot be kept is not dropped in silence. */
		log_err("%s: out of memory relaying output", e->reg.id);
		run_kill(e, KILL_NOMEM);
		used = len;
	}
	e->carry_len[i] = len - used;
	memcpy(e->carry[i], joined + used, e->carry_len[i]);
	if (buf_len(&e->out[i]) > before)
		exec_output_added(e, i, before);
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
	maybe_ended(e);
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

static void ctl_flush(struct exec *e);

static bool declared(const struct exec *e, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach (e->tools, i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return true;
	return false;
}

/* A tool call from the worker (m borrowed). NULL when it is in order,
 * else why it breaks the protocol. */
static const char *tool_call_frame(struct exec *e, json_t *m)
{
	json_t *id = json_object_get(m, "call_id");
	const char *name = json_string_value(json_object_get(m, "name"));
	json_t *args = json_object_get(m, "args");
	if (!json_is_integer(id) || json_integer_value(id) != e->last_call + 1 || !name ||
	    !declared(e, name) || !args || e->pending_call)
		return "a tool call out of order, or of an undeclared tool";
	exec_tool_call(e, json_integer_value(id), name, args);
	return NULL;
}

void run_send(struct exec *e, json_t *msg)
{
	if (e->ctl_fd < 0)
		return;
	if (msg_encode(&e->ctl_out, FRAME_MODE_BINARY, msg) < 0) {
		log_err("%s: out of memory answering the worker", e->reg.id);
		run_kill(e, KILL_NOMEM);
		return;
	}
	ctl_flush(e);
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
			/* A frame read while memory ran out may have lost parts. */
			unsigned long oom = msg_alloc_failures();
			json_t *m = json_loadb(payload, plen, JSON_REJECT_DUPLICATES, NULL);
			buf_consume(&e->ctl_in, used);
			if (msg_alloc_failures() != oom) {
				json_decref(m);
				log_err("%s: out of memory reading the worker's messages",
					e->reg.id);
				run_kill(e, KILL_NOMEM);
				buf_clear(&e->ctl_in);
				return;
			}
			const char *type = json_string_value(json_object_get(m, "type"));
			if (type && strcmp(type, "tool_call") == 0) {
				why = tool_call_frame(e, m);
				json_decref(m);
				if (!why)
					continue;
			} else {
				e->result_root = ctl_result_take(m, &e->result, &why);
				e->have_result = e->result_root != NULL;
				if (e->have_result && msg_alloc_failures() != oom) {
					json_decref(e->result_root);
					json_decref(e->result.error);
					json_decref(e->result.test);
					json_decref(e->result.store_writes);
					memset(&e->result, 0, sizeof e->result);
					e->result.heap_peak = -1;
					e->result_root = NULL;
					e->have_result = false;
					log_err("%s: out of memory reading the worker's result",
						e->reg.id);
					run_kill(e, KILL_NOMEM);
					buf_clear(&e->ctl_in);
					return;
				}
				if (e->have_result)
					continue;
			}
		}
		log_warn("%s: worker sent a bad control frame (%s)", e->reg.id, why);
		run_kill(e, KILL_PROTOCOL);
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
	if (!dst) {
		log_err("%s: out of memory reading the worker's messages", e->reg.id);
		run_kill(e, KILL_NOMEM);
	}
	ssize_t n = dst ? recv(e->ctl_fd, dst, 65536, 0) : -1;
	if (dst && n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_del(&e->w_ctl);
		close_fd(&e->ctl_fd);
		maybe_ended(e);
		return;
	}
	buf_commit(&e->ctl_in, (size_t)n);
	if (e->killed != KILL_PROTOCOL)
		ctl_frames(e);
	else
		buf_clear(&e->ctl_in);
}

/* ---- the process */

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
		log_err("%s: waitid: %s", e->reg.id, strerror(errno));
	e->reaped = true;
	e->t_end_us = loop_clock_us();
	loop_del(&e->w_pid);
	close_fd(&e->pidfd);
	maybe_ended(e);
}

/* The worker could not be had: end without one. */
static void no_worker(struct exec *e, int err)
{
	log_err("%s: could not start a worker: %s", e->reg.id, strerror(err));
	e->spawn_err = err;
	e->phase = PHASE_RUNNING;
	e->reaped = true;
	e->t_end_us = loop_clock_us();
	run_release(e);
	maybe_ended(e);
}

static void on_spawned(void *arg, pid_t pid, int err)
{
	struct exec *e = arg;
	if (pid < 0) {
		no_worker(e, err);
		return;
	}
	e->pid = pid;
	e->phase = PHASE_RUNNING;
	/* pid is our unreaped child, so it cannot have been recycled yet. */
	e->pidfd = pidfd_open(pid, 0);
	if (e->pidfd < 0 || loop_add(&e->w_pid, e->pidfd, EPOLLIN, on_exit_ready) < 0) {
		log_err("%s: cannot watch worker %d: %s", e->reg.id, (int)pid, strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_fd(&e->pidfd);
		e->reaped = true;
		e->t_end_us = loop_clock_us();
		e->killed = e->killed ? e->killed : KILL_PROTOCOL;
		maybe_ended(e);
		return;
	}
	if (e->killed)
		run_kill(e, e->killed);
}

static void on_timeout(struct loop_timer *t)
{
	run_kill(container_of(t, struct exec, timer), KILL_TIMEOUT);
}

/* The job frame the worker reads first. */
static int encode_job(struct exec *e)
{
	/* A job that lost a member to a failed allocation would run
	 * something else than was asked (tests without their code). */
	unsigned long oom = msg_alloc_failures();
	json_t *job = json_object();
	if (e->mode == EXEC_TEST) {
		if (e->code)
			json_object_set_new(job, "code", json_stringn(e->code, e->code_len));
		json_object_set_new(job, "tests", json_stringn(e->tests, e->tests_len));
	} else {
		/* The options line becomes an empty line: line numbers hold. */
		json_object_set_new(
			job, "code",
			json_stringn(e->code + e->options_len, e->code_len - e->options_len));
	}
	json_t *names = json_array();
	size_t i;
	json_t *t;
	json_array_foreach (e->tools, i, t)
		json_array_append(names, json_object_get(t, "name"));
	json_object_set_new(job, "tools", names);
	if (e->store)
		json_object_set(job, "store", e->store);
	json_object_set_new(job, "memory_bytes", json_integer((json_int_t)e->memory_bytes));
	json_object_set_new(job, "max_cpu_ms", json_integer((json_int_t)e->max_cpu_ms));
	if (e->language)
		json_object_set_new(job, "language", json_string(e->language));
	int rc = job && msg_alloc_failures() == oom
			 ? msg_encode(&e->ctl_out, FRAME_MODE_BINARY, job)
			 : -1;
	json_decref(job);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

void run_start(struct exec *e)
{
	int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
	e->phase = PHASE_SPAWNING;
	e->t_start_us = loop_clock_us();
	frame_decoder_init(&e->ctl_dec, FRAME_MODE_BINARY, CTL_RESULT_BYTES);
	/* The timeout counts from here, not from when the request queued; a
	 * worker is only started with its timeout armed. */
	if (loop_timer_set(&e->timer, e->timeout_ms, on_timeout) < 0) {
		no_worker(e, ENOMEM);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || encode_job(e) < 0) {
		int err = errno ? errno : ENOMEM;
		int fds[] = {sv[0], sv[1], po[0], po[1], pe[0], pe[1]};
		for (size_t i = 0; i < 6; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		no_worker(e, err);
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
	int child[FORKSERVER_FDS] = {sv[1], po[1], pe[1]};
	if (spawn_worker(e->memory_bytes, e->timeout_ms, child, on_spawned, e) < 0)
		no_worker(e, ESHUTDOWN);
}
