/*
 * uidpool.h - worker identities: one id of a dedicated range per worker.
 *
 * When the daemon runs as root, every worker runs as a uid of its own and
 * the gid of the same number, taken from --worker-uids FIRST-LAST. An id is
 * taken when a spawn is requested and given back only once the worker has
 * been reaped: a worker cannot fork, so then no process holds it. Ids are
 * handed out round-robin, so a freed id is the last to be reused.
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
