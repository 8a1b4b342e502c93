/*
 * notify.h - sd_notify(3) without libsystemd: tell the service manager (or
 * a test harness) that the daemon is ready or stopping.
 */
#ifndef SANDBOXD_NOTIFY_H
#define SANDBOXD_NOTIFY_H

/* Reads and clears NOTIFY_SOCKET, so no child inherits it. */
void notify_init(void);
/* Sends state ("READY=1", "STOPPING=1"...) when a socket was given. */
void notify_send(const char *state);

#endif
