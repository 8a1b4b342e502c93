/*
 * mcp_main.c - bin/sandboxd-mcp: the MCP bridge over stdio.
 *
 * One JSON-RPC message a line on stdin, answers and notifications a line
 * on stdout, nothing else on stdout; logs go to stderr. The host's lines
 * go to mcp_rpc (the protocol), whose tools (mcp_tools) run on the daemon
 * over one connection; everything is driven by one ploop and nothing
 * blocks it: stdin is read as it becomes readable, and what stdout cannot
 * take at once is queued and written as it drains.
 *
 * The session ends when stdin closes (or on SIGTERM/SIGINT): the
 * executions the bridge started are cancelled first, the answers still
 * owed are written out (for at most LIMIT_MCP_SHUTDOWN_MS), then it exits.
 *
 * Exit status: 0 the session ended; 2 bad usage (or a --config that cannot
 * be used); 1 a system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../protocol/size.h"
#include "mcp_codemode.h"
#include "mcp_rpc.h"
#include "mcp_tools.h"
#include "ploop.h"

enum { EXIT_OK = 0, EXIT_SYSTEM = 1, EXIT_USAGE = 2 };

#define PROG "sandboxd-mcp"
/* What one read of stdin takes at most. */
#define READ_CHUNK 65536u

static const char usage_text[] =
	"usage: " PROG " [options]\n"
	"The MCP server of sandboxd: speaks the Model Context Protocol on stdin and\n"
	"stdout (one JSON-RPC message a line) and runs the host's code on the daemon.\n"
	"  --socket PATH        daemon socket (env SANDBOXD_SOCKET; default\n"
	"                       ./run/sandboxd.sock if it exists, else\n"
	"                       /run/sandboxd/sandboxd.sock)\n"
	"  --config FILE        upstream MCP servers for code mode, in the mcpServers\n"
	"                       shape hosts use\n"
	"  --store-file FILE    keep the session's store in FILE across sessions\n"
	"  --timeout-ms N       each execution's timeout unless the call gives one\n"
	"  --memory-bytes N     each execution's memory limit unless the call gives one\n"
	"  --output-bytes N     each execution's output limit\n"
	"  --max-cpu-ms N       each execution's CPU time limit\n"
	"  -h, --help           this text\n"
	"  --version            the version\n"
	"Sizes and counts take a K, M or G suffix (powers of 1024); unset limits are\n"
	"the daemon's defaults. Logs go to stderr; stdout carries only MCP.\n"
	"Exit status: 0 when stdin closed; 2 bad usage or --config; 1 a system error.\n";

struct opts {
	const char *socket;
	const char *config;
	const char *store_file;
	struct mtool_limits limits;
};

/* The output queue: bytes not yet written to stdout, from off to len. */
struct outq {
	char *buf;
	size_t off, len, cap;
};

struct bridge {
	struct ploop *loop;
	struct mrpc *rpc;
	struct mtool *tools;
	struct mcode *codemode; /* NULL without --config */
	struct ploop_watch in_w, out_w, sig_w;
	struct ploop_timer end_timer, flush_timer;
	/* The line being read: inbuf[0..inlen). While skipping, bytes are
	 * dropped until the next newline (the line was over the bound). */
	char *inbuf;
	size_t inlen, incap;
	bool skipping;
	bool in_nonblock, out_nonblock;
	int in_flags, out_flags;
	struct outq out;
	bool out_broken; /* stdout closed or failing: nothing more is written */
	bool in_paused;	 /* stdin not read while the output queue is over its bound */
	bool ending;	 /* stdin closed or a signal: shutting down */
	bool flushing;	 /* shut down; only the output queue is left */
	int sigfd;
};

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n] = '\n';
	fprintf(stderr, PROG ": %.*s", n + 1, line);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '" PROG " --help')\n");
	return EXIT_USAGE;
}

enum {
	OPT_SOCKET = 256,
	OPT_CONFIG,
	OPT_STORE_FILE,
	OPT_TIMEOUT,
	OPT_MEMORY,
	OPT_OUTPUT,
	OPT_CPU,
	OPT_VERSION,
};

static const struct option options[] = {
	{"socket", required_argument, NULL, OPT_SOCKET},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"store-file", required_argument, NULL, OPT_STORE_FILE},
	{"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
	{"memory-bytes", required_argument, NULL, OPT_MEMORY},
	{"output-bytes", required_argument, NULL, OPT_OUTPUT},
	{"max-cpu-ms", required_argument, NULL, OPT_CPU},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

/* Parses argv into o. -1 when the program should go on; else the exit
 * status (usage, help, version). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	opterr = 0;
	int c, li = -1;
	while ((c = getopt_long(argc, argv, ":h", options, &li)) != -1) {
		uint64_t v = 0;
		switch (c) {
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		case OPT_VERSION: printf(PROG " " SANDBOXD_VERSION "\n"); return EXIT_OK;
		case OPT_SOCKET:
			if (!*optarg)
				return usage_error("--socket: an empty path");
			o->socket = optarg;
			break;
		case OPT_CONFIG: o->config = optarg; break;
		case OPT_STORE_FILE: o->store_file = optarg; break;
		case OPT_TIMEOUT:
		case OPT_MEMORY:
		case OPT_OUTPUT:
		case OPT_CPU:
			if (size_parse(optarg, &v) < 0 || v == 0)
				return usage_error("--%s: '%s' is not a positive number "
						   "(a K, M or G suffix may follow)",
						   li >= 0 ? options[li].name : "?", optarg);
			if (c == OPT_TIMEOUT)
				o->limits.timeout_ms = v;
			else if (c == OPT_MEMORY)
				o->limits.memory_bytes = v;
			else if (c == OPT_OUTPUT)
				o->limits.output_bytes = v;
			else
				o->limits.max_cpu_ms = v;
			break;
		case ':': return usage_error("%s needs a value", argv[optind - 1]);
		case '?':
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (the bridge takes options only)",
				   argv[optind]);
	return -1;
}

/* ---- stdout. */

static void begin_end(struct bridge *b);

static void out_update(struct bridge *b)
{
	bool pending = b->out.off < b->out.len;
	ploop_watch_set(&b->out_w, pending && !b->out_broken ? PLOOP_WRITE : 0);
	/* Backpressure: a host that does not read its stdout stops being
	 * read from, until the queue is down to half. */
	size_t queued = b->out.len - b->out.off;
	bool pause = queued > LIMIT_MCP_OUT_QUEUE_BYTES;
	if (b->in_paused && queued <= LIMIT_MCP_OUT_QUEUE_BYTES / 2)
		b->in_paused = false;
	else if (pause)
		b->in_paused = true;
	if (ploop_watched(&b->in_w))
		ploop_watch_set(&b->in_w, b->in_paused ? 0 : PLOOP_READ);
	if (b->flushing && (!pending || b->out_broken))
		ploop_stop(b->loop);
}

/* Writes what stdout takes now; never waits. */
static void out_drain(struct bridge *b)
{
	while (b->out.off < b->out.len && !b->out_broken) {
		ssize_t n = write(STDOUT_FILENO, b->out.buf + b->out.off, b->out.len - b->out.off);
		if (n > 0) {
			b->out.off += (size_t)n;
			if (!b->out_nonblock)
				break; /* a blocking stdout: one write a turn */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		logmsg("stdout: %s; the host is gone", n < 0 ? strerror(errno) : "closed");
		b->out_broken = true;
		begin_end(b);
	}
	if (b->out.off == b->out.len)
		b->out.off = b->out.len = 0;
	out_update(b);
}

/* mrpc's write callback: queue the line and write what goes at once. */
static void out_line(void *arg, const char *line, size_t len)
{
	struct bridge *b = arg;
	if (b->out_broken)
		return;
	if (b->out.off > 0 && b->out.off >= b->out.len / 2) {
		memmove(b->out.buf, b->out.buf + b->out.off, b->out.len - b->out.off);
		b->out.len -= b->out.off;
		b->out.off = 0;
	}
	if (b->out.len + len > b->out.cap) {
		size_t ncap = b->out.cap ? b->out.cap : 65536;
		while (ncap < b->out.len + len)
			ncap *= 2;
		char *nb = realloc(b->out.buf, ncap);
		if (!nb) {
			/* A message cannot be half lost: the host would read a
			 * broken line. Say so and end. */
			logmsg("out of memory queueing %zu bytes for stdout", len);
			b->out_broken = true;
			begin_end(b);
			return;
		}
		b->out.buf = nb;
		b->out.cap = ncap;
	}
	memcpy(b->out.buf + b->out.len, line, len);
	b->out.len += len;
	out_drain(b);
}

static void on_out(struct ploop_watch *w, unsigned events)
{
	(void)events;
	out_drain(w->arg);
}

/* ---- stdin. */

/* Feeds every complete line of inbuf to mrpc and keeps the rest. */
static void in_lines(struct bridge *b, size_t scan_from)
{
	size_t start = 0;
	for (size_t i = scan_from; i < b->inlen; i++) {
		if (b->inbuf[i] != '\n')
			continue;
		if (b->skipping)
			b->skipping = false; /* the end of the line that was too long */
		else
			mrpc_feed(b->rpc, b->inbuf + start, i - start);
		start = i + 1;
		if (b->ending)
			break;
	}
	if (b->skipping) {
		b->inlen = 0;
		if (b->incap > 16 * READ_CHUNK) {
			free(b->inbuf);
			b->inbuf = NULL;
			b->incap = 0;
		}
		return;
	}
	memmove(b->inbuf, b->inbuf + start, b->inlen - start);
	b->inlen -= start;
	if (b->inlen == 0 && b->incap > 16 * READ_CHUNK) {
		/* A big line has gone: give its memory back. */
		free(b->inbuf);
		b->inbuf = NULL;
		b->incap = 0;
	}
	if (b->inlen > LIMIT_MCP_LINE_BYTES) {
		/* The line is over the bound: answer it once and drop it up to
		 * its newline. */
		logmsg("a line of more than %u bytes from the host was dropped",
		       (unsigned)LIMIT_MCP_LINE_BYTES);
		mrpc_line_too_long(b->rpc, LIMIT_MCP_LINE_BYTES);
		b->inlen = 0;
		b->skipping = true;
	}
}

static void on_in(struct ploop_watch *w, unsigned events)
{
	struct bridge *b = w->arg;
	(void)events;
	for (int reads = 0; reads < 16 && !b->ending && !b->in_paused; reads++) {
		if (b->incap - b->inlen < READ_CHUNK) {
			size_t ncap = b->incap ? b->incap * 2 : 2 * READ_CHUNK;
			char *nb = realloc(b->inbuf, ncap);
			if (!nb) {
				logmsg("out of memory reading stdin");
				begin_end(b);
				return;
			}
			b->inbuf = nb;
			b->incap = ncap;
		}
		ssize_t n = read(STDIN_FILENO, b->inbuf + b->inlen, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (n < 0)
				logmsg("stdin: %s", strerror(errno));
			/* A last line without its newline is still a message. */
			if (b->inlen && !b->skipping)
				mrpc_feed(b->rpc, b->inbuf, b->inlen);
			b->inlen = 0;
			begin_end(b);
			return;
		}
		size_t from = b->inlen;
		b->inlen += (size_t)n;
		in_lines(b, from);
		if (!b->in_nonblock)
			return; /* a blocking stdin: one read per readiness */
	}
}

/* ---- The end. */

static void on_flush_timeout(struct ploop_timer *t)
{
	struct bridge *b = t->arg;
	logmsg("the host did not read the last %zu bytes of answers", b->out.len - b->out.off);
	ploop_stop(b->loop);
}

/* The tools have cancelled what they started: free them and the protocol
 * (which cancels any call left), then write out what is queued. On a
 * timer, never inside the tools' or the protocol's own callbacks. */
static void on_tools_done(struct ploop_timer *t)
{
	struct bridge *b = t->arg;
	mcode_free(b->codemode);
	b->codemode = NULL;
	mtool_free(b->tools);
	b->tools = NULL;
	mrpc_free(b->rpc);
	b->rpc = NULL;
	b->flushing = true;
	ploop_timer_set(b->loop, &b->flush_timer, LIMIT_MCP_SHUTDOWN_MS, on_flush_timeout, b);
	out_update(b);
}

static void tools_done(void *arg)
{
	struct bridge *b = arg;
	if (ploop_timer_set(b->loop, &b->end_timer, 0, on_tools_done, b) < 0)
		ploop_stop(b->loop);
}

static void on_end(struct ploop_timer *t)
{
	struct bridge *b = t->arg;
	if (b->tools)
		mtool_shutdown(b->tools, tools_done, b);
	else
		tools_done(b);
}

/* Stdin closed, stdout broke or a signal came: stop reading, and (on the
 * next timer pass, outside whatever callback noticed it) cancel the
 * executions the bridge started. */
static void begin_end(struct bridge *b)
{
	if (b->ending)
		return;
	b->ending = true;
	ploop_watch_del(&b->in_w);
	if (ploop_timer_set(b->loop, &b->end_timer, 0, on_end, b) < 0)
		ploop_stop(b->loop); /* main frees what is left */
}

static void on_signal(struct ploop_watch *w, unsigned events)
{
	struct bridge *b = w->arg;
	struct signalfd_siginfo si;
	(void)events;
	while (read(b->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		logmsg("signal %u: ending the session", si.ssi_signo);
		begin_end(b);
	}
}

/* Makes fd non-blocking when it is a pipe or a socket (the usual case
 * for a host); a terminal or a file is left as it is (shared with the
 * shell, or never blocking) and read or written once per readiness.
 * Returns whether it is non-blocking; *saved gets the old flags. */
static bool set_nonblock(int fd, int *saved)
{
	struct stat st;
	*saved = fcntl(fd, F_GETFL);
	if (*saved < 0 || fstat(fd, &st) < 0)
		return false;
	if (*saved & O_NONBLOCK)
		return true;
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return false;
	return fcntl(fd, F_SETFL, *saved | O_NONBLOCK) == 0;
}

static void restore_flags(int fd, int saved)
{
	if (saved >= 0 && !(saved & O_NONBLOCK))
		fcntl(fd, F_SETFL, saved);
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;

	signal(SIGPIPE, SIG_IGN);
	struct bridge b = {
		.in_w = PLOOP_WATCH_INIT,
		.out_w = PLOOP_WATCH_INIT,
		.sig_w = PLOOP_WATCH_INIT,
		.end_timer = PLOOP_TIMER_INIT,
		.flush_timer = PLOOP_TIMER_INIT,
		.sigfd = -1,
	};
	b.loop = ploop_new();
	struct mrpc_server_info info = {
		.name = "sandboxd",
		.title = "sandboxd",
		.version = SANDBOXD_VERSION,
		.instructions = "Runs JavaScript and TypeScript in a fresh confined sandbox per "
				"call. Use execute for code, test for code with tests, status to "
				"follow a background execution.",
	};
	b.rpc = b.loop ? mrpc_new(&info, out_line, &b) : NULL;
	if (!b.rpc) {
		logmsg("out of memory");
		return EXIT_SYSTEM;
	}
	struct mtool_options to = {
		.socket_path = o.socket,
		.limits = o.limits,
		.store_file = o.store_file,
	};
	char *why = NULL;
	b.tools = mtool_new(b.loop, b.rpc, &to, &why);
	if (!b.tools) {
		logmsg("%s", why ? why : "out of memory");
		free(why);
		return EXIT_SYSTEM;
	}
	/* Code mode starts its servers and waits (a bounded time) for their
	 * tools before the host is read, so that its first tools/list and
	 * execute see them. A config that cannot be used is the user's to
	 * fix: said once, exit 2. */
	if (o.config) {
		b.codemode = mcode_open(b.loop, b.rpc, b.tools, o.config, &why);
		if (!b.codemode) {
			logmsg("--config: %s", why ? why : "out of memory");
			free(why);
			mtool_free(b.tools);
			mrpc_free(b.rpc);
			ploop_free(b.loop);
			return EXIT_USAGE;
		}
	}

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == 0)
		b.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (b.sigfd >= 0 &&
	    ploop_watch_add(b.loop, &b.sig_w, b.sigfd, PLOOP_READ, on_signal, &b) < 0)
		logmsg("cannot watch signals: %s", strerror(errno));

	b.in_nonblock = set_nonblock(STDIN_FILENO, &b.in_flags);
	b.out_nonblock = set_nonblock(STDOUT_FILENO, &b.out_flags);
	if (ploop_watch_add(b.loop, &b.in_w, STDIN_FILENO, PLOOP_READ, on_in, &b) < 0 ||
	    ploop_watch_add(b.loop, &b.out_w, STDOUT_FILENO, 0, on_out, &b) < 0) {
		logmsg("out of memory");
		return EXIT_SYSTEM;
	}

	/* Runs until the session has ended and its answers are written (or
	 * the flush timer gave up on the host). */
	rc = EXIT_OK;
	while (!(b.flushing && (b.out.off == b.out.len || b.out_broken))) {
		if (ploop_run(b.loop) < 0) {
			logmsg("poll: %s", strerror(errno));
			rc = EXIT_SYSTEM;
			break;
		}
		if (b.flushing && !ploop_timer_armed(&b.flush_timer))
			break; /* the flush timed out */
		if (!b.ending && !ploop_watched(&b.in_w))
			break;
	}
	mcode_free(b.codemode);
	mtool_free(b.tools);
	mrpc_free(b.rpc);
	ploop_watch_del(&b.in_w);
	ploop_watch_del(&b.out_w);
	ploop_watch_del(&b.sig_w);
	ploop_timer_cancel(&b.flush_timer);
	ploop_timer_cancel(&b.end_timer);
	ploop_free(b.loop);
	restore_flags(STDIN_FILENO, b.in_flags);
	restore_flags(STDOUT_FILENO, b.out_flags);
	if (b.sigfd >= 0)
		close(b.sigfd);
	free(b.inbuf);
	free(b.out.buf);
	return rc;
}
