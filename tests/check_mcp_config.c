/*
 * check_mcp_config.c - the bridge's --config parser on its own: the
 * mcpServers shape, ${VAR} expansion, the allow/deny filter, and errors
 * that name the field.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../client/mcp_config.h"

/* A fixed environment: HOME_DIR, TOKEN, EMPTY (set, ""). */
static const char *lookup(const char *name, void *ctx)
{
	(void)ctx;
	if (strcmp(name, "HOME_DIR") == 0)
		return "/home/u";
	if (strcmp(name, "TOKEN") == 0)
		return "t0k";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	return NULL;
}

static char err[1024];

static struct mcfg *parse(const char *text)
{
	struct mcfg *c = NULL;
	err[0] = '\0';
	if (mcfg_parse(text, strlen(text), lookup, NULL, &c, err, sizeof err) < 0)
		return NULL;
	return c;
}

/* Parsing fails with an error containing want. */
static void parse_fails(const char *text, const char *want)
{
	struct mcfg *c = parse(text);
	ck_assert_msg(c == NULL, "parsed: %s", text);
	ck_assert_msg(strstr(err, want) != NULL, "error \"%s\" lacks \"%s\"", err, want);
}

START_TEST(test_shape)
{
	struct mcfg *c =
		parse("{\"globalShortcut\": \"x\", \"mcpServers\": {"
		      "\"github\": {\"command\": \"npx\", \"args\": [\"-y\", \"srv\"],"
		      " \"env\": {\"GITHUB_TOKEN\": \"${TOKEN}\"}, \"type\": \"stdio\","
		      " \"autoApprove\": []},"
		      "\"fs\": {\"command\": \"${HOME_DIR}/bin/fs\", \"cwd\": \"${HOME_DIR}\"},"
		      "\"off\": {\"command\": \"nothing\", \"disabled\": true}}}");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->count, 2);
	const struct mcfg_server *g = &c->servers[0];
	ck_assert_str_eq(g->name, "github");
	ck_assert_uint_eq(g->argc, 3);
	ck_assert_str_eq(g->argv[0], "npx");
	ck_assert_str_eq(g->argv[1], "-y");
	ck_assert_str_eq(g->argv[2], "srv");
	ck_assert_ptr_null(g->argv[3]);
	ck_assert_uint_eq(g->envc, 1);
	ck_assert_str_eq(g->env[0], "GITHUB_TOKEN=t0k");
	ck_assert_ptr_null(g->env[1]);
	ck_assert_ptr_null(g->cwd);
	const struct mcfg_server *f = mcfg_find(c, "fs");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->argv[0], "/home/u/bin/fs");
	ck_assert_uint_eq(f->argc, 1);
	ck_assert_ptr_null(f->argv[1]);
	ck_assert_str_eq(f->cwd, "/home/u");
	ck_assert_ptr_null(mcfg_find(c, "off"));
	mcfg_free(c);
	/* No servers at all is a valid (empty) configuration. */
	c = parse("{}");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->count, 0);
	mcfg_free(c);
	mcfg_free(NULL);
}
END_TEST

static char *expand(const char *s)
{
	err[0] = '\0';
	return mcfg_expand(s, "f", lookup, NULL, err, sizeof err);
}

static void expands_to(const char *s, const char *want)
{
	char *got = expand(s);
	ck_assert_msg(got != NULL, "%s: %s", s, err);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_expand)
{
	expands_to("plain", "plain");
	expands_to("", "");
	expands_to("${TOKEN}", "t0k");
	expands_to("a${TOKEN}b${HOME_DIR}c", "at0kb/home/uc");
	expands_to("${UNSET:-fallback}", "fallback");
	expands_to("${UNSET:-}", "");
	expands_to("${TOKEN:-fallback}", "t0k");
	/* An empty value takes the default, as in the shell. */
	expands_to("${EMPTY:-d}", "d");
	expands_to("${EMPTY}", "");
	/* A "$" not opening a reference stays. */
	expands_to("cost $5 and $HOME", "cost $5 and $HOME");
	expands_to("$", "$");
	expands_to("${UNSET:-a b/c}", "a b/c");

	ck_assert_ptr_null(expand("x${UNSET}y"));
	ck_assert_str_eq(err, "f: environment variable UNSET is not set (give a default with "
			      "${UNSET:-default})");
	ck_assert_ptr_null(expand("${}"));
	ck_assert_ptr_nonnull(strstr(err, "f: malformed variable reference"));
	ck_assert_ptr_null(expand("${A-B}"));
	ck_assert_ptr_nonnull(strstr(err, "malformed"));
	ck_assert_ptr_null(expand("${TOKEN"));
	ck_assert_ptr_nonnull(strstr(err, "malformed"));
	ck_assert_ptr_null(expand("${TOKEN:-never closed"));
	ck_assert_ptr_nonnull(strstr(err, "unterminated"));
}
END_TEST

START_TEST(test_expansion_in_fields)
{
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"${NOPE}\"}}}",
		    "mcpServers.a.command: environment variable NOPE is not set");
	parse_fails(
		"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [\"ok\", \"${NOPE}\"]}}}",
		"mcpServers.a.args[1]: environment variable NOPE");
	parse_fails(
		"{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": \"${NOPE}\"}}}}",
		"mcpServers.a.env.K: environment variable NOPE");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"cwd\": \"${NOPE}\"}}}",
		    "mcpServers.a.cwd: environment variable NOPE");
}
END_TEST

START_TEST(test_errors_name_the_field)
{
	parse_fails(
		"{\"mcpServers\": {\"github\": {\"command\": \"x\", \"args\": [\"a\", \"b\", 3]}}}",
		"mcpServers.github.args[2]: expected a string");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": 1}}}",
		    "mcpServers.a.command: expected a string");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"\"}}}",
		    "mcpServers.a.command: is empty");
	parse_fails("{\"mcpServers\": {\"a\": {\"args\": []}}}", "mcpServers.a.command: missing");
	parse_fails("{\"mcpServers\": {\"a\": {\"url\": \"https://x\", \"type\": \"http\"}}}",
		    "mcpServers.a.type: only \"stdio\"");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-y\"}}}",
		    "mcpServers.a.args: expected an array of strings");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": []}}}",
		    "mcpServers.a.env: expected an object");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": 1}}}}",
		    "mcpServers.a.env.K: expected a string");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"cwd\": 5}}}",
		    "mcpServers.a.cwd: expected a string");
	parse_fails("{\"mcpServers\": {\"a\": 5}}", "mcpServers.a: expected an object");
	parse_fails("{\"mcpServers\": []}", "mcpServers: expected an object");
	parse_fails("[]", "expected an object");
	parse_fails("{\"mcpServers\": {", "line 1");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"a\": {\"command\": \"y\"}}}",
		    "duplicate");
	parse_fails(
		"{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"sandboxd\": {\"server\": {}}}",
		"sandboxd.server: unknown field");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\"}},"
		    " \"sandboxd\": {\"servers\": {\"b\": {}}}}",
		    "sandboxd.servers.b: no such server");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\"}},"
		    " \"sandboxd\": {\"servers\": {\"a\": {\"allow\": [\"x\", 2]}}}}",
		    "sandboxd.servers.a.allow[1]: expected a string");
	parse_fails("{\"mcpServers\": {\"a\": {\"command\": \"x\"}},"
		    " \"sandboxd\": {\"servers\": {\"a\": {\"denied\": []}}}}",
		    "sandboxd.servers.a.denied: unknown field");
}
END_TEST

START_TEST(test_filter)
{
	struct mcfg *c =
		parse("{\"mcpServers\": {\"gh\": {\"command\": \"x\"},"
		      " \"fs\": {\"command\": \"y\"}, \"db\": {\"command\": \"z\"}},"
		      " \"sandboxd\": {\"servers\": {"
		      "\"gh\": {\"allow\": [\"get_*\", \"search_*\"], \"deny\": [\"get_secret*\"]},"
		      "\"fs\": {\"deny\": [\"write*\", \"delete_?\"]}}}}");
	ck_assert_msg(c != NULL, "%s", err);
	const struct mcfg_server *gh = mcfg_find(c, "gh"), *fs = mcfg_find(c, "fs"),
				 *db = mcfg_find(c, "db");
	ck_assert(mcfg_tool_allowed(gh, "get_issue"));
	ck_assert(mcfg_tool_allowed(gh, "search_code"));
	ck_assert(!mcfg_tool_allowed(gh, "create_issue"));   /* not allowed */
	ck_assert(!mcfg_tool_allowed(gh, "get_secret_key")); /* deny wins */
	ck_assert(mcfg_tool_allowed(fs, "read_file"));	     /* no allow: all */
	ck_assert(!mcfg_tool_allowed(fs, "write_file"));
	ck_assert(!mcfg_tool_allowed(fs, "delete_x"));
	ck_assert(mcfg_tool_allowed(fs, "delete_xy"));
	ck_assert(mcfg_tool_allowed(db, "anything"));
	mcfg_free(c);
}
END_TEST

START_TEST(test_load_file)
{
	char path[] = "/tmp/check_mcp_config.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char text[] = "{\"mcpServers\": {\"a\": {\"command\": \"/bin/true\", \"args\": "
			    "[\"${HOME:-/}\"]}}}";
	ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	struct mcfg *c = NULL;
	ck_assert_int_eq(mcfg_load_file(path, &c, err, sizeof err), 0);
	ck_assert_uint_eq(c->count, 1);
	ck_assert_str_eq(c->servers[0].argv[0], "/bin/true");
	mcfg_free(c);
	unlink(path);
	ck_assert_int_eq(mcfg_load_file(path, &c, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mcp_config");
	TCase *tc = tcase_create("mcp_config");
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_expand);
	tcase_add_test(tc, test_expansion_in_fields);
	tcase_add_test(tc, test_errors_name_the_field);
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_load_file);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
