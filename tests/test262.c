/*
 * test262.c - runs test files of the ECMAScript conformance suite
 * (tc39/test262, a checkout outside this repository) through a running
 * daemon and reports pass rates per area.
 *
 *   test262 --socket PATH --suite DIR [--areas FILE] [--skip FILE]
 *           [--jobs N] [--results FILE] [--timeout-ms N] [PATH...]
 *
 * PATH (relative to DIR/test, a directory or one file) chooses what runs;
 * without one, every area of the areas file (one directory a line). A file
 * runs as its front matter says (test262's INTERPRETING.md): its includes
 * after assert.js and sta.js (and doneprintHandle.js for async tests),
 * once non-strict and once with a "use strict" directive first unless its
 * flags say onlyStrict, noStrict or raw; module tests, and tests needing a
 * feature of the skip file, are skipped with the reason the file gives.
 * Each run is an `execute` of the whole source as JavaScript, with a host
 * prelude defining print and the part of $262 the daemon can give (global,
 * evalScript). A positive test passes when the execution succeeds (for an
 * async test, when its output also says Test262:AsyncTestComplete); a
 * negative one when it fails as the front matter expects: kind `syntax`
 * for phase parse, a thrown error of the named type for phase runtime. A
 * file passes when all its runs do.
 *
 * Output: a table (markdown) of areas with files passed, run, the rate and
 * files skipped; totals, positive and negative tests apart; skip reasons
 * with counts. --results FILE gets one line per run: pass, fail or skip, a
 * tab, the path, a tab, the mode and for failures what happened.
 * Exit status 0 when it ran (whatever passed), 2 on a usage error, 1 when
 * the daemon could not be used.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../client/sdc.h"

#define MAX_LIST 64

/* What a test file's front matter says. */
struct meta {
	char *includes[MAX_LIST];
	int n_includes;
	char *flags[MAX_LIST];
	int n_flags;
	char *features[MAX_LIST];
	int n_features;
	char *neg_phase, *neg_type;
};

enum mode { MODE_SLOPPY, MODE_STRICT, MODE_RAW };
static const char *const mode_names[] = {"sloppy", "strict", "raw"};

struct test {
	char *path; /* relative to the suite's test/ directory */
	int area;
	bool negative, async, skipped;
	const char *skip_reason;
	int runs, passed, done;
	char *code[2];
	size_t code_len[2];
	enum mode modes[2];
	char *why[2]; /* a failed run's account */
	char *expect; /* a negative test's "phase type" */
	const char *expect_type;
	bool expect_parse;
};

static const char *suite = NULL;
static char **areas;
static int n_areas;
static char **skip_feature, **skip_reason;
static int n_skip;
static int timeout_ms = 10000;

/* Ends the run: "test262: " what arg. */
static void die(const char *what, const char *arg)
{
	fprintf(stderr, "test262: %s%s\n", what, arg);
	exit(1);
}

/* The whole file, NUL-terminated, its length in *lenp (may be NULL): a
 * test may hold NUL bytes. */
static char *read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *p = realloc(buf, cap *= 2);
			if (!p) {
				free(buf);
				buf = NULL;
			}
			buf = p;
		}
	}
	fclose(f);
	if (!buf)
		die("out of memory reading ", path);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

/* Lines of a file, without comments (#) and blank lines; for the
 * skip file, each line's first word and the rest (the reason). */
static int read_lines(const char *path, char ***first, char ***rest)
{
	char *text = read_file(path, NULL);
	if (!text)
		die("cannot read ", path);
	int n = 0, cap = 16;
	*first = malloc(cap * sizeof **first);
	if (rest)
		*rest = malloc(cap * sizeof **rest);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		if (n == cap) {
			cap *= 2;
			*first = realloc(*first, cap * sizeof **first);
			if (rest)
				*rest = realloc(*rest, cap * sizeof **rest);
		}
		size_t w = strcspn(line, " \t");
		char *end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (rest) {
			char *r = line + w;
			if (*r)
				*r++ = '\0';
			r += strspn(r, " \t");
			(*rest)[n] = strdup(*r ? r : "unsupported");
		}
		(*first)[n++] = strdup(line);
	}
	free(text);
	return n;
}

/* ---- front matter */

static char *trimmed(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\'' || *s == '"'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\'' ||
		     s[n - 1] == '"'))
		n--;
	return strndup(s, n);
}

/* The list under key in the front matter fm: "key: [a, b]" or "key:"
 * followed by "  - a" lines. */
static int meta_list(const char *fm, const char *key, char **out)
{
	int n = 0;
	size_t klen = strlen(key);
	for (const char *line = fm; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		const char *v = line + klen + 1;
		v += strspn(v, " \t");
		if (*v == '[') {
			const char *end = strchr(v, ']');
			for (const char *p = v + 1; end && p < end && n < MAX_LIST;) {
				size_t w = strcspn(p, ",]");
				char *item = trimmed(p, w);
				if (*item)
					out[n++] = item;
				else
					free(item);
				p += w + (p[w] == ',');
			}
			return n;
		}
		for (const char *l = strchr(v, '\n'); l && n < MAX_LIST; l = strchr(l + 1, '\n')) {
			const char *p = l + 1 + strspn(l + 1, " \t");
			if (*p != '-')
				break;
			out[n++] = trimmed(p + 1, strcspn(p + 1, "\n"));
		}
		return n;
	}
	return 0;
}

/* A scalar of the block under "negative:". */
static char *meta_negative(const char *fm, const char *key)
{
	const char *neg = strstr(fm, "\nnegative:");
	if (!neg)
		return NULL;
	size_t klen = strlen(key);
	for (const char *l = strchr(neg + 1, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *p = l + 1;
		if (*p != ' ' && *p != '\t')
			break;
		p += strspn(p, " \t");
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return trimmed(p + klen + 1, strcspn(p + klen + 1, "\n"));
	}
	return NULL;
}

static bool meta_parse(const char *src, struct meta *m)
{
	memset(m, 0, sizeof *m);
	const char *start = strstr(src, "/*---"), *end = start ? strstr(start, "---*/") : NULL;
	if (!end)
		return false;
	char *fm = strndup(start + 5, (size_t)(end - start - 5));
	m->n_includes = meta_list(fm, "includes", m->includes);
	m->n_flags = meta_list(fm, "flags", m->flags);
	m->n_features = meta_list(fm, "features", m->features);
	m->neg_phase = meta_negative(fm, "phase");
	m->neg_type = meta_negative(fm, "type");
	free(fm);
	return true;
}

static void meta_free(struct meta *m)
{
	for (int i = 0; i < m->n_includes; i++)
		free(m->includes[i]);
	for (int i = 0; i < m->n_flags; i++)
		free(m->flags[i]);
	for (int i = 0; i < m->n_features; i++)
		free(m->features[i]);
	free(m->neg_phase);
	free(m->neg_type);
}

static bool has_flag(const struct meta *m, const char *flag)
{
	for (int i = 0; i < m->n_flags; i++)
		if (!strcmp(m->flags[i], flag))
			return true;
	return false;
}

/* ---- composing the runs */

static struct {
	char *name, *text;
} harness[64];
static int n_harness;

static const char *harness_file(const char *name)
{
	for (int i = 0; i < n_harness; i++)
		if (!strcmp(harness[i].name, name))
			return harness[i].text;
	if (n_harness == (int)(sizeof harness / sizeof harness[0]))
		die("too many harness files, at ", name);
	char path[4096];
	snprintf(path, sizeof path, "%s/harness/%s", suite, name);
	char *text = read_file(path, NULL);
	if (!text)
		die("cannot read the harness file ", path);
	harness[n_harness].name = strdup(name);
	harness[n_harness].text = text;
	return harness[n_harness++].text;
}

/* The host's part of INTERPRETING.md: print, and the $262 members the
 * daemon can give. */
static const char prelude[] =
	"var print = function (s) { console.log(String(s)); };\n"
	"var $262 = {global: globalThis, evalScript: function (src) { return (0, eval)(src); }};\n";

/* Host hooks a test may need that the daemon does not give. */
static const char *const missing_hooks[] = {"$262.createRealm", "$262.detachArrayBuffer",
					    "$262.agent",	"$262.gc",
					    "$262.IsHTMLDDA",	"$262.AbstractModuleSource"};

static void append_n(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 2 > *cap) {
		while (*len + n + 2 > *cap)
			*cap *= 2;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			die("out of memory", "");
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void append(char **buf, size_t *len, size_t *cap, const char *s)
{
	append_n(buf, len, cap, s, strlen(s));
}

/* One run's source, srclen bytes of test src after what mode puts
 * first; its length in *outlen. */
static char *compose(const char *src, size_t srclen, const struct meta *m, enum mode mode,
		     size_t *outlen)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	if (!buf)
		die("out of memory", "");
	buf[0] = '\0';
	if (mode == MODE_RAW) {
		append_n(&buf, &len, &cap, src, srclen);
		*outlen = len;
		return buf;
	}
	if (mode == MODE_STRICT)
		append(&buf, &len, &cap, "\"use strict\";\n");
	append(&buf, &len, &cap, prelude);
	append(&buf, &len, &cap, harness_file("assert.js"));
	append(&buf, &len, &cap, "\n");
	append(&buf, &len, &cap, harness_file("sta.js"));
	append(&buf, &len, &cap, "\n");
	if (has_flag(m, "async")) {
		/* Harness code is global code in test262's model: asyncHelpers.js
		 * looks for $DONE on the global object. */
		append(&buf, &len, &cap, harness_file("doneprintHandle.js"));
		append(&buf, &len, &cap, "\nglobalThis.$DONE = $DONE;\n");
	}
	for (int i = 0; i < m->n_includes; i++) {
		append(&buf, &len, &cap, harness_file(m->includes[i]));
		append(&buf, &len, &cap, "\n");
	}
	append_n(&buf, &len, &cap, src, srclen);
	*outlen = len;
	return buf;
}

static const char *skip_of(const char *src, const struct meta *m)
{
	if (has_flag(m, "module"))
		return "module code (import/export) is not supported";
	for (int i = 0; i < m->n_features; i++)
		for (int j = 0; j < n_skip; j++)
			if (!strcmp(m->features[i], skip_feature[j]))
				return skip_reason[j];
	for (size_t i = 0; i < sizeof missing_hooks / sizeof missing_hooks[0]; i++)
		if (strstr(src, missing_hooks[i]))
			return "needs a host hook the daemon does not give ($262.createRealm, "
			       "detachArrayBuffer, agent, gc, IsHTMLDDA)";
	return NULL;
}

static int area_of(const char *path)
{
	int best = -1;
	size_t best_len = 0;
	for (int i = 0; i < n_areas; i++) {
		size_t n = strlen(areas[i]);
		if (n > best_len && !strncmp(path, areas[i], n) && (path[n] == '/' || !path[n])) {
			best = i;
			best_len = n;
		}
	}
	return best;
}

/* ---- collecting files */

static struct test *tests;
static size_t n_tests, cap_tests;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_test(const char *rel)
{
	if (n_tests == cap_tests) {
		cap_tests = cap_tests ? cap_tests * 2 : 1024;
		tests = realloc(tests, cap_tests * sizeof *tests);
		if (!tests)
			die("out of memory", "");
	}
	struct test *t = &tests[n_tests++];
	memset(t, 0, sizeof *t);
	t->path = strdup(rel);
}

/* Adds the test files under rel (relative to the suite's test/), in name
 * order: every *.js but the _FIXTURE files other tests import. */
static void collect(const char *rel)
{
	char path[8192];
	snprintf(path, sizeof path, "%s/test/%s", suite, rel);
	struct stat st;
	if (stat(path, &st) < 0)
		die("no such test file or directory: ", path);
	if (!S_ISDIR(st.st_mode)) {
		add_test(rel);
		return;
	}
	DIR *d = opendir(path);
	if (!d)
		die("cannot read the directory ", path);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof *names);
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		char sub[2048];
		snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
		snprintf(path, sizeof path, "%s/test/%s", suite, sub);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			collect(sub);
		} else {
			size_t len = strlen(names[i]);
			if (len > 3 && !strcmp(names[i] + len - 3, ".js") &&
			    !strstr(names[i], "_FIXTURE"))
				add_test(sub);
		}
		free(names[i]);
	}
	free(names);
}

/* Reads a test and decides its runs. */
static void prepare(struct test *t)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/test/%s", suite, t->path);
	size_t srclen;
	char *src = read_file(path, &srclen);
	if (!src)
		die("cannot read ", path);
	struct meta m;
	if (!meta_parse(src, &m)) {
		t->skipped = true;
		t->skip_reason = "no front matter";
		free(src);
		return;
	}
	t->negative = m.neg_phase != NULL;
	t->async = has_flag(&m, "async");
	t->skip_reason = skip_of(src, &m);
	if (t->skip_reason) {
		t->skipped = true;
	} else if (has_flag(&m, "raw")) {
		t->modes[t->runs++] = MODE_RAW;
	} else {
		if (!has_flag(&m, "onlyStrict"))
			t->modes[t->runs++] = MODE_SLOPPY;
		if (!has_flag(&m, "noStrict"))
			t->modes[t->runs++] = MODE_STRICT;
	}
	for (int i = 0; i < t->runs; i++)
		t->code[i] = compose(src, srclen, &m, t->modes[i], &t->code_len[i]);
	if (t->negative) {
		size_t n = strlen(m.neg_phase) + (m.neg_type ? strlen(m.neg_type) : 0) + 2;
		t->expect = malloc(n);
		snprintf(t->expect, n, "%s %s", m.neg_phase, m.neg_type ? m.neg_type : "");
		t->expect_type = t->expect + strlen(m.neg_phase) + 1;
		t->expect_parse = !strcmp(m.neg_phase, "parse");
	}
	meta_free(&m);
	free(src);
}

/* ---- running */

struct run {
	struct test *t;
	int i;
};

static struct run *runs;
static size_t n_runs, next_run, runs_done, in_flight;
static struct run **retry;
static size_t n_retry;
static FILE *results;
static bool failed_conn;

static bool starts_with_type(const char *msg, const char *type)
{
	size_t n = strlen(type);
	if (!strncmp(msg, "Uncaught ", 9))
		msg += 9;
	return !strncmp(msg, type, n) && (msg[n] == ':' || msg[n] == '\0');
}

static char *account(const char *what, const char *kind, const char *msg)
{
	char *s;
	if (asprintf(&s, "%s%s%s%s%s", what, kind ? kind : "", kind ? ": " : "", msg ? msg : "",
		     "") < 0)
		die("out of memory", "");
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	if (strlen(s) > 400)
		strcpy(s + 397, "...");
	return s;
}

/* The verdict on one run's final reply: NULL when it passed, else what
 * happened (allocated). */
static char *judge(const struct test *t, json_t *r)
{
	json_t *err = json_object_get(r, "error");
	const char *kind = json_string_value(json_object_get(err, "kind"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	if (!json_is_true(json_object_get(r, "ok")))
		return account("request refused: ", json_string_value(json_object_get(err, "code")),
			       msg);
	bool success = json_is_true(json_object_get(r, "success"));
	const char *out = json_string_value(json_object_get(r, "stdout"));
	if (t->negative) {
		char what[256];
		snprintf(what, sizeof what, "expected %s, got ", t->expect);
		if (success)
			return account(what, NULL, "success");
		bool ok = t->expect_parse ? kind && !strcmp(kind, "syntax") &&
						    (!strcmp(t->expect_type, "SyntaxError") ||
						     (msg && starts_with_type(msg, t->expect_type)))
					  : kind && !strcmp(kind, "script") && msg &&
						    starts_with_type(msg, t->expect_type);
		return ok ? NULL : account(what, kind, msg);
	}
	if (!success)
		return account("", kind, msg);
	if (t->async) {
		if (out && strstr(out, "Test262:AsyncTestComplete") &&
		    !strstr(out, "Test262:AsyncTestFailure"))
			return NULL;
		const char *tail = out ? out : "";
		size_t n = strlen(tail);
		return account("async test did not complete: ", NULL,
			       n > 300 ? tail + n - 300 : tail);
	}
	return NULL;
}

static void on_reply(struct sdc *c, json_t *frame, void *arg);

static void send_run(struct sdc *c, struct run *r)
{
	json_t *req = json_pack("{s:s, s:s%, s:s, s:b, s:i}", "op", "execute", "code",
				r->t->code[r->i], r->t->code_len[r->i], "language", "javascript",
				"cache", 0, "timeout_ms", timeout_ms);
	if (!req)
		die("out of memory", "");
	if (sdc_request(c, req, on_reply, r) < 0)
		die("cannot send a request: ", sdc_error(c));
	json_decref(req);
	in_flight++;
}

static void finish_run(struct run *r, char *why)
{
	struct test *t = r->t;
	fprintf(results, "%s\t%s\t%s%s%s\n", why ? "fail" : "pass", t->path,
		mode_names[t->modes[r->i]], why ? " " : "", why ? why : "");
	if (why)
		t->why[r->i] = why;
	else
		t->passed++;
	t->done++;
	free(t->code[r->i]);
	t->code[r->i] = NULL;
	runs_done++;
}

static void on_reply(struct sdc *c, json_t *frame, void *arg)
{
	(void)c;
	struct run *r = arg;
	if (!sdc_is_final(frame))
		return;
	in_flight--;
	if (!frame) {
		failed_conn = true;
		return;
	}
	json_t *err = json_object_get(frame, "error");
	const char *code = json_string_value(json_object_get(err, "code"));
	if (!json_is_true(json_object_get(frame, "ok")) && code &&
	    (!strcmp(code, "RESOURCE_EXHAUSTED") || !strcmp(code, "UNAVAILABLE"))) {
		retry[n_retry++] = r; /* the queue was full: again later */
		return;
	}
	finish_run(r, judge(r->t, frame));
}

static void run_all(const char *sock, size_t jobs)
{
	struct sdc *c = sdc_connect(sock, FRAME_MODE_BINARY, 0);
	if (!c)
		die("cannot connect to ", sock);
	retry = calloc(n_runs + 1, sizeof *retry);
	while (runs_done < n_runs) {
		while (in_flight < jobs && (n_retry || next_run < n_runs))
			send_run(c, n_retry ? retry[--n_retry] : &runs[next_run++]);
		int st = sdc_pump(c, -1);
		if (failed_conn || (st != SDC_OK && st != SDC_ETIMEOUT))
			die("the daemon's connection failed: ", sdc_error(c));
	}
	sdc_close(c);
}

/* ---- the report */

static void report(void)
{
	size_t *files = calloc(n_areas + 1, sizeof *files),
	       *pass = calloc(n_areas + 1, sizeof *pass), *skip = calloc(n_areas + 1, sizeof *skip);
	size_t pos = 0, pos_pass = 0, neg = 0, neg_pass = 0, crashes = 0;
	for (size_t i = 0; i < n_tests; i++) {
		struct test *t = &tests[i];
		int a = t->area < 0 ? n_areas : t->area;
		if (t->skipped) {
			skip[a]++;
			continue;
		}
		files[a]++;
		bool ok = t->passed == t->runs;
		pass[a] += ok;
		if (t->negative)
			neg++, neg_pass += ok;
		else
			pos++, pos_pass += ok;
		for (int j = 0; j < t->runs; j++)
			if (t->why[j] && strstr(t->why[j], "could not be lowered"))
				crashes++;
	}
	printf("| area | passed | files | rate | skipped |\n|---|---:|---:|---:|---:|\n");
	for (int a = 0; a <= n_areas; a++) {
		if (!files[a] && !skip[a])
			continue;
		printf("| %s | %zu | %zu | %.1f%% | %zu |\n", a < n_areas ? areas[a] : "(other)",
		       pass[a], files[a],
		       files[a] ? 100.0 * (double)pass[a] / (double)files[a] : 0.0, skip[a]);
	}
	size_t all = pos + neg, all_pass = pos_pass + neg_pass, skipped = n_tests - all;
	printf("| **all** | %zu | %zu | %.2f%% | %zu |\n\n", all_pass, all,
	       all ? 100.0 * (double)all_pass / (double)all : 0.0, skipped);
	printf("positive tests: %zu of %zu (%.2f%%); negative: %zu of %zu (%.2f%%)\n", pos_pass,
	       pos, pos ? 100.0 * (double)pos_pass / (double)pos : 0.0, neg_pass, neg,
	       neg ? 100.0 * (double)neg_pass / (double)neg : 0.0);
	printf("runs the lowering could not handle: %zu\n", crashes);
	/* Skip reasons with their counts. */
	const char **reasons = calloc(n_tests + 1, sizeof *reasons);
	size_t *counts = calloc(n_tests + 1, sizeof *counts), n_reasons = 0;
	for (size_t i = 0; i < n_tests; i++) {
		if (!tests[i].skipped)
			continue;
		size_t k = 0;
		while (k < n_reasons && strcmp(reasons[k], tests[i].skip_reason))
			k++;
		if (k == n_reasons)
			reasons[n_reasons++] = tests[i].skip_reason;
		counts[k]++;
	}
	if (n_reasons)
		printf("skipped:\n");
	for (size_t k = 0; k < n_reasons; k++)
		printf("  %5zu  %s\n", counts[k], reasons[k]);
	free(reasons);
	free(counts);
	free(files);
	free(pass);
	free(skip);
}

static void usage(void)
{
	fprintf(stderr, "usage: test262 --socket PATH --suite DIR [--areas FILE] [--skip FILE] "
			"[--jobs N] [--results FILE] [--timeout-ms N] [PATH...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *areas_file = NULL, *skip_file = NULL, *results_file = NULL;
	long jobs = 4;
	int first_path = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (a[0] != '-') {
			first_path = i;
			break;
		}
		if (!v)
			usage();
		if (!strcmp(a, "--socket"))
			sock = v;
		else if (!strcmp(a, "--suite"))
			suite = v;
		else if (!strcmp(a, "--areas"))
			areas_file = v;
		else if (!strcmp(a, "--skip"))
			skip_file = v;
		else if (!strcmp(a, "--results"))
			results_file = v;
		else if (!strcmp(a, "--jobs"))
			jobs = strtol(v, NULL, 10);
		else if (!strcmp(a, "--timeout-ms"))
			timeout_ms = (int)strtol(v, NULL, 10);
		else
			usage();
		i++;
	}
	if (!sock || !suite || jobs < 1 || jobs > 256 || timeout_ms < 1)
		usage();
	if (areas_file)
		n_areas = read_lines(areas_file, &areas, NULL);
	if (skip_file)
		n_skip = read_lines(skip_file, &skip_feature, &skip_reason);
	if (first_path < argc) {
		for (int i = first_path; i < argc; i++)
			collect(argv[i]);
		if (!n_areas) {
			areas = argv + first_path;
			n_areas = argc - first_path;
		}
	} else {
		if (!n_areas)
			usage();
		for (int i = 0; i < n_areas; i++)
			collect(areas[i]);
	}
	results = results_file ? fopen(results_file, "w") : fopen("/dev/null", "w");
	if (!results)
		die("cannot write ", results_file);
	for (size_t i = 0; i < n_tests; i++) {
		prepare(&tests[i]);
		tests[i].area = area_of(tests[i].path);
		n_runs += (size_t)tests[i].runs;
		if (tests[i].skipped)
			fprintf(results, "skip\t%s\t%s\n", tests[i].path, tests[i].skip_reason);
	}
	runs = calloc(n_runs + 1, sizeof *runs);
	size_t k = 0;
	for (size_t i = 0; i < n_tests; i++)
		for (int j = 0; j < tests[i].runs; j++)
			runs[k++] = (struct run){&tests[i], j};
	run_all(sock, (size_t)jobs);
	fclose(results);
	report();
	return 0;
}
