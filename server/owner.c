/* owner.c - connection owners and the admission policy; see owner.h. */
#include "owner.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A sorted set of ids (uids and gids are both 32-bit unsigned here). */
struct idset {
	unsigned *ids;
	size_t n, cap;
};

static struct {
	bool admin_group_given;
	gid_t admin_gid;
	struct idset admin_members; /* uids listed as members of the group */
	bool allow_lists;	    /* --allow-users or --allow-groups given */
	struct idset allow_uids, allow_gids, allow_members;
} policy;

static int idset_add(struct idset *s, unsigned id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		unsigned *p = realloc(s->ids, cap * sizeof *p);
		if (!p)
			return -1;
		s->ids = p;
		s->cap = cap;
	}
	s->ids[s->n++] = id;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static void idset_seal(struct idset *s)
{
	if (s->n > 1)
		qsort(s->ids, s->n, sizeof *s->ids, cmp_id);
}

static bool idset_has(const struct idset *s, unsigned id)
{
	return s->n && bsearch(&id, s->ids, s->n, sizeof *s->ids, cmp_id) != NULL;
}

static void idset_free(struct idset *s)
{
	free(s->ids);
	*s = (struct idset){NULL, 0, 0};
}

static int fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal id below 2^32 - 1 ((uid_t)-1 means "no id" to the kernel). */
static bool numeric_id(const char *s, unsigned *out)
{
	if (!*s)
		return false;
	unsigned long long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= UINT32_MAX)
			return false;
	}
	*out = (unsigned)v;
	return true;
}

static int resolve_user(const char *name, unsigned *uid, char *why, size_t size)
{
	if (numeric_id(name, uid))
		return 0;
	struct passwd *pw = getpwnam(name);
	if (!pw)
		return fail(why, size, "--allow-users: no user \"%s\"", name);
	*uid = pw->pw_uid;
	return 0;
}

/* A group's gid, and the uids of the members the group database lists. */
static int resolve_group(const char *opt, const char *name, unsigned *gid, struct idset *members,
			 char *why, size_t size)
{
	unsigned id;
	struct group *gr = numeric_id(name, &id) ? getgrgid((gid_t)id) : getgrnam(name);
	if (!gr) {
		if (numeric_id(name, &id)) { /* a gid with no entry: no listed members */
			*gid = id;
			return 0;
		}
		return fail(why, size, "%s: no group \"%s\"", opt, name);
	}
	*gid = gr->gr_gid;
	/* getpwnam below may reuse getgr*'s static storage: copy the names. */
	size_t n = 0;
	while (gr->gr_mem && gr->gr_mem[n])
		n++;
	char **names = calloc(n + 1, sizeof *names);
	if (!names)
		return fail(why, size, "%s: out of memory", opt);
	for (size_t i = 0; i < n; i++)
		names[i] = strdup(gr->gr_mem[i]);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct passwd *pw = names[i] ? getpwnam(names[i]) : NULL;
		/* A member with no passwd entry cannot connect as anyone. */
		if (pw && idset_add(members, pw->pw_uid) < 0)
			rc = fail(why, size, "%s: out of memory", opt);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Calls each for every item of a comma-separated list; empty items are an
 * error (a stray comma is more likely a typo than a wish). */
static int each_item(const char *opt, const char *list, char *why, size_t size,
		     int (*each)(const char *item, char *why, size_t size))
{
	char *copy = strdup(list);
	if (!copy)
		return fail(why, size, "%s: out of memory", opt);
	int rc = 0;
	char *p = copy;
	for (;;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p) {
			rc = fail(why, size, "%s \"%s\": an empty name (expected NAME[,NAME...])",
				  opt, list);
			break;
		}
		if ((rc = each(p, why, size)) < 0)
			break;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	return rc;
}

static int allow_user(const char *item, char *why, size_t size)
{
	unsigned uid = 0;
	if (resolve_user(item, &uid, why, size) < 0)
		return -1;
	return idset_add(&policy.allow_uids, uid) < 0 ? fail(why, size, "out of memory") : 0;
}

static int allow_group(const char *item, char *why, size_t size)
{
	unsigned gid = 0;
	if (resolve_group("--allow-groups", item, &gid, &policy.allow_members, why, size) < 0)
		return -1;
	return idset_add(&policy.allow_gids, gid) < 0 ? fail(why, size, "out of memory") : 0;
}

void owner_policy_free(void)
{
	idset_free(&policy.admin_members);
	idset_free(&policy.allow_uids);
	idset_free(&policy.allow_gids);
	idset_free(&policy.allow_members);
	policy.admin_group_given = policy.allow_lists = false;
}

int owner_policy_init(const char *admin_group, const char *allow_users, const char *allow_groups,
		      char *why, size_t why_size)
{
	owner_policy_free();
	if (admin_group) {
		unsigned gid = 0;
		if (resolve_group("--admin-group", admin_group, &gid, &policy.admin_members, why,
				  why_size) < 0)
			goto err;
		policy.admin_group_given = true;
		policy.admin_gid = (gid_t)gid;
	}
	if (allow_users && each_item("--allow-users", allow_users, why, why_size, allow_user) < 0)
		goto err;
	if (allow_groups &&
	    each_item("--allow-groups", allow_groups, why, why_size, allow_group) < 0)
		goto err;
	policy.allow_lists = allow_users || allow_groups;
	idset_seal(&policy.admin_members);
	idset_seal(&policy.allow_uids);
	idset_seal(&policy.allow_gids);
	idset_seal(&policy.allow_members);
	return 0;
err:
	owner_policy_free();
	return -1;
}

void owner_unix(struct owner *o, uid_t uid, gid_t gid)
{
	o->kind = OWNER_UNIX;
	o->uid = uid;
	o->gid = gid;
	o->admin = uid == 0 || (policy.admin_group_given &&
				(gid == policy.admin_gid || idset_has(&policy.admin_members, uid)));
	snprintf(o->key, sizeof o->key, "uid-%u", (unsigned)uid);
}

int owner_from_socket(struct owner *o, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -1;
	if (len != sizeof cred || cred.uid == (uid_t)-1) {
		errno = EPROTO; /* not a local peer the kernel knows */
		return -1;
	}
	owner_unix(o, cred.uid, cred.gid);
	return 0;
}

bool owner_admitted(const struct owner *o, char *why, size_t why_size)
{
	/* With no allow list everyone who can open the socket is admitted;
	 * with one, root too must be named (or be in a named group). */
	if (!policy.allow_lists || idset_has(&policy.allow_uids, o->uid) ||
	    idset_has(&policy.allow_gids, o->gid) || idset_has(&policy.allow_members, o->uid))
		return true;
	snprintf(why, why_size,
		 "uid %u (gid %u) is not admitted: this daemon serves only the users and groups "
		 "named by --allow-users and --allow-groups",
		 (unsigned)o->uid, (unsigned)o->gid);
	return false;
}

bool owner_same(const struct owner *a, const struct owner *b)
{
	return a->kind == b->kind && strcmp(a->key, b->key) == 0;
}

bool owner_sees(const struct owner *viewer, const struct owner *thing)
{
	return viewer->admin || owner_same(viewer, thing);
}
