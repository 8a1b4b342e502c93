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

#include "../protocol/jsonv.h"
#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../protocol/utf8.h"
#include "exec_int.h"
#include "log.h"
#include "parse.h"
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
		snprintf(msg, sizeof msg,
			 "the worker broke the control protocol and was killed (%s)",
			 e->kill_why ? e->kill_why : "a bad control frame");
		*error = error_obj("sandbox", msg);
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
	if (e->value_problem[0]) {
		*error = error_obj("script", e->value_problem);
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
	/* No result frame: the exit status is only what the worker claims, so
	 * it never picks the kind; the message says what was claimed. */
	int code = e->status.si_status;
	const char *claim = code == CTL_EXIT_MEMORY	? " (it claimed to be out of memory)"
			    : code == CTL_EXIT_FATAL	? " (it claimed a fatal engine error)"
			    : code == CTL_EXIT_CONFINE	? " (it claimed it could not be confined)"
			    : code == CTL_EXIT_PROTOCOL ? " (it claimed a control channel failure)"
							: "";
	snprintf(msg, sizeof msg, "the worker exited with status %d without a valid result%s", code,
		 claim);
	*error = error_obj("sandbox", msg);
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
	if (e->job_streaming)
		msg_stream_free(&e->job);
	e->job_streaming = false;
	buf_free(&e->ctl_text);
	free(e->ctl_v);
	e->ctl_v = NULL;
}

/* Ended once reaped and every pipe has reached its end. */
static void maybe_ended(struct exec *e)
{
	if (e->phase == PHASE_RUNNING && e->reaped && e->ctl_fd < 0 && e->pipe_fd[OUT] < 0 &&
	    e->pipe_fd[ERR] < 0 && !e->ctl_job)
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
	/* The cap holds for what is kept too: invalid bytes a subverted
	 * worker sends become U+FFFD, three bytes each. Cut at a character. */
	size_t kept = buf_len(&e->out[OUT]) + buf_len(&e->out[ERR]);
	if (kept > e->output_bytes) {
		size_t over = kept - (size_t)e->output_bytes, at = buf_len(&e->out[i]);
		at = over < at - before ? at - over : before;
		const unsigned char *p = (const unsigned char *)buf_peek(&e->out[i]);
		while (at > before && (p[at] & 0xC0) == 0x80)
			at--;
		e->out[i].end = e->out[i].start + at;
		e->carry_len[i] = 0;
		if (e->killed != KILL_OUTPUT)
			run_kill(e, KILL_OUTPUT);
	}
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
	json_array_foreach (e->tool_names, i, t)
		if (strcmp(json_string_value(t), name) == 0)
			return true;
	return false;
}

static void kill_protocol(struct exec *e, const char *why)
{
	log_warn("%s: worker broke the control protocol (%s)", e->reg.id, why);
	if (!e->kill_why)
		e->kill_why = why;
	run_kill(e, KILL_PROTOCOL);
}

void run_send(struct exec *e, json_t *msg) { run_send_raw(e, msg, NULL, 0); }

void run_send_raw(struct exec *e, json_t *msg, const char *members, size_t len)
{
	if (e->ctl_fd < 0)
		return;
	if (e->job_streaming) {
		/* It asked before it read its whole job. */
		kill_protocol(e, "it sent a request before reading its job");
		return;
	}
	/* An honest worker reads each answer before it asks again, so
	 * answers never pile up; a worker that does not read is cut off. */
	if (buf_len(&e->ctl_out) > LIMIT_CTL_BACKLOG_BYTES) {
		kill_protocol(e, "it does not read its answers");
		buf_free(&e->ctl_out);
		return;
	}
	if (msg_encode_raw(&e->ctl_out, FRAME_MODE_BINARY, msg, members, len) < 0) {
		log_err("%s: out of memory answering the worker", e->reg.id);
		run_kill(e, KILL_NOMEM);
		return;
	}
	ctl_flush(e);
}

static void on_ctl(struct loop_watch *w, uint32_t events);

/* Watches the control channel for what it is waiting on now: reading,
 * unless a result is being checked off the loop or the client is held
 * (ctl_held); writing while answers or the job are unsent. No events at
 * all takes the fd out of epoll, where a hang-up would otherwise be
 * reported over and over. */
static void ctl_watch(struct exec *e)
{
	if (e->ctl_fd < 0)
		return;
	uint32_t ev = (e->ctl_job || e->ctl_held ? 0 : EPOLLIN) |
		      (buf_len(&e->ctl_out) || e->job_streaming ? EPOLLOUT : 0);
	if (!ev) {
		loop_del(&e->w_ctl);
	} else if (e->w_ctl.fd < 0) {
		if (loop_add(&e->w_ctl, e->ctl_fd, ev, on_ctl) < 0) {
			/* Cannot wait on it: its end is taken as reached. */
			log_err("%s: cannot watch the control channel: %s", e->reg.id,
				strerror(errno));
			close_fd(&e->ctl_fd);
			run_kill(e, KILL_NOMEM);
			maybe_ended(e);
		}
	} else {
		loop_mod(&e->w_ctl, ev);
	}
}

/* Acts on a frame checked (rc and m from ctl_parse_compact; why set
 * already when it failed before that), then readies for the next. */
static void ctl_frame_parsed(struct exec *e, int rc, struct ctl_msg *m, const char *why)
{
	if (!why && rc == 0) {
		if (m->type == CTL_RESULT) {
			e->result = *m;
			e->have_result = true;
			if (m->value) {
				/* The frame's text is kept as it is: its value is
				 * never copied. */
				e->result_text = e->ctl_text;
				e->ctl_text = (struct buf)BUF_INIT;
			}
		} else if (m->call_id != e->last_call + 1 || !declared(e, m->name) ||
			   e->pending_call) {
			why = "a tool call out of order, or of an undeclared tool";
			ctl_msg_clear(m);
		} else {
			exec_tool_call(e, m->call_id, m->name, m->args, m->args_len);
			m->args = NULL; /* exec_tool_call took it */
			ctl_msg_clear(m);
		}
	}
	/* A big frame's buffer is not kept for the next one. */
	if (e->ctl_text.cap > 65536)
		buf_free(&e->ctl_text);
	else
		buf_clear(&e->ctl_text);
	if (why)
		kill_protocol(e, why);
}

/* On the parser thread: checks the result frame in e->ctl_text, which the
 * loop leaves alone until ctl_parsed. */
static void ctl_parse_work(struct parse_job *j)
{
	struct exec *e = j->arg;
	e->ctl_rc = ctl_parse_compact(e->ctl_v, buf_peek(&e->ctl_text), buf_len(&e->ctl_text),
				      CTL_BORROW_VALUE, &e->ctl_m, &e->ctl_why);
}

/* In the loop: the result frame's check is back. The channel is read
 * again; an end that came meanwhile (the reap, a kill) now completes the
 * execution. */
static void ctl_parsed(struct parse_job *j)
{
	struct exec *e = j->arg;
	e->ctl_job = NULL;
	struct ctl_msg m = e->ctl_m;
	memset(&e->ctl_m, 0, sizeof e->ctl_m);
	ctl_frame_parsed(e, e->ctl_rc, &m, e->ctl_rc == 0 ? NULL : e->ctl_why);
	if (e->ctl_after && e->killed != KILL_PROTOCOL)
		kill_protocol(e, "a frame after the result");
	e->ctl_after = false;
	if (e->ctl_fd >= 0)
		ctl_watch(e);
	maybe_ended(e);
}

/* Whether the frame in e->ctl_text says it is a result. */
static bool frame_is_result(const struct exec *e)
{
	const struct jsonv_member *t = jsonv_member(e->ctl_v, "type", NULL);
	const char *text = buf_peek(&e->ctl_text) + e->ctl_v->out_base;
	return t && t->value.len == 8 && memcmp(text + t->value.off, "\"result\"", 8) == 0;
}

/* A whole frame has been validated into e->ctl_text: act on it. A big
 * result frame (a test report of thousands of entries is checked entry by
 * entry, some 100 ms for 16 MiB) is checked on the parser thread instead,
 * as big requests are parsed: nothing a worker sends holds the loop. */
static void ctl_frame_done(struct exec *e)
{
	struct ctl_msg m;
	const char *why = NULL;
	int rc = -1;
	if (jsonv_finish(e->ctl_v) < 0) {
		why = e->ctl_v->why;
	} else if (e->have_result || e->value_problem[0]) {
		why = "a frame after the result";
	} else {
		if (parse_wanted(buf_len(&e->ctl_text)) && frame_is_result(e)) {
			memset(&e->ctl_m, 0, sizeof e->ctl_m);
			e->ctl_after = false;
			e->ctl_job = parse_submit_work(ctl_parse_work, ctl_parsed, e);
			if (e->ctl_job) {
				ctl_watch(e);
				return;
			}
		}
		rc = ctl_parse_compact(e->ctl_v, buf_peek(&e->ctl_text), buf_len(&e->ctl_text),
				       CTL_BORROW_VALUE, &m, &why);
	}
	ctl_frame_parsed(e, rc, &m, why);
}

/* A frame failed validation part way: a returned value over its limits is
 * the script's failure; anything else breaks the protocol. */
static void ctl_frame_invalid(struct exec *e)
{
	struct jsonv *v = e->ctl_v;
	const char *text = buf_peek(&e->ctl_text) + v->out_base;
	bool limit =
		strcmp(v->why, "too many values") == 0 || strcmp(v->why, "nested too deeply") == 0;
	bool type_result = false;
	const struct jsonv_member *t = jsonv_member(v, "type", NULL);
	if (t && t->value.len == 8 && memcmp(text + t->value.off, "\"result\"", 8) == 0)
		type_result = true;
	if (limit && type_result && v->cur >= 0 &&
	    jsonv_key_is(text, &v->members[v->cur].key, "value") && !e->have_result) {
		snprintf(e->value_problem, sizeof e->value_problem,
			 "the returned value is too large for JSON: more than %u values or "
			 "deeper than %u levels",
			 CTL_VALUE_NODES, CTL_VALUE_DEPTH);
		e->have_result = false;
	} else {
		kill_protocol(e, v->why);
	}
	buf_free(&e->ctl_text);
}

/* Takes n bytes of the control stream: frame headers are read here, and a
 * frame's payload is validated as it arrives, so even a 16 MiB frame costs
 * the loop one read's worth of work at a time. */
static void ctl_take(struct exec *e, const char *p, size_t n)
{
	while (n && e->killed != KILL_PROTOCOL) {
		if (e->ctl_job) {
			e->ctl_after = true; /* more after a result frame */
			return;
		}
		if (!e->ctl_left) {
			size_t k = 4 - e->ctl_hdr_got;
			if (k > n)
				k = n;
			memcpy(e->ctl_hdr + e->ctl_hdr_got, p, k);
			e->ctl_hdr_got += k;
			p += k;
			n -= k;
			if (e->ctl_hdr_got < 4)
				return;
			e->ctl_hdr_got = 0;
			uint32_t len = (uint32_t)e->ctl_hdr[0] << 24 |
				       (uint32_t)e->ctl_hdr[1] << 16 |
				       (uint32_t)e->ctl_hdr[2] << 8 | e->ctl_hdr[3];
			if (len == 0 || len > CTL_RESULT_BYTES) {
				kill_protocol(e, len ? "a control frame over its size limit"
						     : "an empty control frame");
				return;
			}
			struct jsonv_limits lim;
			ctl_frame_limits(&lim);
			if (!e->ctl_v && !(e->ctl_v = malloc(sizeof *e->ctl_v))) {
				kill_protocol(e, "out of memory");
				return;
			}
			jsonv_init(e->ctl_v, &lim, &e->ctl_text);
			e->ctl_left = len;
			e->ctl_skip = false;
			continue;
		}
		size_t k = n < e->ctl_left ? n : e->ctl_left;
		if (!e->ctl_skip && jsonv_feed(e->ctl_v, p, k) < 0) {
			e->ctl_skip = true; /* the rest of the frame is drained unread */
			ctl_frame_invalid(e);
		}
		e->ctl_left -= k;
		p += k;
		n -= k;
		if (!e->ctl_left && !e->ctl_skip)
			ctl_frame_done(e);
	}
}

static bool job_more(struct exec *e);

/* Sends what is left of the job; the socket buffer usually takes it all
 * at once, so this is tried before waiting for EPOLLOUT. */
static void ctl_flush(struct exec *e)
{
	for (int round = 0; round < 2; round++) {
		while (buf_len(&e->ctl_out)) {
			ssize_t n = send(e->ctl_fd, buf_peek(&e->ctl_out), buf_len(&e->ctl_out),
					 MSG_NOSIGNAL);
			if (n > 0) {
				buf_consume(&e->ctl_out, (size_t)n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN) {
				/* The worker is gone; its exit tells why. */
				buf_clear(&e->ctl_out);
				if (e->job_streaming)
					msg_stream_free(&e->job);
				e->job_streaming = false;
			}
			break;
		}
		/* One more chunk of the job a turn, sent at once if it fits. */
		if (round > 0 || buf_len(&e->ctl_out) || !job_more(e))
			break;
	}
	/* The job, once sent, is not kept: a big one would stay for the run. */
	if (!buf_len(&e->ctl_out) && e->ctl_out.cap > 65536)
		buf_free(&e->ctl_out);
	ctl_watch(e);
}

static void on_ctl(struct loop_watch *w, uint32_t events)
{
	struct exec *e = container_of(w, struct exec, w_ctl);
	if (events & EPOLLOUT)
		ctl_flush(e);
	if (e->ctl_fd < 0 || e->ctl_job || e->ctl_held) {
		ctl_watch(e); /* not read now: a hang-up waits too */
		return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	char data[65536];
	ssize_t n = recv(e->ctl_fd, data, sizeof data, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_del(&e->w_ctl);
		close_fd(&e->ctl_fd);
		maybe_ended(e);
		return;
	}
	if (e->killed != KILL_PROTOCOL)
		ctl_take(e, data, (size_t)n);
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
	else
		spawn_reaped(e->pid);
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
		spawn_reaped(pid);
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

/* A buffer that views bytes it does not own (never buf_free'd). */
static struct buf *view(struct buf *b, const char *p, size_t n)
{
	*b = (struct buf){(char *)p, 0, n, n};
	return b;
}

static void add_source(struct exec *e, int k, const char *key, const char *p, size_t n)
{
	struct buf *b = view(&e->job_src[k], p, n);
	msg_stream_string(&e->job, key, b, 0, n, jstr_escaped_len(p, n));
}

/* The job frame the worker reads first: its small members encoded now,
 * the code and tests escaped and the store (compact JSON text) copied as
 * the worker reads (see job_more). */
static int encode_job(struct exec *e)
{
	/* A job that lost a member to a failed allocation would run
	 * something else than was asked (tests without their code). */
	unsigned long oom = msg_alloc_failures();
	json_t *job = json_object();
	json_object_set_new(job, "memory_bytes", json_integer((json_int_t)e->memory_bytes));
	json_object_set_new(job, "max_cpu_ms", json_integer((json_int_t)e->max_cpu_ms));
	/* The worker lowers its CPU-time backstop to this one (worker.c). */
	json_object_set_new(job, "timeout_ms", json_integer((json_int_t)e->timeout_ms));
	if (e->language)
		json_object_set_new(job, "language", json_string(e->language));
	json_object_set(job, "tools", e->tool_names);
	if (!job || msg_alloc_failures() != oom) {
		json_decref(job);
		errno = ENOMEM;
		return -1;
	}
	struct msg_stream *m = &e->job;
	msg_stream_init(m);
	msg_stream_object(m, job);
	json_decref(job);
	if (e->mode == EXEC_TEST) {
		if (e->code)
			add_source(e, 0, "code", e->code, e->code_len);
		add_source(e, 1, "tests", e->tests, e->tests_len);
	} else {
		/* The options line becomes an empty line: line numbers hold. */
		add_source(e, 0, "code", e->code + e->options_len, e->code_len - e->options_len);
	}
	if (e->store)
		msg_stream_json(m, "store", view(&e->job_src[2], e->store, e->store_len), 0,
				e->store_len);
	unsigned char hdr[4];
	if (msg_stream_end(m) < 0 || m->total > UINT32_MAX) {
		msg_stream_free(m);
		errno = ENOMEM;
		return -1;
	}
	frame_put_header(hdr, (uint32_t)m->total);
	if (buf_append(&e->ctl_out, hdr, 4) < 0) {
		msg_stream_free(m);
		errno = ENOMEM;
		return -1;
	}
	e->job_streaming = true;
	return 0;
}

/* The next chunk of the job while less than one waits to be sent. Once it
 * is all out the worker has all it needs: the request's copies go, the
 * code too unless it is to be cached should it succeed. Whether anything
 * was added. */
static bool job_more(struct exec *e)
{
	if (!e->job_streaming || buf_len(&e->ctl_out) >= LIMIT_STREAM_CHUNK_BYTES)
		return false;
	long k = msg_stream_fill(&e->job, &e->ctl_out, LIMIT_STREAM_CHUNK_BYTES);
	if (k < 0) {
		log_err("%s: out of memory sending the job", e->reg.id);
		msg_stream_free(&e->job);
		e->job_streaming = false;
		run_kill(e, KILL_PROTOCOL);
		return false;
	}
	if (msg_stream_finished(&e->job)) {
		msg_stream_free(&e->job);
		e->job_streaming = false;
		exec_drop_source(e, e->cache && !e->cached_name && e->mode != EXEC_TEST);
	}
	return k > 0;
}

/*
 * Everything from the worker's fds to the worker itself: takes a parked
 * worker from the pool (or has one cloned) with its fds, watches them and
 * starts writing the encoded job, which the worker reads once it is
 * there. 0; or -1 with errno when there is no worker to be had (nothing
 * is then left open). A worker had at once is given to on_spawned here.
 */
static int acquire_worker(struct exec *e)
{
	struct spawn_ends ends;
	pid_t pid = -1;
	int got = spawn_acquire(&ends, &pid, on_spawned, e);
	if (got < 0)
		return -1;
	/* spawn.c made our ends CLOEXEC and non-blocking. */
	e->ctl_fd = ends.ctl;
	e->pipe_fd[OUT] = ends.out;
	e->pipe_fd[ERR] = ends.err;
	loop_add(&e->w_ctl, e->ctl_fd, EPOLLIN, on_ctl);
	ctl_flush(e);
	loop_add(&e->w_pipe[OUT], e->pipe_fd[OUT], e->paused ? 0 : EPOLLIN, on_stdout);
	loop_add(&e->w_pipe[ERR], e->pipe_fd[ERR], e->paused ? 0 : EPOLLIN, on_stderr);
	if (got == 1)
		on_spawned(e, pid, 0);
	return 0;
}

void run_start(struct exec *e)
{
	e->phase = PHASE_SPAWNING;
	e->t_start_us = loop_clock_us();
	/* The timeout counts from here, not from when the request queued; a
	 * worker is only started with its timeout armed. */
	if (loop_timer_set(&e->timer, e->timeout_ms, on_timeout) < 0) {
		no_worker(e, ENOMEM);
		return;
	}
	/* The job first: a job that cannot be made costs no worker. */
	errno = 0;
	if (encode_job(e) < 0 || acquire_worker(e) < 0)
		no_worker(e, errno ? errno : ENOMEM);
}
