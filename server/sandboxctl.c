/*
 * sandboxctl - command-line client for sandboxd.
 *
 *   sandboxctl [options] exec|stream (-e CODE | FILE | -)
 *   sandboxctl [options] health
 *
 * The script's stdout and stderr go to ours, the returned value as JSON on
 * stdout. Exit: 0 success, 1 the script failed, 2 bad usage (ours or the
 * request's), 3 no daemon, or it broke the protocol or refused the request.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/frame.h"
#include "../protocol/io.h"
#include "../protocol/msg.h"

enum { EXIT_OK = 0, EXIT_SCRIPT = 1, EXIT_USAGE = 2, EXIT_CONN = 3 };

#define SYSTEM_SOCKET "/run/sandboxd/sandboxd.sock"
#define LOCAL_SOCKET "run/sandboxd.sock"
/* Replies carry whole outputs, which may exceed the request frame limit. */
#define MAX_REPLY_BYTES (256u * 1024u * 1024u)

static const char usage[] =
	"usage: sandboxctl [options] exec|stream (-e CODE | FILE | -)\n"
	"       sandboxctl [options] health\n"
	"  --socket PATH       daemon socket (env SANDBOXD_SOCKET; default ./" LOCAL_SOCKET
	" if it\n"
	"                      exists, else " SYSTEM_SOCKET ")\n"
	"  -e, --eval CODE     the script (else read from FILE, or stdin for -)\n"
	"  --timeout-ms N, --memory-bytes N, --output-bytes N   execution limits\n"
	"  --json              print the raw reply frames instead\n"
	"exit status: 0 success, 1 script failed, 2 usage, 3 connection or protocol error\n";

struct opts {
	const char *socket;
	const char *code_arg;
	bool json;
	json_int_t timeout_ms, memory_bytes, output_bytes;
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

static const char *default_socket(void)
{
	const char *env = getenv("SANDBOXD_SOCKET");
	if (env && *env)
		return env;
	return access(LOCAL_SOCKET, F_OK) == 0 ? LOCAL_SOCKET : SYSTEM_SOCKET;
}

static int connect_to(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof addr.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(addr.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* Reads a whole file (or stdin for "-"); NULL with errno on failure. */
static char *read_all(const char *path, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct buf b = BUF_INIT;
	for (;;) {
		char *dst = buf_reserve(&b, 65536);
		if (!dst) {
			errno = ENOMEM;
			break;
		}
		ssize_t n = read(fd, dst, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (fd != 0)
				close(fd);
			if (n < 0) {
				buf_free(&b);
				return NULL;
			}
			if (!buf_append(&b, "", 1)) {
				*len = buf_len(&b) - 1;
				return b.data;
			}
			break;
		}
		buf_commit(&b, (size_t)n);
	}
	buf_free(&b);
	return NULL;
}

/* Reads the next frame from fd; NULL on EOF or error (reported). */
static json_t *next_frame(int fd, struct buf *in, struct frame_decoder *dec, char **raw)
{
	for (;;) {
		const char *payload;
		size_t plen, used;
		enum frame_status st =
			frame_next(dec, buf_peek(in), buf_len(in), &payload, &plen, &used);
		if (st == FRAME_OK) {
			json_error_t err;
			json_t *msg = json_loadb(payload, plen, 0, &err);
			if (!msg) {
				fail(0, "daemon sent invalid JSON: %s", err.text);
				return NULL;
			}
			*raw = strndup(payload, plen);
			buf_consume(in, used);
			return msg;
		}
		if (st != FRAME_MORE) {
			fail(0, "daemon sent a bad frame: %s", frame_status_str(st));
			return NULL;
		}
		char *dst = buf_reserve(in, 65536);
		if (!dst)
			return NULL;
		ssize_t n = read(fd, dst, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail(0, "%s", n == 0 ? "daemon closed the connection" : strerror(errno));
			return NULL;
		}
		buf_commit(in, (size_t)n);
	}
}

static void write_string(FILE *f, json_t *s)
{
	if (json_is_string(s))
		fwrite(json_string_value(s), 1, json_string_length(s), f);
}

static int report_error_reply(json_t *reply)
{
	json_t *e = json_object_get(reply, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *message = json_string_value(json_object_get(e, "message"));
	fprintf(stderr, "sandboxctl: %s: %s\n", code ? code : "error", message ? message : "");
	return code && strcmp(code, "INVALID_ARGUMENT") == 0 ? EXIT_USAGE : EXIT_CONN;
}

/* Prints a final execution reply the human way; returns the exit status. */
static int report_execution(json_t *reply, bool ended_with_newline)
{
	json_t *value = json_object_get(reply, "value");
	if (json_is_true(json_object_get(reply, "success"))) {
		if (value) {
			char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
			if (!ended_with_newline)
				fputc('\n', stdout);
			printf("%s\n", text ? text : "");
			free(text);
		}
		return EXIT_OK;
	}
	json_t *e = json_object_get(reply, "error");
	const char *kind = json_string_value(json_object_get(e, "kind"));
	const char *stack = json_string_value(json_object_get(e, "stack"));
	const char *message = json_string_value(json_object_get(e, "message"));
	fflush(stdout);
	fprintf(stderr, "%s\n", stack ? stack : message ? message : "the script failed");
	fprintf(stderr, "sandboxctl: %s (%s)\n",
		json_string_value(json_object_get(reply, "state")) ?: "failed",
		kind ? kind : "unknown");
	return EXIT_SCRIPT;
}

static int run(const struct opts *o, const char *op, json_t *request)
{
	json_object_set_new(request, "op", json_string(op));
	json_object_set_new(request, "id", json_integer(1));
	int fd = connect_to(o->socket);
	if (fd < 0) {
		fprintf(stderr, "sandboxctl: cannot connect to %s: %s\n", o->socket,
			strerror(errno));
		json_decref(request);
		return EXIT_CONN;
	}
	struct buf out = BUF_INIT;
	if (msg_encode(&out, FRAME_MODE_BINARY, request) < 0 ||
	    io_write_all(fd, buf_peek(&out), buf_len(&out)) < 0) {
		buf_free(&out);
		close(fd);
		json_decref(request);
		return fail(EXIT_CONN, "cannot send the request: %s", strerror(errno));
	}
	buf_free(&out);

	struct buf in = BUF_INIT;
	struct frame_decoder dec;
	frame_decoder_init(&dec, FRAME_MODE_BINARY, MAX_REPLY_BYTES);
	bool newline = true; /* did what we printed to stdout end a line? */
	int rc = EXIT_CONN;
	for (;;) {
		char *raw = NULL;
		json_t *msg = next_frame(fd, &in, &dec, &raw);
		if (!msg)
			break;
		if (o->json) {
			printf("%s\n", raw);
			fflush(stdout);
		}
		free(raw);
		const char *event = json_string_value(json_object_get(msg, "event"));
		if (event) {
			if (!o->json && strcmp(event, "output") == 0) {
				const char *stream =
					json_string_value(json_object_get(msg, "stream"));
				json_t *data = json_object_get(msg, "data");
				bool err = stream && strcmp(stream, "stderr") == 0;
				write_string(err ? stderr : stdout, data);
				fflush(err ? stderr : stdout);
				if (!err && json_string_length(data))
					newline =
						json_string_value(
							data)[json_string_length(data) - 1] == '\n';
			}
			json_decref(msg);
			continue;
		}
		if (!json_is_true(json_object_get(msg, "ok"))) {
			rc = report_error_reply(msg);
		} else if (strcmp(op, "health") == 0) {
			if (!o->json) {
				char *text = json_dumps(msg, JSON_INDENT(2));
				printf("%s\n", text ? text : "");
				free(text);
			}
			rc = EXIT_OK;
		} else {
			json_t *so = json_object_get(msg, "stdout");
			if (!o->json) {
				write_string(stdout, so);
				write_string(stderr, json_object_get(msg, "stderr"));
				if (json_string_length(so))
					newline = json_string_value(
							  so)[json_string_length(so) - 1] == '\n';
			}
			if (o->json)
				rc = json_is_true(json_object_get(msg, "success")) ? EXIT_OK
										   : EXIT_SCRIPT;
			else
				rc = report_execution(msg, newline);
		}
		json_decref(msg);
		break;
	}
	buf_free(&in);
	close(fd);
	json_decref(request);
	return rc;
}

static int parse_int(const char *s, json_int_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	*out = v;
	return 0;
}

enum { O_SOCKET = 256, O_JSON, O_TIMEOUT, O_MEMORY, O_OUTPUT, O_HELP };

static const struct option options[] = {
	{"socket", required_argument, NULL, O_SOCKET},
	{"eval", required_argument, NULL, 'e'},
	{"json", no_argument, NULL, O_JSON},
	{"timeout-ms", required_argument, NULL, O_TIMEOUT},
	{"memory-bytes", required_argument, NULL, O_MEMORY},
	{"output-bytes", required_argument, NULL, O_OUTPUT},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

/* Parses options up to the next non-option; -1 to go on, else an exit
 * status. Called before and after the command, so both orders work. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int opt;
	while ((opt = getopt_long(argc, argv, "+e:h", options, NULL)) != -1) {
		json_int_t *dst = NULL;
		switch (opt) {
		case O_SOCKET: o->socket = optarg; break;
		case 'e': o->code_arg = optarg; break;
		case O_JSON: o->json = true; break;
		case O_TIMEOUT: dst = &o->timeout_ms; break;
		case O_MEMORY: dst = &o->memory_bytes; break;
		case O_OUTPUT: dst = &o->output_bytes; break;
		case 'h':
		case O_HELP: fputs(usage, stdout); return EXIT_OK;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
		if (dst && parse_int(optarg, dst) < 0)
			return fail(EXIT_USAGE, "not a non-negative integer: %s", optarg);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = {default_socket(), NULL, false, -1, -1, -1};
	int rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (strcmp(cmd, "health") == 0) {
		if (optind != argc || o.code_arg)
			return fail(EXIT_USAGE, "%s takes no script", cmd);
		return run(&o, "health", json_object());
	}
	if (strcmp(cmd, "exec") != 0 && strcmp(cmd, "stream") != 0)
		return fail(EXIT_USAGE, "unknown command: %s (try --help)", cmd);
	size_t len = 0;
	char *code = NULL;
	if (o.code_arg && optind == argc) {
		code = strdup(o.code_arg);
		len = strlen(code);
	} else if (!o.code_arg && optind == argc - 1) {
		code = read_all(argv[optind], &len);
		if (!code)
			return fail(EXIT_USAGE, "cannot read the script: %s", strerror(errno));
	} else {
		return fail(EXIT_USAGE, "%s", "give the script as -e CODE, a FILE, or - for stdin");
	}
	json_t *text = json_stringn(code, len);
	free(code);
	if (!text)
		return fail(EXIT_USAGE, "%s", "the script is not valid UTF-8");
	json_t *req = json_object();
	json_object_set_new(req, "code", text);
	if (o.timeout_ms >= 0)
		json_object_set_new(req, "timeout_ms", json_integer(o.timeout_ms));
	if (o.memory_bytes >= 0)
		json_object_set_new(req, "memory_bytes", json_integer(o.memory_bytes));
	if (o.output_bytes >= 0)
		json_object_set_new(req, "output_bytes", json_integer(o.output_bytes));
	return run(&o, strcmp(cmd, "exec") == 0 ? "execute" : "stream", req);
}
