/*
 * check_tenancy.c - owners over the real daemon: clients of different uids
 * do not see each other's executions or cached scripts (another owner's is
 * NOT_FOUND, worded as a missing one), admins see all, the allow lists
 * refuse others, and the queue is served round-robin between owners.
 *
 * A client of another uid is a process that switches to that uid
 * (setgroups, setgid, setuid) and connects: the kernel records a Unix
 * socket's peer credentials at connect(), so the child then hands the
 * connected socket to the test (SCM_RIGHTS) and exits, and every request
 * on it is that user's. Switching uids needs root; as another user the
 * suite says so and runs only the checks that need one uid.
 */
#include <check.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/msg.h"
#include "testlib.h"

#define ID_SIZE 32
#define SPIN "for(;;){}"

static uid_t uid_a, uid_b, uid_c;
static gid_t gid_admin;

static bool is_root(const char *test)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr,
		"check_tenancy: %s: not run: needs root (as uid %u: switching a client to "
		"another uid needs root; run make check as root for the two-uid tests)\n",
		test, (unsigned)geteuid());
	return false;
}

static void pick_ids(void)
{
	uid_a = testlib_unused_id(TESTLIB_ID_BASE);
	uid_b = testlib_unused_id(uid_a);
	uid_c = testlib_unused_id(uid_b);
	gid_admin = testlib_unused_id(uid_c);
}

/* Starts a daemon every uid can reach: the socket 0666 in a directory
 * they may traverse (not list). */
static void start_shared(struct daemon *d, const char *const *extra)
{
	const char *args[24] = {"--socket-mode", "0666"};
	int n = 2;
	for (; extra && *extra && n < 23; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	daemon_start(d, args);
	ck_assert_int_eq(chmod(d->dir, 0711), 0);
}

static json_t *async_req(const char *code)
{
	return json_pack("{s:s, s:s, s:i}", "op", "async", "code", code, "timeout_ms", 60000);
}

static void take_id(char *out, json_t *r)
{
	ck_assert_msg(jtrue(r, "ok"), "refused: %s", err_msg(r));
	snprintf(out, ID_SIZE, "%s", jstr(r, "execution_id"));
}

static json_t *on_id(struct client *c, const char *op, const char *id)
{
	return client_call(c, json_pack("{s:s, s:s}", "op", op, "execution_id", id));
}

static json_t *status_wait(struct client *c, const char *id)
{
	return client_call(c, json_pack("{s:s, s:s, s:b, s:i}", "op", "status", "execution_id", id,
					"wait", 1, "wait_ms", 8000));
}

/* msg with every occurrence of word replaced by "<>": two messages that
 * differ only in the name they echo compare equal. */
static char *masked(const char *msg, const char *word)
{
	char *out = calloc(1, strlen(msg) + 3 * 16 + 1);
	const char *p = msg, *hit;
	while ((hit = strstr(p, word)) != NULL) {
		strncat(out, p, (size_t)(hit - p));
		strcat(out, "<>");
		p = hit + strlen(word);
	}
	strcat(out, p);
	return out;
}

/* r is NOT_FOUND worded exactly as the reply for a name that exists
 * nowhere (missing_r, about missing). */
static void assert_as_missing(json_t *r, const char *name, json_t *missing_r, const char *missing)
{
	assert_error(r, "NOT_FOUND", NULL);
	assert_error(missing_r, "NOT_FOUND", NULL);
	char *a = masked(err_msg(r), name), *b = masked(err_msg(missing_r), missing);
	ck_assert_msg(strcmp(a, b) == 0, "\"%s\" differs from \"%s\"", err_msg(r),
		      err_msg(missing_r));
	free(a);
	free(b);
}

static bool listed(json_t *list_reply, const char *key, const char *field, const char *value)
{
	json_t *items = json_object_get(list_reply, key), *it;
	size_t i;
	json_array_foreach (items, i, it)
		if (strcmp(jstr(it, field), value) == 0)
			return true;
	return false;
}

static json_t *list_all(struct client *c)
{
	return client_call(c, json_pack("{s:s, s:i}", "op", "list", "limit", 100));
}

/* ---- executions */

START_TEST(test_executions_are_private)
{
	pick_ids();
	struct daemon d;
	start_shared(&d, NULL);
	struct client a, b, admin;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);

	/* A's: one running, one ended with output and a value. */
	char running[ID_SIZE], ended[ID_SIZE], mine[ID_SIZE];
	json_t *r = client_call(&a, async_req("console.log('started'); " SPIN));
	take_id(running, r);
	json_decref(r);
	r = client_call(&a, async_req("console.log('A private out'); return 'A private value'"));
	take_id(ended, r);
	json_decref(r);
	r = status_wait(&a, ended);
	ck_assert_str_eq(jstr(r, "value"), "A private value");
	json_decref(r);
	r = client_call(&b, async_req("return 'B'"));
	take_id(mine, r);
	json_decref(r);

	/* B: status, cancel, tool_result and a long-poll on A's are all
	 * NOT_FOUND, worded as for an id that never existed. */
	static const char missing[] = "exec_0123456789abcdef";
	const char *ops[] = {"status", "cancel", "tool_result"};
	for (int k = 0; k < 3; k++) {
		for (int which = 0; which < 2; which++) {
			const char *id = which ? ended : running;
			json_t *req = json_pack("{s:s, s:s}", "op", ops[k], "execution_id", id);
			json_t *req_missing =
				json_pack("{s:s, s:s}", "op", ops[k], "execution_id", missing);
			if (k == 2) {
				json_object_set_new(req, "call_id", json_integer(1));
				json_object_set_new(req, "value", json_integer(1));
				json_object_set_new(req_missing, "call_id", json_integer(1));
				json_object_set_new(req_missing, "value", json_integer(1));
			}
			r = client_call(&b, req);
			json_t *m = client_call(&b, req_missing);
			assert_as_missing(r, id, m, missing);
			char *text = json_dumps(r, 0);
			ck_assert_ptr_null(strstr(text, "private"));
			free(text);
			json_decref(r);
			json_decref(m);
		}
	}
	r = status_wait(&b, running);
	json_t *m = status_wait(&b, missing);
	assert_as_missing(r, running, m, missing);
	json_decref(r);
	json_decref(m);

	/* B's cancel changed nothing. */
	r = on_id(&a, "status", running);
	ck_assert_str_eq(jstr(r, "state"), "running");
	json_decref(r);

	/* list: B sees its own only, A its own, the admin all three. */
	r = list_all(&b);
	ck_assert(listed(r, "executions", "execution_id", mine));
	ck_assert(!listed(r, "executions", "execution_id", running));
	ck_assert(!listed(r, "executions", "execution_id", ended));
	ck_assert_uint_eq(json_array_size(json_object_get(r, "executions")), 1);
	json_decref(r);
	r = list_all(&a);
	ck_assert(listed(r, "executions", "execution_id", running));
	ck_assert(listed(r, "executions", "execution_id", ended));
	ck_assert(!listed(r, "executions", "execution_id", mine));
	json_decref(r);
	r = list_all(&admin);
	ck_assert(listed(r, "executions", "execution_id", running));
	ck_assert(listed(r, "executions", "execution_id", ended));
	ck_assert(listed(r, "executions", "execution_id", mine));
	/* and whose each is */
	char owner_a[32], owner_b[32];
	snprintf(owner_a, sizeof owner_a, "uid-%u", (unsigned)uid_a);
	snprintf(owner_b, sizeof owner_b, "uid-%u", (unsigned)uid_b);
	json_t *item;
	size_t i;
	json_array_foreach (json_object_get(r, "executions"), i, item)
		ck_assert_str_eq(jstr(item, "owner"),
				 strcmp(jstr(item, "execution_id"), mine) == 0 ? owner_b : owner_a);
	json_decref(r);
	r = list_all(&a);
	ck_assert(!json_object_get(json_array_get(json_object_get(r, "executions"), 0), "owner"));
	json_decref(r);

	/* The admin reads A's output and cancels A's execution. */
	r = on_id(&admin, "status", ended);
	ck_assert_str_eq(jstr(r, "stdout"), "A private out\n");
	json_decref(r);
	r = on_id(&admin, "cancel", running);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	/* A, not B, still sees it, now cancelled. */
	r = on_id(&a, "status", running);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);

	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* ---- the script cache */

static json_t *run_cached(struct client *c, const char *name)
{
	return client_call(c, json_pack("{s:s, s:s}", "op", "execute", "cached", name));
}

static json_t *cache_list(struct client *c, const char *filter)
{
	json_t *req = json_pack("{s:s}", "op", "cache_list");
	if (filter)
		json_object_set_new(req, "filter", json_string(filter));
	return client_call(c, req);
}

static json_t *cache_clear(struct client *c)
{
	return client_call(c, json_pack("{s:s}", "op", "cache_clear"));
}

static const char secret_code[] = "// the vault\nreturn 'TOPSECRET-4711'";

/* B cannot see or run A's cached script, whichever way it names it. */
static void assert_b_blind(struct client *b, const char *name)
{
	json_t *r = cache_list(b, NULL);
	char *text = json_dumps(r, 0);
	ck_assert_ptr_null(strstr(text, name));
	ck_assert_ptr_null(strstr(text, "vault"));
	free(text);
	json_decref(r);
	r = cache_list(b, "vault");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "scripts")), 0);
	json_decref(r);
	static const char missing[] = "script-2000-01-01T00-00-00-000000000000.js";
	char hex[13];
	snprintf(hex, sizeof hex, "%.12s", name + strlen(name) - 15);
	const char *queries[] = {name, hex, "script-", "vault"};
	for (int i = 0; i < 4; i++) {
		r = run_cached(b, queries[i]);
		json_t *m = run_cached(b, missing);
		assert_as_missing(r, queries[i], m, missing);
		char *t = json_dumps(r, 0);
		ck_assert_ptr_null(strstr(t, "TOPSECRET"));
		free(t);
		json_decref(r);
		json_decref(m);
	}
}

START_TEST(test_cache_is_private)
{
	pick_ids();
	char top[] = "/tmp/sandboxd-tenancy-XXXXXX", cache[64];
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(cache, sizeof cache, "%s/cache", top);
	const char *args[] = {"--cache-dir", cache, NULL};
	struct daemon d;
	start_shared(&d, args);
	struct client a, b, admin;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);

	json_t *r = client_call(&a, json_pack("{s:s, s:s}", "op", "execute", "code", secret_code));
	ck_assert_str_eq(jstr(r, "value"), "TOPSECRET-4711");
	char name[80], hash[80];
	snprintf(name, sizeof name, "%s", jstr(json_object_get(r, "cached"), "name"));
	snprintf(hash, sizeof hash, "%s", jstr(json_object_get(r, "cached"), "content_hash"));
	ck_assert_uint_gt(strlen(name), 20);
	json_decref(r);
	assert_b_blind(&b, name);

	/* The same script from B is B's own entry: dedup is per owner. */
	r = client_call(&b, json_pack("{s:s, s:s}", "op", "execute", "code", secret_code));
	ck_assert_msg(json_object_get(r, "cached") != NULL, "B's copy was not stored");
	ck_assert_str_eq(jstr(json_object_get(r, "cached"), "content_hash"), hash);
	json_decref(r);
	r = cache_list(&b, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "scripts")), 1);
	json_decref(r);

	/* B's cache_clear clears B's only. */
	r = cache_clear(&b);
	ck_assert_int_eq(jint(r, "removed"), 1);
	json_decref(r);
	r = cache_list(&a, NULL);
	ck_assert(listed(r, "scripts", "name", name));
	json_decref(r);
	r = run_cached(&a, name);
	ck_assert_str_eq(jstr(r, "value"), "TOPSECRET-4711");
	json_decref(r);

	/* The admin sees and runs it. */
	r = cache_list(&admin, "vault");
	ck_assert(listed(r, "scripts", "name", name));
	char owner_a[32];
	snprintf(owner_a, sizeof owner_a, "uid-%u", (unsigned)uid_a);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(r, "scripts"), 0), "owner"), owner_a);
	json_decref(r);
	r = run_cached(&admin, name);
	ck_assert_str_eq(jstr(r, "value"), "TOPSECRET-4711");
	json_decref(r);

	/* On disk: A's directory, 0700, the file 0600. */
	char path[256];
	struct stat st;
	snprintf(path, sizeof path, "%s/uid-%u", cache, (unsigned)uid_a);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	snprintf(path, sizeof path, "%s/uid-%u/%s", cache, (unsigned)uid_a, name);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);

	/* Ownership survives a restart. */
	start_shared(&d, args);
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	assert_b_blind(&b, name);
	r = run_cached(&a, name);
	ck_assert_str_eq(jstr(r, "value"), "TOPSECRET-4711");
	json_decref(r);
	/* The admin's cache_clear clears everyone's. */
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);
	r = cache_clear(&admin);
	ck_assert_int_eq(jint(r, "removed"), 1);
	json_decref(r);
	r = cache_list(&a, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "scripts")), 0);
	json_decref(r);
	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A script file from before owners (in the cache directory itself) is
 * moved to uid 0's: admins see it, other users do not. */
START_TEST(test_cache_flat_files_are_admins)
{
	char top[] = "/tmp/sandboxd-tenancy-XXXXXX", cache[64], path[160];
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(cache, sizeof cache, "%s/cache", top);
	ck_assert_int_eq(mkdir(cache, 0700), 0);
	static const char name[] = "script-2024-01-01T00-00-00-0123456789ab.js";
	snprintf(path, sizeof path, "%s/%s", cache, name);
	FILE *f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("// old\nreturn 'from before'", f);
	fclose(f);
	const char *args[] = {"--cache-dir", cache, NULL};
	struct daemon d;
	start_shared(&d, args);
	snprintf(path, sizeof path, "%s/uid-0/%s", cache, name);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	if (geteuid() == 0) {
		struct client admin;
		ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);
		json_t *r = run_cached(&admin, name);
		ck_assert_str_eq(jstr(r, "value"), "from before");
		json_decref(r);
		client_close(&admin);
		pick_ids();
		struct client b;
		client_open_as(&b, d.sock, uid_b, uid_b);
		r = run_cached(&b, name);
		assert_error(r, "NOT_FOUND", NULL);
		json_decref(r);
		client_close(&b);
	} else {
		/* Not root: not an admin, so it is out of reach. */
		json_t *r = exec_once(d.sock, "{\"op\":\"execute\",\"cached\":\"%s\"}", name);
		assert_error(r, "NOT_FOUND", NULL);
		json_decref(r);
	}
	ck_assert_int_eq(daemon_stop(&d), 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A NUL inside a cached name would cut the lookup short: refused. */
START_TEST(test_cached_name_with_nul)
{
	struct daemon d;
	daemon_start(&d, NULL);
	json_t *r = exec_once(d.sock, "{\"op\":\"execute\",\"code\":\"// nul\\nreturn 1\"}");
	const char *name = jstr(json_object_get(r, "cached"), "name");
	ck_assert_uint_gt(strlen(name), 20);
	/* Sent as it is: the test helpers' own JSON parser refuses NUL. */
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_LINE), 0);
	char line[256];
	int n = snprintf(line, sizeof line, "{\"op\":\"execute\",\"cached\":\"%s\\u0000junk\"}\n",
			 name);
	client_send_raw(&c, line, (size_t)n);
	json_t *r2 = client_reply(&c, NULL, 10000);
	ck_assert_ptr_nonnull(r2);
	assert_error(r2, "INVALID_ARGUMENT", "NUL");
	json_decref(r2);
	/* Code may carry NUL. */
	static const char with_nul[] =
		"{\"op\":\"execute\",\"code\":\"return 'a\\u0000b'.length\"}\n";
	client_send_raw(&c, with_nul, sizeof with_nul - 1);
	r2 = client_reply(&c, NULL, 10000);
	ck_assert_int_eq(jint(r2, "value"), 3);
	json_decref(r2);
	client_close(&c);
	json_decref(r);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Writes a script file into owner key's directory of cache (made 0700):
 * the index a restart loads. */
static void plant(const char *cache, const char *key, const char *name, const char *code)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", cache, key);
	ck_assert(mkdir(path, 0700) == 0 || errno == EEXIST);
	snprintf(path, sizeof path, "%s/%s/%s", cache, key, name);
	FILE *f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(code, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Two owners hold a script of one name (the same content stored in the
 * same second is named alike; here planted so, with different content).
 * An admin's name, prefix or substring matching both is INVALID_ARGUMENT
 * naming each owner's (OWNER/NAME), never one of them; OWNER/NAME picks
 * one. Each owner's own lookups are untouched, and another owner's
 * OWNER/NAME is NOT_FOUND worded as a missing name. */
START_TEST(test_cache_same_name_two_owners)
{
	pick_ids();
	char top[] = "/tmp/sandboxd-tenancy-XXXXXX", cache[64];
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(cache, sizeof cache, "%s/cache", top);
	ck_assert_int_eq(mkdir(cache, 0700), 0);
	static const char name[] = "script-2026-01-01T00-00-00-5a5a5a5a5a5a.js";
	static const char other[] = "script-2026-01-01T00-00-01-b0b0b0b0b0b0.js";
	char key_a[32], key_b[32];
	snprintf(key_a, sizeof key_a, "uid-%u", (unsigned)uid_a);
	snprintf(key_b, sizeof key_b, "uid-%u", (unsigned)uid_b);
	plant(cache, key_a, name, "// twin\nreturn 'from A'");
	plant(cache, key_b, name, "// twin\nreturn 'from B'");
	plant(cache, key_b, other, "// only B\nreturn 'B2'");
	const char *args[] = {"--cache-dir", cache, NULL};
	struct daemon d;
	start_shared(&d, args);
	struct client a, b, admin;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);

	/* The admin's list tells the two apart by their owner. */
	json_t *r = cache_list(&admin, NULL), *it;
	size_t i;
	unsigned twins = 0;
	bool seen_a = false, seen_b = false;
	json_array_foreach (json_object_get(r, "scripts"), i, it) {
		if (strcmp(jstr(it, "name"), name) != 0)
			continue;
		twins++;
		seen_a = seen_a || strcmp(jstr(it, "owner"), key_a) == 0;
		seen_b = seen_b || strcmp(jstr(it, "owner"), key_b) == 0;
	}
	ck_assert_uint_eq(twins, 2);
	ck_assert(seen_a && seen_b);
	json_decref(r);

	/* The exact name, a prefix and a substring both hold: ambiguous,
	 * each match named with its owner. */
	char qa[128], qb[128], qother[128];
	snprintf(qa, sizeof qa, "%s/%s", key_a, name);
	snprintf(qb, sizeof qb, "%s/%s", key_b, name);
	snprintf(qother, sizeof qother, "%s/%s", key_b, other);
	const char *ambiguous[] = {name, "script-2026-01-01T00-00-00", "5A5A5A5A"};
	for (int q = 0; q < 3; q++) {
		r = run_cached(&admin, ambiguous[q]);
		assert_error(r, "INVALID_ARGUMENT", "several scripts");
		ck_assert_msg(strstr(err_msg(r), qa) && strstr(err_msg(r), qb),
			      "%s: the owners are not named: %s", ambiguous[q], err_msg(r));
		ck_assert_ptr_nonnull(strstr(err_msg(r), "OWNER/NAME"));
		char *text = json_dumps(r, 0);
		ck_assert_ptr_null(strstr(text, "from A"));
		ck_assert_ptr_null(strstr(text, "from B"));
		free(text);
		json_decref(r);
	}
	/* OWNER/NAME, and OWNER/PREFIX, pick one owner's. */
	r = run_cached(&admin, qa);
	ck_assert_str_eq(jstr(r, "value"), "from A");
	json_decref(r);
	r = run_cached(&admin, qb);
	ck_assert_str_eq(jstr(r, "value"), "from B");
	json_decref(r);
	char prefix[64];
	snprintf(prefix, sizeof prefix, "%s/SCRIPT-2026-01-01T00-00-01", key_b);
	r = run_cached(&admin, prefix);
	ck_assert_str_eq(jstr(r, "value"), "B2");
	json_decref(r);
	/* A unique name needs no owner. */
	r = run_cached(&admin, other);
	ck_assert_str_eq(jstr(r, "value"), "B2");
	json_decref(r);

	/* Owners see only their own: the bare name is theirs. */
	r = run_cached(&a, name);
	ck_assert_str_eq(jstr(r, "value"), "from A");
	json_decref(r);
	r = run_cached(&b, name);
	ck_assert_str_eq(jstr(r, "value"), "from B");
	json_decref(r);
	r = run_cached(&b, qb);
	ck_assert_str_eq(jstr(r, "value"), "from B");
	json_decref(r);
	/* Another's OWNER/NAME is as missing as a name nobody has. */
	static const char missing[] = "script-2000-01-01T00-00-00-000000000000.js";
	char qmissing[128];
	snprintf(qmissing, sizeof qmissing, "%s/%s", key_a, missing);
	json_t *m = run_cached(&b, missing);
	const char *theirs[] = {qa, key_a, "uid-0/script-"};
	for (int q = 0; q < 3; q++) {
		r = run_cached(&b, theirs[q]);
		assert_as_missing(r, theirs[q], m, missing);
		json_decref(r);
	}
	r = run_cached(&a, qother);
	assert_as_missing(r, qother, m, missing);
	json_decref(r);
	json_decref(m);
	r = run_cached(&admin, qmissing);
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);

	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static json_t *health_cache(struct client *c)
{
	json_t *r = client_call(c, json_pack("{s:s}", "op", "health"));
	ck_assert_msg(jtrue(r, "ok"), "health: %s", err_msg(r));
	json_t *cache = json_incref(json_object_get(r, "cache"));
	json_decref(r);
	ck_assert_ptr_nonnull(cache);
	return cache;
}

/* health's cache counts are the caller's own scripts (everyone's for an
 * admin): B cannot learn from them that A stored a script, nor its size. */
START_TEST(test_health_cache_scoped)
{
	pick_ids();
	char top[] = "/tmp/sandboxd-tenancy-XXXXXX", cache[64];
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(cache, sizeof cache, "%s/cache", top);
	const char *args[] = {"--cache-dir", cache, NULL};
	struct daemon d;
	start_shared(&d, args);
	struct client a, b, admin;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);
	json_t *before = health_cache(&b);
	ck_assert_int_eq(jint(before, "scripts"), 0);
	ck_assert_int_eq(jint(before, "bytes"), 0);

	json_t *r = client_call(&a, json_pack("{s:s, s:s}", "op", "execute", "code", secret_code));
	ck_assert_ptr_nonnull(json_object_get(r, "cached"));
	json_decref(r);
	static const char b_code[] = "// mine\nreturn 2";
	r = client_call(&b, json_pack("{s:s, s:s}", "op", "execute", "code", b_code));
	ck_assert_ptr_nonnull(json_object_get(r, "cached"));
	json_decref(r);

	/* B: its own one script, as if A had stored nothing. */
	json_t *hb = health_cache(&b);
	ck_assert_int_eq(jint(hb, "scripts"), 1);
	ck_assert_int_eq(jint(hb, "bytes"), (json_int_t)strlen(b_code));
	ck_assert_str_eq(jstr(hb, "dir"), jstr(before, "dir"));
	json_t *ha = health_cache(&a);
	ck_assert_int_eq(jint(ha, "scripts"), 1);
	ck_assert_int_eq(jint(ha, "bytes"), (json_int_t)strlen(secret_code));
	/* The admin: the totals. */
	json_t *hadmin = health_cache(&admin);
	ck_assert_int_eq(jint(hadmin, "scripts"), 2);
	ck_assert_int_eq(jint(hadmin, "bytes"), (json_int_t)(strlen(secret_code) + strlen(b_code)));
	printf("tenancy: health cache for B %lld scripts %lld bytes, for A %lld/%lld, for the "
	       "admin %lld/%lld\n",
	       (long long)jint(hb, "scripts"), (long long)jint(hb, "bytes"),
	       (long long)jint(ha, "scripts"), (long long)jint(ha, "bytes"),
	       (long long)jint(hadmin, "scripts"), (long long)jint(hadmin, "bytes"));
	json_decref(before);
	json_decref(ha);
	json_decref(hb);
	json_decref(hadmin);
	/* Once A's is cleared, B's figures are still B's. */
	r = cache_clear(&a);
	ck_assert_int_eq(jint(r, "removed"), 1);
	json_decref(r);
	hb = health_cache(&b);
	ck_assert_int_eq(jint(hb, "scripts"), 1);
	ck_assert_int_eq(jint(hb, "bytes"), (json_int_t)strlen(b_code));
	json_decref(hb);
	ha = health_cache(&a);
	ck_assert_int_eq(jint(ha, "scripts"), 0);
	json_decref(ha);
	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- admission */

static void assert_refused(struct client *c, const char *why)
{
	/* Two requests in one write: one answer, then the connection
	 * closes. */
	struct buf two = BUF_INIT;
	json_t *m1 = json_pack("{s:s, s:i}", "op", "health", "id", 1);
	json_t *m2 = json_pack("{s:s, s:i}", "op", "list", "id", 2);
	ck_assert_int_eq(msg_encode(&two, c->mode, m1), 0);
	ck_assert_int_eq(msg_encode(&two, c->mode, m2), 0);
	client_send_raw(c, buf_peek(&two), buf_len(&two));
	json_decref(m1);
	json_decref(m2);
	buf_free(&two);
	json_t *r = client_reply(c, NULL, 10000);
	ck_assert_ptr_nonnull(r);
	assert_error(r, "PERMISSION_DENIED", why);
	ck_assert_int_eq(jint(r, "id"), 1);
	json_decref(r);
	ck_assert(client_eof(c, 10000));
}

static void assert_admitted(struct client *c)
{
	json_t *r = client_call(c, json_pack("{s:s}", "op", "health"));
	ck_assert_msg(jtrue(r, "ok"), "refused: %s", err_msg(r));
	json_decref(r);
}

static unsigned log_count(const struct daemon *d, const char *needle)
{
	char *log = daemon_log(d);
	unsigned n = 0;
	for (const char *p = log; (p = strstr(p, needle)) != NULL; p++)
		n++;
	free(log);
	return n;
}

START_TEST(test_allow_users)
{
	struct daemon d;
	char me[16], who[64];
	if (geteuid() != 0) {
		/* One uid: allowing only root refuses us; allowing us admits. */
		is_root("test_allow_users (two-uid part)");
		const char *args[] = {"--allow-users", "root", NULL};
		daemon_start(&d, args);
		struct client c;
		ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
		snprintf(who, sizeof who, "uid %u", (unsigned)geteuid());
		assert_refused(&c, who);
		client_close(&c);
		ck_assert_uint_eq(log_count(&d, "refused"), 1);
		ck_assert_int_eq(daemon_stop(&d), 0);
		snprintf(me, sizeof me, "%u", (unsigned)geteuid());
		const char *args2[] = {"--allow-users", me, NULL};
		daemon_start(&d, args2);
		ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
		assert_admitted(&c);
		client_close(&c);
		ck_assert_int_eq(daemon_stop(&d), 0);
		return;
	}
	pick_ids();
	/* A by uid, members of gid_admin's group by gid: B and root are not
	 * listed, so they are refused (root too: it is not named). */
	snprintf(me, sizeof me, "%u", (unsigned)uid_a);
	char group[16];
	snprintf(group, sizeof group, "%u", (unsigned)gid_admin);
	const char *args[] = {"--allow-users", me, "--allow-groups", group, NULL};
	start_shared(&d, args);
	struct client a, b, c, root;
	client_open_as(&a, d.sock, uid_a, uid_a);
	assert_admitted(&a);
	client_open_as(&c, d.sock, uid_c, gid_admin);
	assert_admitted(&c);
	client_open_as(&b, d.sock, uid_b, uid_b);
	snprintf(who, sizeof who, "uid %u", (unsigned)uid_b);
	assert_refused(&b, who);
	ck_assert_int_eq(client_open(&root, d.sock, FRAME_MODE_BINARY), 0);
	assert_refused(&root, "--allow-users");
	/* once per connection, at most once a second */
	ck_assert_uint_ge(log_count(&d, "refused"), 1);
	ck_assert_uint_le(log_count(&d, "refused"), 2);
	/* A still works after the refusals. */
	json_t *r = client_call(&a, json_pack("{s:s, s:s}", "op", "execute", "code", "return 7"));
	ck_assert_int_eq(jint(r, "value"), 7);
	json_decref(r);
	client_close(&a);
	client_close(&b);
	client_close(&c);
	client_close(&root);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A peer that is not admitted and says nothing is closed after
 * --frame-timeout-ms, not --idle-timeout-ms: it cannot sit on a
 * connection slot. Here the test's own uid is the one not listed. */
START_TEST(test_refused_silent_peer_closed)
{
	char other[16];
	snprintf(other, sizeof other, "%u", geteuid() == 0 ? TESTLIB_ID_BASE - 1 : 0u);
	const char *args[] = {"--allow-users", other, "--frame-timeout-ms", "300", NULL};
	struct daemon d;
	daemon_start(&d, args);
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	ck_assert_msg(client_eof(&c, 10000), "a silent refused peer was kept open");
	client_close(&c);
	ck_assert_uint_eq(log_count(&d, "refused"), 1);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* --admin-group: a member (here by its gid) sees every owner's. */
START_TEST(test_admin_group)
{
	pick_ids();
	char group[16];
	snprintf(group, sizeof group, "%u", (unsigned)gid_admin);
	const char *args[] = {"--admin-group", group, NULL};
	struct daemon d;
	start_shared(&d, args);
	struct client a, b, member;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	client_open_as(&member, d.sock, uid_c, gid_admin);
	char id[ID_SIZE];
	json_t *r = client_call(&a, async_req("return 'A'"));
	take_id(id, r);
	json_decref(r);
	r = status_wait(&member, id);
	ck_assert_str_eq(jstr(r, "value"), "A");
	json_decref(r);
	r = list_all(&member);
	ck_assert(listed(r, "executions", "execution_id", id));
	json_decref(r);
	r = on_id(&b, "status", id);
	assert_error(r, "NOT_FOUND", NULL);
	json_decref(r);
	client_close(&a);
	client_close(&b);
	client_close(&member);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Unknown names and bad caps are usage errors: exit status 100. */
START_TEST(test_usage_errors)
{
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_ptr_nonnull(bin);
	const char *cases[][3] = {
		{"--allow-users", "no-such-user-sandboxd", "no user"},
		{"--allow-groups", "no-such-group-sandboxd", "no group"},
		{"--admin-group", "no-such-group-sandboxd", "no group"},
		{"--allow-users", "root,,root", "empty name"},
		{"--max-running-per-owner", "0", "--max-running-per-owner"},
		{"--max-queued-per-owner", "100000", "--max-queued-per-owner"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int p[2];
		ck_assert_int_eq(pipe(p), 0);
		pid_t pid = fork();
		if (pid == 0) {
			dup2(p[1], 2);
			execl(bin, bin, "--socket", "/nonexistent/s.sock", cases[i][0], cases[i][1],
			      (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		char out[512] = "";
		size_t n = 0;
		ssize_t got;
		while ((got = read(p[0], out + n, sizeof out - 1 - n)) > 0)
			n += (size_t)got;
		close(p[0]);
		int st;
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 100, "%s %s: status %#x",
			      cases[i][0], cases[i][1], st);
		ck_assert_msg(strstr(out, cases[i][2]) != NULL, "%s %s: \"%s\"", cases[i][0],
			      cases[i][1], out);
	}
}
END_TEST

/* ---- the fair queue */

/* Owner A holds the only slot and has 20 more waiting; owner B's one
 * execution is next, and gets the slot when it frees, not after A's 20. */
START_TEST(test_fair_queue)
{
	pick_ids();
	const char *args[] = {"--max-workers", "1", NULL};
	struct daemon d;
	start_shared(&d, args);
	struct client a, b, admin;
	client_open_as(&a, d.sock, uid_a, uid_a);
	client_open_as(&b, d.sock, uid_b, uid_b);
	ck_assert_int_eq(client_open(&admin, d.sock, FRAME_MODE_BINARY), 0);
	enum { MANY = 20 };
	char blocker[ID_SIZE], queued[MANY][ID_SIZE], bid[ID_SIZE];
	json_t *r = client_call(&a, async_req(SPIN));
	take_id(blocker, r);
	ck_assert_str_eq(jstr(r, "state"), "running");
	json_decref(r);
	for (int i = 0; i < MANY; i++) {
		/* They would never end: were one started before B, B would wait
		 * for good. */
		r = client_call(&a, async_req(SPIN));
		take_id(queued[i], r);
		ck_assert_int_eq(jint(r, "queue_position"), i + 1);
		json_decref(r);
	}
	r = client_call(&b, async_req("return 'B ran'"));
	take_id(bid, r);
	ck_assert_str_eq(jstr(r, "state"), "pending");
	ck_assert_int_eq(jint(r, "queue_position"), 1); /* ahead of A's 20 */
	json_decref(r);
	/* A's first waiting one is now second; the rest follow it. */
	r = on_id(&a, "status", queued[0]);
	ck_assert_int_eq(jint(r, "queue_position"), 2);
	json_decref(r);
	r = on_id(&a, "status", queued[MANY - 1]);
	ck_assert_int_eq(jint(r, "queue_position"), MANY + 1);
	json_decref(r);

	r = on_id(&a, "cancel", blocker);
	ck_assert_str_eq(jstr(r, "state"), "cancelled");
	json_decref(r);
	r = status_wait(&b, bid);
	ck_assert_msg(strcmp(jstr(r, "state"), "completed") == 0, "B is %s", jstr(r, "state"));
	ck_assert_str_eq(jstr(r, "value"), "B ran");
	json_decref(r);
	/* Of A's 20, at most the first has started since (B's slot went to
	 * it); none ended. */
	int started = 0;
	for (int i = 0; i < MANY; i++) {
		r = on_id(&a, "status", queued[i]);
		const char *st = jstr(r, "state");
		ck_assert_msg(strcmp(st, "pending") == 0 || (i == 0 && strcmp(st, "running") == 0),
			      "A's #%d is %s", i, st);
		started += strcmp(st, "pending") != 0;
		json_decref(r);
	}
	ck_assert_int_le(started, 1);
	json_t *h = client_call(&admin, json_pack("{s:s}", "op", "health"));
	ck_assert_int_ge(jint(h, "queued"), MANY - 1);
	json_decref(h);
	client_close(&a);
	client_close(&b);
	client_close(&admin);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* Per-owner caps: with 2 workers one owner runs 1 (the default leaves a
 * slot to others) and queues at most --max-queued-per-owner; another owner
 * starts at once and still queues. */
START_TEST(test_owner_caps)
{
	const char *args[] = {"--max-workers", "2", "--max-queued-per-owner", "3", NULL};
	struct daemon d;
	bool root = is_root("test_owner_caps (second owner)");
	if (root)
		start_shared(&d, args);
	else
		daemon_start(&d, args);
	struct client a;
	if (root) {
		pick_ids();
		client_open_as(&a, d.sock, uid_a, uid_a);
	} else {
		ck_assert_int_eq(client_open(&a, d.sock, FRAME_MODE_BINARY), 0);
	}
	char id[5][ID_SIZE];
	for (int i = 0; i < 4; i++) {
		json_t *r = client_call(&a, async_req(SPIN));
		take_id(id[i], r);
		/* A second slot is free, but A may hold only one. */
		ck_assert_str_eq(jstr(r, "state"), i ? "pending" : "running");
		json_decref(r);
	}
	json_t *r = client_call(&a, async_req(SPIN));
	assert_error(r, "RESOURCE_EXHAUSTED", "--max-queued-per-owner");
	assert_error(r, "RESOURCE_EXHAUSTED", "3 of your executions");
	json_decref(r);
	json_t *h = exec_once(d.sock, "{\"op\":\"health\"}");
	ck_assert_int_eq(jint(h, "workers_running"), 1);
	ck_assert_int_eq(jint(h, "queued"), 3);
	json_decref(h);
	if (root) {
		struct client b;
		client_open_as(&b, d.sock, uid_b, uid_b);
		r = client_call(&b, async_req(SPIN));
		take_id(id[4], r);
		ck_assert_str_eq(jstr(r, "state"), "running");
		json_decref(r);
		r = client_call(&b, async_req("return 1"));
		ck_assert(jtrue(r, "ok"));
		ck_assert_str_eq(jstr(r, "state"), "pending");
		json_decref(r);
		h = exec_once(d.sock, "{\"op\":\"health\"}");
		ck_assert_int_eq(jint(h, "workers_running"), 2);
		json_decref(h);
		client_close(&b);
	}
	client_close(&a);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* --queue-bytes is shared: one owner's waiting code may fill at most half
 * of it, and another owner's execution still finds room (B's 250-byte
 * execute was refused once A's big scripts filled it). */
START_TEST(test_queue_bytes_share)
{
	const char *args[] = {"--max-workers", "2", "--queue-bytes", "1M", NULL};
	struct daemon d;
	bool root = is_root("test_queue_bytes_share (second owner)");
	if (root)
		start_shared(&d, args);
	else
		daemon_start(&d, args);
	struct client a;
	if (root) {
		pick_ids();
		client_open_as(&a, d.sock, uid_a, uid_a);
	} else {
		ck_assert_int_eq(client_open(&a, d.sock, FRAME_MODE_BINARY), 0);
	}
	/* 200 KB scripts that spin: A's share (512 KiB) holds two waiting. */
	size_t big = 200000;
	char *code = malloc(big + 1);
	memset(code, ' ', big);
	memcpy(code, SPIN, strlen(SPIN));
	code[big] = '\0';
	int accepted = 0;
	json_t *r = NULL;
	for (int i = 0; i < 8; i++) {
		r = client_call(&a, async_req(code));
		if (!jtrue(r, "ok"))
			break;
		accepted++;
		json_decref(r);
		r = NULL;
	}
	ck_assert_ptr_nonnull(r);
	assert_error(r, "RESOURCE_EXHAUSTED", "half of --queue-bytes");
	json_decref(r);
	printf("tenancy: one owner's 200 KB scripts: %d accepted before its half of "
	       "--queue-bytes 1M was full\n",
	       accepted);
	ck_assert_int_ge(accepted, 2);
	ck_assert_int_le(accepted, 5);
	if (root) {
		struct client b;
		client_open_as(&b, d.sock, uid_b, uid_b);
		r = client_call(&b, async_req(code));
		ck_assert_msg(jtrue(r, "ok"), "B refused: %s", err_msg(r));
		json_decref(r);
		r = client_call(&b, async_req("return 1")); /* the 250-byte one */
		ck_assert_msg(jtrue(r, "ok"), "B refused: %s", err_msg(r));
		json_decref(r);
		client_close(&b);
	}
	free(code);
	client_close(&a);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A peer the allow lists refuse, connecting again and again: the warning
 * is logged at most once a second, with a count of those held back
 * (442,985 lines in 5 s before). */
START_TEST(test_refused_log_rate_limited)
{
	char other[16];
	snprintf(other, sizeof other, "%u", geteuid() == 0 ? TESTLIB_ID_BASE - 1 : 0u);
	const char *args[] = {"--allow-users", other, NULL};
	struct daemon d;
	daemon_start(&d, args);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum { N = 3000 };
	for (int i = 0; i < N; i++) {
		struct client c;
		ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
		client_close(&c);
	}
	/* The last of them is seen: a refused peer that speaks is answered. */
	struct client c;
	ck_assert_int_eq(client_open(&c, d.sock, FRAME_MODE_BINARY), 0);
	assert_refused(&c, "not admitted");
	client_close(&c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	unsigned lines = log_count(&d, "refused");
	printf("tenancy: %d refused connections in %.1f s: %u log lines\n", N + 1, secs, lines);
	ck_assert_uint_ge(lines, 1);
	ck_assert_uint_le(lines, (unsigned)secs + 2);
	ck_assert_int_eq(daemon_stop(&d), 0);
}
END_TEST

/* A test that needs two uids (so root) is added only as root: otherwise it
 * is not run, said so, and not counted as passed. */
static void add_root_test(TCase *tc, const TTest *t, const char *name)
{
	if (is_root(name))
		tcase_add_test(tc, t);
}

int main(void)
{
	Suite *s = suite_create("tenancy");
	TCase *tc = tcase_create("tenancy");
	tcase_set_timeout(tc, 90);
	add_root_test(tc, test_executions_are_private, "test_executions_are_private");
	add_root_test(tc, test_cache_is_private, "test_cache_is_private");
	tcase_add_test(tc, test_cache_flat_files_are_admins);
	tcase_add_test(tc, test_cached_name_with_nul);
	add_root_test(tc, test_cache_same_name_two_owners, "test_cache_same_name_two_owners");
	add_root_test(tc, test_health_cache_scoped, "test_health_cache_scoped");
	tcase_add_test(tc, test_allow_users);
	tcase_add_test(tc, test_refused_silent_peer_closed);
	add_root_test(tc, test_admin_group, "test_admin_group");
	tcase_add_test(tc, test_usage_errors);
	add_root_test(tc, test_fair_queue, "test_fair_queue");
	tcase_add_test(tc, test_owner_caps);
	tcase_add_test(tc, test_queue_bytes_share);
	tcase_add_test(tc, test_refused_log_rate_limited);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
