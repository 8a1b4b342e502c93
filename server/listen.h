/*
 * listen.h - the listening socket: passed by systemd, or bound here.
 */
#ifndef SANDBOXD_LISTEN_H
#define SANDBOXD_LISTEN_H

#include <stdbool.h>
#include <sys/types.h>

struct listener {
	int fd;
	bool activated; /* passed by systemd: never unlink its path */
	char *path;	/* bound path, unlinked on close; NULL when activated */
};

/*
 * Takes the socket systemd passed (LISTEN_PID/LISTEN_FDS, fd 3) when there is
 * one, else binds a Unix stream socket at path with the given mode. A stale
 * socket file at path is replaced; a live one (another daemon answers) or a
 * non-socket is an error. Returns 0, or -1 with *why describing the failure.
 */
int listen_open(struct listener *l, const char *path, mode_t mode, const char **why);
void listen_close(struct listener *l);

#endif
