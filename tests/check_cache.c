/*
 * check_cache.c - the script cache module on its own: descriptions, dedup,
 * lookup rules, eviction, persistence, and file hygiene.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../server/cache.h"
#include "../server/log.h"
#include "../server/loop.h"

static char dir[64], scripts[96];
/* The infos stores returned, kept for the test's life (borrowed out). */
static json_t *infos[64];
static unsigned n_infos;

static void setup(unsigned max_entries, uint64_t max_bytes)
{
	log_init(LOG_LEVEL_ERR);
	ck_assert_int_eq(loop_init(), 0);
	strcpy(dir, "/tmp/sandboxd-cache-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* The cache creates its own directory (and would its parents). */
	snprintf(scripts, sizeof scripts, "%s/scripts", dir);
	struct cache_settings s = {scripts, max_entries, max_bytes};
	cache_init(&s);
}

/* Stores code for owner and waits for the writer; returns the info
 * (borrowed) or NULL when nothing was stored. */
static json_t *store_as(const char *owner, const char *code)
{
	json_t *info = cache_store(owner, code, strlen(code));
	cache_flush();
	if (info && n_infos < sizeof infos / sizeof infos[0])
		infos[n_infos++] = info;
	return info;
}

static json_t *store(const char *code) { return store_as("uid-1", code); }

static unsigned cleared_count;
static void on_cleared(void *arg, unsigned removed, bool complete)
{
	ck_assert(complete);
	(void)arg;
	cleared_count = removed;
	loop_stop();
}

/* cache_clear in scope, waiting for the writer; returns the count. */
static unsigned clear(const char *scope)
{
	cleared_count = ~0u;
	cache_clear(scope, on_cleared, NULL);
	while (cleared_count == ~0u)
		loop_run();
	return cleared_count;
}

static size_t listed(const char *scope)
{
	json_t *l = cache_list(scope, NULL);
	size_t n = json_array_size(l);
	json_decref(l);
	return n;
}

static const char *name_of(json_t *info)
{
	static char out[2][128];
	static int k;
	k ^= 1;
	snprintf(out[k], sizeof out[k], "%s", json_string_value(json_object_get(info, "name")));
	return out[k];
}

static const char *description_of(const char *code)
{
	static char out[512];
	json_t *info = store(code);
	ck_assert_ptr_nonnull(info);
	snprintf(out, sizeof out, "%s", json_string_value(json_object_get(info, "description")));
	return out;
}

static int files_in(const char *d, const char *prefix)
{
	DIR *dd = opendir(d);
	int n = 0;
	struct dirent *de;
	while (dd && (de = readdir(dd)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	if (dd)
		closedir(dd);
	return n;
}

START_TEST(test_descriptions)
{
	setup(100, 1 << 20);
	ck_assert_str_eq(description_of("// Lists the pods\n// in a namespace\nreturn 1"),
			 "Lists the pods in a namespace");
	ck_assert_str_eq(description_of("/**\n * Sums numbers.\n * Fast.\n */\nreturn 2"),
			 "Sums numbers. Fast.");
	ck_assert_str_eq(description_of("\n\n  // indented\nreturn 3"), "indented");
	ck_assert_str_eq(description_of("return 4 // trailing, not leading"), "");
	ck_assert_str_eq(description_of("// one\n\n// two is after a blank line\nreturn 5"), "one");
	/* Cut to 200 characters, never inside one. */
	char code[1200] = "// ";
	for (int i = 0; i < 300; i++)
		strcat(code, "é");
	strcat(code, "\nreturn 6");
	const char *d = description_of(code);
	ck_assert_uint_eq(strlen(d), 400); /* 200 two-byte characters */
}
END_TEST

START_TEST(test_dedup_and_files)
{
	setup(100, 1 << 20);
	json_t *info = store("// first\nreturn 1");
	ck_assert_ptr_nonnull(info);
	const char *name = json_string_value(json_object_get(info, "name"));
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(info, "content_hash"))), 64);
	ck_assert_ptr_null(store("// first\nreturn 1")); /* the same content */
	char path[256];
	snprintf(path, sizeof path, "%s/scripts/uid-1/%s", dir, name);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 17);
	snprintf(path, sizeof path, "%s/scripts/uid-1", dir);
	ck_assert_int_eq(files_in(path, ".tmp-"), 0);
	ck_assert_int_eq(files_in(path, "script-"), 1);
}
END_TEST

START_TEST(test_lookup_rules)
{
	setup(100, 1 << 20);
	const char *a = json_string_value(json_object_get(store("return 'a'"), "name"));
	char name_a[128];
	snprintf(name_a, sizeof name_a, "%s", a);
	store("return 'b'");
	const char *code, *found;
	size_t len;
	char *matches = NULL;
	ck_assert_int_eq(cache_lookup("uid-1", name_a, &code, &len, &found, &matches), CACHE_FOUND);
	ck_assert_str_eq(code, "return 'a'");
	/* The 12 hex digits of the hash: a unique substring. */
	char sub[13];
	snprintf(sub, sizeof sub, "%.12s", name_a + strlen(name_a) - 15);
	ck_assert_int_eq(cache_lookup("uid-1", sub, &code, &len, &found, &matches), CACHE_FOUND);
	ck_assert_str_eq(found, name_a);
	/* A prefix shared by both is ambiguous, and the message lists them. */
	ck_assert_int_eq(cache_lookup("uid-1", "SCRIPT-", &code, &len, &found, &matches),
			 CACHE_AMBIGUOUS);
	ck_assert_ptr_nonnull(strstr(matches, name_a));
	ck_assert_ptr_nonnull(strstr(matches, ", "));
	free(matches);
	ck_assert_int_eq(cache_lookup("uid-1", "nothing-like-it", &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
}
END_TEST

START_TEST(test_limits_evict_oldest)
{
	setup(2, 1 << 20);
	char first[128];
	snprintf(first, sizeof first, "%s",
		 json_string_value(json_object_get(store("// one\nreturn 1"), "name")));
	store("// two\nreturn 2");
	store("// three\nreturn 3");
	json_t *list = cache_list("uid-1", NULL);
	ck_assert_uint_eq(json_array_size(list), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "description")),
			 "three"); /* newest first */
	json_decref(list);
	/* The evicted file goes too, once the writer has been by. */
	store("// four\nreturn 4");
	char path[256];
	snprintf(path, sizeof path, "%s/scripts/uid-1/%s", dir, first);
	struct stat st;
	ck_assert_int_ne(stat(path, &st), 0);
}
END_TEST

/* Owners: dedup per owner, lookups and lists and clears in scope, NULL
 * (an admin) seeing all; one directory per owner, 0700. */
START_TEST(test_owners_scoped)
{
	setup(100, 1 << 20);
	const char *a = name_of(store_as("uid-10", "// a secret\nreturn 'A'"));
	char name_a[128];
	snprintf(name_a, sizeof name_a, "%s", a);
	/* The same content from another owner is another entry. */
	json_t *b = store_as("uid-20", "// a secret\nreturn 'A'");
	ck_assert_ptr_nonnull(b);
	char name_b[128];
	snprintf(name_b, sizeof name_b, "%s", name_of(b));
	ck_assert_ptr_null(store_as("uid-20", "// a secret\nreturn 'A'"));
	store_as("uid-20", "return 'B only'");
	ck_assert_uint_eq(listed("uid-10"), 1);
	ck_assert_uint_eq(listed("uid-20"), 2);
	ck_assert_uint_eq(listed("uid-30"), 0);
	ck_assert_uint_eq(listed(NULL), 3);
	const char *code, *found;
	size_t len;
	char *matches = NULL;
	char path[256];
	ck_assert_int_eq(cache_lookup("uid-30", name_a, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	ck_assert_int_eq(cache_lookup("uid-30", "script-", &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	/* For uid-10 the prefix is unique: its one script. */
	ck_assert_int_eq(cache_lookup("uid-10", "script-", &code, &len, &found, &matches),
			 CACHE_FOUND);
	ck_assert_str_eq(found, name_a);
	ck_assert_int_eq(cache_lookup(NULL, "script-", &code, &len, &found, &matches),
			 CACHE_AMBIGUOUS);
	free(matches);
	/* Stored in the same second, both owners' copies have one name: for
	 * an admin (NULL) the exact name is ambiguous, its list naming each
	 * owner, and OWNER/NAME picks one. */
	if (strcmp(name_b, name_a) == 0) {
		ck_assert_int_eq(cache_lookup(NULL, name_a, &code, &len, &found, &matches),
				 CACHE_AMBIGUOUS);
		char both[2][160];
		snprintf(both[0], sizeof both[0], "uid-10/%s", name_a);
		snprintf(both[1], sizeof both[1], "uid-20/%s", name_a);
		ck_assert_ptr_nonnull(strstr(matches, both[0]));
		ck_assert_ptr_nonnull(strstr(matches, both[1]));
		free(matches);
	}
	char qualified[160];
	snprintf(qualified, sizeof qualified, "uid-20/%s", name_b);
	ck_assert_int_eq(cache_lookup(NULL, qualified, &code, &len, &found, &matches), CACHE_FOUND);
	ck_assert_str_eq(found, name_b);
	/* The owner's own key is its scope; another's holds nothing for it. */
	ck_assert_int_eq(cache_lookup("uid-20", qualified, &code, &len, &found, &matches),
			 CACHE_FOUND);
	ck_assert_int_eq(cache_lookup("uid-10", qualified, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	snprintf(qualified, sizeof qualified, "uid-10/%s", name_a);
	ck_assert_int_eq(cache_lookup("uid-20", qualified, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	ck_assert_int_eq(cache_lookup("uid-10", qualified, &code, &len, &found, &matches),
			 CACHE_FOUND);
	/* A prefix after OWNER/ follows the usual rules in that owner. */
	ck_assert_int_eq(cache_lookup(NULL, "uid-10/SCRIPT-", &code, &len, &found, &matches),
			 CACHE_FOUND);
	ck_assert_str_eq(found, name_a);
	ck_assert_int_eq(cache_lookup(NULL, "uid-20/script-", &code, &len, &found, &matches),
			 CACHE_AMBIGUOUS);
	ck_assert_ptr_null(strstr(matches, "uid-20/")); /* one owner: names alone */
	free(matches);
	ck_assert_int_eq(cache_lookup(NULL, "../x/script-", &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	/* health's counts: the scope's own. */
	json_t *h = cache_describe("uid-20");
	ck_assert_int_eq(json_integer_value(json_object_get(h, "scripts")), 2);
	ck_assert_int_eq(
		json_integer_value(json_object_get(h, "bytes")),
		(json_int_t)(strlen("// a secret\nreturn 'A'") + strlen("return 'B only'")));
	json_decref(h);
	h = cache_describe("uid-30");
	ck_assert_int_eq(json_integer_value(json_object_get(h, "scripts")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "bytes")), 0);
	json_decref(h);
	h = cache_describe(NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "scripts")), 3);
	json_decref(h);
	/* Keys that are no plain file name are not stored. */
	ck_assert_ptr_null(cache_store("../x", "1", 1));
	ck_assert_ptr_null(cache_store("", "1", 1));
	ck_assert_ptr_null(cache_store("uid-1/..", "1", 1));
	struct stat st;
	snprintf(path, sizeof path, "%s/uid-10", scripts);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	/* A clear in scope clears that owner's only; NULL clears all. */
	ck_assert_uint_eq(clear("uid-20"), 2);
	ck_assert_uint_eq(listed("uid-10"), 1);
	snprintf(path, sizeof path, "%s/uid-10/%s", scripts, name_a);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_uint_eq(clear(NULL), 1);
	ck_assert_int_ne(lstat(path, &st), 0);
	ck_assert_uint_eq(listed(NULL), 0);
}
END_TEST

/* Over the limits, the owner holding the most loses its oldest first: a
 * flood from one owner does not evict another's scripts. */
START_TEST(test_eviction_biggest_owner_first)
{
	setup(4, 1 << 20);
	store_as("uid-1", "return 'keep me'");
	char code[64];
	for (int i = 0; i < 10; i++) {
		snprintf(code, sizeof code, "return %d", i);
		ck_assert_ptr_nonnull(store_as("uid-2", code));
	}
	ck_assert_uint_eq(listed(NULL), 4);
	ck_assert_uint_eq(listed("uid-1"), 1);
	ck_assert_uint_eq(listed("uid-2"), 3);
	const char *c, *found;
	size_t len;
	char *matches = NULL;
	ck_assert_int_eq(cache_lookup("uid-2", "script-", &c, &len, &found, &matches),
			 CACHE_AMBIGUOUS);
	free(matches);
}
END_TEST

/* Restart: owners come back from their directories; files lying in the
 * cache directory itself (from before owners) go to uid-0; a symlink in
 * place of an owner's directory is not followed. */
START_TEST(test_owners_survive_restart)
{
	setup(100, 1 << 20);
	const char *a = name_of(store_as("uid-10", "return 'ten'"));
	char name_a[128];
	snprintf(name_a, sizeof name_a, "%s", a);
	cache_stop();
	char path[320];
	static const char flat[] = "script-2024-01-01T00-00-00-0123456789ab.js";
	snprintf(path, sizeof path, "%s/%s", scripts, flat);
	FILE *f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("return 'old'", f);
	fclose(f);
	/* Another directory's scripts, reached through a symlink "uid-66". */
	char other[128], link[160];
	snprintf(other, sizeof other, "%s/elsewhere", dir);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	snprintf(path, sizeof path, "%s/%s", other, flat);
	f = fopen(path, "we");
	fputs("return 'not mine'", f);
	fclose(f);
	snprintf(link, sizeof link, "%s/uid-66", scripts);
	ck_assert_int_eq(symlink(other, link), 0);

	struct cache_settings s = {scripts, 100, 1 << 20};
	cache_init(&s);
	const char *code, *found;
	size_t len;
	char *matches = NULL;
	ck_assert_int_eq(cache_lookup("uid-10", name_a, &code, &len, &found, &matches),
			 CACHE_FOUND);
	ck_assert_str_eq(code, "return 'ten'");
	ck_assert_int_eq(cache_lookup("uid-0", flat, &code, &len, &found, &matches), CACHE_FOUND);
	ck_assert_str_eq(code, "return 'old'");
	ck_assert_int_eq(cache_lookup("uid-10", flat, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	ck_assert_int_eq(cache_lookup("uid-66", flat, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	snprintf(path, sizeof path, "%s/uid-0/%s", scripts, flat);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	snprintf(path, sizeof path, "%s/%s", scripts, flat);
	ck_assert_int_ne(lstat(path, &st), 0);
	/* Storing for uid-66 does not write through the symlink: the name is
	 * given at once, the write fails later, and the entry leaves the
	 * index (nothing names a script that is not there). */
	json_t *info = cache_store("uid-66", "return 66", 9);
	ck_assert_ptr_nonnull(info);
	const char *late = json_string_value(json_object_get(info, "name"));
	cache_flush();
	ck_assert_int_eq(cache_lookup("uid-66", late, &code, &len, &found, &matches),
			 CACHE_NOT_FOUND);
	ck_assert_uint_eq(listed("uid-66"), 0);
	json_t *d = cache_describe("uid-66");
	ck_assert_int_eq(json_integer_value(json_object_get(d, "scripts")), 0);
	ck_assert(json_is_false(json_object_get(d, "writable")));
	json_decref(d);
	json_decref(info);
	ck_assert_int_eq(files_in(other, "script-"), 1);
}
END_TEST

/* The store returns the entry before its file is written: the name and
 * hash are there at once, the script runs from the index meanwhile, and
 * the write lands after. */
START_TEST(test_store_off_the_reply_path)
{
	setup(100, 1 << 20);
	static const char code[] = "// quick\nreturn 'soon'";
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	json_t *info = cache_store("uid-7", code, strlen(code));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_ptr_nonnull(info);
	double us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	printf("cache: store returned its info in %.1f us (the write goes on)\n", us);
	const char *name = json_string_value(json_object_get(info, "name"));
	const char *hash = json_string_value(json_object_get(info, "content_hash"));
	ck_assert_uint_eq(strlen(hash), 64);
	ck_assert_ptr_nonnull(strstr(name, "-"));
	ck_assert_int_eq(strncmp(name + strlen(name) - 15, hash, 12), 0);
	ck_assert_str_eq(json_string_value(json_object_get(info, "description")), "quick");
	const char *got, *found;
	size_t len;
	char *matches = NULL;
	ck_assert_int_eq(cache_lookup("uid-7", name, &got, &len, &found, &matches), CACHE_FOUND);
	ck_assert_str_eq(got, code);
	/* The same content again, before the write is done: no second entry. */
	ck_assert_ptr_null(cache_store("uid-7", code, strlen(code)));
	cache_flush();
	char path[256];
	snprintf(path, sizeof path, "%s/uid-7/%s", scripts, name);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq((int)st.st_size, (int)strlen(code));
	ck_assert_uint_eq(listed("uid-7"), 1);
	json_decref(info);
	cache_stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");
	tcase_add_test(tc, test_descriptions);
	tcase_add_test(tc, test_dedup_and_files);
	tcase_add_test(tc, test_lookup_rules);
	tcase_add_test(tc, test_limits_evict_oldest);
	tcase_add_test(tc, test_owners_scoped);
	tcase_add_test(tc, test_eviction_biggest_owner_first);
	tcase_add_test(tc, test_owners_survive_restart);
	tcase_add_test(tc, test_store_off_the_reply_path);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
