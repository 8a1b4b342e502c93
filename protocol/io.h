/* io.h - blocking I/O helpers for the worker and the client tool. */
#ifndef SANDBOXD_IO_H
#define SANDBOXD_IO_H

#include <stddef.h>

/* Writes all n bytes to a blocking fd, retrying on EINTR. 0, or -1 with errno. */
int io_write_all(int fd, const void *p, size_t n);

#endif
