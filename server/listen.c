/* listen.c - socket activation or bind; see listen.h. */
#include "listen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SD_LISTEN_FDS_START 3

/* sd_listen_fds(3), without libsystemd: the protocol is three env vars. */
static int from_systemd(struct listener *l, const char **why)
{
	const char *pid = getenv("LISTEN_PID");
	const char *fds = getenv("LISTEN_FDS");
	if (!pid || !fds)
		return 0;
	if (strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	long n = strtol(fds, NULL, 10);
	/* Children must not think the sockets are theirs. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (n != 1) {
		*why = "systemd passed other than exactly one socket";
		return -1;
	}
	int fd = SD_LISTEN_FDS_START;
	int type = 0, listening = 0, domain = 0;
	socklen_t len = sizeof type;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &(socklen_t){sizeof listening}) <
		    0 ||
	    !listening ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &(socklen_t){sizeof domain}) < 0 ||
	    domain != AF_UNIX) {
		*why = "the socket systemd passed is not a listening Unix stream socket";
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		*why = "cannot set flags on the socket systemd passed";
		return -1;
	}
	l->fd = fd;
	l->activated = true;
	l->path = NULL;
	return 1;
}

/* Removes a socket file nobody answers on; refuses to touch anything else. */
static int clear_stale(const char *path, const struct sockaddr_un *addr, const char **why)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (*why = "cannot stat the socket path", -1);
	if (!S_ISSOCK(st.st_mode)) {
		*why = "the socket path exists and is not a socket";
		return -1;
	}
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe < 0) {
		*why = "socket";
		return -1;
	}
	int rc = connect(probe, (const struct sockaddr *)addr, sizeof *addr);
	int err = errno;
	close(probe);
	if (rc == 0) {
		*why = "another daemon is already listening on the socket path";
		return -1;
	}
	if (err != ECONNREFUSED) {
		*why = "the socket path exists and cannot be probed";
		return -1;
	}
	if (unlink(path) < 0) {
		*why = "cannot remove the stale socket file";
		return -1;
	}
	return 0;
}

int listen_open(struct listener *l, const char *path, mode_t mode, const char **why)
{
	int rc = from_systemd(l, why);
	if (rc != 0)
		return rc < 0 ? -1 : 0;

	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (!path || !*path || strlen(path) >= sizeof addr.sun_path) {
		*why = "the socket path is empty or longer than 107 bytes";
		return -1;
	}
	strcpy(addr.sun_path, path);
	if (clear_stale(path, &addr, why) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*why = "socket";
		return -1;
	}
	/* The socket file gets exactly mode from bind itself, under the umask
	 * that leaves it: no chmod by path afterwards, which would follow a
	 * symlink planted there between bind and chmod and change the mode of
	 * whatever it points at. bind never follows one (an existing path,
	 * link or not, is EADDRINUSE). */
	mode_t old = umask(~mode & 0777);
	rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
	umask(old);
	if (rc < 0) {
		*why = "cannot bind the socket path";
		close(fd);
		return -1;
	}
	if (listen(fd, SOMAXCONN) < 0) {
		*why = "cannot set up the socket";
		unlink(path);
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->activated = false;
	l->path = strdup(path);
	return 0;
}

void listen_close(struct listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->path) {
		unlink(l->path);
		free(l->path);
		l->path = NULL;
	}
}
