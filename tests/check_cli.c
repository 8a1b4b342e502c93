/*
 * check_cli.c - sandboxctl and the shell usage the README shows, against
 * the real daemon.
 */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static struct daemon d;
static void up(void) { daemon_start(&d, NULL); }
static void down(void) { daemon_stop(&d); }

struct run {
	int status; /* exit code, or -1 when killed */
	char out[65536], err[65536];
};

/* Runs argv with input on stdin; collects stdout, stderr and exit code. */
static void run(struct run *r, const char *input, char *const argv[])
{
	int in[2], out[2], err[2];
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (input)
		ck_assert_int_eq(write(in[1], input, strlen(input)), (ssize_t)strlen(input));
	close(in[1]);
	size_t no = 0, ne = 0;
	struct pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
	int open_fds = 2;
	while (open_fds > 0) {
		ck_assert_int_gt(poll(p, 2, 30000), 0);
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			char *dst = i ? r->err + ne : r->out + no;
			size_t room = sizeof r->out - 1 - (i ? ne : no);
			ssize_t n = read(p[i].fd, dst, room);
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_fds--;
			} else if (i) {
				ne += (size_t)n;
			} else {
				no += (size_t)n;
			}
		}
	}
	r->out[no] = r->err[ne] = '\0';
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *ctl(void)
{
	const char *bin = getenv("SANDBOXCTL_BIN");
	ck_assert_msg(bin != NULL, "SANDBOXCTL_BIN is not set (run through make check)");
	return bin;
}

#define CTL(...) ((char *const[]){(char *)ctl(), "--socket", d.sock, __VA_ARGS__, NULL})

START_TEST(test_exec_success)
{
	static struct run r;
	run(&r, NULL, CTL("exec", "-e", "console.log('hi'); return 1+1"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "hi\n2\n");
	ck_assert_str_eq(r.err, "");
	/* Output without a final newline still leaves the value on its own line. */
	run(&r, NULL, CTL("exec", "-e", "console.log('a'); return {k: [1]}"));
	ck_assert_str_eq(r.out, "a\n{\"k\":[1]}\n");
	run(&r, NULL, CTL("exec", "-e", "console.error('to stderr')"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "to stderr\n");
}
END_TEST

START_TEST(test_exec_failure)
{
	static struct run r;
	run(&r, NULL, CTL("exec", "-e", "\nthrow new Error('boom')"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "Error: boom"));
	ck_assert_ptr_nonnull(strstr(r.err, "script.js:2"));
	run(&r, NULL, CTL("exec", "--timeout-ms", "100", "-e", "for(;;){}"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "timeout"));
}
END_TEST

START_TEST(test_script_sources)
{
	static struct run r;
	char path[] = "/tmp/sandboxctl-script-XXXXXX";
	int fd = mkstemp(path);
	const char code[] = "var x = 20;\nreturn x + 1;\n";
	ck_assert_int_eq(write(fd, code, sizeof code - 1), (ssize_t)sizeof code - 1);
	close(fd);
	run(&r, NULL, CTL("exec", path));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "21\n");
	unlink(path);
	run(&r, "return 'from stdin'", CTL("stream", "-"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "\"from stdin\"\n");
	/* Options after the command work too. */
	run(&r, NULL,
	    (char *const[]){(char *)ctl(), "exec", "-e", "return 3", "--socket", d.sock, NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "3\n");
}
END_TEST

/* TypeScript by flag or by file name; --javascript wins over the name. */
START_TEST(test_languages)
{
	static struct run r;
	char dir[] = "/tmp/sandboxctl-ts-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/script.ts", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("interface P { x: number }\nconst p: P = {x: 41};\nreturn p.x + 1;\n", f);
	fclose(f);
	run(&r, NULL, CTL("exec", path));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "42\n");
	run(&r, NULL, CTL("exec", "--javascript", path));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "SyntaxError"));
	ck_assert_ptr_nonnull(strstr(r.err, "line 1"));
	run(&r, NULL, CTL("exec", "--typescript", "-e", "enum E { A = 2, B }\nreturn E.B"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "3\n");
	/* Modern JavaScript needs no flag. */
	run(&r, NULL, CTL("exec", "-e", "const [a, b] = [1, 2];\nreturn `${a + b}`"));
	ck_assert_str_eq(r.out, "\"3\"\n");
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_stream_output)
{
	static struct run r;
	run(&r, NULL, CTL("stream", "-e", "console.log(1); console.error(2); return 3"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "1\n3\n");
	ck_assert_str_eq(r.err, "2\n");
}
END_TEST

START_TEST(test_json_frames)
{
	static struct run r;
	run(&r, NULL, CTL("--json", "stream", "-e", "console.log('x'); return 1"));
	ck_assert_int_eq(r.status, 0);
	char *nl = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(nl);
	/* Every frame: the started event, the output, the final reply. */
	json_t *started = json_loadb(r.out, (size_t)(nl - r.out), 0, NULL);
	ck_assert_str_eq(jstr(started, "event"), "started");
	const char *line = nl + 1;
	nl = strchr(line, '\n');
	ck_assert_ptr_nonnull(nl);
	json_t *ev = json_loadb(line, (size_t)(nl - line), 0, NULL);
	ck_assert_str_eq(jstr(ev, "event"), "output");
	json_decref(ev);
	json_t *fin = json_loads(nl + 1, JSON_DISABLE_EOF_CHECK, NULL);
	ck_assert(jtrue(fin, "success"));
	ck_assert_int_eq(jint(fin, "value"), 1);
	ck_assert_str_eq(jstr(started, "execution_id"), jstr(fin, "execution_id"));
	json_decref(started);
	json_decref(fin);
}
END_TEST

START_TEST(test_usage_errors)
{
	static struct run r;
	run(&r, NULL, CTL("exec"));
	ck_assert_int_eq(r.status, 2);
	run(&r, NULL, CTL("frobnicate"));
	ck_assert_int_eq(r.status, 2);
	run(&r, NULL, CTL("exec", "-e", "1", "extra-file"));
	ck_assert_int_eq(r.status, 2);
	run(&r, NULL, CTL("exec", "/nonexistent/script.js"));
	ck_assert_int_eq(r.status, 2);
	/* The daemon refusing a limit is the caller's usage error too. */
	run(&r, NULL, CTL("exec", "--timeout-ms", "99999999", "-e", "1"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "timeout_ms"));
}
END_TEST

/* Options go before or after the operands, in any order; "--" ends them. */
START_TEST(test_options_anywhere)
{
	static struct run r;
	char path[] = "/tmp/sandboxctl-spin-XXXXXX";
	int fd = mkstemp(path);
	const char spin[] = "for (;;) {}";
	ck_assert_int_eq(write(fd, spin, sizeof spin - 1), (ssize_t)sizeof spin - 1);
	close(fd);
	/* After a FILE operand, the socket last of all. */
	run(&r, NULL,
	    (char *const[]){(char *)ctl(), "exec", path, "--timeout-ms", "100", "--socket", d.sock,
			    NULL});
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "timeout"));
	/* Between the command and its operand, and after stdin's "-". */
	run(&r, "return 7", CTL("exec", "--javascript", "-", "--no-cache"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "7\n");
	run(&r, NULL, CTL("exec", "-e", "return 'x'", "--json"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"value\":\"x\""));
	/* After cache list's FILTER. */
	run(&r, NULL, CTL("cache", "list", "nothing-matches-this", "--json"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"scripts\":[]"));
	/* After "--", an operand that looks like an option is a file name. */
	run(&r, NULL, CTL("exec", "--", "--no-such-file"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot read the script --no-such-file: "));
	unlink(path);
}
END_TEST

START_TEST(test_version)
{
	static struct run r;
	run(&r, NULL, (char *const[]){(char *)ctl(), "--version", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "sandboxctl 0.1.0\n");
	ck_assert_str_eq(r.err, "");
	/* After a command too, without reaching the daemon. */
	run(&r, NULL,
	    (char *const[]){(char *)ctl(), "--socket", "/nonexistent/x.sock", "health", "--version",
			    NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "sandboxctl 0.1.0\n");
}
END_TEST

/* Sizes take K, M and G as the daemon's options do (powers of 1024). */
START_TEST(test_size_suffixes)
{
	static struct run r;
	/* 1500 bytes of output: over 1k (1024), within 2K (2048). */
	char *code = "console.log('x'.repeat(1499)); return 1";
	run(&r, NULL, CTL("exec", "--output-bytes", "1k", "-e", code));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "output"));
	run(&r, NULL, CTL("exec", "--output-bytes", "2K", "-e", code));
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(strlen(r.out), 1500 + 2);
	/* 16M is 16777216: the daemon's own check of the range sees it so. */
	run(&r, NULL, CTL("exec", "--memory-bytes", "16M", "-e", "return 1"));
	ck_assert_int_eq(r.status, 0);
	run(&r, NULL, CTL("exec", "--memory-bytes", "2G", "-e", "return 1"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "2147483648"));
	static char *const bad[] = {"12q", "-1", "", "1KB", "k", "99999999999G"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run(&r, NULL, CTL("exec", "--memory-bytes", bad[i], "-e", "1"));
		ck_assert_msg(r.status == 2, "%s: exit %d", bad[i], r.status);
		ck_assert_ptr_nonnull(strstr(r.err, "sandboxctl: --memory-bytes"));
		ck_assert_ptr_nonnull(strstr(r.err, "K, M, G allowed"));
	}
}
END_TEST

/* Every line sandboxctl writes to stderr of its own starts with its name
 * (a stack's frames follow their line, indented); s is stderr. */
static void assert_prefixed(const char *what, const char *s)
{
	ck_assert_msg(strncmp(s, "sandboxctl: ", 12) == 0, "%s: \"%s\"", what, s);
	for (const char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		ck_assert_msg(*l == '\n' || strncmp(l, "sandboxctl: ", 12) == 0 || *l == ' ' ||
				      *l == '\t',
			      "%s: a line without the prefix in \"%s\"", what, s);
}

START_TEST(test_one_error_prefix)
{
	static struct run r;
	char tests[] = "/tmp/sandboxctl-badtests-XXXXXX";
	int fd = mkstemp(tests);
	ck_assert_int_eq(write(fd, "test('x', (", 11), 11);
	close(fd);
	char store[] = "/tmp/sandboxctl-badstore-XXXXXX";
	fd = mkstemp(store);
	ck_assert_int_eq(write(fd, "[1]", 3), 3);
	close(fd);
	struct {
		const char *what;
		char *const *argv;
		int status;
	} cases[] = {
		{"a stack", CTL("exec", "-e", "\nthrow new Error('boom')"), 1},
		{"a timeout", CTL("exec", "--timeout-ms", "100", "-e", "for(;;){}"), 1},
		{"a refusal", CTL("exec", "--timeout-ms", "99999999", "-e", "1"), 2},
		{"no such execution", CTL("cancel", "exec_0000000000000000"), 1},
		{"tests that do not load", CTL("test", "--tests", tests), 1},
		{"a store that is not an object", CTL("exec", "--store", store, "-e", "1"), 2},
		{"a bad size", CTL("exec", "--memory-bytes", "x", "-e", "1"), 2},
		{"no daemon",
		 (char *const[]){(char *)ctl(), "--socket", "/nonexistent/x.sock", "health", NULL},
		 3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run(&r, NULL, cases[i].argv);
		ck_assert_msg(r.status == cases[i].status, "%s: exit %d", cases[i].what, r.status);
		assert_prefixed(cases[i].what, r.err);
	}
	/* getopt's complaints are ours, not led by argv[0] (a path). */
	run(&r, NULL, CTL("health", "--frob"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_eq(strstr(r.err, "sandboxctl: unknown option --frob ("), r.err);
	run(&r, NULL, CTL("exec", "--timeout-ms"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_eq(strstr(r.err, "sandboxctl: --timeout-ms needs an argument ("), r.err);
	/* The script's own stderr is passed through as it is. */
	run(&r, NULL, CTL("exec", "-e", "console.error('mine'); throw new Error('x')"));
	ck_assert_ptr_eq(strstr(r.err, "mine\n"), r.err);
	assert_prefixed("after the script's stderr", r.err + 5);
	/* A stack's first line carries the state, kind and message. */
	run(&r, NULL, CTL("exec", "-e", "\nthrow new Error('boom')"));
	ck_assert_ptr_eq(strstr(r.err, "sandboxctl: failed (script): Error: boom"), r.err);
	ck_assert_ptr_nonnull(strstr(r.err, "script.js:2"));
	/* A syntax error's message leads; the offending line and its caret
	 * follow, indented. */
	run(&r, NULL, CTL("exec", "-e", "let a = 1;\nlet b = (;"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.err, "sandboxctl: failed (syntax): SyntaxError: Unexpected token ';' "
				"(line 2, column 10)\n    script.js:2\n    let b = (;\n"
				"             ^\n");
	unlink(tests);
	unlink(store);
}
END_TEST

/* help: the whole usage on stdout, exit 0, no daemon needed. */
START_TEST(test_help_command)
{
	static struct run r, h;
	run(&r, NULL,
	    (char *const[]){(char *)ctl(), "--socket", "/nonexistent/x.sock", "help", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_eq(strstr(r.out, "usage: sandboxctl"), r.out);
	static const char *const words[] = {"exec|stream", "submit", "status ID", "cancel ID",
					    "list",	   "test",   "cache",	  "health",
					    "help",	   "--tool", "--version", "exit status",
					    "declarations"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		ck_assert_msg(strstr(r.out, words[i]) != NULL, "help lacks %s", words[i]);
	/* The same text as --help and -h. */
	run(&h, NULL, (char *const[]){(char *)ctl(), "--help", NULL});
	ck_assert_int_eq(h.status, 0);
	ck_assert_str_eq(h.out, r.out);
	run(&h, NULL, (char *const[]){(char *)ctl(), "exec", "-h", NULL});
	ck_assert_int_eq(h.status, 0);
	ck_assert_str_eq(h.out, r.out);
}
END_TEST

/* A usage error is one line with a hint, the usage itself only on asking. */
START_TEST(test_usage_error_one_line)
{
	static struct run r;
	struct {
		char *const *argv;
		const char *says;
	} cases[] = {
		{(char *const[]){(char *)ctl(), NULL}, "no command given"},
		{CTL("frobnicate"), "unknown command: frobnicate"},
		{CTL("--frob", "health"), "unknown option --frob"},
		{CTL("exec", "-e"), "-e needs an argument"},
		{CTL("exec"), "give the script as"},
		{CTL("exec", "-e", "1", "extra-file"),
		 "one script at a time: -e and the file extra-file given"},
		{CTL("exec", "--cached", "x", "a.js", "b.js"),
		 "one script at a time: --cached and 2 files (a.js ...) given"},
		{CTL("stream", "-e", "1", "--cached", "x"),
		 "one script at a time: -e and --cached given"},
		{CTL("status"), "status takes an execution ID"},
		{CTL("cancel", "a", "b"), "unexpected argument: b"},
		{CTL("health", "x"), "health takes no arguments"},
		{CTL("test"), "test takes --tests FILE"},
		{CTL("cache", "shred"), "cache takes list [FILTER] or clear"},
		{CTL("exec", "--tool", "noequals", "-e", "1"), "expected NAME=COMMAND"},
		{CTL("exec", "--limit", "1x", "-e", "1"), "--limit 1x"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run(&r, NULL, cases[i].argv);
		ck_assert_msg(r.status == 2, "%s: exit %d", cases[i].says, r.status);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strncmp(r.err, "sandboxctl: ", 12) == 0, "%s", r.err);
		ck_assert_msg(strstr(r.err, cases[i].says) != NULL, "\"%s\" not in %s",
			      cases[i].says, r.err);
		/* One line, ending in the hint. */
		char *nl = strchr(r.err, '\n');
		ck_assert_msg(nl && nl[1] == '\0', "more than one line: %s", r.err);
		ck_assert_msg(strstr(r.err, " (try 'sandboxctl help')\n") == nl - 24, "%s", r.err);
	}
}
END_TEST

START_TEST(test_connection_error)
{
	static struct run r;
	run(&r, NULL,
	    (char *const[]){(char *)ctl(), "--socket", "/nonexistent/x.sock", "health", NULL});
	ck_assert_int_eq(r.status, 3);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot connect"));
}
END_TEST

START_TEST(test_health)
{
	static struct run r;
	run(&r, NULL, CTL("health"));
	ck_assert_int_eq(r.status, 0);
	json_t *h = json_loads(r.out, 0, NULL);
	ck_assert(jtrue(h, "ok"));
	ck_assert_ptr_nonnull(json_object_get(h, "sandbox"));
	json_decref(h);
}
END_TEST

/* The README's shell usage: a JSON line through socat. */
START_TEST(test_socat_line_mode)
{
	static struct run r;
	char addr[200];
	snprintf(addr, sizeof addr, "UNIX-CONNECT:%s", d.sock);
	run(&r, "{\"op\":\"execute\",\"code\":\"console.log(\\\"hi\\\"); return 6*7\"}\n",
	    (char *const[]){"socat", "-t", "60", "-", addr, NULL});
	ck_assert_int_eq(r.status, 0);
	/* Two lines: the started event, then the reply. */
	char *nl = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(nl);
	json_t *started = json_loadb(r.out, (size_t)(nl - r.out), 0, NULL);
	ck_assert_str_eq(jstr(started, "event"), "started");
	json_t *reply = json_loads(nl + 1, 0, NULL);
	ck_assert_ptr_nonnull(reply);
	ck_assert_int_eq(jint(reply, "value"), 42);
	ck_assert_str_eq(jstr(reply, "stdout"), "hi\n");
	ck_assert_str_eq(jstr(reply, "execution_id"), jstr(started, "execution_id"));
	json_decref(started);
	json_decref(reply);

	/* A script of 2 s: without -t socat gives up 0.5 s after its input
	 * ends, so only the started line comes and the execution is
	 * cancelled (its connection closed); with -t 60 the reply comes. */
	static const char slow[] = "{\"op\":\"execute\",\"code\":\"var t = Date.now(); "
				   "while (Date.now() - t < 2000) {} return 2\"}\n";
	run(&r, slow, (char *const[]){"socat", "-", addr, NULL});
	ck_assert_int_eq(r.status, 0);
	nl = strchr(r.out, '\n');
	ck_assert_msg(nl && !nl[1], "not only the started line: %s", r.out);
	started = json_loadb(r.out, (size_t)(nl - r.out), 0, NULL);
	ck_assert_str_eq(jstr(started, "event"), "started");
	reply = call_once(d.sock, json_pack("{s:s, s:s, s:b}", "op", "status", "execution_id",
					    jstr(started, "execution_id"), "wait", 1));
	ck_assert_str_eq(jstr(reply, "state"), "cancelled");
	json_decref(started);
	json_decref(reply);
	run(&r, slow, (char *const[]){"socat", "-t", "60", "-", addr, NULL});
	ck_assert_int_eq(r.status, 0);
	nl = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(nl);
	reply = json_loads(nl + 1, 0, NULL);
	ck_assert_ptr_nonnull(reply);
	ck_assert_int_eq(jint(reply, "value"), 2);
	json_decref(reply);
}
END_TEST

/* The last line of s (without its newline), copied. */
static char *last_line(const char *s)
{
	static char line[4096];
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '\n')
		n--;
	size_t start = n;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	snprintf(line, sizeof line, "%.*s", (int)(n - start), s + start);
	return line;
}

START_TEST(test_submit_status_cancel)
{
	static struct run r;
	run(&r, NULL,
	    CTL("submit", "-e",
		"console.log('a'); var t = Date.now(); "
		"while (Date.now() - t < 200) {} console.log('b'); return 5"));
	ck_assert_int_eq(r.status, 0);
	char id[64];
	snprintf(id, sizeof id, "%s", last_line(r.out));
	ck_assert_ptr_eq(strstr(id, "exec_"), id);
	/* --follow prints the output as it comes, then the value. */
	run(&r, NULL, CTL("status", id, "--follow"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "a\nb\n5\n");
	run(&r, NULL, CTL("status", id, "--wait"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "a\nb\n5\n");
	/* A failed one exits 1; cancel of an ended one exits 1 too. */
	run(&r, NULL, CTL("submit", "-e", "for(;;){}", "--timeout-ms", "60000"));
	snprintf(id, sizeof id, "%s", last_line(r.out));
	run(&r, NULL, CTL("status", id));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "running"));
	run(&r, NULL, CTL("cancel", id));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "cancelled"));
	run(&r, NULL, CTL("status", id, "--wait"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "cancelled"));
	run(&r, NULL, CTL("cancel", id));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "FAILED_PRECONDITION"));
	run(&r, NULL, CTL("status", "exec_0000000000000000"));
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "NOT_FOUND"));
}
END_TEST

START_TEST(test_list_command)
{
	static struct run r;
	run(&r, NULL, CTL("exec", "-e", "return 'listed'"));
	run(&r, NULL, CTL("list", "--state", "completed", "--limit", "1"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "completed"));
	ck_assert_ptr_nonnull(strstr(r.out, "return 'listed'"));
	ck_assert_ptr_null(strchr(strchr(r.out, '\n') + 1, '\n')); /* one line */
	run(&r, NULL, CTL("list", "--state", "sleeping"));
	ck_assert_int_eq(r.status, 2);
}
END_TEST

/* No raw control character in s but its line ends; C1 ones (U+0080 to
 * U+009F) count too. */
static void assert_no_controls(const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		ck_assert_msg((*p >= 0x20 && *p != 0x7f &&
			       !(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) ||
				      *p == '\n',
			      "%s: raw control byte %#x in \"%s\"", what, *p, s);
}

/* Other scripts' previews (list, cache list) cannot drive the terminal:
 * their control characters are shown escaped. */
START_TEST(test_previews_escaped)
{
	static struct run r;
	run(&r, NULL,
	    CTL("exec", "-e",
		"// \x1b]0;owned\x07 \x1b[31mred\tbell \xc2\x9bx caf\xc3\xa9\x7f\n"
		"return 1"));
	ck_assert_int_eq(r.status, 0);
	const char *shown = "\\x1b]0;owned\\x07 \\x1b[31mred\\tbell \\u009bx caf\xc3\xa9\\x7f";
	run(&r, NULL, CTL("list", "--limit", "1"));
	ck_assert_int_eq(r.status, 0);
	assert_no_controls("list", r.out);
	ck_assert_msg(strstr(r.out, shown) != NULL, "list: %s", r.out);
	run(&r, NULL, CTL("cache", "list", "owned"));
	ck_assert_int_eq(r.status, 0);
	assert_no_controls("cache list", r.out);
	ck_assert_msg(strstr(r.out, "\\x1b]0;owned\\x07 \\x1b[31mred") != NULL, "cache list: %s",
		      r.out);
	/* --json keeps the data as it is (escaped by JSON itself). */
	run(&r, NULL, CTL("cache", "list", "owned", "--json"));
	ck_assert_ptr_nonnull(strstr(r.out, "\\u001B]0;owned"));
	/* A long preview is cut on a character boundary, after the escapes. */
	run(&r, NULL,
	    CTL("exec", "--no-cache", "-e",
		"// \x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n"
		"return 2"));
	run(&r, NULL, CTL("list", "--limit", "1"));
	assert_no_controls("a long preview", r.out);
	char *nl = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_msg((nl[-1] & 0xC0) != 0xC0, "cut inside a character: %s", r.out);
}
END_TEST

START_TEST(test_test_command)
{
	static struct run r;
	char tests[] = "/tmp/sandboxctl-tests-XXXXXX", code[] = "/tmp/sandboxctl-code-XXXXXX";
	int fd = mkstemp(tests);
	const char t[] = "test('adds', function () { assert.is(add(1, 2), 3); });\n"
			 "test('breaks', function () { assert.equal({a: 1}, {a: 2}); });\n"
			 "test.skip('later', function () {});\n";
	ck_assert_int_eq(write(fd, t, sizeof t - 1), (ssize_t)sizeof t - 1);
	close(fd);
	fd = mkstemp(code);
	const char c[] = "function add(a, b) { return a + b; }\n";
	ck_assert_int_eq(write(fd, c, sizeof c - 1), (ssize_t)sizeof c - 1);
	close(fd);
	run(&r, NULL, CTL("test", "--tests", tests, code));
	ck_assert_int_eq(r.status, 1); /* one failed */
	ck_assert_ptr_nonnull(strstr(r.out, "PASS  adds"));
	ck_assert_ptr_nonnull(strstr(r.out, "FAIL  breaks"));
	ck_assert_ptr_nonnull(strstr(r.out, "expected 2, found 1"));
	ck_assert_ptr_nonnull(strstr(r.out, "SKIP  later"));
	ck_assert_ptr_nonnull(strstr(r.out, "3 tests: 1 passed, 1 failed, 1 skipped"));
	/* All passing: exit 0. */
	fd = open(tests, O_WRONLY | O_TRUNC);
	const char t2[] = "test('adds', function () { assert.is(add(2, 2), 4); });\n";
	ck_assert_int_eq(write(fd, t2, sizeof t2 - 1), (ssize_t)sizeof t2 - 1);
	close(fd);
	run(&r, NULL, CTL("test", "--tests", tests, code));
	ck_assert_int_eq(r.status, 0);
	run(&r, NULL, CTL("test", code));
	ck_assert_int_eq(r.status, 2); /* --tests is required */
	unlink(tests);
	unlink(code);
}
END_TEST

START_TEST(test_cache_commands)
{
	static struct run r;
	run(&r, NULL, CTL("cache", "clear"));
	ck_assert_int_eq(r.status, 0);
	run(&r, NULL, CTL("exec", "-e", "// greets the caller\nreturn 'hello'"));
	ck_assert_int_eq(r.status, 0);
	run(&r, NULL, CTL("exec", "--no-cache", "-e", "// not kept\nreturn 1"));
	run(&r, NULL, CTL("cache", "list"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "greets the caller"));
	ck_assert_ptr_null(strstr(r.out, "not kept"));
	run(&r, NULL, CTL("cache", "list", "GREETS"));
	ck_assert_ptr_nonnull(strstr(r.out, "greets the caller"));
	char name[128];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(r.out, " "), r.out);
	run(&r, NULL, CTL("exec", "--cached", name));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "\"hello\"\n");
	run(&r, NULL, CTL("exec", "--cached", "no-such-script"));
	ck_assert_int_eq(r.status, 1);
	run(&r, NULL, CTL("exec", "--cached", name, "-e", "1"));
	ck_assert_int_eq(r.status, 2);
	run(&r, NULL, CTL("cache", "clear"));
	ck_assert_str_eq(r.out, "removed 1 scripts\n");
	run(&r, NULL, CTL("cache", "list"));
	ck_assert_str_eq(r.out, "");
	run(&r, NULL, CTL("cache", "shred"));
	ck_assert_int_eq(r.status, 2);
}
END_TEST

START_TEST(test_tools_from_commands)
{
	static struct run r;
	/* cat echoes the arguments back: a JSON round trip through a shell. */
	run(&r, NULL,
	    CTL("exec", "--tool", "util.echo=cat", "--tool", "broken=echo it broke >&2; exit 4",
		"--tool", "garbled=echo not json", "-e",
		"var v = tools.util.echo({a: [1, 'x']}); var errs = [];\n"
		"try { tools.broken({}) } catch (e) { errs.push(e.message) }\n"
		"try { tools.garbled({}) } catch (e) { errs.push(e.message) }\n"
		"return [v, errs]"));
	ck_assert_int_eq(r.status, 0);
	json_t *v = json_loads(r.out, 0, NULL);
	ck_assert_ptr_nonnull(v);
	char *text = json_dumps(json_array_get(v, 0), JSON_COMPACT);
	ck_assert_str_eq(text, "{\"a\":[1,\"x\"]}");
	free(text);
	json_t *errs = json_array_get(v, 1);
	ck_assert_str_eq(json_string_value(json_array_get(errs, 0)), "it broke");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(errs, 1)), "invalid JSON"));
	json_decref(v);
	run(&r, NULL, CTL("exec", "--tool", "noequals", "-e", "1"));
	ck_assert_int_eq(r.status, 2);
}
END_TEST

/* submit returns at once: a tool call would reach a closed connection. */
START_TEST(test_submit_tool_refused)
{
	static struct run r;
	run(&r, NULL, CTL("list", "--json"));
	json_t *before = json_loads(r.out, 0, NULL);
	size_t n = json_array_size(json_object_get(before, "executions"));
	json_decref(before);
	run(&r, NULL, CTL("submit", "--tool", "t=cat", "-e", "return tools.t({})"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, "sandboxctl: submit cannot take --tool"));
	ck_assert_ptr_nonnull(strstr(r.err, "nobody would answer"));
	/* Refused before anything reached the daemon. */
	run(&r, NULL, CTL("list", "--json"));
	json_t *after = json_loads(r.out, 0, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(after, "executions")), n);
	json_decref(after);
	/* exec and stream still take it. */
	run(&r, NULL, CTL("stream", "--tool", "t=echo 5", "-e", "return tools.t({})"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "5\n");
}
END_TEST

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Gone: no such process, or only its zombie (a killed orphan waits for
 * whoever reaps orphans here). */
static bool process_gone(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	bool gone = true;
	if (fgets(line, sizeof line, f)) {
		char *rp = strrchr(line, ')');
		gone = rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
	}
	fclose(f);
	return gone;
}

/* A tool still running when its execution ends is killed with its process
 * group: a 5 s tool does not outlive a 1 s timeout, nor its children. */
START_TEST(test_tool_killed_with_execution)
{
	static struct run r;
	char pidfile[] = "/tmp/sandboxctl-toolpid-XXXXXX";
	close(mkstemp(pidfile));
	char tool[256];
	/* The sleep is the shell's child: only a group kill reaches it. */
	snprintf(tool, sizeof tool, "slow=sleep 5 & echo $! > %s; wait", pidfile);
	long long t0 = mono_ms();
	run(&r, NULL,
	    CTL("exec", "--timeout-ms", "1000", "--tool", tool, "-e", "tools.slow({}); return 1"));
	long long took = mono_ms() - t0;
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "timeout"));
	/* Nothing refused: no tool_result was sent for the ended execution. */
	ck_assert_ptr_null(strstr(r.err, "refused"));
	FILE *f = fopen(pidfile, "re");
	ck_assert_ptr_nonnull(f);
	int pid = 0;
	ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	bool gone = process_gone((pid_t)pid);
	printf("cli: a 5 s tool under a 1 s timeout: sandboxctl exited after %lld ms, the tool's "
	       "process %s\n",
	       took, gone ? "gone" : "STILL RUNNING");
	kill(pid, SIGKILL);
	ck_assert_msg(gone, "the tool's process %d outlived the execution", pid);
	ck_assert_int_lt(took, 4000);
	unlink(pidfile);
	/* A tool that answers in time still does. */
	run(&r, NULL,
	    CTL("exec", "--timeout-ms", "5000", "--tool", "quick=sleep 0.2; echo 3", "-e",
		"return tools.quick({}) + 1"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "4\n");
}
END_TEST

/* declarations: the daemon's TypeScript for --tool names and a tools file
 * (the protocol's shape, or an MCP tools/list result). */
START_TEST(test_declarations_command)
{
	static struct run r;
	run(&r, NULL, CTL("declarations", "--tool", "util.echo=cat"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "declare const tools"));
	ck_assert_ptr_nonnull(strstr(r.out, "util: {"));
	ck_assert_ptr_nonnull(strstr(r.out, "echo(args?: unknown): unknown;"));
	ck_assert_ptr_nonnull(strstr(r.out, "declare function load"));
	char path[] = "/tmp/sandboxctl-tools-XXXXXX";
	int fd = mkstemp(path);
	const char mcp[] =
		"{\"tools\": [{\"name\": \"github.search_issues\", \"title\": \"Search\", "
		"\"description\": \"Search issues\", \"inputSchema\": {\"type\": \"object\", "
		"\"properties\": {\"q\": {\"type\": \"string\"}}, \"required\": [\"q\"]}, "
		"\"outputSchema\": {\"type\": \"object\", \"properties\": {\"total\": "
		"{\"type\": \"integer\"}}}, \"annotations\": {\"readOnlyHint\": true}}]}";
	ck_assert_int_eq(write(fd, mcp, sizeof mcp - 1), (ssize_t)sizeof mcp - 1);
	close(fd);
	/* The file and --tool together, the option after the operand. */
	run(&r, NULL, CTL("declarations", path, "--tool", "local=true"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "/** Search issues */"));
	ck_assert_ptr_nonnull(strstr(r.out, "search_issues(args: {"));
	ck_assert_ptr_nonnull(strstr(r.out, "q: string;"));
	ck_assert_ptr_nonnull(strstr(r.out, "total?: number;"));
	ck_assert_ptr_nonnull(strstr(r.out, "local(args?: unknown): unknown;"));
	/* The protocol's own shape: an array, snake_case schemas. */
	fd = open(path, O_WRONLY | O_TRUNC);
	const char plain[] = "[{\"name\": \"kv.get\", \"input_schema\": {\"type\": \"object\", "
			     "\"properties\": {\"key\": {\"type\": \"string\"}}}}]";
	ck_assert_int_eq(write(fd, plain, sizeof plain - 1), (ssize_t)sizeof plain - 1);
	close(fd);
	run(&r, NULL, CTL("declarations", path));
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "key?: string;"));
	/* Not a tool list; a name the daemon refuses; no such file. */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "{\"x\": 1}", 8), 8);
	close(fd);
	run(&r, NULL, CTL("declarations", path));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "expected a JSON array of tools"));
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "[{\"name\": \"a-b\"}]", 17), 17);
	close(fd);
	run(&r, NULL, CTL("declarations", path));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "sandboxctl: INVALID_ARGUMENT: tools[0].name"));
	run(&r, NULL, CTL("declarations", "/nonexistent/tools.json"));
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "cannot read /nonexistent/tools.json"));
	run(&r, NULL, CTL("declarations", path, "extra"));
	ck_assert_int_eq(r.status, 2);
	unlink(path);
}
END_TEST

START_TEST(test_store_file)
{
	static struct run r;
	char path[] = "/tmp/sandboxctl-store-XXXXXX";
	int fd = mkstemp(path);
	const char initial[] = "{\"runs\": 1, \"old\": true}";
	ck_assert_int_eq(write(fd, initial, sizeof initial - 1), (ssize_t)sizeof initial - 1);
	close(fd);
	run(&r, NULL,
	    CTL("exec", "--store", path, "-e",
		"store('runs', load('runs') + 1); store('old', undefined); return load('runs')"));
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "2\n");
	json_t *st = json_load_file(path, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "runs")), 2);
	ck_assert_ptr_null(json_object_get(st, "old"));
	json_decref(st);
	/* A failed run leaves the file alone. */
	run(&r, NULL,
	    CTL("exec", "--store", path, "-e", "store('runs', 99); throw new Error('no')"));
	ck_assert_int_eq(r.status, 1);
	st = json_load_file(path, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "runs")), 2);
	json_decref(st);
	unlink(path);
}
END_TEST

/* The shipped units are valid systemd units. */
START_TEST(test_units_verify)
{
	static struct run r;
	char dir[] = "/tmp/sandboxd-units-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char bindir[4096], cmd[8192];
	ck_assert_ptr_nonnull(getcwd(bindir, sizeof bindir - 8));
	strcat(bindir, "/bin");
	snprintf(
		cmd, sizeof cmd,
		"sed 's|@BINDIR@|%s|g; s|@DOCDIR@|/usr/share/doc/sandboxd|g' sandboxd.service "
		"> %s/sandboxd.service && sed 's|@DOCDIR@|/usr/share/doc/sandboxd|g' "
		"sandboxd.socket > %s/sandboxd.socket && systemd-analyze verify %s/sandboxd.socket "
		"%s/sandboxd.service",
		bindir, dir, dir, dir, dir);
	run(&r, NULL, (char *const[]){"sh", "-c", cmd, NULL});
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "systemd-analyze: %s", r.err);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Bad daemon options: a clear message and exit status 100, nothing bound. */
START_TEST(test_daemon_bad_options)
{
	static struct run r;
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	static const char *const cases[][4] = {
		{"--timeout-ms", "5000", "--max-timeout-ms", "100"},
		{"--memory-bytes", "12q", NULL, NULL},
		{"--max-workers", "0", NULL, NULL},
		{"--socket-mode", "999", NULL, NULL},
		{"--log-level", "loud", NULL, NULL},
		{"--no-such-option", NULL, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[8] = {(char *)bin, "--socket", "/nonexistent/never.sock"};
		int n = 3;
		for (int k = 0; k < 4 && cases[i][k]; k++)
			argv[n++] = (char *)cases[i][k];
		argv[n] = NULL;
		run(&r, NULL, argv);
		ck_assert_msg(r.status == 100, "%s: exit %d", cases[i][0], r.status);
		ck_assert_msg(strstr(r.err, "sandboxd:") != NULL, "%s: no message", cases[i][0]);
	}
	run(&r, NULL, (char *const[]){(char *)bin, "--version", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "sandboxd 0.1.0\n");
}
END_TEST

/* The daemon's -h, --help and --version: on stdout, exit 0, nothing bound
 * (the socket named does not exist and never does); a usage error still
 * goes to stderr, with stdout left empty. */
START_TEST(test_daemon_help_version)
{
	static struct run r;
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	run(&r, NULL,
	    (char *const[]){(char *)bin, "--socket", "/nonexistent/never.sock", "--version", NULL});
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "sandboxd " SANDBOXD_VERSION "\n");
	ck_assert_str_eq(r.err, "");
	static const char *const help[] = {"-h", "--help"};
	for (size_t i = 0; i < 2; i++) {
		run(&r, NULL,
		    (char *const[]){(char *)bin, "--socket", "/nonexistent/never.sock",
				    (char *)help[i], NULL});
		ck_assert_msg(r.status == 0, "%s: exit %d", help[i], r.status);
		ck_assert_msg(strncmp(r.out, "usage: sandboxd ", 16) == 0, "%s: stdout %.80s",
			      help[i], r.out);
		ck_assert_msg(strstr(r.out, "--version") && strstr(r.out, "-h, --help"),
			      "%s: the usage does not name -h and --version", help[i]);
		ck_assert_msg(r.err[0] == '\0', "%s: stderr %s", help[i], r.err);
	}
	/* A usage error is one line, the program's prefix and a hint, not
	 * the whole usage text. */
	static const char *const wrong[][3] = {
		{"-x", NULL, "sandboxd: unknown option '-x' (try 'sandboxd --help')\n"},
		{"--no-such-option", NULL,
		 "sandboxd: unknown option '--no-such-option' (try 'sandboxd --help')\n"},
		{"--socket", NULL, "sandboxd: --socket needs a value (try 'sandboxd --help')\n"},
		{"extra", NULL, "sandboxd: unexpected argument 'extra' (try 'sandboxd --help')\n"},
	};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		run(&r, NULL, (char *const[]){(char *)bin, (char *)wrong[i][0], NULL});
		ck_assert_msg(r.status == 100, "%s: exit %d", wrong[i][0], r.status);
		ck_assert_str_eq(r.out, "");
		ck_assert_str_eq(r.err, wrong[i][2]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("sandboxctl");
	tcase_add_unchecked_fixture(tc, up, down);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exec_success);
	tcase_add_test(tc, test_exec_failure);
	tcase_add_test(tc, test_script_sources);
	tcase_add_test(tc, test_languages);
	tcase_add_test(tc, test_stream_output);
	tcase_add_test(tc, test_json_frames);
	tcase_add_test(tc, test_usage_errors);
	tcase_add_test(tc, test_options_anywhere);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_size_suffixes);
	tcase_add_test(tc, test_one_error_prefix);
	tcase_add_test(tc, test_help_command);
	tcase_add_test(tc, test_usage_error_one_line);
	tcase_add_test(tc, test_connection_error);
	tcase_add_test(tc, test_health);
	tcase_add_test(tc, test_socat_line_mode);
	tcase_add_test(tc, test_units_verify);
	tcase_add_test(tc, test_submit_status_cancel);
	tcase_add_test(tc, test_list_command);
	tcase_add_test(tc, test_previews_escaped);
	tcase_add_test(tc, test_test_command);
	tcase_add_test(tc, test_cache_commands);
	tcase_add_test(tc, test_tools_from_commands);
	tcase_add_test(tc, test_submit_tool_refused);
	tcase_add_test(tc, test_tool_killed_with_execution);
	tcase_add_test(tc, test_declarations_command);
	tcase_add_test(tc, test_store_file);
	tcase_add_test(tc, test_daemon_bad_options);
	tcase_add_test(tc, test_daemon_help_version);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
