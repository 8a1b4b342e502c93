/*
 * sandboxctl - command-line client for sandboxd (see usage below).
 *
 * Exit status: 0 success; 1 the script or its tests failed, or the daemon
 * refused the operation (not found, already ended); 2 bad usage, ours or
 * the request's; 3 no daemon, or it broke the protocol or is unavailable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/jnum.h"
#include "../protocol/size.h"
#include "sdc.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_CONN = 3 };

/* --follow asks for new output this often at the longest. */
#define FOLLOW_WAIT_MS 250

static const char usage[] =
	"usage: sandboxctl [options] COMMAND\n"
	"  exec|stream (-e CODE | FILE | - | --cached NAME)   run a script and wait for it\n"
	"  submit (-e CODE | FILE | - | --cached NAME)        run it in the background; print its "
	"id\n"
	"  status ID [--wait] [--follow]                      its output and, once done, result\n"
	"  cancel ID                                          kill it\n"
	"  list [--state S]... [--limit N]                    executions, newest first\n"
	"  test --tests FILE [CODE_FILE]                      run tests (test() and assert)\n"
	"  cache list [FILTER] | cache clear                  the script cache\n"
	"  health                                             the daemon's state\n"
	"  declarations [TOOLS_FILE]                          the TypeScript a script sees\n"
	"                     for --tool's tools and TOOLS_FILE's (a JSON array of\n"
	"                     {name, description, input_schema, output_schema}, or an\n"
	"                     MCP tools/list result)\n"
	"  help                                               this text\n"
	"options (before or after the command and its operands; -- ends them):\n"
	"  --socket PATH      daemon socket (env SANDBOXD_SOCKET; default ./" SDC_LOCAL_SOCKET
	" if it\n"
	"                     exists, else " SDC_SYSTEM_SOCKET ")\n"
	"  -e, --eval CODE    the script (else read from FILE, or stdin for -)\n"
	"  --timeout-ms N, --memory-bytes N, --output-bytes N   execution limits\n"
	"                     (numbers take a K, M or G suffix, powers of 1024, as\n"
	"                     sandboxd's options do: --memory-bytes 16M)\n"
	"  --no-cache         do not add the script to the cache\n"
	"  --typescript       the script is TypeScript (implied by a FILE ending in .ts);\n"
	"                     --javascript: JavaScript (else: JavaScript, or TypeScript\n"
	"                     when it is valid only as that)\n"
	"  --tool NAME=CMD    (repeatable) tools.NAME(args) runs CMD with the args' JSON on\n"
	"                     stdin; its stdout is the JSON result, a non-zero exit an error\n"
	"  --store FILE       the store load() reads, a JSON object; written back on success\n"
	"  --json             print the raw reply frames instead\n"
	"  -h, --help         this text\n"
	"  --version          print sandboxctl's version\n"
	"exit status: 0 success, 1 the script or the operation failed, 2 usage,\n"
	"3 connection or protocol error\n";

struct opts {
	const char *socket;
	const char *code_arg;
	const char *cached;
	const char *tests_file;
	bool json, wait, follow, no_cache, typescript, javascript;
	json_int_t timeout_ms, memory_bytes, output_bytes, limit;
	json_t *states;
	json_t *tools; /* {name: command} from --tool */
	const char *store_file;
};

__attribute__((format(printf, 2, 3))) static int fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sandboxctl: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return code;
}

/* A usage error: one line, and where the whole usage is. */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "sandboxctl: ");
	vfprintf(stderr, fmt, ap);
	fputs(" (try 'sandboxctl help')\n", stderr);
	va_end(ap);
	return EXIT_USAGE;
}

/* ---- the connection */

struct client {
	struct sdc *sdc;
	bool json;
	json_t *tools; /* {name: command} */
};

static int client_open(struct client *c, const struct opts *o)
{
	c->sdc = sdc_connect(o->socket, FRAME_MODE_BINARY, 0);
	if (!c->sdc)
		return fail(errno == ENAMETOOLONG ? EXIT_USAGE : EXIT_CONN,
			    "cannot connect to %s: %s", o->socket, strerror(errno));
	c->json = o->json;
	c->tools = o->tools;
	return -1;
}

/* --json: every frame as one line on stdout. */
static void print_frame(const struct client *c, const json_t *frame)
{
	if (!c->json)
		return;
	char *text = jnum_dumps(frame, JSON_COMPACT);
	if (text)
		puts(text);
	free(text);
	fflush(stdout);
}

static void on_event(struct sdc *s, json_t *frame, void *arg);

/* Sends req (stealing the reference) with op and a fresh id and returns its
 * final reply, printing output events and answering tool calls on the way;
 * NULL when the connection failed (reported). */
static json_t *client_call(struct client *c, const char *op, json_t *req)
{
	json_object_set_new(req, "op", json_string(op));
	int st;
	json_t *reply = sdc_call(c->sdc, req, on_event, c, -1, &st);
	json_decref(req);
	if (!reply) {
		fail(0, "%s", st == SDC_EINVAL ? "cannot encode the request" : sdc_error(c->sdc));
		return NULL;
	}
	print_frame(c, reply);
	return reply;
}

/* ---- printing */

static bool stdout_at_line_start = true;

static void print_output(const char *stream, json_t *data)
{
	if (!json_is_string(data) || !json_string_length(data))
		return;
	bool err = stream && strcmp(stream, "stderr") == 0;
	FILE *f = err ? stderr : stdout;
	fwrite(json_string_value(data), 1, json_string_length(data), f);
	fflush(f);
	if (!err)
		stdout_at_line_start =
			json_string_value(data)[json_string_length(data) - 1] == '\n';
}

static void answer_tool_call(struct client *c, json_t *event);

/* The events of the request waited for: output printed, tool calls
 * answered. */
static void on_event(struct sdc *s, json_t *msg, void *arg)
{
	(void)s;
	struct client *c = arg;
	print_frame(c, msg);
	const char *event = json_string_value(json_object_get(msg, "event"));
	if (!c->json && event && strcmp(event, "output") == 0)
		print_output(json_string_value(json_object_get(msg, "stream")),
			     json_object_get(msg, "data"));
	if (event && strcmp(event, "tool_call") == 0)
		answer_tool_call(c, msg);
}

/* The answer to one of our tool_result requests. */
static void on_tool_reply(struct sdc *s, json_t *msg, void *arg)
{
	(void)s;
	struct client *c = arg;
	if (!msg)
		return;
	print_frame(c, msg);
	if (!json_is_true(json_object_get(msg, "ok")))
		fprintf(stderr, "sandboxctl: tool result refused: %s\n",
			json_string_value(json_object_get(json_object_get(msg, "error"), "message"))
				?: "");
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* A syntax error's stack is Node's picture of the offending line
 * ("script.js:2", the line, a caret under the column) before the error:
 * what follows sandboxctl's line for e, which then gives the message. */
static const char *source_picture(json_t *e)
{
	const char *stack = str(e, "stack");
	const char *kind = str(e, "kind");
	if (!stack || !kind || strcmp(kind, "syntax") != 0 || !strstr(stack, "\n\n"))
		return NULL;
	return strncmp(stack, "SyntaxError", 11) == 0 ? NULL : stack;
}

/* What sandboxctl's line says of the error e: its stack (whose first line
 * is the message, the frames following indented), or its message. */
static const char *error_lead(json_t *e)
{
	if (source_picture(e))
		return str(e, "message") ?: "";
	return str(e, "stack") ?: str(e, "message");
}

/* Prints e's source picture, if it has one, after sandboxctl's line:
 * each line of it indented, as frames are. */
static void print_picture(json_t *e)
{
	const char *p = source_picture(e);
	if (!p)
		return;
	const char *end = strstr(p, "\n\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		fprintf(stderr, "    %.*s\n", (int)n, p);
		p += n + 1;
	}
}

/* An error reply: its message on stderr; the exit status it means. */
static int report_error_reply(json_t *reply)
{
	json_t *e = json_object_get(reply, "error");
	const char *code = str(e, "code");
	fprintf(stderr, "sandboxctl: %s: %s\n", code ? code : "error", str(e, "message") ?: "");
	if (code && strcmp(code, "INVALID_ARGUMENT") == 0)
		return EXIT_USAGE;
	if (code && (strcmp(code, "NOT_FOUND") == 0 || strcmp(code, "FAILED_PRECONDITION") == 0))
		return EXIT_FAILED;
	return EXIT_CONN;
}

/* error.data, the fields a script set on the error it threw, as one
 * indented line of JSON on stderr. */
static void print_error_data(const json_t *e)
{
	json_t *data = json_object_get(e, "data");
	char *text = data ? jnum_dumps(data, JSON_COMPACT) : NULL;
	if (text)
		fprintf(stderr, "    data: %s\n", text);
	free(text);
}

/* The end of an execution, the human way: its value, or its error. */
static int report_result(json_t *reply)
{
	if (json_is_true(json_object_get(reply, "success"))) {
		json_t *value = json_object_get(reply, "value");
		if (value) {
			char *text = jnum_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
			if (!stdout_at_line_start)
				fputc('\n', stdout);
			printf("%s\n", text ? text : "");
			free(text);
		}
		return EXIT_OK;
	}
	json_t *e = json_object_get(reply, "error");
	fflush(stdout);
	/* One line with the prefix; a stack's frames follow it, indented; then
	 * the error's own fields. */
	fprintf(stderr, "sandboxctl: %s (%s): %s\n", str(reply, "state") ?: "failed",
		str(e, "kind") ?: "unknown", error_lead(e) ?: "the script failed");
	print_picture(e);
	print_error_data(e);
	return EXIT_FAILED;
}

static bool terminal(const char *state)
{
	return state && strcmp(state, "pending") != 0 && strcmp(state, "running") != 0;
}

/* ---- reading scripts */

static char *read_all(const char *path, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct buf b = BUF_INIT;
	ssize_t n;
	for (;;) {
		char *dst = buf_reserve(&b, 65536);
		if (!dst) {
			errno = ENOMEM;
			n = -1;
			break;
		}
		n = read(fd, dst, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_commit(&b, (size_t)n);
	}
	int err = errno;
	if (fd != 0)
		close(fd);
	if (n < 0 || buf_append(&b, "", 1) < 0) {
		buf_free(&b);
		errno = err;
		return NULL;
	}
	*len = buf_len(&b) - 1;
	return b.data;
}

/* Adds "code" (from -e, FILE or -) or "cached" to req. -1, or an exit status. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int add_source(json_t *req, const struct opts *o, int argc, char **argv)
{
	int files = argc - optind;
	int sources = !!o->code_arg + !!o->cached + files;
	if (sources == 0)
		return usage_error(
			"%s", "give the script as -e CODE, a FILE, - for stdin, or --cached NAME");
	if (sources > 1) {
		/* Says which were given, so that a stray operand is found. */
		char given[256] = "";
		size_t n = 0;
		if (o->code_arg)
			n += (size_t)snprintf(given + n, sizeof given - n, "-e");
		if (o->cached)
			n += (size_t)snprintf(given + n, sizeof given - n, "%s--cached",
					      n ? " and " : "");
		if (files == 1)
			snprintf(given + n, sizeof given - n, "%sthe file %.100s", n ? " and " : "",
				 argv[optind]);
		else if (files > 1)
			snprintf(given + n, sizeof given - n, "%s%d files (%.100s ...)",
				 n ? " and " : "", files, argv[optind]);
		return usage_error("one script at a time: %s given", given);
	}
	if (o->cached) {
		json_object_set_new(req, "cached", json_string(o->cached));
		return -1;
	}
	size_t len;
	char *code = o->code_arg ? strdup(o->code_arg) : read_all(argv[optind], &len);
	if (!code)
		return fail(EXIT_USAGE, "cannot read the script %s: %s", argv[optind],
			    strerror(errno));
	if (o->code_arg)
		len = strlen(code);
	json_t *text = json_stringn(code, len);
	free(code);
	if (!text)
		return fail(EXIT_USAGE, "%s", "the script is not valid UTF-8");
	json_object_set_new(req, "code", text);
	if (!o->code_arg && ends_with(argv[optind], ".ts"))
		json_object_set_new(req, "language", json_string("typescript"));
	return -1;
}

static void add_limits(json_t *req, const struct opts *o)
{
	/* --typescript and --javascript win over a file's name. */
	if (o->typescript || o->javascript)
		json_object_set_new(req, "language",
				    json_string(o->typescript ? "typescript" : "javascript"));
	if (o->timeout_ms >= 0)
		json_object_set_new(req, "timeout_ms", json_integer(o->timeout_ms));
	if (o->memory_bytes >= 0)
		json_object_set_new(req, "memory_bytes", json_integer(o->memory_bytes));
	if (o->output_bytes >= 0)
		json_object_set_new(req, "output_bytes", json_integer(o->output_bytes));
}

/* ---- tools and the store */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Runs command (sh -c, in a process group of its own) with input on stdin;
 * its stdout and stderr, and exit status (-1 when it could not run or was
 * killed). While it runs, the daemon's frames go on being dispatched: once
 * request id (when >= 0) has had its final reply, the execution is over (a
 * timeout, a cancel) and nobody waits for the answer, so the tool's whole
 * process group is killed at once and *ended set.
 */
static int run_command(struct client *c, long long id, const char *command, const char *name,
		       const char *input, struct buf *out, struct buf *err, bool *ended)
{
	int in[2] = {-1, -1}, o[2] = {-1, -1}, e[2] = {-1, -1};
	pid_t pid = -1;
	if (pipe2(in, O_CLOEXEC) == 0 && pipe2(o, O_CLOEXEC) == 0 && pipe2(e, O_CLOEXEC) == 0)
		pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		setenv("SANDBOXD_TOOL", name, 1);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	close_fd(&in[0]);
	close_fd(&o[1]);
	close_fd(&e[1]);
	if (pid < 0) {
		close_fd(&in[1]);
		close_fd(&o[0]);
		close_fd(&e[0]);
		return -1;
	}
	/* Set on both sides, so it is in place whichever runs first. */
	setpgid(pid, pid);
	/* A tool that does not read its input must not block us. */
	signal(SIGPIPE, SIG_IGN);
	size_t len = strlen(input), sent = 0;
	if (len == 0 || fcntl(in[1], F_SETFL, O_NONBLOCK) < 0)
		close_fd(&in[1]);
	struct pollfd p[4] = {{o[0], POLLIN, 0},
			      {e[0], POLLIN, 0},
			      {in[1], POLLOUT, 0},
			      {id >= 0 ? sdc_fd(c->sdc) : -1, POLLIN, 0}};
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		/* The frames read or waiting (the execution's end among them). */
		while (id >= 0 && sdc_is_pending(c->sdc, id) && sdc_pump(c->sdc, 0) == SDC_OK)
			;
		if (id >= 0 && !sdc_is_pending(c->sdc, id)) {
			*ended = true;
			break;
		}
		if (poll(p, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[2].fd >= 0 && p[2].revents) {
			ssize_t n = write(p[2].fd, input + sent, len - sent);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == len) {
				close_fd(&in[1]);
				p[2].fd = -1;
			}
		}
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			struct buf *b = i ? err : out;
			char *dst = buf_reserve(b, 65536);
			ssize_t n = dst ? read(p[i].fd, dst, 65536) : -1;
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close_fd(i ? &e[0] : &o[0]);
				p[i].fd = -1;
			} else {
				buf_commit(b, (size_t)n);
			}
		}
	}
	close_fd(&in[1]);
	close_fd(&o[0]);
	close_fd(&e[0]);
	if (*ended)
		kill(-pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Answers a tool_call event by running the tool's command. */
static void answer_tool_call(struct client *c, json_t *event)
{
	const char *name = json_string_value(json_object_get(event, "name"));
	const char *command = json_string_value(json_object_get(c->tools, name ? name : ""));
	char *args = jnum_dumps(json_object_get(event, "args"), JSON_COMPACT | JSON_ENCODE_ANY);
	struct buf out = BUF_INIT, err = BUF_INIT;
	json_t *rid = json_object_get(event, "id");
	bool ended = false;
	int status = command && args
			     ? run_command(c, json_is_integer(rid) ? json_integer_value(rid) : -1,
					   command, name, args, &out, &err, &ended)
			     : -1;
	free(args);
	if (ended) { /* the execution is over: nobody to answer */
		buf_free(&out);
		buf_free(&err);
		return;
	}
	buf_append(&out, "", 1);
	buf_append(&err, "", 1);
	json_t *value = NULL;
	char *error = NULL;
	if (status == 0) {
		json_error_t jerr;
		const char *text = buf_peek(&out);
		value = text[strspn(text, " \t\r\n")] ? jnum_loads(text, JSON_DECODE_ANY, &jerr)
						      : json_null();
		if (!value &&
		    asprintf(&error, "the tool %s printed invalid JSON: %s", name, jerr.text) < 0)
			error = NULL;
	} else {
		/* The tool's own words, else how it ended. */
		const char *msg = buf_peek(&err);
		size_t n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
			n--;
		if (n ? asprintf(&error, "%.*s", (int)n, msg) < 0
		      : asprintf(&error, "the tool %s failed (%s %d)", name ? name : "?",
				 status < 0 ? "could not run, or was killed" : "exit status",
				 status) < 0)
			error = NULL;
	}
	buf_free(&out);
	buf_free(&err);
	long long r = sdc_tool_result(c->sdc, event, value, value ? NULL : error ?: "the tool failed",
				      on_tool_reply, c);
	if (r == SDC_EINVAL) /* its words were not UTF-8 */
		r = sdc_tool_result(c->sdc, event, NULL, "the tool failed", on_tool_reply, c);
	json_decref(value);
	free(error);
}

/* Adds the declared tools and the store to an execution request. */
static int add_tools_and_store(json_t *req, const struct opts *o)
{
	if (o->tools) {
		json_t *list = json_array();
		const char *name;
		json_t *cmd;
		json_object_foreach (o->tools, name, cmd)
			json_array_append_new(list, json_pack("{s:s}", "name", name));
		json_object_set_new(req, "tools", list);
	}
	if (o->store_file) {
		json_error_t err;
		json_t *store = access(o->store_file, F_OK) == 0
					? jnum_load_file(o->store_file, 0, &err)
					: json_object();
		if (!json_is_object(store)) {
			json_decref(store);
			return fail(EXIT_USAGE, "--store %s: expected a JSON object (%s)",
				    o->store_file, store ? "not an object" : err.text);
		}
		json_object_set_new(req, "store", store);
	}
	return -1;
}

/* Applies a successful execution's store writes to --store FILE, through a
 * temporary file so the store is never left half written. */
static int save_store(const struct opts *o, json_t *req_store, json_t *reply)
{
	json_t *writes = json_object_get(reply, "store_writes");
	if (!o->store_file || !writes)
		return -1;
	json_t *store = json_deep_copy(req_store);
	json_object_update(store, json_object_get(writes, "set"));
	size_t i;
	json_t *k;
	json_array_foreach (json_object_get(writes, "delete"), i, k)
		json_object_del(store, json_string_value(k));
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", o->store_file);
	int rc = jnum_dump_file(store, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 &&
				 rename(tmp, o->store_file) == 0
			 ? -1
			 : fail(EXIT_CONN, "cannot write --store %s: %s", o->store_file,
				strerror(errno));
	json_decref(store);
	return rc;
}

/* ---- commands */

/* exec, stream, submit */
static int cmd_run(struct client *c, const struct opts *o, const char *cmd, int argc, char **argv)
{
	json_t *req = json_object();
	int rc = add_source(req, o, argc, argv);
	if (rc >= 0) {
		json_decref(req);
		return rc;
	}
	add_limits(req, o);
	if (o->no_cache)
		json_object_set_new(req, "cache", json_false());
	if ((rc = add_tools_and_store(req, o)) >= 0) {
		json_decref(req);
		return rc;
	}
	json_t *sent_store = json_incref(json_object_get(req, "store"));
	const char *op = strcmp(cmd, "exec") == 0     ? "execute"
			 : strcmp(cmd, "submit") == 0 ? "async"
						      : "stream";
	json_t *reply = client_call(c, op, req);
	if (!reply) {
		json_decref(sent_store);
		return EXIT_CONN;
	}
	int saved = save_store(o, sent_store, reply);
	json_decref(sent_store);
	if (!json_is_true(json_object_get(reply, "ok")))
		rc = report_error_reply(reply);
	else if (c->json)
		rc = strcmp(op, "async") == 0 || json_is_true(json_object_get(reply, "success"))
			     ? EXIT_OK
			     : EXIT_FAILED;
	else if (strcmp(op, "async") == 0) {
		printf("%s\n", str(reply, "execution_id"));
		rc = EXIT_OK;
	} else {
		print_output("stdout", json_object_get(reply, "stdout"));
		print_output("stderr", json_object_get(reply, "stderr"));
		rc = report_result(reply);
	}
	json_decref(reply);
	return saved >= 0 ? saved : rc;
}

static int cmd_status(struct client *c, const struct opts *o, const char *id)
{
	json_int_t off[2] = {0, 0};
	for (;;) {
		/* Output comes in bounded chunks: the offsets ask for the next. */
		json_t *req = json_pack("{s:s, s:I, s:I}", "execution_id", id, "stdout_offset",
					off[0], "stderr_offset", off[1]);
		if (o->wait || o->follow)
			json_object_set_new(req, "wait", json_true());
		if (o->follow)
			json_object_set_new(req, "wait_ms", json_integer(FOLLOW_WAIT_MS));
		int rc;
		json_t *reply = client_call(c, "status", req);
		if (!reply)
			return EXIT_CONN;
		if (!json_is_true(json_object_get(reply, "ok"))) {
			rc = report_error_reply(reply);
			json_decref(reply);
			return rc;
		}
		const char *state = str(reply, "state");
		bool done = terminal(state);
		if (!c->json && (o->follow || done)) {
			print_output("stdout", json_object_get(reply, "stdout"));
			print_output("stderr", json_object_get(reply, "stderr"));
		}
		bool more = json_is_true(json_object_get(reply, "output_more"));
		if (c->json || o->follow || done) { /* what was printed */
			off[0] = json_integer_value(json_object_get(reply, "stdout_next"));
			off[1] = json_integer_value(json_object_get(reply, "stderr_next"));
		}
		if (done && more) {
			json_decref(reply);
			continue; /* the rest of the output first */
		}
		if (done) {
			rc = c->json ? (json_is_true(json_object_get(reply, "success"))
						? EXIT_OK
						: EXIT_FAILED)
				     : report_result(reply);
			json_decref(reply);
			return rc;
		}
		if (!o->wait && !o->follow) {
			if (!c->json) {
				json_int_t pos = json_integer_value(
					json_object_get(reply, "queue_position"));
				if (pos)
					printf("%s: %s (position %lld in the queue)\n", id, state,
					       (long long)pos);
				else
					printf("%s: %s (%lld bytes of stdout, %lld of stderr so "
					       "far)\n",
					       id, state,
					       (long long)json_integer_value(
						       json_object_get(reply, "stdout_length")),
					       (long long)json_integer_value(
						       json_object_get(reply, "stderr_length")));
			}
			json_decref(reply);
			return EXIT_OK;
		}
		json_decref(reply);
	}
}

static int cmd_simple(struct client *c, const char *op, json_t *req, json_t **out)
{
	int rc;
	json_t *reply = client_call(c, op, req);
	if (!reply)
		return EXIT_CONN;
	if (!json_is_true(json_object_get(reply, "ok"))) {
		rc = report_error_reply(reply);
		json_decref(reply);
		return rc;
	}
	*out = reply;
	return -1;
}

static int cmd_cancel(struct client *c, const char *id)
{
	json_t *reply;
	int rc = cmd_simple(c, "cancel", json_pack("{s:s}", "execution_id", id), &reply);
	if (rc >= 0)
		return rc;
	if (!c->json)
		printf("%s: %s\n", id, str(reply, "state"));
	json_decref(reply);
	return EXIT_OK;
}

/*
 * The first line of s (text another script or user chose: a code preview,
 * a cache description), cut to about max bytes on a character boundary,
 * with its control characters escaped (\t, \r, \xHH, and \u0080-\u009f
 * for the C1 ones) so that it cannot move the cursor, clear the screen or
 * retitle the terminal.
 */
static void print_line(const char *s, size_t max)
{
	size_t n = strcspn(s, "\n"), shown = 0;
	for (size_t i = 0; i < n && shown < max;) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\t' || ch == '\r') {
			shown += (size_t)printf("\\%c", ch == '\t' ? 't' : 'r');
			i++;
		} else if (ch < 0x20 || ch == 0x7f) {
			shown += (size_t)printf("\\x%02x", ch);
			i++;
		} else if (ch == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
			   (unsigned char)s[i + 1] <= 0x9f) {
			shown += (size_t)printf("\\u%04x", (unsigned char)s[i + 1]);
			i += 2;
		} else {
			/* One whole character (the daemon's strings are UTF-8). */
			size_t k = 1;
			while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
				k++;
			fwrite(s + i, 1, k, stdout);
			shown += k;
			i += k;
		}
	}
	putchar('\n');
}

static int cmd_list(struct client *c, const struct opts *o)
{
	json_t *req = json_object();
	if (o->states)
		json_object_set(req, "states", o->states);
	if (o->limit >= 0)
		json_object_set_new(req, "limit", json_integer(o->limit));
	json_t *reply;
	int rc = cmd_simple(c, "list", req, &reply);
	if (rc >= 0)
		return rc;
	size_t i;
	json_t *e;
	json_array_foreach (c->json ? NULL : json_object_get(reply, "executions"), i, e) {
		time_t t = (time_t)(json_integer_value(json_object_get(e, "started_at_ms")) / 1000);
		struct tm tm;
		char when[32];
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		printf("%s  %-9s  %-7s  %s  ", str(e, "execution_id"), str(e, "state"),
		       str(e, "mode"), when);
		print_line(str(e, "cached_name") ?: str(e, "code_preview") ?: "", 60);
	}
	json_decref(reply);
	return EXIT_OK;
}

static int cmd_test(struct client *c, const struct opts *o, int argc, char **argv)
{
	if (!o->tests_file || optind < argc - 1)
		return usage_error("%s", "test takes --tests FILE and at most one CODE_FILE");
	size_t len;
	char *tests = read_all(o->tests_file, &len);
	if (!tests)
		return fail(EXIT_USAGE, "cannot read %s: %s", o->tests_file, strerror(errno));
	json_t *req = json_object();
	json_object_set_new(req, "tests", json_stringn(tests, len));
	free(tests);
	if (ends_with(o->tests_file, ".ts"))
		json_object_set_new(req, "language", json_string("typescript"));
	if (optind < argc) {
		char *code = read_all(argv[optind], &len);
		if (!code) {
			json_decref(req);
			return fail(EXIT_USAGE, "cannot read %s: %s", argv[optind],
				    strerror(errno));
		}
		json_object_set_new(req, "code", json_stringn(code, len));
		free(code);
	}
	if (!json_object_get(req, "tests") || (optind < argc && !json_object_get(req, "code"))) {
		json_decref(req);
		return fail(EXIT_USAGE, "%s", "the sources are not valid UTF-8");
	}
	add_limits(req, o);
	json_t *reply;
	int rc = cmd_simple(c, "test", req, &reply);
	if (rc >= 0)
		return rc;
	bool success = json_is_true(json_object_get(reply, "success"));
	if (!c->json) {
		print_output("stdout", json_object_get(reply, "stdout"));
		print_output("stderr", json_object_get(reply, "stderr"));
		size_t i;
		json_t *t;
		json_array_foreach (json_object_get(reply, "tests"), i, t) {
			bool skipped = json_is_true(json_object_get(t, "skipped"));
			bool passed = json_is_true(json_object_get(t, "passed"));
			printf("%s  %s (%lld ms)\n",
			       skipped	? "SKIP"
			       : passed ? "PASS"
					: "FAIL",
			       str(t, "name"),
			       (long long)json_integer_value(json_object_get(t, "duration_ms")));
			if (str(t, "error"))
				printf("      %s\n", str(t, "error"));
		}
		json_t *s = json_object_get(reply, "summary");
		if (s)
			printf("%lld tests: %lld passed, %lld failed, %lld skipped\n",
			       (long long)json_integer_value(json_object_get(s, "total")),
			       (long long)json_integer_value(json_object_get(s, "passed")),
			       (long long)json_integer_value(json_object_get(s, "failed")),
			       (long long)json_integer_value(json_object_get(s, "skipped")));
		json_t *e = json_object_get(reply, "error");
		if (e) {
			fprintf(stderr, "sandboxctl: %s%s%s (%s)\n", str(e, "source") ?: "",
				str(e, "source") ? ": " : "", error_lead(e) ?: "",
				str(e, "kind") ?: "error");
			print_picture(e);
			print_error_data(e);
		}
	}
	json_decref(reply);
	return success ? EXIT_OK : EXIT_FAILED;
}

static int cmd_cache(struct client *c, int argc, char **argv)
{
	const char *sub = optind < argc ? argv[optind++] : NULL;
	json_t *reply;
	int rc;
	if (sub && strcmp(sub, "clear") == 0 && optind == argc) {
		if ((rc = cmd_simple(c, "cache_clear", json_object(), &reply)) >= 0)
			return rc;
		if (!c->json)
			printf("removed %lld scripts\n",
			       (long long)json_integer_value(json_object_get(reply, "removed")));
		json_decref(reply);
		return EXIT_OK;
	}
	if (!sub || strcmp(sub, "list") != 0 || optind < argc - 1)
		return usage_error("%s", "cache takes list [FILTER] or clear");
	json_t *req = json_object();
	if (optind < argc)
		json_object_set_new(req, "filter", json_string(argv[optind]));
	if ((rc = cmd_simple(c, "cache_list", req, &reply)) >= 0)
		return rc;
	size_t i;
	json_t *s;
	json_array_foreach (c->json ? NULL : json_object_get(reply, "scripts"), i, s) {
		printf("%s  %7lld  ", str(s, "name"),
		       (long long)json_integer_value(json_object_get(s, "size_bytes")));
		print_line(str(s, "description") ?: "", 60);
	}
	json_decref(reply);
	return EXIT_OK;
}

/* A tool list from FILE: a JSON array of tools, or an object holding one
 * as "tools" (an MCP tools/list result: its inputSchema and outputSchema
 * are taken as input_schema and output_schema). A new reference, or NULL
 * after saying why. */
static json_t *load_tools_file(const char *path)
{
	size_t len;
	char *text = read_all(path, &len);
	if (!text) {
		fail(0, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	json_error_t err;
	json_t *doc = json_loadb(text, len, 0, &err);
	free(text);
	if (!doc) {
		fail(0, "%s: not JSON: %s (line %d, column %d)", path, err.text, err.line,
		     err.column);
		return NULL;
	}
	json_t *tools =
		json_is_array(doc) ? json_incref(doc) : json_incref(json_object_get(doc, "tools"));
	json_decref(doc);
	if (!json_is_array(tools)) {
		json_decref(tools);
		fail(0, "%s: expected a JSON array of tools, or an object with \"tools\"", path);
		return NULL;
	}
	size_t i;
	json_t *t;
	json_array_foreach (tools, i, t) {
		static const char *const mcp[][2] = {{"inputSchema", "input_schema"},
						     {"outputSchema", "output_schema"}};
		for (size_t k = 0; k < 2 && json_is_object(t); k++) {
			json_t *v = json_object_get(t, mcp[k][0]);
			if (v && !json_object_get(t, mcp[k][1]))
				json_object_set(t, mcp[k][1], v);
			json_object_del(t, mcp[k][0]);
		}
		/* What the daemon's tools do not take, MCP's annotations and
		 * titles among them, would only be refused. */
		if (json_is_object(t)) {
			json_object_del(t, "annotations");
			json_object_del(t, "title");
			json_object_del(t, "_meta");
		}
	}
	return tools;
}

/* declarations [FILE]: the TypeScript a script sees for the tools of FILE
 * and of --tool (names only). */
static int cmd_declarations(struct client *c, const struct opts *o, int argc, char **argv)
{
	if (optind < argc - 1)
		return usage_error("unexpected argument: %s", argv[optind + 1]);
	json_t *tools = optind < argc ? load_tools_file(argv[optind]) : json_array();
	if (!tools)
		return EXIT_USAGE;
	const char *name;
	json_t *cmd;
	json_object_foreach (o->tools, name, cmd) {
		bool listed = false;
		size_t i;
		json_t *t;
		json_array_foreach (tools, i, t)
			listed |= json_is_string(json_object_get(t, "name")) &&
				  strcmp(json_string_value(json_object_get(t, "name")), name) == 0;
		if (!listed)
			json_array_append_new(tools, json_pack("{s:s}", "name", name));
	}
	json_t *reply;
	int rc = cmd_simple(c, "declarations", json_pack("{s:o}", "tools", tools), &reply);
	if (rc >= 0)
		return rc;
	if (!c->json) {
		const char *ts = str(reply, "typescript") ?: "";
		size_t n = strlen(ts);
		fputs(ts, stdout);
		if (n && ts[n - 1] != '\n')
			fputc('\n', stdout);
	}
	json_decref(reply);
	return EXIT_OK;
}

static int cmd_health(struct client *c)
{
	json_t *reply;
	int rc = cmd_simple(c, "health", json_object(), &reply);
	if (rc >= 0)
		return rc;
	if (!c->json) {
		char *text = jnum_dumps(reply, JSON_INDENT(2));
		printf("%s\n", text ? text : "");
		free(text);
	}
	json_decref(reply);
	return EXIT_OK;
}

/* ---- options */

enum {
	O_SOCKET = 256,
	O_JSON,
	O_TIMEOUT,
	O_MEMORY,
	O_OUTPUT,
	O_CACHED,
	O_NO_CACHE,
	O_WAIT,
	O_FOLLOW,
	O_STATE,
	O_LIMIT,
	O_TESTS,
	O_TOOL,
	O_STORE,
	O_TYPESCRIPT,
	O_JAVASCRIPT,
	O_HELP,
	O_VERSION,
};

static const struct option options[] = {
	{"socket", required_argument, NULL, O_SOCKET},
	{"eval", required_argument, NULL, 'e'},
	{"json", no_argument, NULL, O_JSON},
	{"timeout-ms", required_argument, NULL, O_TIMEOUT},
	{"memory-bytes", required_argument, NULL, O_MEMORY},
	{"output-bytes", required_argument, NULL, O_OUTPUT},
	{"cached", required_argument, NULL, O_CACHED},
	{"no-cache", no_argument, NULL, O_NO_CACHE},
	{"wait", no_argument, NULL, O_WAIT},
	{"follow", no_argument, NULL, O_FOLLOW},
	{"state", required_argument, NULL, O_STATE},
	{"limit", required_argument, NULL, O_LIMIT},
	{"tests", required_argument, NULL, O_TESTS},
	{"tool", required_argument, NULL, O_TOOL},
	{"store", required_argument, NULL, O_STORE},
	{"typescript", no_argument, NULL, O_TYPESCRIPT},
	{"javascript", no_argument, NULL, O_JAVASCRIPT},
	{"help", no_argument, NULL, O_HELP},
	{"version", no_argument, NULL, O_VERSION},
	{NULL, 0, NULL, 0},
};

/* A size or count option's value (protocol/size.h, as sandboxd takes
 * them), at most INT64_MAX; -1 to go on, else the usage error's status. */
static int parse_size(const char *opt, const char *s, json_int_t *out)
{
	uint64_t v;
	if (size_parse(s, &v) < 0 || v > INT64_MAX)
		return usage_error("--%s %s: expected a non-negative number (K, M, G allowed)", opt,
				   s);
	*out = (json_int_t)v;
	return -1;
}

/* Every option, wherever it stands among the operands (getopt moves the
 * operands, in their order, behind them; "--" ends the options); -1 to go
 * on, else an exit status. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int opt, rc, idx = 0;
	/* Our messages, not getopt's (which lead with argv[0], a path). */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":e:h", options, &idx)) != -1) {
		switch (opt) {
		case O_SOCKET: o->socket = optarg; break;
		case 'e': o->code_arg = optarg; break;
		case O_JSON: o->json = true; break;
		case O_CACHED: o->cached = optarg; break;
		case O_NO_CACHE: o->no_cache = true; break;
		case O_WAIT: o->wait = true; break;
		case O_FOLLOW: o->follow = true; break;
		case O_TESTS: o->tests_file = optarg; break;
		case O_STORE: o->store_file = optarg; break;
		case O_TYPESCRIPT:
			o->typescript = true;
			o->javascript = false;
			break;
		case O_JAVASCRIPT:
			o->javascript = true;
			o->typescript = false;
			break;
		case O_TOOL: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				return usage_error("--tool %s: expected NAME=COMMAND", optarg);
			if (!o->tools)
				o->tools = json_object();
			json_t *cmd = json_string(eq + 1);
			char *name = strndup(optarg, (size_t)(eq - optarg));
			json_object_set_new(o->tools, name, cmd);
			free(name);
			break;
		}
		case O_STATE:
			if (!o->states)
				o->states = json_array();
			json_array_append_new(o->states, json_string(optarg));
			break;
		case O_TIMEOUT:
		case O_MEMORY:
		case O_OUTPUT:
		case O_LIMIT:
			rc = parse_size(options[idx].name, optarg,
					opt == O_TIMEOUT  ? &o->timeout_ms
					: opt == O_MEMORY ? &o->memory_bytes
					: opt == O_OUTPUT ? &o->output_bytes
							  : &o->limit);
			if (rc >= 0)
				return rc;
			break;
		case 'h':
		case O_HELP: fputs(usage, stdout); return EXIT_OK;
		case O_VERSION: printf("sandboxctl %s\n", SANDBOXD_VERSION); return EXIT_OK;
		case ':':
			return usage_error("%s needs an argument",
					   optopt > 0 && optopt < 256
						   ? (char[]){'-', (char)optopt, 0}
						   : argv[optind - 1]);
		default:
			return usage_error("unknown option %s",
					   optopt > 0 && optopt < 256
						   ? (char[]){'-', (char)optopt, 0}
						   : argv[optind - 1]);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = {.socket = sdc_default_socket(),
			 .timeout_ms = -1,
			 .memory_bytes = -1,
			 .output_bytes = -1,
			 .limit = -1};
	int rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (optind >= argc)
		return usage_error("%s", "no command given");
	const char *cmd = argv[optind++];
	if (strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	const char *id = NULL;
	if (strcmp(cmd, "status") == 0 || strcmp(cmd, "cancel") == 0) {
		if (optind >= argc)
			return usage_error("%s takes an execution ID", cmd);
		id = argv[optind++];
		if (optind != argc)
			return usage_error("unexpected argument: %s", argv[optind]);
	}
	static const char *const known[] = {"exec", "stream", "submit", "status", "cancel",
					    "list", "test",   "cache",	"health", "declarations"};
	bool ok = false;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		ok |= strcmp(cmd, known[i]) == 0;
	if (!ok)
		return usage_error("unknown command: %s", cmd);
	if ((strcmp(cmd, "list") == 0 || strcmp(cmd, "health") == 0) && optind != argc)
		return usage_error("%s takes no arguments", cmd);
	/* submit returns once the execution is queued, and a tool call goes
	 * only to the connection that submitted it: nobody would answer. */
	if (strcmp(cmd, "submit") == 0 && o.tools)
		return usage_error("%s", "submit cannot take --tool: nobody would answer the "
					 "script's tool calls once submit returns (use exec or "
					 "stream)");

	struct client c;
	if ((rc = client_open(&c, &o)) >= 0)
		return rc;
	if (strcmp(cmd, "status") == 0)
		rc = cmd_status(&c, &o, id);
	else if (strcmp(cmd, "cancel") == 0)
		rc = cmd_cancel(&c, id);
	else if (strcmp(cmd, "list") == 0)
		rc = cmd_list(&c, &o);
	else if (strcmp(cmd, "test") == 0)
		rc = cmd_test(&c, &o, argc, argv);
	else if (strcmp(cmd, "cache") == 0)
		rc = cmd_cache(&c, argc, argv);
	else if (strcmp(cmd, "health") == 0)
		rc = cmd_health(&c);
	else if (strcmp(cmd, "declarations") == 0)
		rc = cmd_declarations(&c, &o, argc, argv);
	else
		rc = cmd_run(&c, &o, cmd, argc, argv);
	sdc_close(c.sdc);
	json_decref(o.states);
	json_decref(o.tools);
	return rc;
}
