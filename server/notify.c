/* notify.c - the sd_notify datagram protocol; see notify.h. */
#include "notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

static struct sockaddr_un addr;
static socklen_t addr_len;

void notify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (path && (path[0] == '/' || path[0] == '@') && strlen(path) < sizeof addr.sun_path) {
		addr.sun_family = AF_UNIX;
		strcpy(addr.sun_path, path);
		if (path[0] == '@') /* abstract namespace */
			addr.sun_path[0] = '\0';
		addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	}
	unsetenv("NOTIFY_SOCKET");
}

void notify_send(const char *state)
{
	if (!addr_len)
		return;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr, addr_len) < 0)
		log_warn("sd_notify %s failed", state);
	close(fd);
}
