/*
 * check_uidpool.c - the pool of worker ids: each id to one taker at a time,
 * round-robin, back only when given back, none when all are out; and the
 * start-up check against the system's users and groups.
 */
#include <check.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	Suite *s = suite_create("uidpool");
	TCase *tc = tcase_create("pool");
	tcase_add_test(tc, test_take_and_put);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_check_against_system);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
