/*
 * check_config.c - the daemon's options (server/config.c): every option
 * --help names is one getopt knows, each value reaches its field, the
 * per-execution limits' options come from request.c's table and set the
 * limits (a follower with them), ranges and relations are refused with a
 * message naming the option, and the defaults that follow other options
 * follow them.
 *
 * config_parse uses getopt's globals; Check forks each test.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../protocol/request.h"
#include "../server/config.h"
#include "../server/log.h"

static struct config cfg;
static char out[65536], err[4096];

/* Runs config_parse on argv (NULL-terminated, after the program's name)
 * with stdout and stderr caught; returns its result. */
static int parse(const char *const *args)
{
	char *argv[64] = {"sandboxd", "--socket", "/nonexistent/never.sock"};
	int argc = 3;
	for (; args && *args; args++) {
		ck_assert_int_lt(argc, 63);
		argv[argc++] = (char *)*args;
	}
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	FILE *o = tmpfile(), *e = tmpfile();
	ck_assert(o && e);
	int so = dup(1), se = dup(2);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	int rc = config_parse(&cfg, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(o);
	rewind(e);
	size_t n = fread(out, 1, sizeof out - 1, o);
	out[n] = '\0';
	n = fread(err, 1, sizeof err - 1, e);
	err[n] = '\0';
	fclose(o);
	fclose(e);
	return rc;
}

START_TEST(defaults)
{
	ck_assert_int_eq(parse(NULL), -1);
	ck_assert_str_eq(err, "");
	struct request_limits want;
	request_limits_default(&want);
	ck_assert_mem_eq(&cfg.limits, &want, sizeof want);
	ck_assert_uint_eq(cfg.limits.def.max_cpu_ms, LIMIT_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(cfg.limits.max.output_bytes, LIMIT_OUTPUT_BYTES_MAX_DEFAULT);
	ck_assert_uint_eq(cfg.max_frame_bytes, LIMIT_FRAME_BYTES_DEFAULT);
	ck_assert_uint_eq(cfg.queue_max, LIMIT_QUEUE_DEFAULT);
	ck_assert_uint_eq(cfg.max_running_per_owner, cfg.max_workers > 1 ? cfg.max_workers - 1 : 1);
	ck_assert_uint_eq(cfg.max_queued_per_owner, LIMIT_QUEUED_PER_OWNER_DEFAULT);
	ck_assert_uint_eq(cfg.socket_mode, 0660);
	ck_assert_str_eq(cfg.socket_path, "/nonexistent/never.sock");
}
END_TEST

/* Every "  --NAME" at the start of a line of --help. */
static int help_names(char names[][64], int max)
{
	ck_assert_int_eq(parse((const char *[]){"--help", NULL}), 0);
	int n = 0;
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;
		if (strncmp(p, "  -h, ", 6) == 0)
			p += 4;
		if (strncmp(p, "  --", 4) != 0)
			continue;
		p += 4;
		size_t len = strcspn(p, " \n");
		ck_assert_int_lt(n, max);
		snprintf(names[n++], 64, "--%.*s", (int)len, p);
	}
	return n;
}

START_TEST(help_and_getopt_are_one_table)
{
	static char names[128][64];
	int n = help_names(names, 128);
	printf("config: --help names %d options\n", n);
	ck_assert_int_ge(n, 30);
	for (int i = 0; i < n; i++) {
		/* Known to getopt: whatever it says of the value, it is never
		 * an unknown option, and one taking a value wants it. */
		parse((const char *[]){names[i], NULL});
		ck_assert_msg(strstr(err, "unknown option") == NULL, "%s: %s", names[i], err);
		for (int k = 0; k < i; k++)
			ck_assert_msg(strcmp(names[k], names[i]) != 0, "%s twice", names[i]);
	}
	/* Each limit's options are there, with its default. */
	ck_assert_int_eq(parse((const char *[]){"--help", NULL}), 0);
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		if (!f->opt)
			continue;
		char want[128];
		snprintf(want, sizeof want, "--%s N", f->opt);
		ck_assert_msg(strstr(out, want) != NULL, "--help lacks %s", want);
		snprintf(want, sizeof want, "--%s N", f->opt_max);
		ck_assert_msg(strstr(out, want) != NULL, "--help lacks %s", want);
	}
	ck_assert_ptr_nonnull(strstr(out, "  --memory-bytes N       default memory for a script "
					  "(default 64M)\n"));
	ck_assert_ptr_nonnull(strstr(out, "  --timeout-ms N         default execution timeout "
					  "(default 30000)\n"));
	ck_assert_ptr_nonnull(strstr(out, "  -h, --help             this text, on stdout\n"));
	ck_assert_int_eq(strncmp(out, "usage: sandboxd [options]\n", 26), 0);
}
END_TEST

START_TEST(values_reach_their_fields)
{
	ck_assert_int_eq(parse((const char *[]){"--max-workers",
						"7",
						"--queue",
						"100",
						"--max-frame-bytes",
						"2K",
						"--partial-bytes",
						"1M",
						"--queue-bytes",
						"128K",
						"--reply-bytes",
						"1M",
						"--conn-reply-bytes",
						"64K",
						"--retain-bytes",
						"5K",
						"--retain-count",
						"12",
						"--retention-ms",
						"99",
						"--grace-ms",
						"5",
						"--max-wait-ms",
						"9",
						"--frame-timeout-ms",
						"11",
						"--idle-timeout-ms",
						"13",
						"--max-connections",
						"3",
						"--cache-max-entries",
						"4",
						"--cache-max-bytes",
						"1G",
						"--socket-mode",
						"0600",
						"--log-level",
						"debug",
						"--worker-uids",
						"3000-3010",
						"--uid-lock",
						"/tmp/x.lock",
						"--cache-dir",
						"/tmp/c",
						NULL}),
			 -1);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(cfg.max_workers, 7);
	ck_assert_uint_eq(cfg.queue_max, 100);
	ck_assert_uint_eq(cfg.max_frame_bytes, 2048);
	ck_assert_uint_eq(cfg.partial_bytes, 1u << 20);
	ck_assert_uint_eq(cfg.queue_bytes, 128u << 10);
	ck_assert_uint_eq(cfg.reply_bytes, 1u << 20);
	ck_assert_uint_eq(cfg.conn_reply_bytes, 64u << 10);
	ck_assert_uint_eq(cfg.retain_bytes, 5120);
	ck_assert_uint_eq(cfg.retain_count, 12);
	ck_assert_uint_eq(cfg.retention_ms, 99);
	ck_assert_uint_eq(cfg.grace_ms, 5);
	ck_assert_uint_eq(cfg.limits.wait_ms_max, 9);
	ck_assert_uint_eq(cfg.frame_timeout_ms, 11);
	ck_assert_uint_eq(cfg.idle_timeout_ms, 13);
	ck_assert_uint_eq(cfg.max_connections, 3);
	ck_assert_uint_eq(cfg.cache_max_entries, 4);
	ck_assert_uint_eq(cfg.cache_max_bytes, 1ull << 30);
	ck_assert_uint_eq(cfg.socket_mode, 0600);
	ck_assert_int_eq(cfg.log_level, LOG_LEVEL_DEBUG);
	ck_assert_uint_eq(cfg.worker_uid_first, 3000);
	ck_assert_uint_eq(cfg.worker_uid_last, 3010);
	ck_assert(cfg.worker_uids_given);
	ck_assert_str_eq(cfg.uid_lock, "/tmp/x.lock");
	ck_assert_str_eq(cfg.cache_dir, "/tmp/c");
	/* The defaults that follow other options followed them. */
	ck_assert_uint_eq(cfg.max_running_per_owner, 6);
	ck_assert_uint_eq(cfg.max_queued_per_owner, LIMIT_QUEUED_PER_OWNER_DEFAULT);
	ck_assert_int_eq(parse((const char *[]){"--queue", "10", NULL}), -1);
	ck_assert_uint_eq(cfg.max_queued_per_owner, 10);
	ck_assert_int_eq(parse((const char *[]){"--max-workers", "4", "--max-running-per-owner",
						"4", "--max-queued-per-owner", "0", NULL}),
			 -1);
	ck_assert_uint_eq(cfg.max_running_per_owner, 4);
	ck_assert_uint_eq(cfg.max_queued_per_owner, 0);
	/* --no-cache wins over a --cache-dir, wherever it is. */
	ck_assert_int_eq(parse((const char *[]){"--no-cache", "--cache-dir", "/tmp/c", NULL}), -1);
	ck_assert_ptr_null(cfg.cache_dir);
	ck_assert_int_eq(parse((const char *[]){"--worker-user", "nobody", NULL}), -1);
	ck_assert_str_eq(cfg.worker_user, "nobody");
}
END_TEST

START_TEST(limit_options_set_the_limits)
{
	ck_assert_int_eq(
		parse((const char *[]){"--timeout-ms", "500", "--max-timeout-ms", "1000",
				       "--memory-bytes", "2M", "--max-memory-bytes", "3M",
				       "--output-bytes", "7", "--max-output-bytes", "9", NULL}),
		-1);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(cfg.limits.def.timeout_ms, 500);
	ck_assert_uint_eq(cfg.limits.max.timeout_ms, 1000);
	/* max_cpu_ms has no options: it follows the timeout's. */
	ck_assert_uint_eq(cfg.limits.def.max_cpu_ms, 500);
	ck_assert_uint_eq(cfg.limits.max.max_cpu_ms, 1000);
	ck_assert_uint_eq(cfg.limits.def.memory_bytes, 2u << 20);
	ck_assert_uint_eq(cfg.limits.max.memory_bytes, 3u << 20);
	ck_assert_uint_eq(cfg.limits.min.memory_bytes, LIMIT_MEMORY_BYTES_MIN);
	ck_assert_uint_eq(cfg.limits.def.output_bytes, 7);
	ck_assert_uint_eq(cfg.limits.max.output_bytes, 9);
	/* A walk of the table sets each through its option. */
	for (size_t i = 0; i < exec_limit_count; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		if (!f->opt)
			continue;
		char opt[64], opt_max[64], v[32], vmax[32];
		snprintf(opt, sizeof opt, "--%s", f->opt);
		snprintf(opt_max, sizeof opt_max, "--%s", f->opt_max);
		snprintf(v, sizeof v, "%llu", (unsigned long long)f->min);
		snprintf(vmax, sizeof vmax, "%llu", (unsigned long long)f->min + 1);
		ck_assert_int_eq(parse((const char *[]){opt, v, opt_max, vmax, NULL}), -1);
		ck_assert_uint_eq(exec_limit_get(&cfg.limits.def, f), f->min);
		ck_assert_uint_eq(exec_limit_get(&cfg.limits.max, f), f->min + 1);
	}
}
END_TEST

START_TEST(refusals_name_the_option)
{
	static const struct {
		const char *args[5];
		const char *message;
	} cases[] = {
		{{"--max-workers", "0"}, "--max-workers must be between 1 and 1024"},
		{{"--max-workers", "99999999999"}, "--max-workers must be between 1 and 1024"},
		{{"--queue", "70000"}, "--queue must be at most 65536"},
		{{"--max-frame-bytes", "10"}, "--max-frame-bytes must be between 1K and 1G"},
		{{"--max-connections", "0"}, "--max-connections must be between 1 and 1000000"},
		{{"--max-wait-ms", "0"}, "--max-wait-ms must be at least 1"},
		{{"--frame-timeout-ms", "0"}, "--frame-timeout-ms must be at least 1"},
		{{"--reply-bytes", "1K"}, "--reply-bytes must be at least 64K"},
		{{"--max-running-per-owner", "0"}, "--max-running-per-owner must be at least 1"},
		{{"--max-workers", "2", "--max-running-per-owner", "3"},
		 "--max-running-per-owner must be between 1 and --max-workers"},
		{{"--queue", "5", "--max-queued-per-owner", "6"},
		 "--max-queued-per-owner must be at most --queue"},
		{{"--partial-bytes", "64K"}, "--partial-bytes must be at least --max-frame-bytes"},
		{{"--worker-user", "nobody", "--worker-uids", "5-100000"},
		 "--worker-user and --worker-uids exclude each other"},
		{{"--worker-uids", "5-6"}, "--worker-uids must hold at least --max-workers ids"},
		{{"--timeout-ms", "5000", "--max-timeout-ms", "100"},
		 "--timeout-ms must be between 1 and --max-timeout-ms"},
		{{"--timeout-ms", "0"}, "--timeout-ms must be between 1 and --max-timeout-ms"},
		{{"--memory-bytes", "1000"},
		 "--memory-bytes must be between 1M and --max-memory-bytes"},
		{{"--output-bytes", "0"},
		 "--output-bytes must be between 1 and --max-output-bytes"},
		{{"--max-output-bytes", "65M"}, "--max-output-bytes must be at most 64M"},
		{{"--memory-bytes", "12q"},
		 "--memory-bytes 12q: expected a non-negative number (K, M, G allowed)"},
		{{"--socket-mode", "999"},
		 "--socket-mode 999: expected an octal mode such as 0660"},
		{{"--log-level", "loud"}, "--log-level loud: expected error, warn, info or debug"},
		{{"--uid-lock", ""}, "--uid-lock : expected a path"},
		{{"--timeout-ms"}, "--timeout-ms needs a value (try 'sandboxd --help')"},
		{{"--frob"}, "unknown option '--frob' (try 'sandboxd --help')"},
		{{"-q"}, "unknown option '-q' (try 'sandboxd --help')"},
		{{"stray"}, "unexpected argument 'stray' (try 'sandboxd --help')"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = parse(cases[i].args);
		char want[256];
		snprintf(want, sizeof want, "sandboxd: %s\n", cases[i].message);
		ck_assert_msg(rc == EXIT_USAGE, "%s: %d", cases[i].args[0], rc);
		ck_assert_str_eq(err, want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("options");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, help_and_getopt_are_one_table);
	tcase_add_test(tc, values_reach_their_fields);
	tcase_add_test(tc, limit_options_set_the_limits);
	tcase_add_test(tc, refusals_name_the_option);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
