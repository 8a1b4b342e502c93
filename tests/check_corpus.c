/*
 * check_corpus.c - the corpus of modern scripts (tests/data/corpus: ES2015+
 * JavaScript and TypeScript written the way a model writes code for an
 * agent) against the real daemon. Each script's value, stdout and tool
 * calls must be those in expected.json, which tests/corpus-node.js checks
 * against Node. Every tool call is answered by a deterministic responder,
 * the same as corpus-node.js's.
 *
 * The corpus is $SANDBOXD_CORPUS, else tests/data/corpus under the working
 * directory (make check runs from the repository's root). A run collects
 * every difference and reports them together, so one run shows everything
 * that is wrong.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define REPLY_MS 60000	   /* longest silence while executions are running */
#define EXEC_TIMEOUT 20000 /* per script; they all end in milliseconds */
#define MAX_SHOWN 240	   /* characters of a value or output in a report */

static struct daemon shared;

static void shared_up(void)
{
	/* Every script is sent at once: room in the queue for all of them. */
	const char *args[] = {"--max-workers", "2", "--max-queued-per-owner", "256", NULL};
	daemon_start(&shared, args);
}
static void shared_down(void) { daemon_stop(&shared); }

static const char *const tool_names[] = {"echo",   "math.add", "users.get", "users.list",
					 "search", "kv.get",   "fail",	    NULL};

/* ---- the corpus */

static const char *corpus_dir(void)
{
	const char *dir = getenv("SANDBOXD_CORPUS");
	return dir && *dir ? dir : "tests/data/corpus";
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .js and .ts files of the corpus, sorted; NULL-terminated. */
static char **corpus_files(size_t *count)
{
	const char *dir = corpus_dir();
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open the corpus %s: %s (SANDBOXD_CORPUS names another)",
		      dir, strerror(errno));
	size_t n = 0, cap = 16;
	char **names = malloc(cap * sizeof *names);
	ck_assert_ptr_nonnull(names);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!has_suffix(de->d_name, ".js") && !has_suffix(de->d_name, ".ts"))
			continue;
		if (n + 1 >= cap) {
			cap *= 2;
			char **more = realloc(names, cap * sizeof *names);
			ck_assert_ptr_nonnull(more);
			names = more;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	names[n] = NULL;
	qsort(names, n, sizeof *names, by_name);
	ck_assert_msg(n > 0, "no .js or .ts files in %s", dir);
	*count = n;
	return names;
}

static void free_files(char **names)
{
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		ck_assert_int_eq(buf_append(&b, chunk, n), 0);
	ck_assert_int_eq(buf_append(&b, "", 1), 0);
	fclose(f);
	char *s = strdup(buf_peek(&b));
	buf_free(&b);
	return s;
}

static json_t *load_expected(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/expected.json", corpus_dir());
	json_error_t err;
	json_t *e = json_load_file(path, 0, &err);
	ck_assert_msg(e != NULL, "%s: line %d: %s", path, err.line, err.text);
	ck_assert_msg(json_is_object(e), "%s is not an object", path);
	return e;
}

/* ---- the responder (mirrors respond() in corpus-node.js) */

/* JavaScript's ToNumber of a JSON value; NaN for a missing one. */
static double js_number(const json_t *v)
{
	if (!v)
		return NAN;
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_true(v))
		return 1;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			return 0;
		char *end;
		double d = strtod(s, &end);
		while (*end == ' ' || *end == '\t' || *end == '\n')
			end++;
		return *end ? NAN : d;
	}
	return NAN;
}

/* A number as JavaScript's String() writes it (the shortest digits that
 * read back the same; exponent forms aside). */
static void js_number_text(double d, char *out, size_t n)
{
	if (isnan(d)) {
		snprintf(out, n, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(out, n, d > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (d == floor(d) && fabs(d) < 1e21) {
		snprintf(out, n, "%.0f", d == 0 ? 0.0 : d);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, n, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			return;
	}
}

/* JavaScript's String() of a JSON value into out ("undefined" when missing). */
static void js_text(const json_t *v, char *out, size_t n)
{
	if (!v)
		snprintf(out, n, "undefined");
	else if (json_is_string(v))
		snprintf(out, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		js_number_text(json_real_value(v), out, n);
	else if (json_is_null(v))
		snprintf(out, n, "null");
	else if (json_is_boolean(v))
		snprintf(out, n, json_is_true(v) ? "true" : "false");
	else
		snprintf(out, n, "[object Object]");
}

static json_t *js_concat(const char *prefix, const json_t *v, const char *suffix)
{
	char text[1024], all[1200];
	js_text(v, text, sizeof text);
	snprintf(all, sizeof all, "%s%s%s", prefix, text, suffix);
	return json_string(all);
}

/* a + b, with JavaScript's + on JSON values; NaN becomes null, as a JSON
 * round trip makes it. */
static json_t *js_add(const json_t *a, const json_t *b)
{
	if (json_is_string(a) || json_is_string(b)) {
		char ta[512], tb[512], all[1100];
		js_text(a, ta, sizeof ta);
		js_text(b, tb, sizeof tb);
		snprintf(all, sizeof all, "%s%s", ta, tb);
		return json_string(all);
	}
	json_int_t sum;
	if (json_is_integer(a) && json_is_integer(b) &&
	    !__builtin_add_overflow(json_integer_value(a), json_integer_value(b), &sum))
		return json_integer(sum);
	double d = js_number(a) + js_number(b);
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *user(const json_t *id)
{
	json_t *u = json_object();
	if (id)
		json_object_set_new(u, "id", json_deep_copy(id));
	json_object_set_new(u, "name", js_concat("user", id, ""));
	json_object_set_new(u, "email", js_concat("user", id, "@example.com"));
	/* id % 2 == 1: C's fmod keeps the dividend's sign, as JavaScript's %. */
	json_object_set_new(u, "active", json_boolean(fmod(js_number(id), 2) == 1));
	return u;
}

/* The result of tool name called with args (null when the script passed
 * nothing), or NULL with *error set (malloc'd) for a tool error. */
static json_t *respond(const char *name, const json_t *args, char **error)
{
	const json_t *a = json_is_object(args) ? args : NULL;
	*error = NULL;
	if (strcmp(name, "echo") == 0)
		return json_deep_copy(args);
	if (strcmp(name, "math.add") == 0)
		return js_add(a ? json_object_get(a, "a") : NULL,
			      a ? json_object_get(a, "b") : NULL);
	if (strcmp(name, "users.get") == 0)
		return user(a ? json_object_get(a, "id") : NULL);
	if (strcmp(name, "users.list") == 0) {
		const json_t *l = a ? json_object_get(a, "limit") : NULL;
		double limit = !l || json_is_null(l) ? 3 : js_number(l);
		json_t *list = json_array();
		for (json_int_t id = 1; id <= limit && id <= 100000; id++) {
			json_t *idv = json_integer(id);
			json_array_append_new(list, user(idv));
			json_decref(idv);
		}
		return list;
	}
	if (strcmp(name, "search") == 0) {
		const json_t *q = a ? json_object_get(a, "q") : NULL;
		json_t *r = json_object();
		if (q)
			json_object_set_new(r, "query", json_deep_copy(q));
		json_object_set_new(r, "results",
				    json_pack("[{s:o, s:f}, {s:o, s:f}]", "title",
					      js_concat("", q, " 1"), "score", 0.9, "title",
					      js_concat("", q, " 2"), "score", 0.5));
		return r;
	}
	if (strcmp(name, "kv.get") == 0)
		return js_concat("value:", a ? json_object_get(a, "key") : NULL, "");
	char text[1200];
	if (strcmp(name, "fail") == 0)
		js_text(a ? json_object_get(a, "message") : NULL, text, sizeof text);
	else
		snprintf(text, sizeof text, "unknown tool %s", name);
	*error = strdup(text);
	return NULL;
}

/* ---- running the corpus */

struct run {
	const char *file;
	json_t *calls; /* names of the tool calls, in the order they came */
	json_t *reply;
};

#define ID_PREFIX "corpus-"
#define ANSWER_PREFIX "answer-"

/* Which run an id ("corpus-N" or "answer-N") belongs to; -1 for none. */
static long run_of(const char *id, const char *prefix, size_t n)
{
	size_t k = strlen(prefix);
	if (strncmp(id, prefix, k) != 0)
		return -1;
	char *end;
	unsigned long i = strtoul(id + k, &end, 10);
	return *end || i >= n ? -1 : (long)i;
}

static json_t *execute_request(size_t i, const char *file, const char *language)
{
	char path[512], id[32];
	snprintf(path, sizeof path, "%s/%s", corpus_dir(), file);
	snprintf(id, sizeof id, ID_PREFIX "%zu", i);
	char *code = read_text(path);
	json_t *tools = json_array();
	for (const char *const *t = tool_names; *t; t++)
		json_array_append_new(tools, json_pack("{s:s}", "name", *t));
	json_t *req = json_pack("{s:s, s:s, s:s, s:o, s:i}", "op", "execute", "id", id, "code",
				code, "tools", tools, "timeout_ms", EXEC_TIMEOUT);
	ck_assert_ptr_nonnull(req);
	if (language)
		json_object_set_new(req, "language", json_string(language));
	free(code);
	return req;
}

static void add_line(struct buf *report, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_line(struct buf *report, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	buf_append(report, "\n  ", 3);
	buf_append(report, line, strlen(line));
}

/* JSON text of v, cut to MAX_SHOWN characters; the caller frees it. */
static char *shown(const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("nothing");
	ck_assert_ptr_nonnull(s);
	if (strlen(s) > MAX_SHOWN)
		strcpy(s + MAX_SHOWN - 3, "...");
	return s;
}

/* Appends up to *left "PATH: expected X, got Y" for where got differs from
 * want (NULL: missing). */
static void diff_paths(const json_t *want, const json_t *got, const char *path, struct buf *out,
		       int *left)
{
	if (*left <= 0 || (want && got && json_equal(want, got)))
		return;
	if (json_is_object(want) && json_is_object(got)) {
		const char *key;
		json_t *v;
		char sub[512];
		json_object_foreach ((json_t *)want, key, v) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			diff_paths(v, json_object_get(got, key), sub, out, left);
		}
		json_object_foreach ((json_t *)got, key, v) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			if (!json_object_get(want, key))
				diff_paths(NULL, v, sub, out, left);
		}
		return;
	}
	if (json_is_array(want) && json_is_array(got)) {
		size_t nw = json_array_size(want), ng = json_array_size(got);
		char sub[512];
		for (size_t i = 0; i < (nw > ng ? nw : ng); i++) {
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			diff_paths(json_array_get(want, i), json_array_get(got, i), sub, out, left);
		}
		return;
	}
	char *a = shown(want), *b = shown(got);
	char line[1200];
	snprintf(line, sizeof line, "%s%s: expected %s, got %s", buf_len(out) ? "; " : "",
		 *path ? path : "(value)", a, b);
	buf_append(out, line, strlen(line));
	free(a);
	free(b);
	(*left)--;
}

/* Compares one run with its expectation; appends what differs to report.
 * Returns true when it matches. */
static bool compare(const struct run *r, json_t *expected, struct buf *report)
{
	const char *f = r->file;
	json_t *want = json_object_get(expected, f);
	if (!json_is_object(want)) {
		add_line(report, "%s: no entry in expected.json", f);
		return false;
	}
	json_t *reply = r->reply;
	if (!reply) {
		add_line(report, "%s: no reply", f);
		return false;
	}
	json_t *err = json_object_get(reply, "error");
	if (!jtrue(reply, "ok")) {
		add_line(report, "%s: request refused: %s: %s", f, jstr(err, "code"),
			 jstr(err, "message"));
		return false;
	}
	if (!jtrue(reply, "success")) {
		char *msg = shown(json_object_get(err, "message"));
		add_line(report, "%s: %s error at line %lld: %s", f, jstr(err, "kind"),
			 jint(err, "line"), msg);
		free(msg);
		return false;
	}
	bool ok = true;
	json_t *wv = json_object_get(want, "value"), *gv = json_object_get(reply, "value");
	if ((wv == NULL) != (gv == NULL) || (wv && !json_equal(wv, gv))) {
		struct buf paths = BUF_INIT;
		int left = 5;
		diff_paths(wv, gv, "", &paths, &left);
		buf_append(&paths, "", 1);
		add_line(report, "%s: value: %s", f, buf_peek(&paths));
		buf_free(&paths);
		ok = false;
	}
	json_t *wo = json_object_get(want, "stdout"), *go = json_object_get(reply, "stdout");
	if (!json_is_string(go) || !json_equal(wo, go)) {
		/* Shown from a little before the first byte that differs. */
		const char *ws = json_string_value(wo), *gs = json_string_value(go);
		size_t at = 0;
		while (ws && gs && ws[at] && ws[at] == gs[at])
			at++;
		size_t from = at > 40 ? at - 40 : 0;
		json_t *wcut =
			ws ? json_string(ws + (from < strlen(ws) ? from : strlen(ws))) : NULL;
		json_t *gcut =
			gs ? json_string(gs + (from < strlen(gs) ? from : strlen(gs))) : NULL;
		char *a = shown(wcut), *b = shown(gcut);
		add_line(report, "%s: stdout differs at byte %zu: expected %s%s, got %s%s", f, at,
			 from ? "..." : "", a, from ? "..." : "", b);
		free(a);
		free(b);
		json_decref(wcut);
		json_decref(gcut);
		ok = false;
	}
	json_t *wc = json_object_get(want, "calls");
	if (!json_equal(wc, r->calls)) {
		char *a = shown(wc), *b = shown(r->calls);
		add_line(report, "%s: calls: expected %s, got %s", f, a, b);
		free(a);
		free(b);
		ok = false;
	}
	/* The reply's own record of the calls names the same tools. */
	json_t *record = json_object_get(reply, "calls"), *names = json_array();
	size_t i;
	json_t *k;
	json_array_foreach (record, i, k) {
		json_array_append(names, json_object_get(k, "name"));
	}
	if (!json_equal(names, r->calls)) {
		char *a = shown(r->calls), *b = shown(names);
		add_line(report, "%s: the reply's calls record %s, the events %s", f, b, a);
		free(a);
		free(b);
		ok = false;
	}
	json_decref(names);
	return ok;
}

/* Answers a tool_call event of run i on c. */
static void answer_call(struct client *c, json_t *ev, size_t i)
{
	json_t *args = json_object_get(ev, "args");
	char *error;
	json_t *value = respond(jstr(ev, "name"), args ? args : json_null(), &error);
	char id[32];
	snprintf(id, sizeof id, ANSWER_PREFIX "%zu", i);
	json_t *req =
		json_pack("{s:s, s:s, s:s, s:O}", "op", "tool_result", "id", id, "execution_id",
			  jstr(ev, "execution_id"), "call_id", json_object_get(ev, "call_id"));
	ck_assert_ptr_nonnull(req);
	if (error) {
		json_object_set_new(req, "error", json_string(error));
		free(error);
	} else {
		json_object_set_new(req, "value", value);
	}
	client_send(c, req);
	json_decref(req);
}

/*
 * Runs the corpus files ending in suffix (NULL: all) on one connection, all
 * requests in flight at once (the daemon queues them), answering each tool
 * call; then compares each with expected.json. explicit_language: each
 * request carries the "language" its extension names.
 */
static size_t run_corpus(const char *suffix, bool explicit_language, const char *what,
			 struct buf *all)
{
	size_t nfiles;
	char **files = corpus_files(&nfiles);
	json_t *expected = load_expected();
	struct run *runs = calloc(nfiles, sizeof *runs);
	ck_assert_ptr_nonnull(runs);
	size_t n = 0;
	for (size_t i = 0; i < nfiles; i++)
		if (!suffix || has_suffix(files[i], suffix))
			runs[n++] = (struct run){files[i], json_array(), NULL};

	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	for (size_t i = 0; i < n; i++) {
		const char *language = NULL;
		if (explicit_language)
			language = has_suffix(runs[i].file, ".ts") ? "typescript" : "javascript";
		json_t *req = execute_request(i, runs[i].file, language);
		client_send(&c, req);
		json_decref(req);
	}

	struct buf report = BUF_INIT;
	size_t done = 0;
	while (done < n) {
		json_t *m = client_recv(&c, REPLY_MS);
		if (!m) {
			add_line(&report, "the daemon went silent with %zu of %zu replies", done,
				 n);
			break;
		}
		const char *id = jstr(m, "id");
		long i;
		if (json_object_get(m, "event")) {
			i = run_of(id, ID_PREFIX, n);
			if (i >= 0 && strcmp(jstr(m, "event"), "tool_call") == 0) {
				json_array_append(runs[i].calls, json_object_get(m, "name"));
				answer_call(&c, m, (size_t)i);
			}
		} else if ((i = run_of(id, ANSWER_PREFIX, n)) >= 0) {
			if (!jtrue(m, "ok"))
				add_line(&report, "%s: tool_result refused: %s", runs[i].file,
					 jstr(json_object_get(m, "error"), "message"));
		} else if ((i = run_of(id, ID_PREFIX, n)) >= 0 && !runs[i].reply) {
			runs[i].reply = json_incref(m);
			done++;
		}
		json_decref(m);
	}
	client_close(&c);

	size_t failed = 0;
	for (size_t i = 0; i < n; i++) {
		if (!compare(&runs[i], expected, &report))
			failed++;
		json_decref(runs[i].calls);
		json_decref(runs[i].reply);
	}
	if (buf_len(&report)) {
		char head[200];
		snprintf(head, sizeof head,
			 "%s%s: %zu of %zu scripts differ:", buf_len(all) ? "\n" : "", what, failed,
			 n);
		buf_append(all, head, strlen(head));
		buf_append(all, buf_peek(&report), buf_len(&report));
	}
	buf_free(&report);
	free(runs);
	json_decref(expected);
	free_files(files);
	return failed;
}

/* Fails with every difference in report, which is freed. The whole list
 * goes to stderr too: Check cuts an assertion message at its buffer size. */
static void assert_no_differences(struct buf *report)
{
	buf_append(report, "", 1);
	if (buf_len(report) > 1)
		fprintf(stderr, "corpus differences:\n%s\n", buf_peek(report));
	ck_assert_msg(buf_len(report) == 1, "corpus differences:\n%s", buf_peek(report));
	buf_free(report);
}

/* Every script as it is, with no language field. */
START_TEST(test_corpus)
{
	struct buf report = BUF_INIT;
	run_corpus(NULL, false, "no language field", &report);
	assert_no_differences(&report);
}
END_TEST

/* The .ts files with "language": "typescript" and the .js files with
 * "language": "javascript". */
START_TEST(test_corpus_language)
{
	struct buf report = BUF_INIT;
	run_corpus(".ts", true, "\"language\": \"typescript\"", &report);
	run_corpus(".js", true, "\"language\": \"javascript\"", &report);
	assert_no_differences(&report);
}
END_TEST

/* ---- the expectations against Node */

/* The path of an executable named name on PATH, or false. */
static bool find_on_path(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = strdup(path), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, n, "%s/%s", *dir ? dir : ".", name);
		found = access(out, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* When Node is there, tests/corpus-node.js must find every .js script's
 * result in expected.json. Without it, expected.json must at least parse
 * and cover every script. */
START_TEST(test_expectations)
{
	const char *dir = corpus_dir();
	char node[1024], script[600];
	snprintf(script, sizeof script, "%s/../../corpus-node.js", dir);
	if (access(script, R_OK) != 0)
		snprintf(script, sizeof script, "tests/corpus-node.js");

	if (find_on_path("node", node, sizeof node)) {
		ck_assert_msg(access(script, R_OK) == 0, "corpus-node.js not found (%s)", script);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			execl(node, "node", script, dir, (char *)NULL);
			_exit(127);
		}
		int st;
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "node %s %s: status %#x: Node's results differ from expected.json "
			      "(see its output)",
			      script, dir, st);
		return;
	}

	fprintf(stderr,
		"check_corpus: the Node comparison (%s) was not run: no node on PATH; "
		"checking only that expected.json parses and covers the corpus\n",
		script);
	size_t n;
	char **files = corpus_files(&n);
	json_t *expected = load_expected();
	struct buf report = BUF_INIT;
	for (char **f = files; *f; f++) {
		json_t *e = json_object_get(expected, *f);
		if (!json_is_object(e))
			add_line(&report, "%s: no entry", *f);
		else if (!json_is_string(json_object_get(e, "stdout")) ||
			 !json_is_array(json_object_get(e, "calls")))
			add_line(&report, "%s: entry without stdout or calls", *f);
	}
	const char *key;
	json_t *v;
	json_object_foreach (expected, key, v) {
		bool known = false;
		for (char **f = files; *f && !known; f++)
			known = strcmp(*f, key) == 0;
		if (!known)
			add_line(&report, "%s: an entry for no file", key);
	}
	buf_append(&report, "", 1);
	ck_assert_msg(buf_len(&report) == 1, "expected.json:%s", buf_peek(&report));
	buf_free(&report);
	json_decref(expected);
	free_files(files);
}
END_TEST

static Suite *corpus_suite(void)
{
	Suite *s = suite_create("corpus");
	TCase *tc = tcase_create("shared");
	tcase_add_unchecked_fixture(tc, shared_up, shared_down);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_corpus);
	tcase_add_test(tc, test_corpus_language);
	tcase_add_test(tc, test_expectations);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(corpus_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
