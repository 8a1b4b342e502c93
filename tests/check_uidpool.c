/*
 * check_uidpool.c - the pool of worker ids: each id to one taker at a time,
 * round-robin, back only when given back, none when all are out; the
 * start-up check against the system's users and groups; and the claims
 * daemons sharing a range make in one lock file. Open file description
 * locks conflict between two open()s of one process too, so each opening
 * here stands for a daemon.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../server/uidpool.h"

START_TEST(test_take_and_put)
{
	ck_assert_int_eq(uidpool_init(3000000000u, 3000000002u), 0);
	ck_assert_uint_eq(uidpool_free_count(), 3);
	uint32_t a, b, c, d;
	ck_assert_int_eq(uidpool_take(&a), 0);
	ck_assert_int_eq(uidpool_take(&b), 0);
	ck_assert_int_eq(uidpool_take(&c), 0);
	ck_assert_uint_eq(a, 3000000000u);
	ck_assert_uint_eq(b, 3000000001u);
	ck_assert_uint_eq(c, 3000000002u);
	/* All out: none to give. */
	ck_assert_int_eq(uidpool_take(&d), -1);
	ck_assert_uint_eq(uidpool_free_count(), 0);
	/* Ids not of the pool, and ids given back twice, change nothing. */
	uidpool_put(12);
	uidpool_put(3000000003u);
	ck_assert_uint_eq(uidpool_free_count(), 0);
	uidpool_put(b);
	uidpool_put(b);
	ck_assert_uint_eq(uidpool_free_count(), 1);
	ck_assert_int_eq(uidpool_take(&d), 0);
	ck_assert_uint_eq(d, b);
	ck_assert_int_eq(uidpool_take(&d), -1);
}
END_TEST

/* A freed id is the last to come back: the search goes on from where the
 * last one was taken. */
START_TEST(test_round_robin)
{
	ck_assert_int_eq(uidpool_init(100, 103), 0);
	uint32_t id, first;
	ck_assert_int_eq(uidpool_take(&first), 0);
	uidpool_put(first);
	for (uint32_t want = 101; want <= 103; want++) {
		ck_assert_int_eq(uidpool_take(&id), 0);
		ck_assert_uint_eq(id, want);
		uidpool_put(id);
	}
	ck_assert_int_eq(uidpool_take(&id), 0);
	ck_assert_uint_eq(id, 100);
	/* A range of one id works too. */
	ck_assert_int_eq(uidpool_init(7, 7), 0);
	ck_assert_int_eq(uidpool_take(&id), 0);
	ck_assert_uint_eq(id, 7);
	ck_assert_int_eq(uidpool_take(&id), -1);
}
END_TEST

START_TEST(test_check_against_system)
{
	char why[256] = "";
	/* root's uid, and so a clash named. */
	ck_assert_int_eq(uidpool_check(0, 0, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "uid 0") || strstr(why, "gid 0"), "why: %s", why);
	/* Every user's uid is found. */
	struct passwd *pw = getpwnam("nobody");
	if (pw) {
		ck_assert_int_eq(uidpool_check(pw->pw_uid, pw->pw_uid, why, sizeof why), -1);
		ck_assert_ptr_nonnull(strstr(why, "user "));
	}
	/* The default range is free on this machine. */
	int rc = uidpool_check(LIMIT_WORKER_UID_FIRST_DEFAULT,
			       LIMIT_WORKER_UID_FIRST_DEFAULT + LIMIT_WORKER_UIDS_DEFAULT - 1, why,
			       sizeof why);
	ck_assert_msg(rc == 0, "the default range clashes here: %s", why);
}
END_TEST

/* ---- claims */

static char dir[64], lock_path[96];

static void dir_up(void)
{
	strcpy(dir, "/tmp/sandboxd-uidpool-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(lock_path, sizeof lock_path, "%s/uids.lock", dir);
}

static void dir_down(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (strncmp(dir, "/tmp/sandboxd-uidpool-", 22) == 0)
		(void)!system(cmd);
}

/* One daemon's opening of the lock file. */
static int opened(void)
{
	char why[256] = "";
	int fd = uidpool_lock_open(lock_path, why, sizeof why);
	ck_assert_msg(fd >= 0, "lock file: %s", why);
	return fd;
}

START_TEST(test_claims_are_disjoint)
{
	int a = opened(), b = opened(), c = opened();
	struct stat st;
	ck_assert_int_eq(stat(lock_path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert(fcntl(a, F_GETFD) & FD_CLOEXEC);
	char why[256] = "";
	uint32_t ca, cb, cc;
	/* Four ids, two each: the second gets the run past the first's. */
	ck_assert_int_eq(uidpool_claim(a, 3000000000u, 3000000003u, 2, &ca, why, sizeof why), 0);
	ck_assert_uint_eq(ca, 3000000000u);
	ck_assert_int_eq(uidpool_claim(b, 3000000000u, 3000000003u, 2, &cb, why, sizeof why), 0);
	ck_assert_uint_eq(cb, 3000000002u);
	/* None left for a third, who is told so, with the range. */
	errno = 0;
	ck_assert_int_eq(uidpool_claim(c, 3000000000u, 3000000003u, 2, &cc, why, sizeof why), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_msg(strstr(why, "no 2 consecutive ids of 3000000000-3000000003"), "why: %s", why);
	/* Not even one id. */
	ck_assert_int_eq(uidpool_claim(c, 3000000000u, 3000000003u, 1, &cc, why, sizeof why), -1);
	/* The first closes (exits): its run is free again, and only it. */
	close(a);
	ck_assert_int_eq(uidpool_claim(c, 3000000000u, 3000000003u, 2, &cc, why, sizeof why), 0);
	ck_assert_uint_eq(cc, 3000000000u);
	close(b);
	close(c);
}
END_TEST

/* A claim in the middle of the range: the search goes just past it, and
 * a smaller run still finds the gap before it. */
START_TEST(test_claim_skips_what_is_held)
{
	int a = opened(), b = opened(), c = opened(), d = opened();
	char why[256] = "";
	uint32_t id;
	ck_assert_int_eq(uidpool_claim(a, 101, 101, 1, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 101);
	ck_assert_int_eq(uidpool_claim(b, 100, 105, 2, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 102);
	ck_assert_int_eq(uidpool_claim(c, 100, 105, 2, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 104);
	ck_assert_int_eq(uidpool_claim(d, 100, 105, 2, &id, why, sizeof why), -1);
	ck_assert_int_eq(uidpool_claim(d, 100, 105, 1, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 100);
	/* Ranges that only meet in part: ids past the range are no one's. */
	ck_assert_int_eq(uidpool_claim(a, 104, 107, 2, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 106);
	/* The top of the id space works as any other. */
	ck_assert_int_eq(uidpool_claim(a, 4294967290u, 4294967294u, 5, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 4294967290u);
	ck_assert_int_eq(uidpool_claim(b, 4294967290u, 4294967294u, 1, &id, why, sizeof why), -1);
	close(a);
	close(b);
	close(c);
	close(d);
}
END_TEST

/* A claimer killed by SIGKILL leaves nothing behind: the kernel drops its
 * lock with its last fd. */
START_TEST(test_claim_dies_with_its_process)
{
	int ready[2];
	ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char why[256];
		uint32_t id;
		int fd = uidpool_lock_open(lock_path, why, sizeof why);
		if (fd < 0 || uidpool_claim(fd, 500, 503, 4, &id, why, sizeof why) < 0)
			_exit(1);
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char x;
	ck_assert_int_eq(read(ready[0], &x, 1), 1);
	close(ready[0]);
	int fd = opened();
	char why[256] = "";
	uint32_t id;
	ck_assert_int_eq(uidpool_claim(fd, 500, 503, 1, &id, why, sizeof why), -1);
	kill(pid, SIGKILL);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st));
	ck_assert_int_eq(uidpool_claim(fd, 500, 503, 4, &id, why, sizeof why), 0);
	ck_assert_uint_eq(id, 500);
	close(fd);
}
END_TEST

/* Claimers started at the same moment (daemons started together) each get
 * a run of their own: the lock call is the only arbiter, and it is atomic. */
START_TEST(test_racing_claims)
{
	enum { N = 8 };
	int go[2], got[2];
	ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(got, O_CLOEXEC), 0);
	pid_t pids[N];
	for (int i = 0; i < N; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			close(go[1]);
			char why[256], x;
			uint32_t id = 0;
			int fd = uidpool_lock_open(lock_path, why, sizeof why);
			/* Every claimer waits here until all are forked. */
			if (fd < 0 || read(go[0], &x, 1) != 0)
				_exit(1);
			if (uidpool_claim(fd, 700, 700 + 2 * N - 1, 2, &id, why, sizeof why) < 0)
				id = 0;
			(void)!write(got[1], &id, sizeof id);
			pause();
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]); /* EOF: all of them go */
	close(got[1]);
	uint32_t ids[N];
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(read(got[0], &ids[i], sizeof ids[i]), (ssize_t)sizeof ids[i]);
		ck_assert_msg(ids[i] != 0, "a claimer found no run");
		ck_assert_msg(ids[i] >= 700 && ids[i] <= 700 + 2 * N - 2 && (ids[i] - 700) % 2 == 0,
			      "run at %u", ids[i]);
		for (int j = 0; j < i; j++)
			ck_assert_msg(ids[i] != ids[j], "two claimers got the run at %u", ids[i]);
	}
	close(got[0]);
	int fd = opened();
	char why[256];
	uint32_t id;
	ck_assert_int_eq(uidpool_claim(fd, 700, 700 + 2 * N - 1, 1, &id, why, sizeof why), -1);
	close(fd);
	for (int i = 0; i < N; i++) {
		kill(pids[i], SIGKILL);
		ck_assert_int_eq(waitpid(pids[i], NULL, 0), pids[i]);
	}
}
END_TEST

/* A lock file someone else could open or plant is refused, each with a
 * reason that names it. */
START_TEST(test_lock_file_refused)
{
	char why[256] = "", path[160];
	/* No such directory, nor its parent: only the last is made. */
	snprintf(path, sizeof path, "%s/none/sub/uids.lock", dir);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "cannot create the lock directory") && strstr(why, "/none/sub") &&
			      strstr(why, "No such file"),
		      "why: %s", why);
	snprintf(path, sizeof path, "%s/none", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	/* A symlink is not followed, even to a good file. */
	int fd = opened();
	close(fd);
	snprintf(path, sizeof path, "%s/link", dir);
	ck_assert_int_eq(symlink(lock_path, path), 0);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "cannot open the lock file") && strstr(why, path), "why: %s",
		      why);
	/* Not a regular file. */
	snprintf(path, sizeof path, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "not a regular file"), "why: %s", why);
	/* Others may open it, and so lock ids in it. */
	snprintf(path, sizeof path, "%s/open", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	close(fd);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "mode 0644"), "why: %s", why);
	if (geteuid() != 0) {
		printf("check_uidpool: a lock file of another user: not run: needs root (to "
		       "make one)\n");
		return;
	}
	/* Planted by another user. */
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(chown(path, 65534, 65534), 0);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "belongs to uid 65534"), "why: %s", why);
}
END_TEST

/* Mode 0755 as a directory of ours, or a sentence why not. */
static void make_dir(const char *path, mode_t mode)
{
	ck_assert_msg(mkdir(path, 0700) == 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* The lock file's directory: made when missing, and refused when others
 * could create or replace the file in it, each refusal naming it. */
START_TEST(test_lock_dir)
{
	char why[256] = "", sub[128], path[160];
	/* Missing: made, 0755 whatever the umask, with the file in it. */
	snprintf(sub, sizeof sub, "%s/made", dir);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	mode_t old = umask(077);
	int fd = uidpool_lock_open(path, why, sizeof why);
	umask(old);
	ck_assert_msg(fd >= 0, "why: %s", why);
	close(fd);
	struct stat st;
	ck_assert_int_eq(lstat(sub, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert_uint_eq(st.st_uid, geteuid());
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	/* Made already: opened again as it is. */
	fd = uidpool_lock_open(path, why, sizeof why);
	ck_assert_msg(fd >= 0, "why: %s", why);
	close(fd);
	/* A 0700 one of ours is fine, and left 0700. */
	snprintf(sub, sizeof sub, "%s/private", dir);
	make_dir(sub, 0700);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	fd = uidpool_lock_open(path, why, sizeof why);
	ck_assert_msg(fd >= 0, "why: %s", why);
	close(fd);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);

	/* World-writable, even sticky like /tmp or /run/lock: anyone could
	 * create the lock file first. */
	static const mode_t open_modes[] = {01777, 0777, 0775, 0757};
	for (size_t i = 0; i < sizeof open_modes / sizeof *open_modes; i++) {
		snprintf(sub, sizeof sub, "%s/open%04o", dir, (unsigned)open_modes[i]);
		make_dir(sub, open_modes[i]);
		snprintf(path, sizeof path, "%s/uids.lock", sub);
		ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
		char want[32];
		snprintf(want, sizeof want, "mode %04o", (unsigned)open_modes[i]);
		ck_assert_msg(strstr(why, "the lock directory") && strstr(why, sub) &&
				      strstr(why, want) && strstr(why, "other users may create"),
			      "why: %s", why);
		ck_assert_int_eq(access(path, F_OK), -1);
	}
	/* A symlink to a good directory is not followed. */
	snprintf(sub, sizeof sub, "%s/link", dir);
	ck_assert_int_eq(symlink(dir, sub), 0);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, sub) && strstr(why, "is a symlink"), "why: %s", why);
	/* Nor is a dangling one made into a directory. */
	snprintf(sub, sizeof sub, "%s/dangling", dir);
	ck_assert_int_eq(symlink("/nonexistent-sandboxd-target", sub), 0);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, sub) && strstr(why, "is a symlink"), "why: %s", why);
	ck_assert_int_eq(access("/nonexistent-sandboxd-target", F_OK), -1);
	/* Not a directory. */
	snprintf(sub, sizeof sub, "%s/file", dir);
	fd = open(sub, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, sub) && strstr(why, "not a directory"), "why: %s", why);
	/* A path ending in a slash names no file. */
	snprintf(path, sizeof path, "%s/made/", dir);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "names no file"), "why: %s", why);

	if (geteuid() != 0) {
		printf("check_uidpool: a lock directory of another user: not run: needs root (to "
		       "make one)\n");
		return;
	}
	/* Another user's, even 0755: they could replace the file. */
	snprintf(sub, sizeof sub, "%s/theirs", dir);
	make_dir(sub, 0755);
	ck_assert_int_eq(chown(sub, 65534, 65534), 0);
	snprintf(path, sizeof path, "%s/uids.lock", sub);
	ck_assert_int_eq(uidpool_lock_open(path, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "the lock directory") && strstr(why, sub) &&
			      strstr(why, "belongs to uid 65534"),
		      "why: %s", why);
	ck_assert_int_eq(access(path, F_OK), -1);
	/* Root's (ours) is fine. */
	ck_assert_int_eq(chown(sub, 0, 0), 0);
	fd = uidpool_lock_open(path, why, sizeof why);
	ck_assert_msg(fd >= 0, "why: %s", why);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uidpool");
	TCase *tc = tcase_create("pool");
	tcase_add_test(tc, test_take_and_put);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_check_against_system);
	suite_add_tcase(s, tc);
	TCase *claims = tcase_create("claims");
	tcase_add_checked_fixture(claims, dir_up, dir_down);
	tcase_add_test(claims, test_claims_are_disjoint);
	tcase_add_test(claims, test_claim_skips_what_is_held);
	tcase_add_test(claims, test_claim_dies_with_its_process);
	tcase_add_test(claims, test_racing_claims);
	tcase_add_test(claims, test_lock_file_refused);
	tcase_add_test(claims, test_lock_dir);
	suite_add_tcase(s, claims);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
