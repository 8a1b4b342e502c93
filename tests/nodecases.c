/*
 * nodecases.c - function bodies checked against the values Node gives.
 */
#include "nodecases.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

void node_prepare(void)
{
	static bool prepared;
	if (!prepared) {
		ck_assert_int_eq(engine_prepare(), 0);
		prepared = true;
	}
}

char *node_data(const char *file)
{
	char path[4096];
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", file);
	return slurp(path);
}

void node_cases(const char *file, enum engine_language lang, int min)
{
	node_prepare();
	char *text = node_data(file);
	int n = 0, failed = 0, lineno = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#')
			continue;
		char *name = line, *expected = strchr(name, '\t');
		ck_assert_msg(expected != NULL, "%s:%d: no tab", file, lineno);
		*expected++ = '\0';
		char *body = strchr(expected, '\t');
		ck_assert_msg(body != NULL, "%s:%d: no second tab", file, lineno);
		*body++ = '\0';
		n++;
		json_t *want = json_loads(expected, JSON_DECODE_ANY, NULL);
		ck_assert_msg(want != NULL, "%s:%d: bad expected JSON", file, lineno);
		json_t *r = engine_run(body, strlen(body), lang);
		json_t *got = json_object_get(r, "value");
		if (!json_is_true(json_object_get(r, "ok")) || !got || !json_equal(got, want)) {
			char *t = json_dumps(r, JSON_COMPACT);
			fprintf(stderr, "%s: %s: expected %s, got %s\n", file, name, expected,
				t ? t : "?");
			free(t);
			failed++;
		}
		json_decref(want);
		json_decref(r);
	}
	free(text);
	ck_assert_int_ge(n, min);
	ck_assert_msg(failed == 0, "%d of %d cases in %s differ from Node (see stderr)", failed, n,
		      file);
}

/* ---- output cases */

#define OUT_CASE_SECONDS 30 /* a case that runs longer is stuck */

struct out_run {
	json_t *result; /* engine_run's, NULL when the child died */
	char *out, *err;
	int status;
};

/* fd's whole contents, from its start, as a string. */
static char *fd_contents(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	ck_assert_int_ge(n, 0);
	char *s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(pread(fd, s, (size_t)n, 0), n);
	s[n] = '\0';
	return s;
}

/* Runs body in a fork of this process's prepared engine with stdout and
 * stderr going to memory files, and the result to a third. */
static void run_isolated(const char *body, enum engine_language lang, struct out_run *o)
{
	int fo = memfd_create("stdout", MFD_CLOEXEC), fe = memfd_create("stderr", MFD_CLOEXEC);
	int fr = memfd_create("result", MFD_CLOEXEC);
	ck_assert(fo >= 0 && fe >= 0 && fr >= 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		alarm(OUT_CASE_SECONDS);
		if (dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		engine_reseed();
		json_t *r = engine_run(body, strlen(body), lang);
		char *t = r ? json_dumps(r, JSON_COMPACT) : NULL;
		if (!t || write(fr, t, strlen(t)) != (ssize_t)strlen(t))
			_exit(125);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &o->status, 0), pid);
	char *r = fd_contents(fr);
	o->result = o->status == 0 ? json_loads(r, 0, NULL) : NULL;
	free(r);
	o->out = fd_contents(fo);
	o->err = fd_contents(fe);
	close(fo);
	close(fe);
	close(fr);
}

/* s with every "(node:DIGITS)" made "(node:PID)", in place. */
static void node_pid(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		if (!strncmp(r, "(node:", 6) && r[6] >= '0' && r[6] <= '9') {
			const char *e = r + 6;
			while (*e >= '0' && *e <= '9')
				e++;
			if (*e == ')') {
				memcpy(w, "(node:PID)", 10);
				w += 10;
				r = e + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* Whether got is the expected output, a JSON string (or JSON null: not
 * compared); complains on stderr when not. */
static bool same_output(const char *file, const char *name, const char *what, json_t *want,
			char *got)
{
	if (json_is_null(want))
		return true;
	char *w = strdup(json_string_value(want));
	ck_assert_ptr_nonnull(w);
	node_pid(w);
	node_pid(got);
	bool same = strcmp(w, got) == 0;
	if (!same) {
		json_t *g = json_string(got);
		char *gs = g ? json_dumps(g, JSON_ENCODE_ANY) : NULL;
		char *ws = json_dumps(want, JSON_ENCODE_ANY);
		fprintf(stderr, "%s: %s: %s: expected %s, got %s\n", file, name, what, ws,
			gs ? gs : "(not UTF-8)");
		free(gs);
		free(ws);
		json_decref(g);
	}
	free(w);
	return same;
}

/* The next tab-separated field of *p, which moves past it; NULL if none. */
static char *field(char **p)
{
	char *f = *p, *t = f ? strchr(f, '\t') : NULL;
	if (!t)
		return NULL;
	*t = '\0';
	*p = t + 1;
	return f;
}

void node_output_cases(const char *file, enum engine_language lang, int min)
{
	node_prepare();
	char *text = node_data(file);
	int n = 0, failed = 0, lineno = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#')
			continue;
		char *p = line;
		char *name = field(&p), *value = field(&p), *out = field(&p), *err = field(&p);
		ck_assert_msg(err != NULL, "%s:%d: not five tab-separated fields", file, lineno);
		const char *body = p;
		json_t *want = json_loads(value, JSON_DECODE_ANY, NULL);
		json_t *want_out = json_loads(out, JSON_DECODE_ANY, NULL);
		json_t *want_err = json_loads(err, JSON_DECODE_ANY, NULL);
		ck_assert_msg(want && json_is_string(want_out) &&
				      (json_is_string(want_err) || json_is_null(want_err)),
			      "%s:%d: %s: bad JSON in the value or output fields", file, lineno,
			      name);
		n++;
		struct out_run o;
		run_isolated(body, lang, &o);
		bool ok = true;
		json_t *got = o.result ? json_object_get(o.result, "value") : NULL;
		if (!o.result || !json_is_true(json_object_get(o.result, "ok")) ||
		    !(got ? json_equal(got, want) : json_is_null(want))) {
			char *t = o.result ? json_dumps(o.result, JSON_COMPACT) : NULL;
			fprintf(stderr, "%s: %s: expected the value %s, got %s (status %#x)\n",
				file, name, value, t ? t : "no result", o.status);
			free(t);
			ok = false;
		}
		ok = same_output(file, name, "stdout", want_out, o.out) && ok;
		ok = same_output(file, name, "stderr", want_err, o.err) && ok;
		failed += !ok;
		json_decref(o.result);
		free(o.out);
		free(o.err);
		json_decref(want);
		json_decref(want_out);
		json_decref(want_err);
	}
	free(text);
	ck_assert_int_ge(n, min);
	ck_assert_msg(failed == 0, "%d of %d cases in %s differ from Node (see stderr)", failed, n,
		      file);
}
