/*
 * owner.h - who a connection belongs to, and what that owner may see.
 *
 * Every connection has an owner, fixed when it is accepted: for a Unix
 * socket the peer's uid and gid from SO_PEERCRED (as they were at
 * connect()). Executions and cached scripts carry the owner that made them;
 * an owner sees only its own, an admin (uid 0, or a member of
 * --admin-group) sees everyone's. --allow-users and --allow-groups admit
 * only the peers they name.
 *
 * The kind leaves room for identities other than a local uid (a TLS
 * client's certificate): each kind has its own key, and two owners are the
 * same owner exactly when their keys are equal.
 *
 * Names in the options are resolved once, at start, through the user and
 * group databases; membership changes take effect on a restart, and the
 * loop never waits on a database lookup.
 */
#ifndef SANDBOXD_OWNER_H
#define SANDBOXD_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum owner_kind {
	OWNER_UNIX = 0, /* a local peer, by uid */
};

/* "uid-4294967295" fits, and so does a later kind's key. */
#define OWNER_KEY_SIZE 48

struct owner {
	enum owner_kind kind;
	uid_t uid;
	gid_t gid;
	bool admin;
	/* Names the owner: unique per owner, stable across restarts, and a
	 * safe file name ("uid-1000"): the script cache keeps each owner's
	 * scripts in a directory of this name. */
	char key[OWNER_KEY_SIZE];
};

/*
 * Resolves the options (each NULL when not given): admin_group is a group
 * name or gid; allow_users and allow_groups are comma-separated names or
 * numeric ids. 0, or -1 with a message in why (for a usage error) when a
 * name is unknown or a list is malformed. Replaces any earlier policy.
 */
int owner_policy_init(const char *admin_group, const char *allow_users, const char *allow_groups,
		      char *why, size_t why_size);
/* Frees the resolved policy (at exit, and before a new owner_policy_init). */
void owner_policy_free(void);

/* The owner of a local peer with these credentials (admin or not, by the
 * policy). */
void owner_unix(struct owner *o, uid_t uid, gid_t gid);
/* Fills o from the peer of a connected Unix socket. -1 with errno when the
 * kernel cannot say who it is. */
int owner_from_socket(struct owner *o, int fd);

/* Whether the allow lists admit o. When not, why says so in a sentence for
 * the client (and the log). */
bool owner_admitted(const struct owner *o, char *why, size_t why_size);

/* A number naming the owner for the scheduler (same owner, same number).
 * A kind without a uid maps its identity to the low 32 bits here (a hash
 * of its key: a collision would only share a turn, never access). */
static inline unsigned long long owner_sched_key(const struct owner *o)
{
	return ((unsigned long long)o->kind << 32) | (unsigned long long)o->uid;
}

/* The same owner. */
bool owner_same(const struct owner *a, const struct owner *b);
/* Whether viewer may see (status, cancel, list, run from the cache) what
 * belongs to thing's owner: its own, or anything for an admin. */
bool owner_sees(const struct owner *viewer, const struct owner *thing);

#endif
