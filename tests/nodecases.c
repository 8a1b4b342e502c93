/*
 * nodecases.c - function bodies checked against the values Node gives.
 */
#include "nodecases.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
