/*
 * check_url.c - URL and URLSearchParams (worker/js/url.js) against Node's
 * own: every input of tests/data/url-parse.txt parsed (against its base)
 * must give the components Node 20 gives, the API cases of
 * tests/data/url-api.txt (setters, URLSearchParams, errors) the values
 * Node returns, and, when Node is there, Node must agree with both files
 * (tests/url-node.js, tests/cases-node.js). Scripts 84-89 of the corpus
 * (check_corpus) use URL through the real daemon.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "nodecases.h"

/* The body that parses one case's input and returns its components, or
 * "Invalid URL" when the constructor throws Node's TypeError. input and
 * base are JSON text, which an ES5 parser reads as literals. */
static char *parse_body(const char *input, const char *base)
{
	static const char fmt[] =
		"var I = %s, B = %s, u;\n"
		"try {\n"
		"	u = B === null ? new URL(I) : new URL(I, B);\n"
		"} catch (e) {\n"
		"	return e instanceof TypeError && e.code === 'ERR_INVALID_URL' &&\n"
		"	       e.message === 'Invalid URL' && e.input === I ? 'Invalid URL' : "
		"'threw ' + e;\n"
		"}\n"
		"var F = ['href', 'origin', 'protocol', 'username', 'password', 'host', "
		"'hostname',\n"
		"	 'port', 'pathname', 'search', 'hash'], o = {};\n"
		"for (var i = 0; i < F.length; i++)\n"
		"	o[F[i]] = u[F[i]];\n"
		"return o;\n";
	char *body = NULL;
	ck_assert_int_ge(asprintf(&body, fmt, input, base), 0);
	return body;
}

/* At least 300 inputs, the tricky ones included: IPv4 in every form, IPv6,
 * percent-encoding, IDNA, relative resolution, file URLs. */
START_TEST(test_parse_cases)
{
	node_prepare();
	char *text = node_data("url-parse.txt");
	int n = 0, failed = 0, lineno = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#')
			continue;
		char *input = line, *base = strchr(input, '\t');
		ck_assert_msg(base != NULL, "url-parse.txt:%d: no tab", lineno);
		*base++ = '\0';
		char *expected = strchr(base, '\t');
		ck_assert_msg(expected != NULL, "url-parse.txt:%d: no second tab", lineno);
		*expected++ = '\0';
		n++;
		json_t *want = json_loads(expected, JSON_DECODE_ANY, NULL);
		ck_assert_msg(want != NULL, "url-parse.txt:%d: bad expected JSON", lineno);
		char *body = parse_body(input, base);
		json_t *r = engine_run(body, strlen(body), ENGINE_JAVASCRIPT);
		json_t *got = json_object_get(r, "value");
		if (!json_is_true(json_object_get(r, "ok")) || !got || !json_equal(got, want)) {
			char *t = json_dumps(r, JSON_COMPACT);
			fprintf(stderr, "url-parse.txt:%d: %s against %s: expected %s, got %s\n",
				lineno, input, base, expected, t ? t : "?");
			free(t);
			failed++;
		}
		free(body);
		json_decref(want);
		json_decref(r);
	}
	free(text);
	ck_assert_int_ge(n, 300);
	ck_assert_msg(failed == 0, "%d of %d inputs in url-parse.txt differ from Node (see stderr)",
		      failed, n);
}
END_TEST

/* Setters, searchParams kept live with search, URLSearchParams, errors. */
START_TEST(test_api_cases) { node_cases("url-api.txt", ENGINE_ANY, 80); }
END_TEST

/* Runs node with argv (NULL-terminated); true when it exits 0. */
static bool node_ok(char *const argv[])
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv("/usr/bin/node", argv);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Node's URL gives what both files say. */
START_TEST(test_node_agrees)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	dir = dir ? dir : "tests/data";
	if (access("/usr/bin/node", X_OK) != 0) {
		printf("not run: the Node comparison of %s/url-parse.txt and url-api.txt: no "
		       "/usr/bin/node\n",
		       dir);
		return;
	}
	char checker[4096], cases[4096], parse[4096], api[4096];
	snprintf(checker, sizeof checker, "%s/../url-node.js", dir);
	snprintf(cases, sizeof cases, "%s/../cases-node.js", dir);
	snprintf(parse, sizeof parse, "%s/url-parse.txt", dir);
	snprintf(api, sizeof api, "%s/url-api.txt", dir);
	char *argv1[] = {"node", checker, parse, NULL};
	ck_assert_msg(node_ok(argv1), "node %s %s: Node gives other components (see its output)",
		      checker, parse);
	char *argv2[] = {"node", cases, api, NULL};
	ck_assert_msg(node_ok(argv2), "node %s %s: Node gives other values (see its output)", cases,
		      api);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("url");
	TCase *tc = tcase_create("node");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_parse_cases);
	tcase_add_test(tc, test_api_cases);
	tcase_add_test(tc, test_node_agrees);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
