/*
 * fault.c - fail chosen calls by count: linked into bin/sandboxd-fault with
 * -Wl,--wrap for each call below (`make fault`).
 *
 *     SANDBOXD_FAULT="malloc:1200,send:7" bin/sandboxd-fault ...
 *
 * makes the 1200th allocation and the 7th send fail, once each, with the
 * errno the call would give when the resource runs out. Kinds:
 *   malloc      every malloc, calloc, realloc, strdup, strndup, vasprintf
 *               and jansson allocation, counted together (ENOMEM)
 *   pipe2, socketpair, accept4   (EMFILE)
 *   write       to a file (ENOSPC), a pipe or a socket (EAGAIN); an eventfd's
 *               write cannot fail short of a counter overflow and is spared
 *   send        send and sendmsg (EAGAIN)
 *   fsync       (EIO)
 *   rename      renameat, the cache's atomic replace (EIO)
 *   clone       the forkserver's clone of a worker (EAGAIN): the supervisor
 *               then sees the spawn request fail
 *
 * Counting starts when the supervisor first calls accept4, so start-up is
 * never failed and the counts of two runs of the same workload line up.
 * SANDBOXD_FAULT_AFTER_ACCEPTS=K starts it instead as the K-th connection
 * is accepted: the counts then cover that connection and what follows
 * only, so a sweep can aim at one request on it.
 * Only the supervisor counts (and so fails) calls, with one exception: the
 * forkserver (an exec of this binary with --forkserver) counts its clones
 * when "clone" is asked for. It reads the setting from the supervisor's
 * environment as it started (/proc/PPID/environ), whatever environment it
 * was given itself; the workers, clones of the forkserver, fail nothing.
 *
 * SANDBOXD_FAULT_BACKTRACE=1 logs the stack of each failed call (the
 * fault build exports its symbols for it).
 *
 * At exit the supervisor logs how many calls of each kind it counted
 * ("sandboxd-fault: counted malloc=N ..."), so a test can learn the range
 * of counts a workload reaches and sweep it.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum kind {
	K_MALLOC,
	K_PIPE2,
	K_SOCKETPAIR,
	K_ACCEPT4,
	K_WRITE,
	K_SEND,
	K_FSYNC,
	K_RENAME,
	K_CLONE,
	K_COUNT
};

static const char *const kind_names[K_COUNT] = {
	"malloc", "pipe2", "socketpair", "accept4", "write", "send", "fsync", "rename", "clone",
};

enum role { ROLE_NONE, ROLE_SUPERVISOR, ROLE_FORKSERVER };

static enum role role;
static bool counting;
static unsigned long start_accepts; /* SANDBOXD_FAULT_AFTER_ACCEPTS; 0: the first call */
static unsigned long accepted;
static bool backtraces;		   /* SANDBOXD_FAULT_BACKTRACE: the failing call's stack */
static unsigned long nth[K_COUNT]; /* the call to fail; 0: none */
static unsigned long calls[K_COUNT];

/* The real functions, which --wrap names __real_*. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **out, const char *fmt, va_list ap);
int __real_pipe2(int fds[2], int flags);
int __real_socketpair(int domain, int type, int protocol, int sv[2]);
int __real_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
ssize_t __real_write(int fd, const void *p, size_t n);
ssize_t __real_send(int fd, const void *p, size_t n, int flags);
ssize_t __real_sendmsg(int fd, const struct msghdr *msg, int flags);
int __real_fsync(int fd);
int __real_renameat(int from_dir, const char *from, int to_dir, const char *to);
long __real_syscall(long number, ...);

/* The wrappers, declared for -Wmissing-prototypes. */
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);
int __wrap_pipe2(int fds[2], int flags);
int __wrap_socketpair(int domain, int type, int protocol, int sv[2]);
int __wrap_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
ssize_t __wrap_write(int fd, const void *p, size_t n);
ssize_t __wrap_send(int fd, const void *p, size_t n, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags);
int __wrap_fsync(int fd);
int __wrap_renameat(int from_dir, const char *from, int to_dir, const char *to);
long __wrap_syscall(long number, ...);

static void say(const char *s) { (void)!__real_write(2, s, strlen(s)); }

/* Counts a call of kind k; true when it is the one to fail. Safe from any
 * thread (the cache writer writes, fsyncs and renames) and from inside
 * malloc: it neither allocates nor takes a lock. */
static bool hit(enum kind k)
{
	if (!counting || (role == ROLE_FORKSERVER && k != K_CLONE))
		return false;
	unsigned long n = __atomic_add_fetch(&calls[k], 1, __ATOMIC_RELAXED);
	if (n != nth[k])
		return false;
	char line[96];
	int len = snprintf(line, sizeof line, "sandboxd-fault: failing %s call %lu (pid %d)\n",
			   kind_names[k], n, (int)getpid());
	if (len > 0)
		(void)!__real_write(2, line,
				    (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
	if (backtraces) {
		void *frames[32];
		backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
	}
	return true;
}

/* Parses "kind:N,kind:N"; unknown kinds are reported and ignored. */
static void parse(const char *spec, bool clone_only)
{
	char copy[512];
	snprintf(copy, sizeof copy, "%s", spec);
	char *save = NULL;
	for (char *item = strtok_r(copy, ", ", &save); item; item = strtok_r(NULL, ", ", &save)) {
		char *colon = strchr(item, ':');
		unsigned long n = colon ? strtoul(colon + 1, NULL, 10) : 0;
		if (colon)
			*colon = '\0';
		int k = 0;
		while (k < K_COUNT && strcmp(kind_names[k], item) != 0)
			k++;
		if (k == K_COUNT || n == 0) {
			say("sandboxd-fault: SANDBOXD_FAULT: ignoring an item (kind:N, N from "
			    "1)\n");
			continue;
		}
		if (!clone_only || k == K_CLONE)
			nth[k] = n;
	}
}

/* The supervisor's environment as it was exec'd, for the forkserver. */
static void parse_parent_env(void)
{
	char path[64], env[65536];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, env, sizeof env - 1);
	close(fd);
	if (n <= 0)
		return;
	env[n] = '\0';
	for (char *p = env; p < env + n; p += strlen(p) + 1)
		if (strncmp(p, "SANDBOXD_FAULT=", 15) == 0)
			parse(p + 15, true);
}

static void *json_alloc(size_t n) { return __wrap_malloc(n); }

/* Runs before main with main's arguments (glibc passes them to the
 * executable's constructors). */
__attribute__((constructor)) static void fault_init(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--forkserver") == 0) {
		role = ROLE_FORKSERVER;
		parse_parent_env();
		counting = nth[K_CLONE] != 0;
		return;
	}
	role = ROLE_SUPERVISOR;
	backtraces = getenv("SANDBOXD_FAULT_BACKTRACE") != NULL;
	if (backtraces) { /* loads libgcc now, not from inside a failing malloc */
		void *frame;
		backtrace(&frame, 1);
	}
	const char *spec = getenv("SANDBOXD_FAULT");
	if (spec)
		parse(spec, false);
	const char *after = getenv("SANDBOXD_FAULT_AFTER_ACCEPTS");
	if (after)
		start_accepts = strtoul(after, NULL, 10);
	json_set_alloc_funcs(json_alloc, free);
}

__attribute__((destructor)) static void fault_report(void)
{
	if (role != ROLE_SUPERVISOR)
		return;
	char line[512];
	int len = snprintf(line, sizeof line, "sandboxd-fault: counted");
	for (int k = 0; k < K_COUNT && len > 0 && (size_t)len < sizeof line; k++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lu", kind_names[k],
				calls[k]);
	if (len > 0 && (size_t)len < sizeof line - 1) {
		line[len++] = '\n';
		(void)!__real_write(2, line, (size_t)len);
	}
}

/* ---- allocation */

void *__wrap_malloc(size_t n)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strndup(s, n);
}

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (hit(K_MALLOC)) {
		errno = ENOMEM;
		return -1;
	}
	return __real_vasprintf(out, fmt, ap);
}

/* ---- fds */

int __wrap_pipe2(int fds[2], int flags)
{
	if (hit(K_PIPE2)) {
		errno = EMFILE;
		return -1;
	}
	return __real_pipe2(fds, flags);
}

int __wrap_socketpair(int domain, int type, int protocol, int sv[2])
{
	if (hit(K_SOCKETPAIR)) {
		errno = EMFILE;
		return -1;
	}
	return __real_socketpair(domain, type, protocol, sv);
}

int __wrap_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	if (role == ROLE_SUPERVISOR && !start_accepts)
		counting = true;
	if (hit(K_ACCEPT4)) {
		errno = EMFILE;
		return -1;
	}
	int r = __real_accept4(fd, addr, len, flags);
	if (r >= 0 && role == ROLE_SUPERVISOR && start_accepts && ++accepted == start_accepts)
		counting = true;
	return r;
}

/* ---- output */

ssize_t __wrap_write(int fd, const void *p, size_t n)
{
	struct stat st;
	/* Only the supervisor looks: a worker's filter may forbid fstat. */
	if (counting && role == ROLE_SUPERVISOR && fstat(fd, &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && hit(K_WRITE)) {
		errno = S_ISREG(st.st_mode) ? ENOSPC : EAGAIN;
		return -1;
	}
	return __real_write(fd, p, n);
}

ssize_t __wrap_send(int fd, const void *p, size_t n, int flags)
{
	if (hit(K_SEND)) {
		errno = EAGAIN;
		return -1;
	}
	return __real_send(fd, p, n, flags);
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (hit(K_SEND)) {
		errno = EAGAIN;
		return -1;
	}
	return __real_sendmsg(fd, msg, flags);
}

/* ---- the cache's durability */

int __wrap_fsync(int fd)
{
	if (hit(K_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_renameat(int from_dir, const char *from, int to_dir, const char *to)
{
	if (hit(K_RENAME)) {
		errno = EIO;
		return -1;
	}
	return __real_renameat(from_dir, from, to_dir, to);
}

/* ---- the forkserver's clone (it calls clone3 through syscall) */

long __wrap_syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_clone3 && role == ROLE_FORKSERVER && hit(K_CLONE)) {
		errno = EAGAIN;
		return -1;
	}
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
