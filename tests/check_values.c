/*
 * check_values.c - values as JSON.stringify gives them, over the real
 * daemon and read off the wire as text: every double of
 * tests/data/numbers.txt as a returned value, as a tool call's arguments,
 * back through a tool result and in store_writes, as String() writes it
 * inside the script, and Node's text of it read back there; the cases of
 * tests/data/values.txt (what JSON.stringify makes of Maps, toJSON,
 * undefined ...) and the error.data of tests/data/error-data.txt, each
 * text as Node 20 gives it (tests/values-node.js checks the files against
 * Node); and what sandboxctl prints of them.
 */
#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../protocol/jnum.h"
#include "../protocol/jsonv.h"
#include "../protocol/limits.h"
#include "testlib.h"

static struct daemon shared;

static void shared_up(void) { daemon_start(&shared, NULL); }
static void shared_down(void) { daemon_stop(&shared); }

/* The next line the daemon sends on c (line mode), without its newline;
 * the caller frees it. */
static char *read_line(struct client *c, struct buf *in)
{
	for (;;) {
		const char *nl = buf_len(in) ? memchr(buf_peek(in), '\n', buf_len(in)) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - buf_peek(in));
			char *line = strndup(buf_peek(in), n);
			buf_consume(in, n + 1);
			return line;
		}
		struct pollfd p = {c->fd, POLLIN, 0};
		ck_assert_msg(poll(&p, 1, 60000) == 1, "no reply within 60 s");
		char *dst = buf_reserve(in, 65536);
		ck_assert_ptr_nonnull(dst);
		ssize_t r = recv(c->fd, dst, 65536, 0);
		ck_assert_msg(r > 0, "the daemon closed the connection");
		buf_commit(in, (size_t)r);
	}
}

/* A top-level member's value text in the compact frame text (it is what
 * the daemon sent: its frames are compact already), or NULL. */
static char *member_text(const char *frame, const char *key)
{
	struct jsonv *v = malloc(sizeof *v);
	struct buf out = BUF_INIT;
	struct jsonv_limits lim = {JSONV_DEPTH_MAX, 1u << 24, 0};
	ck_assert_ptr_nonnull(v);
	jsonv_init(v, &lim, &out);
	ck_assert_msg(jsonv_feed(v, frame, strlen(frame)) == 0 && jsonv_finish(v) == 0,
		      "a frame that is not JSON: %.200s", frame);
	ck_assert_msg(buf_len(&out) == strlen(frame) &&
			      memcmp(buf_peek(&out), frame, buf_len(&out)) == 0,
		      "a frame that is not compact: %.200s", frame);
	const struct jsonv_member *m = jsonv_member(v, key, NULL);
	char *t = m ? strndup(buf_peek(&out) + m->value.off, m->value.len) : NULL;
	buf_free(&out);
	free(v);
	return t;
}

/* Sends one request (line mode) built from msg. */
static void send_line(struct client *c, json_t *msg)
{
	char *t = jnum_dumps(msg, JSON_COMPACT);
	ck_assert_ptr_nonnull(t);
	client_send_raw(c, t, strlen(t));
	client_send_raw(c, "\n", 1);
	free(t);
	json_decref(msg);
}

/* Runs code and returns the final reply line, events skipped. */
static char *exec_raw(const char *code)
{
	struct client c;
	struct buf in = BUF_INIT;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	send_line(&c, json_pack("{s:s, s:s}", "op", "execute", "code", code));
	char *line;
	while (strncmp(line = read_line(&c, &in), "{\"event\"", 8) == 0)
		free(line);
	client_close(&c);
	buf_free(&in);
	return line;
}

struct number {
	char hex[17];
	char text[JNUM_BYTES];
};

static struct number *load_numbers(size_t *n)
{
	FILE *f = fopen("tests/data/numbers.txt", "r");
	ck_assert_msg(f != NULL, "cannot open tests/data/numbers.txt");
	size_t cap = 8192;
	struct number *v = calloc(cap, sizeof *v);
	char line[256];
	*n = 0;
	while (fgets(line, sizeof line, f) && *n < cap) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *tab = strchr(line, '\t');
		ck_assert_ptr_nonnull(tab);
		ck_assert_uint_eq((size_t)(tab - line), 16);
		memcpy(v[*n].hex, line, 16);
		ck_assert_uint_lt(strlen(tab + 1), JNUM_BYTES);
		strcpy(v[*n].text, tab + 1);
		(*n)++;
	}
	fclose(f);
	return v;
}

/* The elements of the array text arr are the numbers' texts, in order;
 * strings: as String(x) texts (JSON strings), for the finite numbers. */
static void check_array(const char *what, const char *arr, const struct number *v, size_t n,
			bool strings)
{
	ck_assert_msg(arr != NULL, "%s: no such member", what);
	size_t pos = 0, i = 0, len = strlen(arr);
	struct jsonv_span k, e;
	unsigned bad = 0;
	while (jsonv_next(arr, len, &pos, &k, &e)) {
		ck_assert_uint_lt(i, n);
		const char *got = arr + e.off;
		size_t glen = e.len;
		if (strings) { /* "…" */
			got++;
			glen -= 2;
		}
		bool skip = strings && strcmp(v[i].text, "null") == 0;
		if (!skip && (glen != strlen(v[i].text) || memcmp(got, v[i].text, glen) != 0) &&
		    bad++ < 10)
			fprintf(stderr, "%s: %s is %.*s, Node writes %s\n", what, v[i].hex,
				(int)glen, got, v[i].text);
		i++;
	}
	ck_assert_uint_eq(i, n);
	ck_assert_msg(bad == 0, "%s: %u of %zu numbers unlike Node's (first on stderr)", what, bad,
		      n);
}

/* The script: the doubles from their bits, returned, passed to a tool
 * (whose result is returned beside them) and stored. */
static char *numbers_script(const struct number *v, size_t n)
{
	struct buf s = BUF_INIT;
	const char *head = "var h = \"";
	buf_append(&s, head, strlen(head));
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_append(&s, ",", 1);
		buf_append(&s, v[i].hex, 16);
	}
	const char *mid = "\".split(\",\");\nvar ts = \"";
	buf_append(&s, mid, strlen(mid));
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_append(&s, " ", 1);
		buf_append(&s, v[i].text, strlen(v[i].text));
	}
	const char *tail =
		"\".split(\" \"); var dv = new DataView(new ArrayBuffer(8));\n"
		"var xs = h.map(function (x) { dv.setUint32(0, parseInt(x.slice(0, 8), 16));\n"
		"  dv.setUint32(4, parseInt(x.slice(8), 16)); return dv.getFloat64(0); });\n"
		"var back = tools.echo(xs); store(\"xs\", xs);\n"
		"var misread = []; ts.forEach(function (t, i) {\n"
		"  if (t !== \"null\" && (Number(t) !== xs[i] || JSON.parse(t) !== xs[i] ||\n"
		"      parseFloat(t) !== xs[i] || eval(t) !== xs[i])) misread.push(h[i] + \" \" + "
		"t) });\n"
		"return {xs: xs, back: back, engine: xs.map(String), misread: misread};";
	buf_append(&s, tail, strlen(tail) + 1);
	return s.data;
}

START_TEST(numbers_on_the_wire)
{
	size_t n;
	struct number *v = load_numbers(&n);
	ck_assert_uint_ge(n, 4000);
	char *code = numbers_script(v, n);
	struct client c;
	struct buf in = BUF_INIT;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	send_line(&c, json_pack("{s:s, s:s, s:[{s:s}], s:{}}", "op", "execute", "code", code,
				"tools", "name", "echo", "store"));
	free(code);
	char *line;
	/* The tool call's arguments, then the same text as its result. */
	while (!strstr(line = read_line(&c, &in), "\"event\":\"tool_call\"")) {
		ck_assert_msg(strncmp(line, "{\"event\"", 8) == 0, "no tool call: %.300s", line);
		free(line);
	}
	char *args = member_text(line, "args");
	char *exec_id = member_text(line, "execution_id");
	char *call_id = member_text(line, "call_id");
	char *result = NULL;
	ck_assert_int_gt(asprintf(&result,
				  "{\"op\":\"tool_result\",\"execution_id\":%s,\"call_id\":%s,"
				  "\"value\":%s}\n",
				  exec_id, call_id, args),
			 0);
	client_send_raw(&c, result, strlen(result));
	free(result);
	free(line);
	free(exec_id);
	free(call_id);
	/* The tool result's reply, then the execution's. */
	for (;;) {
		line = read_line(&c, &in);
		if (strstr(line, "\"execution_id\"") && strstr(line, "\"ok\":"))
			break;
		free(line);
	}
	ck_assert_msg(strstr(line, "\"success\":true"), "%.500s", line);
	char *value = member_text(line, "value");
	ck_assert_ptr_nonnull(value);
	char *engine = NULL, *xs = NULL, *back = NULL, *misread = NULL;
	size_t pos = 0;
	struct jsonv_span k, e;
	while (jsonv_next(value, strlen(value), &pos, &k, &e)) {
		char *t = strndup(value + e.off, e.len);
		if (jsonv_key_is(value, &k, "xs"))
			xs = t;
		else if (jsonv_key_is(value, &k, "back"))
			back = t;
		else if (jsonv_key_is(value, &k, "engine"))
			engine = t;
		else
			misread = t;
	}
	ck_assert(xs && back && engine);
	check_array("returned value", xs, v, n, false);
	check_array("tool call args", args, v, n, false);
	check_array("tool result returned", back, v, n, false);
	/* The engine's own String(x) (scripts/duk-patch.sh 4 and 5). */
	check_array("String() in the script", engine, v, n, true);
	/* And reads Node's text of each back as the very double, as a
	 * literal, Number(), JSON.parse and parseFloat (duk-patch.sh 6). */
	ck_assert_ptr_nonnull(misread);
	ck_assert_msg(strcmp(misread, "[]") == 0, "read as another double: %.2000s", misread);
	free(misread);
	free(xs);
	free(back);
	free(args);
	char *writes = member_text(line, "store_writes");
	ck_assert_ptr_nonnull(writes);
	pos = 0;
	ck_assert(jsonv_next(writes, strlen(writes), &pos, &k, &e)); /* set */
	ck_assert(jsonv_key_is(writes, &k, "set"));
	size_t p2 = 0;
	struct jsonv_span k2, e2;
	ck_assert(jsonv_next(writes + e.off, e.len, &p2, &k2, &e2));
	char *stored = strndup(writes + e.off + e2.off, e2.len);
	check_array("store_writes", stored, v, n, false);
	free(stored);
	free(engine);
	free(writes);
	free(value);
	free(line);
	client_close(&c);
	buf_free(&in);
	free(v);
}
END_TEST

/* The same string but for the case of \u00XX escapes' hex digits: jansson
 * (and so sandboxd) writes them upper-case, JSON.stringify lower-case. */
static bool same_but_hex_case(const char *a, const char *b)
{
	if (strlen(a) != strlen(b))
		return false;
	for (size_t i = 0; a[i]; i++) {
		if (a[i] == b[i])
			continue;
		if (i < 4 || a[i - 4] != 'u' || a[i - 5] != '\\' || (a[i] | 0x20) != (b[i] | 0x20))
			return false;
	}
	return true;
}

/* Each line of file: name, Node's text (- for none), body; the member
 * picked from the reply by get must be that text. */
static void check_cases(const char *file, char *(*get)(const char *reply))
{
	FILE *f = fopen(file, "r");
	ck_assert_msg(f != NULL, "cannot open %s", file);
	char line[4096];
	unsigned n = 0, bad = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *want = strchr(line, '\t');
		ck_assert_ptr_nonnull(want);
		*want++ = '\0';
		char *body = strchr(want, '\t');
		ck_assert_ptr_nonnull(body);
		*body++ = '\0';
		char *reply = exec_raw(body);
		char *got = get(reply);
		const char *g = got ? got : "-";
		n++;
		if (strcmp(g, want) != 0 && !same_but_hex_case(g, want)) {
			fprintf(stderr, "%s: %s: got %s, Node %s\n", file, line, g, want);
			bad++;
		}
		free(got);
		free(reply);
	}
	fclose(f);
	ck_assert_msg(bad == 0, "%s: %u of %u cases unlike Node (on stderr)", file, bad, n);
	ck_assert_uint_ge(n, 30);
}

static char *value_of(const char *reply)
{
	ck_assert_msg(strstr(reply, "\"success\":true"), "%.500s", reply);
	return member_text(reply, "value");
}

static char *data_of(const char *reply)
{
	ck_assert_msg(strstr(reply, "\"success\":false"), "%.500s", reply);
	char *e = member_text(reply, "error");
	ck_assert_ptr_nonnull(e);
	/* The error object's data member: error's text is compact too. */
	char *d = member_text(e, "data");
	ck_assert_ptr_nonnull(strstr(e, "\"kind\":\"script\""));
	free(e);
	return d;
}

START_TEST(values_as_node) { check_cases("tests/data/values.txt", value_of); }
END_TEST

START_TEST(error_data_as_node) { check_cases("tests/data/error-data.txt", data_of); }
END_TEST

/* Data over LIMIT_ERROR_DATA_BYTES is left out; the error still says
 * what failed. */
START_TEST(error_data_bounded)
{
	char code[160];
	snprintf(code, sizeof code,
		 "var e = new Error('big'); e.code = 'E'; e.blob = 'x'.repeat(%u); throw e",
		 LIMIT_ERROR_DATA_BYTES);
	char *reply = exec_raw(code);
	char *e = member_text(reply, "error");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(strstr(e, "\"data\""));
	ck_assert_ptr_nonnull(strstr(e, "Error: big"));
	free(e);
	free(reply);
	snprintf(code, sizeof code, "var e = new Error('fits'); e.blob = 'x'.repeat(%u); throw e",
		 LIMIT_ERROR_DATA_BYTES - 16);
	reply = exec_raw(code);
	e = member_text(reply, "error");
	char *d = member_text(e, "data");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(strlen(d), LIMIT_ERROR_DATA_BYTES - 16 + 11);
	free(d);
	free(e);
	free(reply);
}
END_TEST

/* Runs sandboxctl with args; its stdout and stderr. */
static void run_ctl(const char *code, char **out, char **err)
{
	const char *bin = getenv("SANDBOXCTL_BIN");
	ck_assert_msg(bin != NULL, "SANDBOXCTL_BIN is not set (run through make check)");
	char dir[] = "/tmp/check_values.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char o[64], e[64], *cmd = NULL;
	snprintf(o, sizeof o, "%s/out", dir);
	snprintf(e, sizeof e, "%s/err", dir);
	ck_assert_int_gt(asprintf(&cmd, "'%s' --socket '%s' exec -e \"%s\" >%s 2>%s", bin,
				  shared.sock, code, o, e),
			 0);
	(void)system(cmd);
	free(cmd);
	size_t n;
	*out = test_read_file(o, &n);
	*err = test_read_file(e, &n);
	unlink(o);
	unlink(e);
	rmdir(dir);
}

START_TEST(sandboxctl_prints_them)
{
	char *out, *err;
	run_ctl("return [0.1, 1/3, 1e21, 1e-7, 123456789012345680000, 5e-324, -0, NaN]", &out,
		&err);
	ck_assert_str_eq(out, "[0.1,0.3333333333333333,1e+21,1e-7,123456789012345680000,5e-324,0,"
			      "null]\n");
	free(out);
	free(err);
	run_ctl("var e = new Error('nope'); e.code = 'E42'; e.ratio = 2/3; throw e", &out, &err);
	ck_assert_msg(strstr(err, "\n    data: {\"code\":\"E42\",\"ratio\":0.6666666666666666}\n"),
		      "%s", err);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("values");
	TCase *tc = tcase_create("values");
	tcase_add_unchecked_fixture(tc, shared_up, shared_down);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, numbers_on_the_wire);
	tcase_add_test(tc, values_as_node);
	tcase_add_test(tc, error_data_as_node);
	tcase_add_test(tc, error_data_bounded);
	tcase_add_test(tc, sandboxctl_prints_them);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
