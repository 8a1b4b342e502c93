/*
 * uidpool.h - worker identities: one id of a dedicated range per worker.
 *
 * When the daemon runs as root, every worker runs as a uid of its own and
 * the gid of the same number, taken from --worker-uids FIRST-LAST. An id is
 * taken when a spawn is requested and given back only once the worker has
 * been reaped: a worker cannot fork, so then no process holds it. Ids are
 * handed out round-robin, so a freed id is the last to be reused.
 *
 * Several daemons of one machine may be given the same range (the default
 * one, most often). Each claims a run of --max-workers consecutive ids of
 * it for its whole life, with an open-file-description lock on the bytes of
 * a lock file all of them share whose offsets are the ids themselves
 * (uidpool_lock_open, uidpool_claim); its pool is then that run alone. The
 * kernel drops the lock when the last fd of that open file description is
 * closed, so when the daemon exits or is killed: the lock file is CLOEXEC
 * and no process the daemon execs keeps it.
 *
 * The pool knows nothing of processes; server/spawn.c maps pids to ids.
 */
#ifndef SANDBOXD_UIDPOOL_H
#define SANDBOXD_UIDPOOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Checks that no user, group or subordinate id range of the system uses an
 * id in [first, last]: the user and group databases (getpwent, getgrent,
 * which read /etc/passwd and /etc/group and whatever NSS adds) and
 * /etc/subuid and /etc/subgid. 0, or -1 with a sentence naming the clash in
 * why.
 */
int uidpool_check(uint32_t first, uint32_t last, char *why, size_t why_len);

/*
 * Opens (creating it, mode 0600) the lock file the daemons of a machine
 * claim their ids in: O_RDWR, CLOEXEC, never through a symlink. Its
 * directory is created (mode 0755) when missing, but not its parents. The
 * directory must be a real one (no symlink) of root or our euid that
 * neither group nor others may write to, or another user could create the
 * lock file first; the file must be a regular file of our own euid that no
 * other user can open, or another user could hold locks in it. The fd (the
 * caller's), or -1 with a sentence naming the path and what failed in why.
 */
int uidpool_lock_open(const char *path, char *why, size_t why_len);

/*
 * Claims count consecutive ids of [first, last] in the lock file fd: a
 * write lock on the bytes [id, id + count) of the lowest run no other open
 * file description holds a lock in. The lock lasts until that description
 * is closed. 0 with the run's first id in *claimed; or -1 with errno EBUSY
 * when every run of count ids meets another daemon's claim, or the errno
 * of the lock call that failed (ENOLCK...), and a sentence in why.
 */
int uidpool_claim(int fd, uint32_t first, uint32_t last, uint32_t count, uint32_t *claimed,
		  char *why, size_t why_len);

/* Makes [first, last] the pool, every id free. 0, or -1 (no memory). */
int uidpool_init(uint32_t first, uint32_t last);

/* Takes a free id into *id. 0, or -1 when every id is taken or retired. */
int uidpool_take(uint32_t *id);

/* Gives back an id that uidpool_take returned. An id some process may
 * still hold is simply never given back. */
void uidpool_put(uint32_t id);

/* Ids neither taken nor retired. */
uint32_t uidpool_free_count(void);

#endif
