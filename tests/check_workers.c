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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
	const char *args[] = {"--max-workers", "4", "--max-running-per-owner", "4", NULL};
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

/* Waits for the tool_call event that says the worker is up and waiting,
 * after the started event of the request id (the only execution on c). */
static json_t *expect_call(struct client *c, const char *id)
{
	json_t *started = client_started(c, id, REPLY_MS);
	json_t *ev = client_recv(c, REPLY_MS);
	ck_assert_msg(ev != NULL, "no tool_call event");
	ck_assert_str_eq(jstr(ev, "event"), "tool_call");
	ck_assert_str_eq(jstr(ev, "execution_id"), jstr(started, "execution_id"));
	json_decref(started);
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

/* The ids of the range d claimed for its workers, and how many of them no
 * worker holds now (health's sandbox.worker_uids). */
struct claim {
	unsigned long first, last;
	long long free;
};

static struct claim claimed(const struct daemon *d)
{
	json_t *h = health(d->sock);
	json_t *pool = json_object_get(json_object_get(h, "sandbox"), "worker_uids");
	json_t *run = json_object_get(pool, "claimed");
	ck_assert_msg(json_is_object(run), "health has no worker_uids.claimed");
	struct claim c = {(unsigned long)jint(run, "first"), (unsigned long)jint(run, "last"),
			  jint(pool, "free")};
	ck_assert_uint_ge(c.first, (unsigned long)jint(pool, "first"));
	ck_assert_uint_le(c.last, (unsigned long)jint(pool, "last"));
	ck_assert_uint_le(c.first, c.last);
	json_decref(h);
	return c;
}

/* Workers held running on one daemon. */
struct held {
	int n;
	struct client c[8];
	json_t *ev[8];
	pid_t pids[8];
	unsigned long uids[8];
};

/* n workers held at once on d: their uids, all different, all among the
 * ids d claimed, which has n fewer free. */
static void hold_workers(struct daemon *d, int n, struct held *w)
{
	ck_assert_int_le(n, 8);
	w->n = n;
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(client_open(&w->c[i], d->sock, FRAME_MODE_LINE), 0);
		char id[16];
		snprintf(id, sizeof id, "h%d", i);
		client_request(&w->c[i], hold_req(id));
	}
	for (int i = 0; i < n; i++) {
		char id[16];
		snprintf(id, sizeof id, "h%d", i);
		w->ev[i] = expect_call(&w->c[i], id);
	}
	ck_assert_int_eq(children_named(d, "sandboxd-work", w->pids, 8), n);
	struct claim run = claimed(d);
	for (int i = 0; i < n; i++) {
		w->uids[i] = worker_id(w->pids[i]);
		ck_assert_msg(w->uids[i] >= run.first && w->uids[i] <= run.last,
			      "worker uid %lu not among the claimed %lu-%lu", w->uids[i], run.first,
			      run.last);
		for (int j = 0; j < i; j++)
			ck_assert_msg(w->uids[i] != w->uids[j], "workers %d and %d share uid %lu",
				      (int)w->pids[i], (int)w->pids[j], w->uids[i]);
	}
	ck_assert_int_eq(run.free, (long long)(run.last - run.first + 1) - n);
}

/* Lets the held workers finish: each succeeds, and once reaped (the final
 * reply comes before that, on the result; the slot is given back after
 * the uid) every uid is back. */
static void release_workers(struct daemon *d, struct held *w)
{
	for (int i = 0; i < w->n; i++) {
		json_t *r = release(&w->c[i], w->ev[i]);
		ck_assert_msg(jtrue(r, "success"), "held execution failed: %s", err_msg(r));
		json_decref(r);
		json_decref(w->ev[i]);
		client_close(&w->c[i]);
	}
	for (long long running = 1, tries = 0; running; tries++) {
		json_t *h = health(d->sock);
		running = jint(h, "workers_running");
		json_decref(h);
		ck_assert_msg(tries < 100000, "workers still running: %lld", running);
	}
	struct claim run = claimed(d);
	ck_assert_int_eq(run.free, (long long)(run.last - run.first + 1));
}

/* n workers held at once on d, their uids in [first, last]; then released. */
static void check_held_workers(struct daemon *d, int n, unsigned long first, unsigned long last)
{
	struct held w;
	hold_workers(d, n, &w);
	printf("check_workers: %d concurrent workers ran as uids", n);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(w.uids[i] >= first && w.uids[i] <= last,
			      "worker uid %lu not in %lu-%lu", w.uids[i], first, last);
		printf(" %lu", w.uids[i]);
	}
	printf("\n");
	release_workers(d, &w);
}

START_TEST(test_worker_uids_default) { check_held_workers(&shared, 3, UID_FIRST, UID_LAST); }
END_TEST

/* A range exactly --max-workers wide: every worker still gets its own, and
 * ids come back so that many more executions than ids all run. */
START_TEST(test_worker_uids_tight_range)
{
	struct daemon d;
	const char *args[] = {
		"--max-workers",	 "4", "--max-running-per-owner", "4", "--worker-uids",
		"3000000000-3000000003", NULL};
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
	struct daemon d;
	const char *args[] = {"--max-workers", "2", "--worker-user", "nobody", NULL};
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_request(&c, hold_req("h"));
	json_t *ev = expect_call(&c, "h");
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
	/* Should it get as far, it claims ids in a lock file of its own, never
	 * in the machine's. */
	char dir[] = "/tmp/sandboxd-refused-XXXXXX", lock[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(lock, sizeof lock, "%s/uids.lock", dir);
	const char *argv[20] = {bin, "--socket", "/tmp/sandboxd-never.sock", "--no-cache"};
	int n = 4;
	bool own_lock = false;
	for (; *args && n < 17; args++) {
		own_lock |= strcmp(*args, "--uid-lock") == 0;
		argv[n++] = *args;
	}
	if (!own_lock) {
		argv[n++] = "--uid-lock";
		argv[n++] = lock;
	}
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
	unlink(lock);
	ck_assert_int_eq(rmdir(dir), 0);
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
		printf("check_workers: test_worker_uids_usage: the clash with existing users not "
		       "run: needs root (a daemon not root takes no worker uids)\n");
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

/* Whether process pid has an fd open on path. */
static bool holds_file(pid_t pid, const char *path)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "%s: %s", dir, strerror(errno));
	bool found = false;
	struct dirent *de;
	while (!found && (de = readdir(d)) != NULL) {
		char link[600], target[512];
		snprintf(link, sizeof link, "%s/%s", dir, de->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strcmp(target, path) == 0;
		}
	}
	closedir(d);
	return found;
}

/* Two daemons given the same range and the same --uid-lock each claim
 * --max-workers ids of it, and their workers, all running at once, never
 * share a uid; a third finds none left and says so; a daemon killed
 * outright leaves its ids to the next. */
START_TEST(test_daemons_share_a_range)
{
	char dir[] = "/tmp/sandboxd-uids-XXXXXX", lock[64];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(lock, sizeof lock, "%s/uids.lock", dir);
	const char *args[] = {"--max-workers",
			      "2",
			      "--max-running-per-owner",
			      "2",
			      "--worker-uids",
			      "3000000100-3000000103",
			      "--uid-lock",
			      lock,
			      NULL};
	struct daemon a, b, c;
	daemon_start(&a, args);
	daemon_start(&b, args);
	struct claim ca = claimed(&a), cb = claimed(&b);
	ck_assert_uint_eq(ca.first, 3000000100ul);
	ck_assert_uint_eq(ca.last, 3000000101ul);
	ck_assert_uint_eq(cb.first, 3000000102ul);
	ck_assert_uint_eq(cb.last, 3000000103ul);

	/* Both daemons' workers at once: four uids, all different. */
	struct held wa, wb;
	hold_workers(&a, 2, &wa);
	hold_workers(&b, 2, &wb);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			ck_assert_msg(wa.uids[i] != wb.uids[j],
				      "workers %d and %d of two daemons share uid %lu",
				      (int)wa.pids[i], (int)wb.pids[j], wa.uids[i]);
	printf("check_workers: two daemons on 3000000100-3000000103 ran workers as uids %lu %lu "
	       "and %lu %lu at once\n",
	       wa.uids[0], wa.uids[1], wb.uids[0], wb.uids[1]);
	/* The claim is the daemon's alone: nothing it started holds the lock
	 * file, so nothing but its exit gives the ids back. */
	ck_assert(holds_file(a.pid, lock));
	struct daemon *both[] = {&a, &b};
	struct held *held[] = {&wa, &wb};
	for (int k = 0; k < 2; k++) {
		pid_t fs;
		ck_assert_int_eq(children_named(both[k], "sandboxd-fork", &fs, 1), 1);
		ck_assert_msg(!holds_file(fs, lock), "the forkserver %d holds %s", (int)fs, lock);
		for (int i = 0; i < 2; i++)
			ck_assert_msg(!holds_file(held[k]->pids[i], lock), "worker %d holds %s",
				      (int)held[k]->pids[i], lock);
	}

	/* A third on the same range: no two free ids, exit 100, and the
	 * message names the range, the lock file and the ways out. */
	const char *third[] = {"--max-workers",
			       "2",
			       "--worker-uids",
			       "3000000100-3000000103",
			       "--uid-lock",
			       lock,
			       NULL};
	char out[4096];
	int st = refused(third, out, sizeof out);
	ck_assert_msg(st == 100, "expected exit status 100, got %d (%s)", st, out);
	ck_assert_msg(strstr(out, "--worker-uids 3000000100-3000000103") && strstr(out, lock) &&
			      strstr(out, "no 2 consecutive ids") &&
			      strstr(out, "another --worker-uids range") &&
			      strstr(out, "--worker-user"),
		      "the refusal does not say enough: %s", out);
	/* With one id it still fits nowhere. */
	const char *one[] = {"--max-workers",
			     "1",
			     "--worker-uids",
			     "3000000100-3000000103",
			     "--uid-lock",
			     lock,
			     NULL};
	st = refused(one, out, sizeof out);
	ck_assert_msg(st == 100, "expected exit status 100, got %d (%s)", st, out);

	release_workers(&a, &wa);
	release_workers(&b, &wb);
	/* SIGKILL: no clean-up runs, yet the kernel drops the claim. */
	ck_assert_int_eq(kill(a.pid, SIGKILL), 0);
	st = daemon_wait(&a, REPLY_MS);
	ck_assert(WIFSIGNALED(st));
	daemon_start(&c, args);
	struct claim cc = claimed(&c);
	ck_assert_uint_eq(cc.first, 3000000100ul);
	ck_assert_uint_eq(cc.last, 3000000101ul);
	check_held_workers(&c, 2, 3000000100ul, 3000000101ul);
	daemon_stop(&c);
	daemon_stop(&b);
	daemon_stop(&a);
	ck_assert_int_eq(unlink(lock), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The forkserver dies with a spawn sent and never answered: the daemon
 * cannot know from it whether a worker was made, so it looks at its own
 * children (workers are), and with none unknown the spawn's uid goes back.
 * With only --max-workers ids claimed, a uid lost here would be a worker
 * slot lost for the daemon's life. */
START_TEST(test_forkserver_death_keeps_uids)
{
	struct daemon d;
	const char *args[] = {
		"--max-workers",	 "2", "--max-running-per-owner", "2", "--worker-uids",
		"3000000200-3000000201", NULL};
	daemon_start(&d, args);
	pid_t fs;
	ck_assert_int_eq(children_named(&d, "sandboxd-fork", &fs, 1), 1);
	/* Stopped, it takes the request into its socket but never answers. */
	ck_assert_int_eq(kill(fs, SIGSTOP), 0);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	client_request(&c, json_pack("{s:s, s:s, s:s}", "op", "execute", "id", "lost", "code",
				     "return 1"));
	/* The uid is taken as the request is sent: each health reply is a
	 * turn of the daemon's loop later. */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (claimed(&d).free != 1) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ck_assert_msg(t.tv_sec - t0.tv_sec < REPLY_MS / 1000, "the spawn never took a uid");
	}
	ck_assert_int_eq(kill(fs, SIGKILL), 0);
	json_t *r = client_reply(&c, NULL, REPLY_MS);
	ck_assert_msg(r != NULL, "no reply for the execution whose spawn was lost");
	ck_assert_msg(!jtrue(r, "success"), "it cannot have run");
	json_decref(r);
	client_close(&c);
	ck_assert_int_eq(claimed(&d).free, 2);
	int zombies = -1;
	ck_assert_int_eq(daemon_child_count(&d, &zombies), 1);
	ck_assert_int_eq(zombies, 0);
	/* Both slots still run at once, each under its own uid. */
	check_held_workers(&d, 2, 3000000200ul, 3000000201ul);
	char *log = daemon_log(&d);
	ck_assert_msg(strstr(log, "restarting it") && !strstr(log, "retired"), "log: %s", log);
	free(log);
	daemon_stop(&d);
}
END_TEST

/* A lock file that cannot be had stops the daemon: it never runs workers
 * under ids it did not claim. Nor does one in a directory where another
 * user could have created it first: refused, exit 100, with the directory
 * named. A missing directory is made, root's and 0755. */
START_TEST(test_uid_lock_refused)
{
	char top[] = "/tmp/sandboxd-lockdir-XXXXXX", path[128], sub[96];
	ck_assert_ptr_nonnull(mkdtemp(top));
	/* Only the last directory is made, not its parents. */
	snprintf(sub, sizeof sub, "%s/none", top);
	snprintf(path, sizeof path, "%s/sub/uids.lock", sub);
	const char *missing[] = {"--max-workers", "1", "--uid-lock", path, NULL};
	char out[4096];
	int st = refused(missing, out, sizeof out);
	ck_assert_msg(st == 100, "expected exit status 100, got %d (%s)", st, out);
	ck_assert_msg(strstr(out, path) && strstr(out, "cannot create the lock directory") &&
			      strstr(out, "--worker-uids 2000000000-2000065535") &&
			      strstr(out, "give --uid-lock"),
		      "out: %s", out);
	ck_assert_int_eq(access(sub, F_OK), -1);
	/* A directory is no lock file. */
	const char *dir[] = {"--max-workers", "1", "--uid-lock", "/tmp", NULL};
	st = refused(dir, out, sizeof out);
	ck_assert_msg(st == 100 && strstr(out, "/tmp"), "status %d: %s", st, out);

	/* World-writable (sticky, as /run/lock is), and another user's: the
	 * directory is named, and no lock file is made in it. */
	struct {
		const char *name;
		mode_t mode;
		uid_t owner;
		const char *why;
	} bad[] = {{"sticky", 01777, 0, "has mode 1777: other users may create files in it"},
		   {"group", 0775, 0, "has mode 0775: other users may create files in it"},
		   {"theirs", 0755, 65534, "belongs to uid 65534, not to root"}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(sub, sizeof sub, "%s/%s", top, bad[i].name);
		ck_assert_int_eq(mkdir(sub, 0700), 0);
		ck_assert_int_eq(chmod(sub, bad[i].mode), 0);
		ck_assert_int_eq(chown(sub, bad[i].owner, bad[i].owner), 0);
		snprintf(path, sizeof path, "%s/uids.lock", sub);
		const char *args[] = {"--max-workers", "1", "--uid-lock", path, NULL};
		st = refused(args, out, sizeof out);
		ck_assert_msg(st == 100, "%s: expected exit status 100, got %d (%s)", sub, st, out);
		ck_assert_msg(strstr(out, "the lock directory") && strstr(out, sub) &&
				      strstr(out, bad[i].why) && strstr(out, path),
			      "out: %s", out);
		ck_assert_int_eq(access(path, F_OK), -1);
		printf("check_workers: --uid-lock in a %04o directory of uid %u refused: %s",
		       (unsigned)bad[i].mode, (unsigned)bad[i].owner, strstr(out, "the lock dir"));
		ck_assert_int_eq(rmdir(sub), 0);
	}

	/* Missing, made: 0755 and root's, with the lock file in it. */
	struct daemon d;
	snprintf(sub, sizeof sub, "%s/made", top);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	const char *made[] = {"--max-workers", "1", "--uid-lock", path, NULL};
	daemon_start(&d, made);
	struct claim run = claimed(&d);
	ck_assert_uint_eq(run.first, run.last);
	struct stat sb;
	ck_assert_int_eq(lstat(sub, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_uint_eq(sb.st_mode & 07777, 0755);
	ck_assert_uint_eq(sb.st_uid, 0);
	ck_assert_int_eq(lstat(path, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	ck_assert_uint_eq(sb.st_mode & 07777, 0600);
	daemon_stop(&d);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(sub), 0);

	/* --worker-user needs no ids, and so no lock file (nor directory). */
	snprintf(sub, sizeof sub, "%s/unused", top);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	const char *user[] = {
		"--max-workers", "1", "--worker-user", "nobody", "--uid-lock", path, NULL};
	daemon_start(&d, user);
	json_t *h = health(d.sock);
	ck_assert(json_is_null(json_object_get(json_object_get(h, "sandbox"), "worker_uids")));
	json_decref(h);
	daemon_stop(&d);
	ck_assert_int_eq(access(sub, F_OK), -1);
	const char *empty[] = {"--uid-lock", "", NULL};
	assert_refused(empty, "expected a path");
	ck_assert_int_eq(rmdir(top), 0);
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
}
END_TEST

/* Nor does a worker have them. It is not dumpable, so its environ is
 * root's to read: registered as root only (see suite). */
START_TEST(test_worker_environment)
{
	char env[65536];
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_LINE), 0);
	client_request(&c, hold_req("env"));
	json_t *ev = expect_call(&c, "env");
	pid_t w;
	ck_assert_int_eq(children_named(&shared, "sandboxd-work", &w, 1), 1);
	ssize_t n = proc_read(w, "environ", env, sizeof env);
	ck_assert_int_gt(n, 0);
	ck_assert(!env_has(env, (size_t)n, SECRET_VAR));
	ck_assert(!env_has(env, (size_t)n, "PATH"));
	json_decref(release(&c, ev));
	json_decref(ev);
	client_close(&c);
}
END_TEST

/* ---- what a script can reach */

/* The global object's own names a script sees: standard ECMAScript, and
 * what PROTOCOL.md documents (console, tools, load, store, queueMicrotask,
 * TextEncoder, TextDecoder, performance, EventTarget, Event, AbortController,
 * AbortSignal, the timers, URL, URLSearchParams). */
static const char *const allowed_globals[] = {"AbortController",
					      "AbortSignal",
					      "AggregateError",
					      "Array",
					      "ArrayBuffer",
					      "Boolean",
					      "Crypto",
					      "DOMException",
					      "DataView",
					      "Date",
					      "Error",
					      "EvalError",
					      "Event",
					      "EventTarget",
					      "FinalizationRegistry",
					      "Float32Array",
					      "Float64Array",
					      "Function",
					      "Infinity",
					      "Int16Array",
					      "Int32Array",
					      "Int8Array",
					      "JSON",
					      "Map",
					      "Math",
					      "NaN",
					      "Number",
					      "Object",
					      "Promise",
					      "Proxy",
					      "RangeError",
					      "ReferenceError",
					      "Reflect",
					      "RegExp",
					      "Set",
					      "String",
					      "Symbol",
					      "SyntaxError",
					      "TextDecoder",
					      "TextEncoder",
					      "TypeError",
					      "URIError",
					      "URL",
					      "URLSearchParams",
					      "Uint16Array",
					      "Uint32Array",
					      "Uint8Array",
					      "Uint8ClampedArray",
					      "WeakMap",
					      "WeakSet",
					      "WeakRef",
					      "atob",
					      "btoa",
					      "clearImmediate",
					      "clearInterval",
					      "clearTimeout",
					      "console",
					      "crypto",
					      "decodeURI",
					      "decodeURIComponent",
					      "encodeURI",
					      "encodeURIComponent",
					      "escape",
					      "eval",
					      "globalThis",
					      "isFinite",
					      "isNaN",
					      "load",
					      "parseFloat",
					      "parseInt",
					      "performance",
					      "queueMicrotask",
					      "setImmediate",
					      "setInterval",
					      "setTimeout",
					      "store",
					      "structuredClone",
					      "tools",
					      "undefined",
					      "unescape",
					      NULL};
/* Object.prototype, the global's prototype: ES2022 with Annex B. */
static const char *const allowed_object_proto[] = {"__defineGetter__",
						   "__defineSetter__",
						   "__lookupGetter__",
						   "__lookupSetter__",
						   "__proto__",
						   "constructor",
						   "hasOwnProperty",
						   "isPrototypeOf",
						   "propertyIsEnumerable",
						   "toLocaleString",
						   "toString",
						   "valueOf",
						   NULL};
static const char *const test_globals[] = {"assert", "test", NULL};

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

static size_t list_len(const char *const *list)
{
	size_t n = 0;
	while (list && list[n])
		n++;
	return n;
}

/* names (a JSON array of strings) is exactly a, plus b. */
static void assert_names(json_t *names, const char *const *a, const char *const *b,
			 const char *what)
{
	ck_assert_msg(json_is_array(names), "%s: no list of names", what);
	size_t i;
	json_t *v;
	json_array_foreach (names, i, v) {
		const char *n = json_string_value(v);
		ck_assert_msg(n && (listed(a, n) || listed(b, n)),
			      "%s: %s is neither standard nor documented", what, n ? n : "?");
	}
	ck_assert_msg(json_array_size(names) == list_len(a) + list_len(b),
		      "%s: %zu names, expected %zu (one is missing)", what, json_array_size(names),
		      list_len(a) + list_len(b));
}

/* Checks the walk's report (walk.js): the global's own names and its
 * prototype's, and nothing of the engine reached anywhere. */
static void assert_walk(json_t *w, bool test_mode, const char *what)
{
	ck_assert_msg(json_is_object(w), "%s: no walk report", what);
	json_t *chain = json_object_get(w, "chain");
	ck_assert_uint_eq(json_array_size(chain), 2);
	assert_names(json_array_get(chain, 0), allowed_globals, test_mode ? test_globals : NULL,
		     what);
	assert_names(json_array_get(chain, 1), allowed_object_proto, NULL, what);
	json_t *bad = json_object_get(w, "bad");
	ck_assert_msg(json_array_size(bad) == 0, "%s reaches engine internals: %s", what,
		      json_dumps(bad, 0));
	ck_assert_int_gt(jint(w, "reached"), 400);
	printf("check_workers: %s: %lld objects reached, none of the engine's\n", what,
	       jint(w, "reached"));
}

static json_t *execute_code(const char *code)
{
	json_t *r = call_once(shared.sock, json_pack("{s:s, s:s}", "op", "execute", "code", code));
	ck_assert_msg(jtrue(r, "success"), "script failed: %s", err_msg(r));
	return r;
}

static json_t *walk_report(json_t *value)
{
	json_error_t e;
	json_t *w = json_loads(json_string_value(value), 0, &e);
	ck_assert_msg(w != NULL, "walk report: %s", e.text);
	return w;
}

START_TEST(test_globals_plain_and_lowered)
{
	char *walk = test_read_file("tests/data/globals/walk.js", NULL);
	char *modern = test_read_file("tests/data/globals/modern.js", NULL);
	static const char tail[] = "\nreturn JSON.stringify(walk(roots));\n";
	for (int lowered = 0; lowered < 2; lowered++) {
		struct buf code = BUF_INIT;
		buf_append(&code, walk, strlen(walk));
		if (lowered)
			buf_append(&code, modern, strlen(modern));
		buf_append(&code, tail, sizeof tail);
		json_t *r = execute_code(code.data);
		json_t *w = walk_report(json_object_get(r, "value"));
		assert_walk(w, false, lowered ? "lowered code" : "plain code");
		json_decref(w);
		json_decref(r);
		buf_free(&code);
	}
	free(walk);
	free(modern);
}
END_TEST

/* Test mode's globals: the same and test and assert, seen from the code
 * under test and from the tests, plain and lowered. */
START_TEST(test_globals_test_mode)
{
	char *walk = test_read_file("tests/data/globals/walk.js", NULL);
	char *modern = test_read_file("tests/data/globals/modern.js", NULL);
	for (int lowered = 0; lowered < 2; lowered++) {
		/* In a function, so that the walk's own names stay out of the
		 * globals it lists. */
		struct buf src = BUF_INIT;
		static const char head[] = "(function () {\n";
		static const char tail[] = "\nconsole.log(JSON.stringify(walk(roots)));\n})();\n";
		buf_append(&src, head, sizeof head - 1);
		buf_append(&src, walk, strlen(walk));
		if (lowered)
			buf_append(&src, modern, strlen(modern));
		buf_append(&src, tail, sizeof tail);
		json_t *r = call_once(shared.sock, json_pack("{s:s, s:s, s:s}", "op", "test",
							     "code", src.data, "tests", src.data));
		ck_assert_msg(jtrue(r, "ok") && json_object_get(r, "summary"),
			      "test mode failed: %s", err_msg(r));
		/* Two lines: what the code saw and what the tests saw. */
		char *out = strdup(jstr(r, "stdout"));
		char *nl = strchr(out, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		for (int i = 0; i < 2; i++) {
			json_error_t e;
			json_t *w = json_loads(i ? nl + 1 : out, JSON_DISABLE_EOF_CHECK, &e);
			ck_assert_msg(w != NULL, "walk report: %s", e.text);
			char what[64];
			snprintf(what, sizeof what, "test mode, %s %s",
				 lowered ? "lowered" : "plain", i ? "tests" : "code");
			assert_walk(w, true, what);
			json_decref(w);
		}
		free(out);
		json_decref(r);
		buf_free(&src);
	}
	free(walk);
	free(modern);
}
END_TEST

/* The value of a script that must succeed, as compact JSON. */
static char *value_of(const char *code)
{
	json_t *r = execute_code(code);
	char *v = json_dumps(json_object_get(r, "value"), JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(r);
	return v;
}

static void assert_value(const char *code, const char *want)
{
	char *v = value_of(code);
	ck_assert_msg(strcmp(v, want) == 0, "%s\n  gave %s\n  expected %s", code, v, want);
	free(v);
}

START_TEST(test_known_escapes)
{
	/* Names of the engine and of the lowering, plain and lowered. */
	static const char names[] =
		"return [typeof $$rt, typeof Duktape, typeof CBOR, typeof Buffer, "
		"'$$rt' in globalThis, typeof Uint8Array.plainOf, typeof require]";
	static const char names_lowered[] =
		"const x = () => 0; return [typeof globalThis.$$rt, typeof Duktape, typeof CBOR, "
		"typeof Buffer, '$$rt' in globalThis, typeof Uint8Array.plainOf, typeof require]";
	assert_value(names, "[\"undefined\",\"undefined\",\"undefined\",\"undefined\",false,"
			    "\"undefined\",\"undefined\"]");
	assert_value(names_lowered, "[\"undefined\",\"undefined\",\"undefined\",\"undefined\","
				    "false,\"undefined\",\"undefined\"]");
	/* new Duktape.Thread, and a Thread by way of other globals. */
	assert_value("try { new Duktape.Thread(function () {}); return 'escaped' } "
		     "catch (e) { return e.name }",
		     "\"ReferenceError\"");
	/* A generator's internals: its state (and its thread) used to be
	 * gen.$$gen.thread, whose constructor is Duktape.Thread. */
	assert_value(
		"function* g() { yield 1 } const it = g(); it.next();\n"
		"const own = Reflect.ownKeys(it).map(String);\n"
		"const fnProto = Reflect.ownKeys(Object.getPrototypeOf(it)).map(String);\n"
		"const proto = Reflect.ownKeys(Object.getPrototypeOf(Object.getPrototypeOf(it)))"
		".map(String).sort();\n"
		"let thread = 'none'; try { thread = typeof it.$$gen.thread } catch (e) {}\n"
		"return [own, fnProto, proto, thread, Object.getOwnPropertySymbols(it).length]",
		"[[],[],[\"Symbol(Symbol.iterator)\",\"Symbol(Symbol.toStringTag)\","
		"\"constructor\","
		"\"next\",\"return\",\"throw\"],\"none\",0]");
	/* Inside a generator's body (it runs on an engine thread): no caller
	 * (reading it throws, as Function.prototype's accessor does), and the
	 * current function is the script's own. */
	assert_value("function* g() { yield (function () { var c; try { c = typeof "
		     "arguments.callee.caller } catch (e) { c = e.name } return [c, "
		     "arguments.callee.name] })() }\nreturn g().next().value",
		     "[\"TypeError\",\"\"]");
	/* A Proxy around a generator or a promise is never told the hidden
	 * keys the runtime reads through it. */
	assert_value("function* g() { yield 1 } const it = g(); const keys = [];\n"
		     "const p = new Proxy(it, {get(t, k) { keys.push(String(k)); return "
		     "Reflect.get(t, k) }, has(t, k) { keys.push(String(k)); return Reflect.has(t, "
		     "k) }});\n"
		     "const step = Object.getPrototypeOf(it).next.call(p);\n"
		     "return [step.value, keys]",
		     "[1,[]]");
	/* A promise's state cannot be listed, so cannot be forged. */
	assert_value("const p = Promise.reject(new Error('no')); p.catch(() => {});\n"
		     "return [Reflect.ownKeys(p).length, Object.getOwnPropertySymbols(p).length, "
		     "Object.getOwnPropertyNames(p).length]",
		     "[0,0,0]");
	/* Through prototypes, Error.prototype and the Function constructor:
	 * a function made by new Function is a plain one of the global scope. */
	assert_value("return [Object.getOwnPropertyNames(Error.prototype).sort(), "
		     "new Function('return typeof Duktape')(), "
		     "Object.getPrototypeOf(function () {}) === Function.prototype]",
		     "[[\"constructor\",\"fileName\",\"lineNumber\",\"message\",\"name\",\"stack\","
		     "\"toString\"],\"undefined\",true]");
	/* Lowered code cannot name the runtime, not even by eval (see
	 * test_eval_reaches_no_helper). */
	assert_value("const f = () => typeof $$rt; return [f(), typeof $$t1]",
		     "[\"undefined\",\"undefined\"]");
}
END_TEST

static json_t *run_tests(const char *code, const char *tests);
static void assert_report(json_t *r, int total, int passed, int failed, int skipped);

/* The ways a string can be evaluated where lowered code runs, each asked
 * for the runtime ($$rt) and a temporary of the lowering ($$t1): none
 * reaches either. */
static const char *const eval_vectors[] = {
	"eval('$$rt')",
	"(eval)('$$rt')",
	"ev\\u0061l('$$rt')",
	"eval?.('$$rt')",
	"eval(`$${'$'}rt`)",
	"eval('$' + '$' + 'rt')",
	"eval('$$t1')",
	"eval('eval(\"$$rt\")')",
	"[eval][0]('$$rt')",
	"eval.call(null, '$$rt')",
	"Reflect.apply(eval, null, ['$$rt'])",
	"new Function('return $$rt')()",
	"Function('return $$rt')()",
	"(() => { const e = eval; return e('$$rt') })()",
	"(0, eval)('$$rt')",
	"globalThis.eval('$$rt')",
	"eval('\\u0024\\u0024rt')",
	"(() => eval('$$this1'))()",
	"eval('(() => $$rt)()')",
	"Function('a = $$rt', 'return a')()",
	NULL,
};

/* A script (lowered: it uses ?? and an arrow) that tries each vector and
 * returns how many gave something other than a ReferenceError. */
static char *eval_probe(const char *prefix, const char *ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%slet reached = 0, tried = 0; const lowered = () => null ?? 1;\n", prefix);
	for (const char *const *v = eval_vectors; *v; v++)
		fprintf(f,
			"tried++; try { const r = %s; reached++ } catch (e) { "
			"if (!(e instanceof ReferenceError)) reached++ }\n",
			*v);
	fprintf(f, "%s", ret);
	fclose(f);
	return text;
}

START_TEST(test_eval_reaches_no_helper)
{
	size_t n = 0;
	while (eval_vectors[n])
		n++;
	char want[64];
	snprintf(want, sizeof want, "[0,%zu]", n);
	/* Plain lowered JavaScript, and TypeScript. */
	char *js = eval_probe("", "return [reached, tried]");
	assert_value(js, want);
	char *ts = eval_probe("const typed: number = 1;\n", "return [reached, tried]");
	json_t *r = call_once(shared.sock, json_pack("{s:s, s:s, s:s}", "op", "execute", "language",
						     "typescript", "code", ts));
	char *v = json_dumps(json_object_get(r, "value"), JSON_COMPACT);
	ck_assert_msg(v && strcmp(v, want) == 0, "typescript: %s (%s)", v, err_msg(r));
	free(v);
	json_decref(r);
	/* Test mode: from the code under test at load time, and from a test. */
	char *code = eval_probe("", "var fromCode = [reached, tried];");
	char *tests =
		eval_probe("", "test('from the tests', () => { assert.equal([reached, tried], "
			       "[0, tried]) });\n"
			       "test('from the code', () => { assert.is(fromCode[0], 0); "
			       "assert.is(fromCode[1], tried) });");
	r = run_tests(code, tests);
	assert_report(r, 2, 2, 0, 0);
	json_decref(r);
	/* A direct eval at the top of program code is of global code: its
	 * var is a global the tests see, its let its own. */
	r = run_tests("var base = 1; eval('var fromEval = base + 1; let lexical = 3');\n"
		      "const arrow = () => 0;",
		      "test('eval at the top', () => { assert.is(fromEval, 2); "
		      "assert.is(typeof lexical, 'undefined') });");
	assert_report(r, 1, 1, 0, 0);
	json_decref(r);
	/* A direct eval sees the variables around it, in lowered code too
	 * (README), and takes modern syntax; the indirect one sees globals. */
	assert_value(
		"var g = 'global'; const f = () => { const local = 1; "
		"return [eval('typeof local'), eval('typeof g'), (0, eval)('typeof local')] }; "
		"return f()",
		"[\"number\",\"string\",\"undefined\"]");
	assert_value("var local = 1; return eval('local + 1')", "2");
	assert_value("var local = 1; return eval /* c */\n('local + 1')", "2");
	/* Code the engine runs as it is may call the global eval, which
	 * lowers: an indirect eval. */
	assert_value("var f = eval; return [(0, eval)('let [a] = [3]; a'), f('typeof local')]",
		     "[3,\"undefined\"]");
	assert_value("var local = [1]; return eval('[...local, 2]')", "[1,2]");
	/* A string cannot replace the helpers for the code around it. */
	assert_value("eval('var $$rt = {spread: null}; let $$t1 = 0'); return [...[3]]", "[3]");
	free(js);
	free(ts);
	free(code);
	free(tests);
}
END_TEST

/* Code under test that sets a global $$rt, or replaces its own, does not
 * reach the lowered tests. */
START_TEST(test_runtime_not_shared)
{
	json_t *r = call_once(
		shared.sock,
		json_pack("{s:s, s:s, s:s}", "op", "test", "code",
			  "var evil = {iter: function () { throw new Error('pwned') }};\n"
			  "globalThis.$$rt = evil; this.$$rt = evil;\n"
			  "var lowered = (a) => [...a];",
			  "tests",
			  "test('spread', () => { assert.equal([...[1, 2]], [1, 2]); });\n"
			  "test('for of', () => { let n = 0; for (const x of [1, 2]) n += x; "
			  "assert.is(n, 3); });\n"
			  "test('code helper', () => { assert.equal(lowered([3]), [3]); });"));
	ck_assert_msg(jtrue(r, "success"), "tests failed: %s %s", err_msg(r),
		      json_dumps(json_object_get(r, "tests"), 0));
	ck_assert_int_eq(jint(json_object_get(r, "summary"), "passed"), 3);
	json_decref(r);
}
END_TEST

/* Program code lowered inside its wrapper keeps the semantics of program
 * code: declarations are globals both sources see (hoisted functions
 * included, under their own names), a test can replace a function the
 * code calls, and this is the global object. */
START_TEST(test_lowered_programs_share_globals)
{
	json_t *r = call_once(
		shared.sock,
		json_pack("{s:s, s:s, s:s}", "op", "test", "code",
			  "const early = hoisted();\n"
			  "function hoisted() { return 'h' }\n"
			  "function fact(n) { return n ? n * fact(n - 1) : 1 }\n"
			  "function fetchIt() { return 'real' }\n"
			  "const useIt = () => fetchIt();\n"
			  "class Point { constructor(x) { this.x = x } }\n"
			  "let $$mine = 5;\n"
			  "for (var i of [1, 2]) { var last = i }\n"
			  "this.viaThis = 'global';",
			  "tests",
			  "test('hoisted', () => { assert.is(early, 'h'); assert.is(hoisted.name, "
			  "'hoisted') });\n"
			  "test('recursion', () => assert.is(fact(5), 120));\n"
			  "test('mock', () => { fetchIt = () => 'mock'; assert.is(useIt(), 'mock') "
			  "});\n"
			  "test('class', () => assert.is(new Point(3).x, 3));\n"
			  "test('dollars', () => assert.is($$mine, 5));\n"
			  "test('loop vars', () => assert.equal([i, last], [2, 2]));\n"
			  "test('this', () => assert.is(globalThis.viaThis, 'global'));\n"
			  "test('as globals', () => assert.equal(['hoisted', 'fact', 'Point', "
			  "'last'].map((k) => k in globalThis), [true, true, true, true]));"));
	ck_assert_msg(jtrue(r, "ok") && json_object_get(r, "summary"), "test mode failed: %s",
		      err_msg(r));
	ck_assert_msg(jtrue(r, "success"), "%s", json_dumps(json_object_get(r, "tests"), 0));
	ck_assert_int_eq(jint(json_object_get(r, "summary"), "passed"), 8);
	json_decref(r);
}
END_TEST

/* ---- test mode cannot be made to lie */

static json_t *run_tests(const char *code, const char *tests)
{
	json_t *req = json_pack("{s:s, s:s}", "op", "test", "tests", tests);
	if (code)
		json_object_set_new(req, "code", json_string(code));
	json_t *r = call_once(shared.sock, req);
	ck_assert_msg(jtrue(r, "ok"), "test request failed: %s", err_msg(r));
	return r;
}

/* The report: the summary as given, and as counted from the entries. */
static void assert_report(json_t *r, int total, int passed, int failed, int skipped)
{
	json_t *sum = json_object_get(r, "summary"), *list = json_object_get(r, "tests");
	ck_assert_msg(json_is_object(sum) && json_is_array(list), "no report: %s",
		      json_dumps(r, 0));
	int p = 0, f = 0, s = 0;
	size_t i;
	json_t *t;
	json_array_foreach (list, i, t) {
		if (jtrue(t, "skipped"))
			s++;
		else if (jtrue(t, "passed"))
			p++;
		else
			f++;
	}
	ck_assert_msg(jint(sum, "total") == total && jint(sum, "passed") == passed &&
			      jint(sum, "failed") == failed && jint(sum, "skipped") == skipped,
		      "summary %s, expected %d/%d/%d/%d", json_dumps(sum, 0), total, passed, failed,
		      skipped);
	ck_assert_int_eq((int)json_array_size(list), total);
	ck_assert_int_eq(p, passed);
	ck_assert_int_eq(f, failed);
	ck_assert_int_eq(s, skipped);
	ck_assert(jtrue(r, "success") == (failed == 0));
}

static const char *entry_error(json_t *r, size_t i)
{
	return jstr(json_array_get(json_object_get(r, "tests"), i), "error");
}

START_TEST(test_assert_is_immutable)
{
	/* From the code under test (sloppy: writes fail silently) and from
	 * the tests (strict: they throw). */
	json_t *r = run_tests(
		"assert.is = function () {}; assert.equal = function () {};\n"
		"assert.not.equal = function () {}; assert.is.not = function () {};\n"
		"globalThis.assert = {is: function () {}}; var assert = 5; delete "
		"globalThis.test;\n"
		"try { Object.defineProperty(assert, 'ok', {value: function () {}}) } catch (e) "
		"{}\n"
		"try { Object.defineProperty(globalThis, 'assert', {value: {}}) } catch (e) {}",
		"'use strict';\n"
		"var refused = 0;\n"
		"try { assert.is = function () {} } catch (e) { refused++ }\n"
		"try { assert.not.ok = function () {} } catch (e) { refused++ }\n"
		"try { test.skip = test } catch (e) { refused++ }\n"
		"try { test.only2 = test } catch (e) { refused++ }\n"
		"try { globalThis.test = function () {} } catch (e) { refused++ }\n"
		"test('refused', function () { assert.is(refused, 5) });\n"
		"test('is', function () { assert.is(1, 2) });\n"
		"test('equal', function () { assert.equal({a: 1}, {a: 2}) });\n"
		"test('not.equal', function () { assert.not.equal(1, 1) });\n"
		"test('is.not', function () { assert.is.not(1, 1) });\n"
		"test('frozen', function () { assert.ok(Object.isFrozen(assert) && "
		"Object.isFrozen(assert.is) && Object.isFrozen(test.before)) });");
	assert_report(r, 6, 2, 4, 0);
	ck_assert_ptr_nonnull(strstr(entry_error(r, 1), "strictly equal"));
	ck_assert_ptr_nonnull(strstr(entry_error(r, 2), "deeply equal"));
	json_decref(r);
}
END_TEST

START_TEST(test_only_from_code_refused)
{
	/* At load time: the code under test fails, naming why. */
	json_t *r = run_tests("test.only('fake', function () {});",
			      "test('real', function () { assert.is(1, 2) });");
	ck_assert(!jtrue(r, "success"));
	ck_assert_str_eq(jstr(err_obj(r), "source"), "code");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "only while the tests load"));
	json_decref(r);
	/* Hooks and plain tests too. */
	r = run_tests("test.before(function () {});", "test('a', function () {});");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "only while the tests load"));
	json_decref(r);
	/* From a function of the code that a test calls: refused there, the
	 * real tests still run and fail. */
	r = run_tests("function sneaky() { test.only('fake', function () {}); }",
		      "test('calls it', function () { sneaky() });\n"
		      "test('real', function () { assert.is(1, 2) });");
	assert_report(r, 2, 0, 2, 0);
	ck_assert_ptr_nonnull(strstr(entry_error(r, 0), "not once they run"));
	json_decref(r);
	/* The tests' own test.only keeps its meaning. */
	r = run_tests(NULL, "test.only('focus', function () {});\n"
			    "test('other', function () { assert.is(1, 2) });");
	assert_report(r, 2, 1, 0, 1);
	json_decref(r);
}
END_TEST

/* The code under test patches every built-in the report passes through;
 * the entries and the summary still tell what happened. */
START_TEST(test_patched_builtins_do_not_lie)
{
	static const char patch[] =
		"var fake = {name: 'fake', passed: true, duration_ms: 0};\n"
		"Array.prototype.push = function () { return 0 };\n"
		"Object.defineProperty(Array.prototype, '0', {get: function () { return fake }, "
		"set: function () {}, configurable: true});\n"
		"Object.defineProperty(Array.prototype, '1', {get: function () { return fake }, "
		"set: function () {}, configurable: true});\n"
		"Object.defineProperty(Object.prototype, 'passed', {get: function () { return true "
		"}, set: function () {}, configurable: true});\n"
		"Object.defineProperty(Object.prototype, 'skip', {get: function () { return true "
		"}, "
		"configurable: true});\n"
		"Object.prototype.toJSON = function () { return {passed: true} };\n"
		"Function.prototype.call = function () { return true };\n"
		"Function.prototype.apply = function () { return true };\n"
		"JSON.stringify = function () { return '{}' };\n"
		"Object.keys = function () { return [] };\n"
		"Object.defineProperty = function (o) { return o };\n"
		"Promise.prototype.then = function (f) { f(); return this };\n"
		"Promise.resolve = function () { return {then: function (f) { f() }} };\n"
		"RegExp.prototype.test = function () { return true };\n"
		"String.prototype.indexOf = function () { return 0 };\n"
		"Date.prototype.getTime = function () { return 0 };\n"
		"Date.now = function () { return 0 };\n";
	json_t *r = run_tests(patch,
			      "test('is', function () { assert.is(1, 2) });\n"
			      "test('async', function () { return Promise.reject(new Error('async "
			      "no')) });\n"
			      "test('equal', function () { assert.equal({a: 1}, {a: 2}) });\n"
			      "test('match', function () { assert.match('abc', /x/) });\n"
			      "test('dates', function () { assert.equal(new Date(1), new Date(2)) "
			      "});\n"
			      "test('passes', function () {});\n"
			      "test.skip('skipped', function () {});");
	assert_report(r, 7, 1, 5, 1);
	ck_assert_ptr_nonnull(strstr(entry_error(r, 0), "strictly equal"));
	ck_assert_ptr_nonnull(strstr(entry_error(r, 1), "async no"));
	ck_assert_str_eq(jstr(json_array_get(json_object_get(r, "tests"), 5), "name"), "passes");
	json_decref(r);
}
END_TEST

/* Code under test that throws what cannot be described, or describes
 * itself as nothing, or patches what a description would use: every test
 * whose function threw fails, with an error that is never empty, and the
 * summary agrees. */
START_TEST(test_anything_thrown_fails)
{
	static const char code[] =
		"var kinds = {\n"
		"  undef: function () { throw undefined },\n"
		"  nul: function () { throw null },\n"
		"  empty: function () { throw '' },\n"
		"  zero: function () { throw 0 },\n"
		"  symbol: function () { throw Symbol() },\n"
		"  emptyError: function () { var e = Object.create(Error.prototype); e.toString = "
		"function () { return '' }; throw e },\n"
		"  realEmpty: function () { var e = new Error('boom'); e.toString = function () { "
		"return '' }; e.name = ''; e.message = ''; throw e },\n"
		"  getterThrows: function () { var e = new Error('x'); Object.defineProperty(e, "
		"'message', {get: function () { throw new Error('no') }}); "
		"Object.defineProperty(e, "
		"'name', {get: function () { throw e }}); throw e },\n"
		"  stringThrows: function () { throw {toString: function () { throw 1 }, valueOf: "
		"function () { throw 2 }, toJSON: function () { throw 3 }} },\n"
		"  proxy: function () { throw new Proxy({}, {get: function () { throw 4 }, "
		"getPrototypeOf: function () { throw 5 }, ownKeys: function () { throw 6 }, "
		"getOwnPropertyDescriptor: function () { throw 7 }}) },\n"
		"  hasInstance: function () { try { Object.defineProperty(Error, "
		"Symbol.hasInstance, "
		"{value: function () { return true }}) } catch (e) {} throw {toString: function () "
		"{ return '' }} },\n"
		"  protoToString: function () { Object.prototype.toString = function () { return "
		"'' "
		"}; Error.prototype.toString = function () { return '' }; "
		"String.prototype.toString "
		"= function () { return '' }; throw {} },\n"
		"  rejectUndef: function () { return Promise.reject(undefined) },\n"
		"  rejectEmpty: function () { var e = Object.create(Error.prototype); e.toString = "
		"function () { return '' }; return Promise.reject(e) },\n"
		"  asyncUndef: async function () { await 1; throw undefined },\n"
		"  thenable: function () { return {then: function (ok, no) { no(undefined) }} },\n"
		"  thenGetter: function () { return {get then() { throw undefined }} }\n"
		"};\n";
	static const char tests[] = "var names = Object.keys(kinds);\n"
				    "for (var i = 0; i < names.length; i++)\n"
				    "  test(names[i], kinds[names[i]]);\n"
				    "test('passes', function () { assert.ok(true) });\n";
	json_t *r = run_tests(code, tests);
	json_t *list = json_object_get(r, "tests");
	size_t n = json_array_size(list);
	ck_assert_uint_eq(n, 18);
	assert_report(r, 18, 1, 17, 0);
	for (size_t i = 0; i + 1 < n; i++) {
		json_t *t = json_array_get(list, i);
		ck_assert_msg(!jtrue(t, "passed"), "%s passed", jstr(t, "name"));
		ck_assert_msg(strlen(jstr(t, "error")) > 0, "%s: an empty error", jstr(t, "name"));
		printf("check_workers: thrown %s: %s\n", jstr(t, "name"), jstr(t, "error"));
	}
	ck_assert_str_eq(jstr(json_array_get(list, n - 1), "name"), "passes");
	json_decref(r);
}
END_TEST

/* The same throws from hooks: before fails every test, beforeEach and
 * afterEach fail theirs, after adds a failed entry. */
START_TEST(test_hooks_that_throw_nothing_fail)
{
	static const char code[] =
		"function nothing() { var e = Object.create(Error.prototype); e.toString = "
		"function () { return '' }; throw e }\n";
	json_t *r = run_tests(code, "test.before(function () { throw undefined });\n"
				    "test('a', function () {});\n"
				    "test('b', function () {});");
	assert_report(r, 2, 0, 2, 0);
	ck_assert_ptr_nonnull(strstr(entry_error(r, 0), "test.before failed"));
	json_decref(r);
	r = run_tests(code, "var n = 0; test.before.each(function () { if (n++ === 1) nothing() "
			    "});\n"
			    "test('a', function () {}); test('b', function () {}); "
			    "test('c', function () {});");
	assert_report(r, 3, 2, 1, 0);
	json_decref(r);
	r = run_tests(code, "test.after.each(function () { throw null });\n"
			    "test('a', function () {});");
	assert_report(r, 1, 0, 1, 0);
	json_decref(r);
	r = run_tests(code, "test.after(function () { nothing() });\n"
			    "test('a', function () {});");
	assert_report(r, 2, 1, 1, 0);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(r, "tests"), 1), "name"),
			 "test.after");
	json_decref(r);
}
END_TEST

/* An honest file of 10000 tests with 1 KiB names and 4 KiB errors: its
 * report fits the control frame, the texts cut and marked so; one test
 * more is refused as the tests load. */
START_TEST(test_big_report_fits)
{
	json_t *req = json_pack(
		"{s:s, s:s, s:I}", "op", "test", "tests",
		"for (var i = 0; i < 10000; i++) test('n'.repeat(1024) + i, function () { "
		"throw new Error('\\u0001'.repeat(4096)) });",
		"memory_bytes", (json_int_t)256 << 20);
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	client_request(&c, req);
	json_t *r = client_reply(&c, NULL, 120000);
	ck_assert_ptr_nonnull(r);
	client_close(&c);
	ck_assert_msg(strcmp(jstr(r, "state"), "completed") == 0, "state %s: %s %s",
		      jstr(r, "state"), err_kind(r), err_msg(r));
	assert_report(r, 10000, 0, 10000, 0);
	json_t *list = json_object_get(r, "tests");
	size_t bytes = 0, i;
	json_t *t;
	json_array_foreach (list, i, t) {
		ck_assert_msg(jtrue(t, "cut"), "entry %zu is not marked cut", i);
		bytes += strlen(jstr(t, "name")) + strlen(jstr(t, "error"));
	}
	char *text = json_dumps(list, JSON_COMPACT);
	ck_assert_uint_le(strlen(text), 8u << 20);
	printf("check_workers: 10000 tests: report %zu bytes of JSON, %zu bytes of names and "
	       "errors kept, first name %zu bytes, first error %zu\n",
	       strlen(text), bytes, strlen(jstr(json_array_get(list, 0), "name")),
	       strlen(entry_error(r, 0)));
	free(text);
	json_decref(r);
	/* A short one is not cut. */
	r = run_tests(NULL, "test('short', function () { assert.is(1, 2) });");
	ck_assert(!json_object_get(json_array_get(json_object_get(r, "tests"), 0), "cut"));
	json_decref(r);
	/* 10001 tests: refused as they load, not a broken frame. */
	r = run_tests(NULL, "for (var i = 0; i < 10001; i++) test('t' + i, function () {});");
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_str_eq(jstr(err_obj(r), "source"), "tests");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "at most 10000 tests"));
	json_decref(r);
}
END_TEST

/* The next frame's text as the daemon sent it (a client's JSON parser may
 * refuse a NUL in a key: jansson's does). NULL on timeout. */
static char *raw_frame(struct client *c, int timeout_ms)
{
	int st;
	char *text = sdc_recv_text(c->sdc, timeout_ms, NULL, &st);
	ck_assert_msg(text || st == SDC_ETIMEOUT || st == SDC_EOF, "%s", sdc_error(c->sdc));
	return text;
}

/* The daemon's final reply to req, as text. */
static char *raw_reply(struct client *c, json_t *req)
{
	client_request(c, req);
	for (;;) {
		char *t = raw_frame(c, 10000);
		ck_assert_ptr_nonnull(t);
		/* Not the started event, which has a state too. */
		if (strstr(t, "\"state\"") && !strstr(t, "\"event\":\"started\""))
			return t;
		free(t);
	}
}

static void assert_has(const char *text, const char *needle)
{
	ck_assert_msg(strstr(text, needle) != NULL, "%s not in %s", needle, text);
}

/* Object keys holding NUL, in a returned value, a tool's argument and the
 * store (keys and values), reach the client intact. */
START_TEST(test_nul_in_keys)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, shared.sock, FRAME_MODE_BINARY), 0);
	char *t = raw_reply(&c, json_pack("{s:s, s:s}", "op", "execute", "code",
					  "return {'k\\u0000x': 1, a: {'\\u0000': ['\\u0000z', "
					  "{'q\\u0000': 'w\\\\u0000'}]}, '\\\\u0000': 2}"));
	assert_has(t, "\"success\":true");
	assert_has(t, "\"value\":{\"k\\u0000x\":1,\"a\":{\"\\u0000\":[\"\\u0000z\",{\"q\\u0000\":"
		      "\"w\\\\u0000\"}]},\"\\\\u0000\":2}");
	free(t);
	client_request(&c,
		       json_pack("{s:s, s:s, s:[{s:s}], s:{}}", "op", "execute", "code",
				 "const r = tools.t({'a\\u0000b': 1});\n"
				 "store('k\\u0000x', {'s\\u0000': 2}); store('k', 3);\n"
				 "store('\\ud83d\\ude00', 4);\n"
				 "return [r, load('k\\u0000x'), load('k'), load('\\ud83d\\ude00')]",
				 "tools", "name", "t", "store"));
	t = raw_frame(&c, 10000);
	ck_assert_ptr_nonnull(t);
	assert_has(t, "\"event\":\"started\""); /* the first frame */
	free(t);
	t = raw_frame(&c, 10000);
	ck_assert_ptr_nonnull(t);
	assert_has(t, "\"event\":\"tool_call\"");
	assert_has(t, "\"args\":{\"a\\u0000b\":1}");
	json_t *ev = json_loads(t, 0, NULL);
	ck_assert_ptr_null(ev); /* jansson refuses it: hence the text */
	const char *id = strstr(t, "\"execution_id\":\"");
	ck_assert_ptr_nonnull(id);
	char exec_id[64];
	ck_assert_int_eq(sscanf(id, "\"execution_id\":\"%63[^\"]\"", exec_id), 1);
	free(t);
	t = raw_reply(&c, json_pack("{s:s, s:s, s:i, s:{s:b}}", "op", "tool_result", "execution_id",
				    exec_id, "call_id", 1, "value", "ok", 1));
	assert_has(t, "\"success\":true");
	assert_has(t, "\"value\":[{\"ok\":true},{\"s\\u0000\":2},3,4]");
	assert_has(t, "\"k\\u0000x\":{\"s\\u0000\":2}");
	assert_has(t, "\"k\":3");
	assert_has(t, "\"\xf0\x9f\x98\x80\":4");
	free(t);
	client_close(&c);
}
END_TEST

/* Within the documented limits, what the worker sends fits what the
 * supervisor accepts: a value of too many values, a store or writes over
 * their limits fail inside the script, never as a broken protocol. */
START_TEST(test_limits_fail_in_the_script)
{
	json_t *r = call_once(
		shared.sock,
		json_pack("{s:s, s:s, s:I}", "op", "execute", "code",
			  "const v = []; for (let i = 0; i < 1100000; i++) v.push(0); return v",
			  "memory_bytes", (json_int_t)512 << 20));
	ck_assert_str_eq(err_kind(r), "script");
	ck_assert_ptr_nonnull(strstr(err_msg(r), "too large"));
	json_decref(r);
	r = call_once(shared.sock,
		      json_pack("{s:s, s:s, s:{}, s:I}", "op", "execute", "code",
				"const why = []; const a = new Array(30000).fill(0);\n"
				"const attempt = (f) => { try { f(); why.push('ok') } catch (e) { "
				"why.push(e.message) } };\n"
				"attempt(() => { store('a', a); store('b', a); store('c', a) });\n"
				"attempt(() => { for (let i = 0; i < 70000; i++) store('k' + i, "
				"undefined) });\n"
				"attempt(() => store('x'.repeat(5 << 20), 1));\n"
				"return why",
				"store", "memory_bytes", (json_int_t)512 << 20));
	ck_assert_msg(jtrue(r, "success"), "%s: %s", err_kind(r), err_msg(r));
	json_t *why = json_object_get(r, "value");
	ck_assert_uint_eq(json_array_size(why), 3);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_array_get(why, 0)), "65536 JSON values"));
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_array_get(why, 1)), "65536 keys deleted"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(why, 2)), "keys included"));
	/* What was written before each limit is reported, and fits a store. */
	json_t *w = json_object_get(r, "store_writes");
	ck_assert_uint_eq(json_object_size(json_object_get(w, "set")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(w, "delete")), 65536);
	json_decref(r);
}
END_TEST

/* No stack a script sees, nor one the daemon reports, names the engine's
 * C files or its call flags. */
START_TEST(test_stacks_name_no_engine_file)
{
	static const char probe[] =
		"const stacks = [];\n"
		"try { null.x } catch (e) { stacks.push(e.stack) }\n"
		"try { Object.defineProperty(Object.freeze({}), 'a', {value: 1}) } catch (e) { "
		"stacks.push(e.stack) }\n"
		"try { [1].map(() => { throw new Error('x') }) } catch (e) { stacks.push(e.stack) "
		"}\n"
		"try { JSON.parse('{') } catch (e) { stacks.push(String(e.stack)) }\n"
		"return stacks";
	json_t *r = execute_code(probe);
	json_t *list = json_object_get(r, "value");
	ck_assert_uint_eq(json_array_size(list), 4);
	size_t i;
	json_t *st;
	json_array_foreach (list, i, st) {
		const char *s = json_string_value(st);
		ck_assert_msg(s && strstr(s, "(script.js:"), "stack %zu names no line: %s", i, s);
		ck_assert_msg(!strstr(s, ".c:") && !strstr(s, "internal") &&
				      !strstr(s, "preventsyield"),
			      "stack %zu: %s", i, s);
	}
	json_decref(r);
	r = call_once(shared.sock, json_pack("{s:s, s:s}", "op", "execute", "code",
					     "const f = () => null.x; f()"));
	ck_assert_str_eq(err_kind(r), "script");
	const char *s = jstr(err_obj(r), "stack");
	ck_assert_msg(strstr(s, "(script.js:1)") && !strstr(s, ".c:"), "stack: %s", s);
	json_decref(r);
}
END_TEST

/* A test that needs root is added only as root: otherwise it is not run,
 * the line says so and why (scripts/run-tests.sh counts such lines), and
 * it is not counted as passed. */
static void add_root_test(TCase *tc, const TTest *t, const char *name, const char *why)
{
	if (geteuid() == 0) {
		tcase_add_test(tc, t);
		return;
	}
	printf("check_workers: not run: %s: needs root (%s)\n", name, why);
	fflush(stdout); /* before Check forks the tests */
}

static Suite *suite(void)
{
	Suite *s = suite_create("workers");
	TCase *ids = tcase_create("identity");
	tcase_add_unchecked_fixture(ids, shared_up, shared_down);
	tcase_set_timeout(ids, 120);
	add_root_test(ids, test_worker_uids_default, "test_worker_uids_default",
		      "workers keep the daemon's uid; per-worker uids come from a range only root "
		      "can switch to");
	add_root_test(ids, test_worker_uids_tight_range, "test_worker_uids_tight_range",
		      "--worker-uids takes effect as root only");
	add_root_test(ids, test_worker_user_fixed, "test_worker_user_fixed",
		      "--worker-user takes effect as root only");
	tcase_add_test(ids, test_worker_uids_usage);
	add_root_test(ids, test_daemons_share_a_range, "test_daemons_share_a_range",
		      "workers keep the daemon's uid: there is no --worker-uids range to share");
	add_root_test(ids, test_uid_lock_refused, "test_uid_lock_refused",
		      "a daemon not root opens no --uid-lock, so none of its failures happen");
	add_root_test(
		ids, test_forkserver_death_keeps_uids, "test_forkserver_death_keeps_uids",
		"workers keep the daemon's uid: no worker uids to lose when the forkserver dies");
	tcase_add_test(ids, test_minimal_environment);
	add_root_test(ids, test_worker_environment, "test_worker_environment",
		      "a worker is not dumpable: its /proc/PID/environ is root's to read");
	suite_add_tcase(s, ids);
	TCase *js = tcase_create("scripts");
	tcase_add_unchecked_fixture(js, shared_up, shared_down);
	tcase_set_timeout(js, 120);
	tcase_add_test(js, test_globals_plain_and_lowered);
	tcase_add_test(js, test_globals_test_mode);
	tcase_add_test(js, test_known_escapes);
	tcase_add_test(js, test_runtime_not_shared);
	tcase_add_test(js, test_lowered_programs_share_globals);
	tcase_add_test(js, test_assert_is_immutable);
	tcase_add_test(js, test_only_from_code_refused);
	tcase_add_test(js, test_patched_builtins_do_not_lie);
	tcase_add_test(js, test_eval_reaches_no_helper);
	tcase_add_test(js, test_anything_thrown_fails);
	tcase_add_test(js, test_hooks_that_throw_nothing_fail);
	tcase_add_test(js, test_big_report_fits);
	tcase_add_test(js, test_nul_in_keys);
	tcase_add_test(js, test_stacks_name_no_engine_file);
	tcase_add_test(js, test_limits_fail_in_the_script);
	suite_add_tcase(s, js);
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
