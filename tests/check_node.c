/*
 * check_node.c - output cases (tests/data/out-*.txt): scripts whose value,
 * stdout and stderr in the engine must be what Node 20 gives for the same
 * body, each case in a fresh fork of the prepared engine; and the check
 * that Node itself gives what every out-*.txt file says (tests/cases-node.js).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../worker/engine.h"
#include "nodecases.h"

/* console.log and friends at their simplest (tests/data/out-basic.txt). */
START_TEST(test_basic) { node_output_cases("out-basic.txt", ENGINE_JAVASCRIPT, 6); }
END_TEST

/* AbortSignal.timeout through the event loop: its TimeoutError, its abort
 * event, and an unref'd timer that keeps nothing alive
 * (tests/data/out-abort.txt). */
START_TEST(test_abort) { node_output_cases("out-abort.txt", ENGINE_JAVASCRIPT, 11); }
END_TEST

/* The console object: group, count, assert, dir, table, time's warnings
 * (tests/data/out-console.txt). */
START_TEST(test_console) { node_output_cases("out-console.txt", ENGINE_JAVASCRIPT, 30); }
END_TEST

/* util.inspect and util.format through console.log: every kind of value a
 * script holds, as Node prints it (tests/data/out-inspect.txt). */
START_TEST(test_inspect) { node_output_cases("out-inspect.txt", ENGINE_JAVASCRIPT, 120); }
END_TEST

/* Timers, immediates, the event loop's order and unhandled rejections
 * (tests/data/out-timers.txt). */
START_TEST(test_timers) { node_output_cases("out-timers.txt", ENGINE_JAVASCRIPT, 40); }
/* URL, URLSearchParams and their iterators as console.log shows them
 * (tests/data/out-url.txt). */
START_TEST(test_url) { node_output_cases("out-url.txt", ENGINE_JAVASCRIPT, 20); }
END_TEST

/* Node (tests/cases-node.js) must give every out-*.txt file's value and
 * output, so that what the engine is held to is what Node does. Without
 * /usr/bin/node the check says it was not run. */
START_TEST(test_node_agrees)
{
	const char *dir = getenv("SANDBOXD_TEST_DATA");
	dir = dir ? dir : "tests/data";
	char script[4096];
	snprintf(script, sizeof script, "%s/../cases-node.js", dir);
	if (access("/usr/bin/node", X_OK) != 0) {
		printf("not run: the Node comparison of %s/out-*.txt: no /usr/bin/node\n", dir);
		return;
	}
	char *argv[64];
	int n = 0;
	argv[n++] = "node";
	argv[n++] = script;
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d)) && n < 62) {
		size_t len = strlen(e->d_name);
		if (!strncmp(e->d_name, "out-", 4) && len > 4 &&
		    !strcmp(e->d_name + len - 4, ".txt")) {
			char *p = malloc(strlen(dir) + len + 2);
			ck_assert_ptr_nonnull(p);
			sprintf(p, "%s/%s", dir, e->d_name);
			argv[n++] = p;
		}
	}
	closedir(d);
	argv[n] = NULL;
	ck_assert_int_ge(n, 3);
	fflush(stdout);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv("/usr/bin/node", argv);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "node %s: status %#x: Node gives other output than the case files say (see "
		      "its output)",
		      script, st);
	for (int i = 2; i < n; i++)
		free(argv[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("node");
	TCase *tc = tcase_create("node");
	/* The Node comparison starts a node process per output case (hundreds
	 * of them, some waiting on real timers): on a loaded machine that takes
	 * minutes. */
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_console);
	tcase_add_test(tc, test_inspect);
	tcase_add_test(tc, test_timers);
	tcase_add_test(tc, test_url);
	tcase_add_test(tc, test_node_agrees);
	suite_add_tcase(s, tc);
	/* A node process per case, the timer cases waiting out their delays:
	 * minutes on a shared machine. */
	TCase *agree = tcase_create("node agrees");
	tcase_set_timeout(agree, 900);
	tcase_add_test(agree, test_node_agrees);
	suite_add_tcase(s, agree);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
