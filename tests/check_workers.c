/*
 * check_workers.c - what a worker is, seen from outside and from inside,
 * through the real daemon: its identity (a uid and gid of its own from
 * --worker-uids, given back once it is reaped), its environment (nothing
 * of the daemon's), the globals a script can reach (standard ECMAScript
 * and the documented ones, nothing of the engine), and a test mode whose
 * report code under test cannot bend.
 *
 * Nothing here sleeps to hide a race: every wait is for an event or a
 * reply, with a deadline.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define REPLY_MS 10000
#define UID_FIRST 2000000000u
#define UID_LAST 2000065535u
#define SECRET_VAR "SANDBOXD_TEST_SECRET"

static struct daemon shared;

static void shared_up(void)
{
	/* The daemon inherits this; no process it starts may. */
	setenv(SECRET_VAR, "hunter2", 1);
	const char *args[] = {"--max-workers", "4", NULL};
	daemon_start(&shared, args);
	unsetenv(SECRET_VAR);
}
static void shared_down(void) { daemon_stop(&shared); }

/* ---- processes */

/* Reads /proc/pid/name whole into buf (NUL-terminated); its length, or -1. */
static ssize_t proc_read(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	ssize_t r;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The daemon's children whose comm is comm; returns how many (at most max). */
static int children_named(const struct daemon *d, const char *comm, pid_t *out, int max)
{
	pid_t pids[64];
	int n = daemon_children(d, pids, 64), found = 0;
	for (int i = 0; i < n && found < max; i++) {
		char c[32];
		if (proc_read(pids[i], "comm", c, sizeof c) > 0 &&
		    strncmp(c, comm, strlen(comm)) == 0)
			out[found++] = pids[i];
	}
	return found;
}

/* The four ids of a "Uid:" or "Gid:" line of /proc/pid/status, and whether
 * its "Groups:" line is empty. */
struct ids {
	unsigned long uid[4], gid[4];
	bool no_groups;
};

static void proc_ids(pid_t pid, struct ids *ids)
{
	char st[8192];
	ck_assert_int_gt(proc_read(pid, "status", st, sizeof st), 0);
	const char *u = strstr(st, "\nUid:"), *g = strstr(st, "\nGid:"),
		   *gr = strstr(st, "\nGroups:");
	ck_assert(u && g && gr);
	ck_assert_int_eq(sscanf(u, "\nUid: %lu %lu %lu %lu", &ids->uid[0], &ids->uid[1],
				&ids->uid[2], &ids->uid[3]),
			 4);
	ck_assert_int_eq(sscanf(g, "\nGid: %lu %lu %lu %lu", &ids->gid[0], &ids->gid[1],
				&ids->gid[2], &ids->gid[3]),
			 4);
	gr += strlen("\nGroups:");
	while (*gr == ' ' || *gr == '\t')
		gr++;
	ids->no_groups = *gr == '\n';
}

/* The worker's one id: real, effective, saved and fs uid and gid all the
 * same number, no supplementary groups. */
static unsigned long worker_id(pid_t pid)
{
	struct ids ids;
	proc_ids(pid, &ids);
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(ids.uid[i], ids.uid[0]);
		ck_assert_uint_eq(ids.gid[i], ids.uid[0]);
	}
	ck_assert_msg(ids.no_groups, "worker %d has supplementary groups", (int)pid);
	return ids.uid[0];
}

/* ---- requests */

static json_t *hold_req(const char *id)
{
	return json_pack("{s:s, s:s, s:s, s:[{s:s}]}", "op", "execute", "id", id, "code",
			 "tools.hold(); return 1", "tools", "name", "hold");
}

/* Waits for the tool_call event that says the worker is up and waiting. */
static json_t *expect_call(struct client *c)
{
	json_t *ev = client_recv(c, REPLY_MS);
	ck_assert_msg(ev != NULL, "no tool_call event");
	ck_assert_str_eq(jstr(ev, "event"), "tool_call");
	return ev;
}

/* Answers the call ev and returns the execution's final reply. */
static json_t *release(struct client *c, json_t *ev)
{
	json_t *req = json_pack("{s:s, s:s, s:s, s:I, s:n}", "op", "tool_result", "id", "answer",
				"execution_id", jstr(ev, "execution_id"), "call_id",
				(json_int_t)jint(ev, "call_id"), "value");
	client_request(c, req);
	for (;;) {
		json_t *m = client_recv(c, REPLY_MS);
		ck_assert_msg(m != NULL, "no reply after the answer");
		if (json_object_get(m, "ok") && strcmp(jstr(m, "id"), "answer") != 0)
			return m;
		json_decref(m);
	}
}

static json_t *health(const char *sock)
{
	json_t *h = call_once(sock, json_pack("{s:s}", "op", "health"));
	ck_assert(jtrue(h, "ok"));
	return h;
}

/* ---- identity */

/* n workers held at once on d: their uids, all different, all in
 * [first, last]; then released, every uid back in the pool. */
static void check_held_workers(struct daemon *d, int n, unsigned long first, unsigned long last)
{
	struct client c[8];
	json_t *ev[8];
	ck_assert_int_le(n, 8);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(client_open(&c[i], d->sock, FRAME_MODE_LINE), 0);
		char id[16];
		snprintf(id, sizeof id, "h%d", i);
		client_request(&c[i], hold_req(id));
	}
	for (int i = 0; i < n; i++)
		ev[i] = expect_call(&c[i]);
	pid_t pids[8];
	ck_assert_int_eq(children_named(d, "sandboxd-work", pids, 8), n);
	unsigned long uids[8];
	for (int i = 0; i < n; i++) {
		uids[i] = worker_id(pids[i]);
		ck_assert_msg(uids[i] >= first && uids[i] <= last, "worker uid %lu not in %lu-%lu",
			      uids[i], first, last);
		for (int j = 0; j < i; j++)
			ck_assert_msg(uids[i] != uids[j], "workers %d and %d share uid %lu",
				      (int)pids[i], (int)pids[j], uids[i]);
	}
	printf("check_workers: %d concurrent workers ran as uids", n);
	for (int i = 0; i < n; i++)
		printf(" %lu", uids[i]);
	printf("\n");
	json_t *h = health(d->sock);
	json_t *pool = json_object_get(json_object_get(h, "sandbox"), "worker_uids");
	ck_assert_int_eq(jint(pool, "free"), (long long)(last - first + 1) - n);
	json_decref(h);
	for (int i = 0; i < n; i++) {
		json_t *r = release(&c[i], ev[i]);
		ck_assert_msg(jtrue(r, "success"), "held execution failed: %s", err_msg(r));
		json_decref(r);
		json_decref(ev[i]);
		client_close(&c[i]);
	}
	/* The final reply comes only once the worker is reaped: every uid is
	 * back. */
	h = health(d->sock);
	pool = json_object_get(json_object_get(h, "sandbox"), "worker_uids");
	ck_assert_int_eq(jint(pool, "free"), (long long)(last - first + 1));
	json_decref(h);
}

START_TEST(test_worker_uids_default)
{
	if (geteuid() != 0) {
		printf("check_workers: not root: workers keep the daemon's uid; per-worker uids "
		       "not checked\n");
		return;
	}
	check_held_workers(&shared, 3, UID_FIRST, UID_LAST);
}
END_TEST

/* A range exactly --max-workers wide: every worker still gets its own, and
 * ids come back so that many more executions than ids all run. */
START_TEST(test_worker_uids_tight_range)
{
	if (geteuid() != 0) {
		printf("check_workers: not root: --worker-uids not checked\n");
		return;
	}
	struct daemon d;
	const char *args[] = {"--max-workers", "4", "--worker-uids", "3000000000-3000000003", NULL};
	daemon_start(&d, args);
	check_held_workers(&d, 4, 3000000000ul, 3000000003ul);
	for (int round = 0; round < 3; round++)
		check_held_workers(&d, 4, 3000000000ul, 3000000003ul);
	for (int i = 0; i < 12; i++) {
		json_t *r = exec_once(d.sock, "{\"op\":\"execute\",\"code\":\"return %d\"}", i);
		ck_assert_msg(jtrue(r, "success"), "execution %d failed: %s", i, err_msg(r));
		json_decref(r);
	}
	daemon_stop(&d);
}
END_TEST

START_TEST(test_worker_user_fixed)
{
	if (geteuid() != 0) {
		printf("check_workers: not root: --worker-user not checked\n");
		return;
	}
	struct daemon d;
	const char *args[] = {"--max-workers", "2", "--worker-user", "nobody", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_request(&c, hold_req("h"));
	json_t *ev = expect_call(&c);
	pid_t pid;
	ck_assert_int_eq(children_named(&d, "sandboxd-work", &pid, 1), 1);
	ck_assert_uint_eq(worker_id(pid), 65534);
	json_t *h = health(d.sock);
	json_t *sb = json_object_get(h, "sandbox");
	ck_assert_int_eq(jint(sb, "worker_uid"), 65534);
	ck_assert(json_is_null(json_object_get(sb, "worker_uids")));
	json_decref(h);
	json_decref(release(&c, ev));
	json_decref(ev);
	client_close(&c);
	daemon_stop(&d);
}
END_TEST

/* Runs the daemon with args, expecting it to refuse to start: its exit
 * status, with what it printed in out. */
static int refused(const char *const *args, char *out, size_t size)
{
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	const char *argv[16] = {bin, "--socket", "/tmp/sandboxd-never.sock", "--no-cache"};
	int n = 4;
	for (; *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(bin, (char **)argv);
		_exit(127);
	}
	close(p[1]);
	size_t len = 0;
	struct pollfd pfd = {p[0], POLLIN, 0};
	while (len + 1 < size && poll(&pfd, 1, REPLY_MS) == 1) {
		ssize_t r = read(p[0], out + len, size - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	out[len] = '\0';
	close(p[0]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "the daemon did not exit by itself");
	return WEXITSTATUS(st);
}

static void assert_refused(const char *const *args, const char *needle)
{
	char out[4096];
	int st = refused(args, out, sizeof out);
	ck_assert_msg(st == 100, "expected exit status 100, got %d (%s)", st, out);
	ck_assert_msg(strstr(out, needle) != NULL, "\"%s\" not in \"%s\"", needle, out);
}

START_TEST(test_worker_uids_usage)
{
	const char *both[] = {"--worker-user", "nobody", "--worker-uids", "3000000000-3000000099",
			      NULL};
	assert_refused(both, "exclude each other");
	const char *small[] = {"--max-workers", "8", "--worker-uids", "3000000000-3000000006",
			       NULL};
	assert_refused(small, "at least --max-workers");
	const char *zero[] = {"--worker-uids", "0-100", NULL};
	assert_refused(zero, "FIRST-LAST");
	const char *reversed[] = {"--worker-uids", "3000000009-3000000000", NULL};
	assert_refused(reversed, "FIRST-LAST");
	const char *junk[] = {"--worker-uids", "3000000000-", NULL};
	assert_refused(junk, "FIRST-LAST");
	const char *huge[] = {"--worker-uids", "1-4294967295", NULL};
	assert_refused(huge, "FIRST-LAST");
	if (geteuid() != 0) {
		printf("check_workers: not root: the clash with existing users is not checked\n");
		return;
	}
	/* nobody's uid, and root's group. */
	const char *clash[] = {"--max-workers", "1", "--worker-uids", "65534-65534", NULL};
	assert_refused(clash, "in use: user ");
	/* A gid only a group has: the range must not meet groups either. */
	struct group *gr;
	char range[64] = "", needle[128] = "";
	setgrent();
	while (!*range && (gr = getgrent()) != NULL) {
		if (gr->gr_gid == 0 || getpwuid(gr->gr_gid))
			continue;
		bool primary = false;
		struct passwd *pw;
		setpwent();
		while (!primary && (pw = getpwent()) != NULL)
			primary = pw->pw_gid == gr->gr_gid;
		endpwent();
		if (primary)
			continue;
		snprintf(range, sizeof range, "%u-%u", (unsigned)gr->gr_gid, (unsigned)gr->gr_gid);
		snprintf(needle, sizeof needle, "group %s has gid %u", gr->gr_name,
			 (unsigned)gr->gr_gid);
	}
	endgrent();
	ck_assert_msg(*range, "no group whose gid no user has: cannot test the group check");
	const char *group[] = {"--max-workers", "1", "--worker-uids", range, NULL};
	assert_refused(group, needle);
}
END_TEST

/* ---- environment */

/* Whether the NUL-separated environ block holds a variable named name. */
static bool env_has(const char *env, size_t len, const char *name)
{
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (strncmp(env + i, name, strlen(name)) == 0 && env[i + strlen(name)] == '=')
			return true;
	return false;
}

START_TEST(test_minimal_environment)
{
	/* The variable did reach the daemon... */
	char env[65536];
	ssize_t n = proc_read(shared.pid, "environ", env, sizeof env);
	ck_assert_int_gt(n, 0);
	ck_assert(env_has(env, (size_t)n, SECRET_VAR));
	/* ...and nothing the daemon started. */
	pid_t fs;
	ck_assert_int_eq(children_named(&shared, "sandboxd-fork", &fs, 1), 1);
	n = proc_read(fs, "environ", env, sizeof env);
	ck_assert_int_gt(n, 0);
	ck_assert(!env_has(env, (size_t)n, SECRET_VAR));
	ck_assert(!env_has(env, (size_t)n, "PATH"));
	ck_assert(!env_has(env, (size_t)n, "HOME"));
	/* Exactly what it needs, in order. */
	static const char want[] = "LD_BIND_NOW=1\0TZ=UTC";
	ck_assert_int_eq(n, sizeof want);
	ck_assert(memcmp(env, want, sizeof want) == 0);

	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	client_request(&c, hold_req("env"));
	json_t *ev = expect_call(&c);
	pid_t w;
	ck_assert_int_eq(children_named(&shared, "sandboxd-work", &w, 1), 1);
	n = proc_read(w, "environ", env, sizeof env);
	if (n < 0) {
		/* Not dumpable: its environ is root's to read. */
		ck_assert_int_ne(geteuid(), 0);
		printf("check_workers: not root: a worker's environ is not readable\n");
	} else {
		ck_assert(!env_has(env, (size_t)n, SECRET_VAR));
		ck_assert(!env_has(env, (size_t)n, "PATH"));
	}
	json_decref(release(&c, ev));
	json_decref(ev);
	client_close(&c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("workers");
	TCase *ids = tcase_create("identity");
	tcase_add_unchecked_fixture(ids, shared_up, shared_down);
	tcase_set_timeout(ids, 120);
	tcase_add_test(ids, test_worker_uids_default);
	tcase_add_test(ids, test_worker_uids_tight_range);
	tcase_add_test(ids, test_worker_user_fixed);
	tcase_add_test(ids, test_worker_uids_usage);
	tcase_add_test(ids, test_minimal_environment);
	suite_add_tcase(s, ids);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
