/*
 * check_owner.c - the owner module on its own: resolving the options,
 * admins, admission, sameness, and the peer of a real socket.
 */
#include <check.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../server/owner.h"

static char why[256];

static int init(const char *admin, const char *users, const char *groups)
{
	why[0] = '\0';
	return owner_policy_init(admin, users, groups, why, sizeof why);
}

START_TEST(test_no_policy)
{
	ck_assert_int_eq(init(NULL, NULL, NULL), 0);
	struct owner root, user;
	owner_unix(&root, 0, 0);
	owner_unix(&user, 1000, 1000);
	ck_assert(root.admin);
	ck_assert(!user.admin);
	ck_assert_str_eq(user.key, "uid-1000");
	ck_assert_str_eq(root.key, "uid-0");
	/* Everyone is admitted without allow lists. */
	ck_assert(owner_admitted(&root, why, sizeof why));
	ck_assert(owner_admitted(&user, why, sizeof why));
	ck_assert(owner_sees(&root, &user));
	ck_assert(!owner_sees(&user, &root));
	ck_assert(owner_sees(&user, &user));
	/* The same uid is the same owner, whatever its gid. */
	struct owner other_gid;
	owner_unix(&other_gid, 1000, 5);
	ck_assert(owner_same(&user, &other_gid));
	ck_assert_uint_eq(owner_sched_key(&user), owner_sched_key(&other_gid));
	ck_assert_uint_ne(owner_sched_key(&user), owner_sched_key(&root));
	owner_policy_free();
}
END_TEST

START_TEST(test_admin_group_by_gid)
{
	ck_assert_int_eq(init("4000000123", NULL, NULL), 0);
	struct owner member, other;
	owner_unix(&member, 4000000001u, 4000000123u);
	owner_unix(&other, 4000000002u, 4000000002u);
	ck_assert(member.admin);
	ck_assert(!other.admin);
	ck_assert(owner_sees(&member, &other));
	owner_policy_free();
}
END_TEST

/* Allow lists: only the named; root too must be named. */
START_TEST(test_allow_lists)
{
	ck_assert_int_eq(init(NULL, "root,4000000001", "4000000200"), 0);
	struct owner root, a, b, in_group;
	owner_unix(&root, 0, 0);
	owner_unix(&a, 4000000001u, 4000000001u);
	owner_unix(&b, 4000000002u, 4000000002u);
	owner_unix(&in_group, 4000000003u, 4000000200u);
	ck_assert(owner_admitted(&root, why, sizeof why));
	ck_assert(owner_admitted(&a, why, sizeof why));
	ck_assert(owner_admitted(&in_group, why, sizeof why));
	ck_assert(!owner_admitted(&b, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "uid 4000000002"));
	ck_assert_ptr_nonnull(strstr(why, "--allow-users"));
	/* An allow list without root leaves root out. */
	ck_assert_int_eq(init(NULL, "4000000001", NULL), 0);
	ck_assert(!owner_admitted(&root, why, sizeof why));
	ck_assert(owner_admitted(&a, why, sizeof why));
	owner_policy_free();
}
END_TEST

START_TEST(test_bad_options)
{
	ck_assert_int_eq(init(NULL, "no-such-user-sandboxd", NULL), -1);
	ck_assert_ptr_nonnull(strstr(why, "--allow-users: no user \"no-such-user-sandboxd\""));
	ck_assert_int_eq(init(NULL, NULL, "no-such-group-sandboxd"), -1);
	ck_assert_ptr_nonnull(strstr(why, "--allow-groups: no group"));
	ck_assert_int_eq(init("no-such-group-sandboxd", NULL, NULL), -1);
	ck_assert_ptr_nonnull(strstr(why, "--admin-group: no group"));
	ck_assert_int_eq(init(NULL, "root,", NULL), -1);
	ck_assert_ptr_nonnull(strstr(why, "empty name"));
	ck_assert_int_eq(init(NULL, "", NULL), -1);
	/* (uid_t)-1 is no uid. */
	ck_assert_int_eq(init(NULL, "4294967295", NULL), -1);
	/* A failed init leaves no policy behind: everyone admitted. */
	struct owner u;
	owner_unix(&u, 4000000009u, 4000000009u);
	ck_assert(owner_admitted(&u, why, sizeof why));
}
END_TEST

/* The group database's member list counts, not only the primary gid. */
START_TEST(test_group_members)
{
	/* Any group that lists a member (not root) whose passwd entry
	 * exists. */
	struct group *gr;
	char group[64] = "", member[64] = "";
	setgrent();
	while (!member[0] && (gr = getgrent()) != NULL)
		for (char **m = gr->gr_mem; m && *m && !member[0]; m++)
			if (getpwnam(*m) && getpwnam(*m)->pw_uid != 0) {
				snprintf(group, sizeof group, "%s", gr->gr_name);
				snprintf(member, sizeof member, "%s", *m);
			}
	endgrent();
	if (!member[0]) {
		fprintf(stderr, "check_owner: no group lists a member here: membership by "
				"list not tested\n");
		return;
	}
	struct passwd *pw = getpwnam(member);
	ck_assert_ptr_nonnull(pw);
	uid_t uid = pw->pw_uid;
	ck_assert_int_eq(init(group, NULL, group), 0);
	struct owner o;
	owner_unix(&o, uid, 4000000099u); /* not the group's gid */
	ck_assert_msg(o.admin, "%s, listed in %s, is not admin", member, group);
	ck_assert(owner_admitted(&o, why, sizeof why));
	owner_policy_free();
}
END_TEST

/* A socket's peer is who made it. */
START_TEST(test_from_socket)
{
	ck_assert_int_eq(init(NULL, NULL, NULL), 0);
	int sp[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	struct owner o;
	ck_assert_int_eq(owner_from_socket(&o, sp[0]), 0);
	ck_assert_uint_eq(o.uid, geteuid());
	ck_assert_uint_eq(o.gid, getegid());
	ck_assert(o.admin == (geteuid() == 0));
	close(sp[0]);
	close(sp[1]);
	owner_policy_free();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("owner");
	TCase *tc = tcase_create("owner");
	tcase_add_test(tc, test_no_policy);
	tcase_add_test(tc, test_admin_group_by_gid);
	tcase_add_test(tc, test_allow_lists);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_group_members);
	tcase_add_test(tc, test_from_socket);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
