/*
 * run.c - the worker process of one execution: its start through the
 * forkserver, the relaying of its stdout and stderr, the control channel,
 * the timeout and output cap (SIGKILL through a pidfd), the early end on
 * its result, its reaping with rusage, and the verdict. See run.h.
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
#include "log.h"
#include "parse.h"
#include "run.h"
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

static enum exec_state run_verdict(struct run *r, json_t **error)
{
	char msg[256];
	*error = NULL;
	/* A result sent before the timer fired is a finished script. */
	enum run_kill killed = r->killed;
	if (killed == RUN_KILL_TIMEOUT && r->have_result)
		killed = RUN_KILL_NONE;
	switch (killed) {
	case RUN_KILL_TIMEOUT:
		snprintf(msg, sizeof msg,
			 "the script ran longer than its timeout of %" PRIu64 " ms",
			 r->limits.timeout_ms);
		*error = error_obj("timeout", msg);
		return STATE_TIMEOUT;
	case RUN_KILL_OUTPUT:
		snprintf(msg, sizeof msg,
			 "the script wrote more than its output limit of %" PRIu64
			 " bytes; output up to the limit is kept",
			 r->limits.output_bytes);
		*error = error_obj("output_limit", msg);
		return STATE_FAILED;
	case RUN_KILL_CANCEL:
		*error = error_obj("cancelled", "the execution was cancelled");
		return STATE_CANCELLED;
	case RUN_KILL_SHUTDOWN:
		*error = error_obj("cancelled", "the daemon shut down before the script finished");
		return STATE_CANCELLED;
	case RUN_KILL_PROTOCOL:
		snprintf(msg, sizeof msg,
			 "the worker broke the control protocol and was killed (%s)",
			 r->kill_why ? r->kill_why : "a bad control frame");
		*error = error_obj("sandbox", msg);
		return STATE_FAILED;
	case RUN_KILL_NOMEM:
		*error = error_obj("sandbox", "the daemon ran out of memory keeping the script's "
					      "output or messages; the worker was killed");
		return STATE_FAILED;
	case RUN_KILL_NONE: break;
	}
	if (r->spawn_err) {
		snprintf(msg, sizeof msg, "could not start a worker: %s", strerror(r->spawn_err));
		*error = error_obj("sandbox", msg);
		return STATE_FAILED;
	}
	if (r->value_problem[0]) {
		*error = error_obj("script", r->value_problem);
		return STATE_FAILED;
	}
	if (r->have_result) {
		if (r->result.ok)
			return STATE_COMPLETED;
		*error = json_incref(r->result.error);
		const char *kind = json_string_value(json_object_get(*error, "kind"));
		return kind && strcmp(kind, "timeout") == 0 ? STATE_TIMEOUT : STATE_FAILED;
	}
	if (r->status.si_code == CLD_KILLED || r->status.si_code == CLD_DUMPED) {
		int sig = r->status.si_status;
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
	int code = r->status.si_status;
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

static uint64_t tv_ms(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

/* Stops reading and writing the worker's channels: its control socket
 * and pipes are closed (the process itself, its pidfd, stays until
 * reaped), and what was buffered for them goes. */
static void close_channels(struct run *r)
{
	loop_del(&r->w_ctl);
	loop_del(&r->w_pipe[RUN_OUT]);
	loop_del(&r->w_pipe[RUN_ERR]);
	close_fd(&r->ctl_fd);
	close_fd(&r->pipe_fd[RUN_OUT]);
	close_fd(&r->pipe_fd[RUN_ERR]);
	buf_free(&r->ctl_out);
	if (r->job_streaming)
		msg_stream_free(&r->job_msg);
	r->job_streaming = false;
	buf_free(&r->ctl_text);
	free(r->ctl_v);
	r->ctl_v = NULL;
}

/* The verdict, then the owner told. The CPU time and peak RSS come from
 * the rusage once reaped; on an early end the worker's own report of its
 * CPU time stands in, no more than the wall time the run took (the worker
 * is one thread), and the peak RSS is not known. */
static void end(struct run *r)
{
	r->ended = true;
	loop_timer_cancel(&r->timer);
	if (!r->t_end_us)
		r->t_end_us = loop_clock_us();
	r->state = run_verdict(r, &r->error);
	r->early = !r->reaped;
	if (r->reaped) {
		r->cpu_ms = tv_ms(r->ru.ru_utime) + tv_ms(r->ru.ru_stime);
		r->rss_peak = (uint64_t)r->ru.ru_maxrss * 1024u;
	} else {
		uint64_t wall = (r->t_end_us - r->t_start_us) / 1000u + 1;
		uint64_t claim = r->result.cpu_ms >= 0 ? (uint64_t)r->result.cpu_ms : 0;
		r->cpu_ms = claim < wall ? claim : wall;
		r->cpu_reported = true;
	}
	r->ops->ended(r);
}

/* Ended and reaped: nothing of the worker is left; the owner hears it
 * last (it may clear r). */
static void finish(struct run *r)
{
	loop_timer_cancel(&r->timer);
	close_channels(r);
	loop_del(&r->w_pid);
	close_fd(&r->pidfd);
	r->ops->reaped(r);
}

/* Without a result the run ends once reaped and every pipe has reached
 * its end. */
static void maybe_ended(struct run *r)
{
	if (r->ended || !r->reaped || r->ctl_fd >= 0 || r->pipe_fd[RUN_OUT] >= 0 ||
	    r->pipe_fd[RUN_ERR] >= 0 || r->ctl_job)
		return;
	end(r);
	finish(r);
}

static void on_settle(struct loop_timer *t)
{
	struct run *r = container_of(t, struct run, timer);
	/* Stop waiting for EOFs that are not coming; the reap still decides. */
	close_channels(r);
	maybe_ended(r);
}

/* SIGKILL through the pidfd, which names this process only: a recycled
 * pid is never hit. */
static void signal_worker(struct run *r)
{
	if (r->reaped || r->pidfd < 0)
		return; /* a worker still spawning is killed as soon as it exists */
	if (pidfd_send_signal(r->pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
		log_err("%s: pidfd_send_signal: %s", r->id, strerror(errno));
}

void run_kill(struct run *r, enum run_kill why)
{
	if (r->ended) {
		signal_worker(r); /* the verdict stands */
		return;
	}
	if (r->killed == RUN_KILL_NONE)
		r->killed = why;
	if (r->reaped || r->pidfd < 0)
		return;
	signal_worker(r);
	/* Without the settle timer the reap and the pipes' EOFs still end
	 * the execution; only a pipe held open elsewhere would keep it. */
	if (loop_timer_set(&r->timer, KILL_SETTLE_MS, on_settle) < 0)
		log_err("%s: cannot arm the settle timer (out of memory)", r->id);
}

void run_drop_result(struct run *r)
{
	ctl_msg_clear(&r->result);
	buf_free(&r->result_text);
}

void run_clear(struct run *r)
{
	run_drop_result(r);
	json_decref(r->error);
	r->error = NULL;
	buf_free(&r->out[RUN_OUT]);
	buf_free(&r->out[RUN_ERR]);
}

void run_init(struct run *r, const struct run_ops *ops, const char *id)
{
	memset(r, 0, sizeof *r);
	r->ops = ops;
	r->id = id;
	r->pid = -1;
	r->pidfd = r->ctl_fd = r->pipe_fd[RUN_OUT] = r->pipe_fd[RUN_ERR] = -1;
	r->w_pid = r->w_ctl = r->w_pipe[RUN_OUT] = r->w_pipe[RUN_ERR] =
		(struct loop_watch)LOOP_WATCH_INIT;
	r->timer = (struct loop_timer)LOOP_TIMER_INIT;
	r->result.heap_peak = r->result.cpu_ms = -1;
	r->out[RUN_OUT] = r->out[RUN_ERR] = (struct buf)BUF_INIT;
	r->ctl_out = r->ctl_text = r->result_text = (struct buf)BUF_INIT;
}

/* ---- output */

void run_pause(struct run *r, bool paused)
{
	r->paused = paused;
	for (int i = 0; i < 2; i++)
		loop_mod(&r->w_pipe[i], paused ? 0 : EPOLLIN);
}

/* Takes n raw bytes of stream i: caps them and appends them as UTF-8. */
static void take_output(struct run *r, int i, const char *data, size_t n, bool eof)
{
	if (r->killed == RUN_KILL_OUTPUT)
		return; /* past the cap: drained and dropped */
	if (n > r->limits.output_bytes - r->output_total) {
		n = (size_t)(r->limits.output_bytes - r->output_total);
		run_kill(r, RUN_KILL_OUTPUT);
		eof = true; /* nothing more of this stream will be kept */
	}
	r->output_total += n;

	char joined[4 + LIMIT_PIPE_READ_BYTES];
	size_t len = r->carry_len[i];
	memcpy(joined, r->carry[i], len);
	if (n)
		memcpy(joined + len, data, n);
	len += n;
	size_t before = buf_len(&r->out[i]);
	size_t used = utf8_sanitize(&r->out[i], joined, len, eof);
	if (used == (size_t)-1) {
		/* Output that cannot be kept is not dropped in silence. */
		log_err("%s: out of memory relaying output", r->id);
		run_kill(r, RUN_KILL_NOMEM);
		used = len;
	}
	r->carry_len[i] = len - used;
	memcpy(r->carry[i], joined + used, r->carry_len[i]);
	/* The cap holds for what is kept too: invalid bytes a subverted
	 * worker sends become U+FFFD, three bytes each. Cut at a character. */
	size_t kept = buf_len(&r->out[RUN_OUT]) + buf_len(&r->out[RUN_ERR]);
	if (kept > r->limits.output_bytes) {
		size_t over = kept - (size_t)r->limits.output_bytes, at = buf_len(&r->out[i]);
		at = over < at - before ? at - over : before;
		const unsigned char *p = (const unsigned char *)buf_peek(&r->out[i]);
		while (at > before && (p[at] & 0xC0) == 0x80)
			at--;
		r->out[i].end = r->out[i].start + at;
		r->carry_len[i] = 0;
		if (r->killed != RUN_KILL_OUTPUT)
			run_kill(r, RUN_KILL_OUTPUT);
	}
	if (buf_len(&r->out[i]) > before)
		r->ops->output(r, i, before);
}

static void on_pipe(struct run *r, int i)
{
	char data[LIMIT_PIPE_READ_BYTES];
	ssize_t n = read(r->pipe_fd[i], data, sizeof data);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		take_output(r, i, data, (size_t)n, false);
		return;
	}
	take_output(r, i, NULL, 0, true); /* a split character at EOF is bad */
	loop_del(&r->w_pipe[i]);
	close_fd(&r->pipe_fd[i]);
	maybe_ended(r);
}

/* What the worker wrote to stream i before its result is in the pipe
 * already (its writes returned before it sent the result): read it to
 * the pipe's current end, paused or not (a pipe holds 64 KiB, which the
 * worker cannot change), then the stream's end. */
static void drain(struct run *r, int i)
{
	char data[LIMIT_PIPE_READ_BYTES];
	while (r->pipe_fd[i] >= 0 && r->killed != RUN_KILL_OUTPUT) {
		ssize_t n = read(r->pipe_fd[i], data, sizeof data);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		take_output(r, i, data, (size_t)n, false);
	}
	take_output(r, i, NULL, 0, true);
}

static void on_stdout(struct loop_watch *w, uint32_t ev)
{
	(void)ev;
	on_pipe(container_of(w, struct run, w_pipe[RUN_OUT]), RUN_OUT);
}

static void on_stderr(struct loop_watch *w, uint32_t ev)
{
	(void)ev;
	on_pipe(container_of(w, struct run, w_pipe[RUN_ERR]), RUN_ERR);
}

/* ---- control channel */

static void ctl_flush(struct run *r);

static bool declared(const struct run *r, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach (r->job.tool_names, i, t)
		if (strcmp(json_string_value(t), name) == 0)
			return true;
	return false;
}

static void kill_protocol(struct run *r, const char *why)
{
	log_warn("%s: worker broke the control protocol (%s)", r->id, why);
	if (!r->kill_why)
		r->kill_why = why;
	run_kill(r, RUN_KILL_PROTOCOL);
}

void run_send(struct run *r, json_t *msg) { run_send_raw(r, msg, NULL, 0); }

void run_send_raw(struct run *r, json_t *msg, const char *members, size_t len)
{
	if (r->ctl_fd < 0 || r->ended)
		return;
	r->pending_call = 0; /* every answer answers the one call waiting */
	if (r->job_streaming) {
		/* It asked before it read its whole job. */
		kill_protocol(r, "it sent a request before reading its job");
		return;
	}
	/* An honest worker reads each answer before it asks again, so
	 * answers never pile up; a worker that does not read is cut off. */
	if (buf_len(&r->ctl_out) > LIMIT_CTL_BACKLOG_BYTES) {
		kill_protocol(r, "it does not read its answers");
		buf_free(&r->ctl_out);
		return;
	}
	if (msg_encode_raw(&r->ctl_out, FRAME_MODE_BINARY, msg, members, len) < 0) {
		log_err("%s: out of memory answering the worker", r->id);
		run_kill(r, RUN_KILL_NOMEM);
		return;
	}
	ctl_flush(r);
}

static void on_ctl(struct loop_watch *w, uint32_t events);

/* The result is in (validated; a frame after it in the same read has
 * already broken the protocol): the pipes are drained of what the worker
 * wrote before it, the run ends at once, and the worker is killed and
 * reaped afterwards. Whatever it sends or writes after its result is
 * discarded. */
static void result_in(struct run *r)
{
	if (r->ended || !r->have_result)
		return;
	loop_timer_cancel(&r->timer); /* the timeout is over: it finished */
	drain(r, RUN_OUT);
	drain(r, RUN_ERR);
	close_channels(r);
	bool reaped = r->reaped;
	end(r);
	if (reaped) {
		finish(r);
		return;
	}
	signal_worker(r);
}

/* Watches the control channel for what it is waiting on now: reading,
 * unless a result is being checked off the loop; writing while answers
 * or the job are unsent. No events at
 * all takes the fd out of epoll, where a hang-up would otherwise be
 * reported over and over. */
static void ctl_watch(struct run *r)
{
	if (r->ctl_fd < 0)
		return;
	uint32_t ev = (r->ctl_job ? 0 : EPOLLIN) |
		      (buf_len(&r->ctl_out) || r->job_streaming ? EPOLLOUT : 0);
	if (!ev) {
		loop_del(&r->w_ctl);
	} else if (r->w_ctl.fd < 0) {
		if (loop_add(&r->w_ctl, r->ctl_fd, ev, on_ctl) < 0) {
			/* Cannot wait on it: its end is taken as reached. */
			log_err("%s: cannot watch the control channel: %s", r->id, strerror(errno));
			close_fd(&r->ctl_fd);
			run_kill(r, RUN_KILL_NOMEM);
			maybe_ended(r);
		}
	} else {
		loop_mod(&r->w_ctl, ev);
	}
}

/* Acts on a frame checked (rc and m from ctl_parse_compact; why set
 * already when it failed before that), then readies for the next. */
static void ctl_frame_parsed(struct run *r, int rc, struct ctl_msg *m, const char *why)
{
	if (!why && rc == 0) {
		if (m->type == CTL_RESULT) {
			r->result = *m;
			r->have_result = true;
			if (m->value) {
				/* The frame's text is kept as it is: its value is
				 * never copied. */
				r->result_text = r->ctl_text;
				r->ctl_text = (struct buf)BUF_INIT;
			}
		} else if (m->call_id != r->last_call + 1 || !declared(r, m->name) ||
			   r->pending_call) {
			why = "a tool call out of order, or of an undeclared tool";
			ctl_msg_clear(m);
		} else {
			r->last_call = r->pending_call = m->call_id;
			r->ops->tool_call(r, m->call_id, m->name, m->args, m->args_len);
			m->args = NULL; /* the owner took it */
			ctl_msg_clear(m);
		}
	}
	/* A big frame's buffer is not kept for the next one. */
	if (r->ctl_text.cap > 65536)
		buf_free(&r->ctl_text);
	else
		buf_clear(&r->ctl_text);
	if (why)
		kill_protocol(r, why);
}

/* On the parser thread: checks the result frame in r->ctl_text, which the
 * loop leaves alone until ctl_parsed. */
static void ctl_parse_work(struct parse_job *j)
{
	struct run *r = j->arg;
	r->ctl_rc = ctl_parse_compact(r->ctl_v, buf_peek(&r->ctl_text), buf_len(&r->ctl_text),
				      CTL_BORROW_VALUE, &r->ctl_m, &r->ctl_why);
}

/* In the loop: the result frame's check is back. The channel is read
 * again; an end that came meanwhile (the reap, a kill) now completes the
 * execution. */
static void ctl_parsed(struct parse_job *j)
{
	struct run *r = j->arg;
	r->ctl_job = NULL;
	struct ctl_msg m = r->ctl_m;
	memset(&r->ctl_m, 0, sizeof r->ctl_m);
	ctl_frame_parsed(r, r->ctl_rc, &m, r->ctl_rc == 0 ? NULL : r->ctl_why);
	if (r->ctl_after && r->killed != RUN_KILL_PROTOCOL)
		kill_protocol(r, "a frame after the result");
	r->ctl_after = false;
	if (r->have_result) {
		result_in(r);
		return;
	}
	if (r->ctl_fd >= 0)
		ctl_watch(r);
	maybe_ended(r);
}

/* Whether the frame in r->ctl_text says it is a result. */
static bool frame_is_result(const struct run *r)
{
	const struct jsonv_member *t = jsonv_member(r->ctl_v, "type", NULL);
	const char *text = buf_peek(&r->ctl_text) + r->ctl_v->out_base;
	return t && t->value.len == 8 && memcmp(text + t->value.off, "\"result\"", 8) == 0;
}

/* A whole frame has been validated into r->ctl_text: act on it. A big
 * result frame (a test report of thousands of entries is checked entry by
 * entry, some 100 ms for 16 MiB) is checked on the parser thread instead,
 * as big requests are parsed: nothing a worker sends holds the loop. */
static void ctl_frame_done(struct run *r)
{
	struct ctl_msg m;
	const char *why = NULL;
	int rc = -1;
	if (jsonv_finish(r->ctl_v) < 0) {
		why = r->ctl_v->why;
	} else if (r->have_result || r->value_problem[0]) {
		why = "a frame after the result";
	} else {
		if (parse_wanted(buf_len(&r->ctl_text)) && frame_is_result(r)) {
			memset(&r->ctl_m, 0, sizeof r->ctl_m);
			r->ctl_after = false;
			r->ctl_job = parse_submit_work(ctl_parse_work, ctl_parsed, r);
			if (r->ctl_job) {
				ctl_watch(r);
				return;
			}
		}
		rc = ctl_parse_compact(r->ctl_v, buf_peek(&r->ctl_text), buf_len(&r->ctl_text),
				       CTL_BORROW_VALUE, &m, &why);
	}
	ctl_frame_parsed(r, rc, &m, why);
}

/* A frame failed validation part way: a returned value over its limits is
 * the script's failure; anything else breaks the protocol. */
static void ctl_frame_invalid(struct run *r)
{
	struct jsonv *v = r->ctl_v;
	const char *text = buf_peek(&r->ctl_text) + v->out_base;
	bool limit =
		strcmp(v->why, "too many values") == 0 || strcmp(v->why, "nested too deeply") == 0;
	bool type_result = false;
	const struct jsonv_member *t = jsonv_member(v, "type", NULL);
	if (t && t->value.len == 8 && memcmp(text + t->value.off, "\"result\"", 8) == 0)
		type_result = true;
	if (limit && type_result && v->cur >= 0 &&
	    jsonv_key_is(text, &v->members[v->cur].key, "value") && !r->have_result) {
		snprintf(r->value_problem, sizeof r->value_problem,
			 "the returned value is too large for JSON: more than %u values or "
			 "deeper than %u levels",
			 CTL_VALUE_NODES, CTL_VALUE_DEPTH);
		r->have_result = false;
	} else {
		kill_protocol(r, v->why);
	}
	buf_free(&r->ctl_text);
}

/* Takes n bytes of the control stream: frame headers are read here, and a
 * frame's payload is validated as it arrives, so even a 16 MiB frame costs
 * the loop one read's worth of work at a time. */
static void ctl_take(struct run *r, const char *p, size_t n)
{
	while (n && r->killed != RUN_KILL_PROTOCOL) {
		if (r->ctl_job) {
			r->ctl_after = true; /* more after a result frame */
			return;
		}
		if (!r->ctl_left) {
			size_t k = 4 - r->ctl_hdr_got;
			if (k > n)
				k = n;
			memcpy(r->ctl_hdr + r->ctl_hdr_got, p, k);
			r->ctl_hdr_got += k;
			p += k;
			n -= k;
			if (r->ctl_hdr_got < 4)
				return;
			r->ctl_hdr_got = 0;
			uint32_t len = (uint32_t)r->ctl_hdr[0] << 24 |
				       (uint32_t)r->ctl_hdr[1] << 16 |
				       (uint32_t)r->ctl_hdr[2] << 8 | r->ctl_hdr[3];
			if (len == 0 || len > CTL_RESULT_BYTES) {
				kill_protocol(r, len ? "a control frame over its size limit"
						     : "an empty control frame");
				return;
			}
			struct jsonv_limits lim;
			ctl_frame_limits(&lim);
			if (!r->ctl_v && !(r->ctl_v = malloc(sizeof *r->ctl_v))) {
				kill_protocol(r, "out of memory");
				return;
			}
			jsonv_init(r->ctl_v, &lim, &r->ctl_text);
			r->ctl_left = len;
			r->ctl_skip = false;
			continue;
		}
		size_t k = n < r->ctl_left ? n : r->ctl_left;
		if (!r->ctl_skip && jsonv_feed(r->ctl_v, p, k) < 0) {
			r->ctl_skip = true; /* the rest of the frame is drained unread */
			ctl_frame_invalid(r);
		}
		r->ctl_left -= k;
		p += k;
		n -= k;
		if (!r->ctl_left && !r->ctl_skip)
			ctl_frame_done(r);
	}
}

static bool job_more(struct run *r);

/* Sends what is left of the job; the socket buffer usually takes it all
 * at once, so this is tried before waiting for EPOLLOUT. */
static void ctl_flush(struct run *r)
{
	for (int round = 0; round < 2; round++) {
		while (buf_len(&r->ctl_out)) {
			ssize_t n = send(r->ctl_fd, buf_peek(&r->ctl_out), buf_len(&r->ctl_out),
					 MSG_NOSIGNAL);
			if (n > 0) {
				buf_consume(&r->ctl_out, (size_t)n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN) {
				/* The worker is gone; its exit tells why. */
				buf_clear(&r->ctl_out);
				if (r->job_streaming)
					msg_stream_free(&r->job_msg);
				r->job_streaming = false;
			}
			break;
		}
		/* One more chunk of the job a turn, sent at once if it fits. */
		if (round > 0 || buf_len(&r->ctl_out) || !job_more(r))
			break;
	}
	/* The job, once sent, is not kept: a big one would stay for the run. */
	if (!buf_len(&r->ctl_out) && r->ctl_out.cap > 65536)
		buf_free(&r->ctl_out);
	ctl_watch(r);
}

static void on_ctl(struct loop_watch *w, uint32_t events)
{
	struct run *r = container_of(w, struct run, w_ctl);
	if (events & EPOLLOUT)
		ctl_flush(r);
	if (r->ctl_fd < 0 || r->ctl_job) {
		ctl_watch(r); /* not read now: a hang-up waits too */
		return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	char data[65536];
	ssize_t n = recv(r->ctl_fd, data, sizeof data, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_del(&r->w_ctl);
		close_fd(&r->ctl_fd);
		maybe_ended(r);
		return;
	}
	if (r->killed != RUN_KILL_PROTOCOL)
		ctl_take(r, data, (size_t)n);
	if (r->have_result && !r->ctl_job)
		result_in(r);
}

/* ---- the process */

static void on_exit_ready(struct loop_watch *w, uint32_t events)
{
	(void)events;
	struct run *r = container_of(w, struct run, w_pid);
	memset(&r->status, 0, sizeof r->status);
	/* The raw syscall returns the rusage that glibc's waitid drops. */
	long rc = syscall(SYS_waitid, P_PIDFD, r->pidfd, &r->status, WEXITED | WNOHANG, &r->ru);
	if (rc < 0 && errno == EINTR)
		return;
	if (rc == 0 && r->status.si_pid == 0)
		return; /* not yet */
	if (rc < 0)
		log_err("%s: waitid: %s", r->id, strerror(errno));
	else
		spawn_reaped(r->pid);
	r->reaped = true;
	loop_del(&r->w_pid);
	close_fd(&r->pidfd);
	if (!r->ended) {
		r->t_end_us = loop_clock_us();
		maybe_ended(r);
		return;
	}
	/* After its result: the supervisor's SIGKILL, or an exit of its own
	 * first. Anything else is worth a line, never a new verdict. */
	const siginfo_t *st = &r->status;
	bool expected = (st->si_code == CLD_EXITED && st->si_status == 0) ||
			(st->si_code == CLD_KILLED && st->si_status == SIGKILL);
	if (rc == 0 && !expected)
		log_warn("%s: worker %d ended after its result with %s %d (ignored)", r->id,
			 (int)r->pid, st->si_code == CLD_EXITED ? "status" : "signal",
			 st->si_status);
	finish(r);
}

/* The worker could not be had (or, after its result, spawning failed
 * under it): the run ends without one. */
static void no_worker(struct run *r, int err)
{
	r->spawning = false;
	r->reaped = true;
	if (!r->ended) {
		log_err("%s: could not start a worker: %s", r->id, strerror(err));
		r->spawn_err = err;
		r->t_end_us = loop_clock_us();
		close_channels(r);
		end(r);
	}
	finish(r);
}

static void on_spawned(void *arg, pid_t pid, int err)
{
	struct run *r = arg;
	r->spawning = false;
	if (pid < 0) {
		no_worker(r, err);
		return;
	}
	r->pid = pid;
	/* pid is our unreaped child, so it cannot have been recycled yet. */
	r->pidfd = pidfd_open(pid, 0);
	if (r->pidfd < 0 || loop_add(&r->w_pid, r->pidfd, EPOLLIN, on_exit_ready) < 0) {
		log_err("%s: cannot watch worker %d: %s", r->id, (int)pid, strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		spawn_reaped(pid);
		close_fd(&r->pidfd);
		r->reaped = true;
		if (r->ended) {
			finish(r);
			return;
		}
		r->t_end_us = loop_clock_us();
		r->killed = r->killed ? r->killed : RUN_KILL_PROTOCOL;
		maybe_ended(r);
		return;
	}
	if (r->ended)
		signal_worker(r); /* its result came before its pid */
	else if (r->killed)
		run_kill(r, r->killed);
}

static void on_timeout(struct loop_timer *t)
{
	run_kill(container_of(t, struct run, timer), RUN_KILL_TIMEOUT);
}

/* A buffer that views bytes it does not own (never buf_free'd). */
static struct buf *view(struct buf *b, const char *p, size_t n)
{
	*b = (struct buf){(char *)p, 0, n, n};
	return b;
}

static void add_source(struct run *r, int k, const char *key, const char *p, size_t n)
{
	struct buf *b = view(&r->job_src[k], p, n);
	msg_stream_string(&r->job_msg, key, b, 0, n, jstr_escaped_len(p, n));
}

/* The job frame the worker reads first: its small members encoded now,
 * the code and tests escaped and the store (compact JSON text) copied as
 * the worker reads (see job_more). */
static int encode_job(struct run *r)
{
	/* A job that lost a member to a failed allocation would run
	 * something else than was asked (tests without their code). */
	unsigned long oom = msg_alloc_failures();
	json_t *job = json_object();
	if (job && exec_limits_to_json(&r->limits, EXEC_LIMIT_JOB, job) < 0) {
		json_decref(job);
		job = NULL;
	}
	if (r->job.language)
		json_object_set_new(job, "language", json_string(r->job.language));
	json_object_set(job, "tools", r->job.tool_names);
	/* caches: lowered text an earlier run of this code made. */
	if (r->job.lowered)
		json_object_set_new(job, "lowering", json_integer(CTL_LOWERING_VERSION));
	if (!job || msg_alloc_failures() != oom) {
		json_decref(job);
		errno = ENOMEM;
		return -1;
	}
	struct msg_stream *m = &r->job_msg;
	msg_stream_init(m);
	msg_stream_object(m, job);
	json_decref(job);
	const struct run_job *in = &r->job;
	if (in->code)
		add_source(r, 0, "code", in->code, in->code_len);
	if (in->tests)
		add_source(r, 1, "tests", in->tests, in->tests_len);
	if (in->lowered) /* caches: a JSON string already, copied as it is */
		msg_stream_json(m, "lowered", view(&r->job_src[3], in->lowered, in->lowered_len), 0,
				in->lowered_len);
	if (in->store)
		msg_stream_json(m, "store", view(&r->job_src[2], in->store, in->store_len), 0,
				in->store_len);
	unsigned char hdr[4];
	if (msg_stream_end(m) < 0 || m->total > UINT32_MAX) {
		msg_stream_free(m);
		errno = ENOMEM;
		return -1;
	}
	frame_put_header(hdr, (uint32_t)m->total);
	if (buf_append(&r->ctl_out, hdr, 4) < 0) {
		msg_stream_free(m);
		errno = ENOMEM;
		return -1;
	}
	r->job_streaming = true;
	return 0;
}

/* The next chunk of the job while less than one waits to be sent. Once it
 * is all out the worker has all it needs, and the owner hears it (the
 * views may go). Whether anything was added. */
static bool job_more(struct run *r)
{
	if (!r->job_streaming || buf_len(&r->ctl_out) >= LIMIT_STREAM_CHUNK_BYTES)
		return false;
	long k = msg_stream_fill(&r->job_msg, &r->ctl_out, LIMIT_STREAM_CHUNK_BYTES);
	if (k < 0) {
		log_err("%s: out of memory sending the job", r->id);
		msg_stream_free(&r->job_msg);
		r->job_streaming = false;
		run_kill(r, RUN_KILL_PROTOCOL);
		return false;
	}
	if (msg_stream_finished(&r->job_msg)) {
		msg_stream_free(&r->job_msg);
		r->job_streaming = false;
		r->ops->job_sent(r);
	}
	return k > 0;
}

/*
 * Everything from the worker's fds to asking spawn.c for a worker: the
 * control socketpair and the two pipes (the supervisor's ends in r,
 * CLOEXEC and non-blocking), their watches, the job's first bytes written
 * (the worker reads them once it is there), and the worker's ends handed
 * to spawn_worker, which answers through on_spawned. 0; or -1 with errno
 * when no worker was asked for (every fd is then closed again).
 */
static int acquire_worker(struct run *r)
{
	int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		int err = errno;
		int fds[] = {sv[0], sv[1], po[0], po[1], pe[0], pe[1]};
		for (size_t i = 0; i < 6; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		errno = err;
		return -1;
	}
	r->ctl_fd = sv[0];
	r->pipe_fd[RUN_OUT] = po[0];
	r->pipe_fd[RUN_ERR] = pe[0];
	set_nonblock(r->ctl_fd);
	set_nonblock(r->pipe_fd[RUN_OUT]);
	set_nonblock(r->pipe_fd[RUN_ERR]);
	int child[FORKSERVER_FDS] = {sv[1], po[1], pe[1]};
	if (loop_add(&r->w_ctl, r->ctl_fd, EPOLLIN, on_ctl) < 0 ||
	    loop_add(&r->w_pipe[RUN_OUT], r->pipe_fd[RUN_OUT], r->paused ? 0 : EPOLLIN,
		     on_stdout) < 0 ||
	    loop_add(&r->w_pipe[RUN_ERR], r->pipe_fd[RUN_ERR], r->paused ? 0 : EPOLLIN,
		     on_stderr) < 0) {
		int err = errno;
		close_channels(r);
		for (int i = 0; i < FORKSERVER_FDS; i++)
			close(child[i]);
		errno = err;
		return -1;
	}
	ctl_flush(r);
	r->spawning = true;
	if (spawn_worker(r->limits.memory_bytes, r->limits.timeout_ms, child, on_spawned, r) < 0) {
		r->spawning = false;
		close_channels(r);
		errno = ESHUTDOWN;
		return -1;
	}
	return 0;
}

void run_start(struct run *r)
{
	r->started = true;
	r->t_start_us = loop_clock_us();
	/* The timeout counts from here, not from when the request queued; a
	 * worker is only started with its timeout armed. */
	if (loop_timer_set(&r->timer, r->limits.timeout_ms, on_timeout) < 0) {
		no_worker(r, ENOMEM);
		return;
	}
	/* The job first: a job that cannot be made costs no worker. */
	errno = 0;
	if (encode_job(r) < 0 || acquire_worker(r) < 0)
		no_worker(r, errno ? errno : ENOMEM);
}
