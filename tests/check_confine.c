/*
 * check_confine.c - try to break out of a confined worker.
 *
 * Each test forks a child that confines itself exactly as a worker does
 * (confine_apply) and then makes one forbidden call; the test asserts the
 * kernel killed it with SIGSYS. Other tests look at a confined child from
 * outside, through /proc, to check what the confinement claims: uid, no
 * capabilities, no_new_privs, the filter, the rlimits, fds 0-2 only, its own
 * session, not dumpable, death with its parent.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../worker/confine.h"

/* A worker's identity from the default --worker-uids range; uid and gid
 * differ here so that each is seen to be set on its own. */
#define WORKER_UID 2000000123u
#define WORKER_GID 2000000456u
#define AS_BYTES (256ull * 1024 * 1024)

static struct sock_fprog filter;
static int in_pipe[2], out_pipe[2];
static pid_t test_pid;
/* The test process's own CPU clock, as another process names it. */
static clockid_t parent_clock;

/* Confines the calling (child) process like a worker; _exit(99) if that
 * fails, so a broken confinement can never pass as a SIGSYS. */
static void confine_self(void)
{
	struct confine_params p = {
		.fds = {in_pipe[0], out_pipe[1], out_pipe[1]},
		.parent = test_pid,
		.as_bytes = AS_BYTES,
		.cpu_seconds = 10,
		.change_ids = geteuid() == 0,
		.uid = WORKER_UID,
		.gid = WORKER_GID,
	};
	const char *step;
	if (confine_apply(&p, &filter, &step) < 0)
		_exit(99);
}

/* The filter and the pipes that become a child's fds 0 and 1/2. */
static void prepare(void)
{
	test_pid = getpid();
	ck_assert_int_eq(clock_getcpuclockid(test_pid, &parent_clock), 0);
	ck_assert_int_eq(confine_filter_build(&filter), 0);
	ck_assert_int_eq(pipe(in_pipe), 0);
	ck_assert_int_eq(pipe(out_pipe), 0);
}

/* Forks a confined child that runs fn; returns its wait status. */
static int run_confined(void (*fn)(void))
{
	prepare();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		confine_self();
		fn();
		_exit(0);
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	close(in_pipe[1]); /* a read of fd 0 sees EOF */
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	close(out_pipe[0]);
	return st;
}

static void assert_sigsys(void (*fn)(void), const char *what)
{
	int st = run_confined(fn);
	ck_assert_msg(!(WIFEXITED(st) && WEXITSTATUS(st) == 99), "%s: confinement failed", what);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		      "%s: expected death by SIGSYS, got %s %d", what,
		      WIFSIGNALED(st) ? "signal" : "exit",
		      WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* ---- forbidden calls */

static void do_open(void) { open("/etc/passwd", O_RDONLY); }
static void do_socket(void) { socket(AF_INET, SOCK_STREAM, 0); }
static void do_unix_socket(void) { socket(AF_UNIX, SOCK_STREAM, 0); }
static void do_fork(void) { syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); }
static void do_ptrace(void) { ptrace(PTRACE_TRACEME, 0, NULL, NULL); }
/* If the filter let this through, the test itself would die: loud either way. */
static void do_kill_parent(void) { syscall(SYS_kill, test_pid, SIGKILL); }
static void do_execve(void)
{
	char *argv[] = {"/bin/sh", NULL};
	execve("/bin/sh", argv, NULL);
}
static void do_mmap_exec(void)
{
	syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
static void do_mprotect_exec(void)
{
	static char page[8192] __attribute__((aligned(4096)));
	syscall(SYS_mprotect, page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
}
static void do_write_fd3(void) { syscall(SYS_write, 3, "x", 1); }
/* fd 0x100000001 truncates to fd 1 in the kernel: the filter compares all
 * 64 bits, so it must not pass as fd 1. */
static void do_write_wide_fd(void) { syscall(SYS_write, 0x100000001ull, "x", 1); }
static void do_read_stdout(void)
{
	char c;
	syscall(SYS_read, 1, &c, 1);
}
static void do_setuid(void) { syscall(SYS_setuid, 0); }
static void do_prctl(void) { syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0); }
static void do_getpid(void) { syscall(SYS_getpid); }
static void do_unshare(void) { syscall(SYS_unshare, CLONE_NEWUSER); }
static void do_x32(void) { syscall(0x40000000 | SYS_getpid); }

/* Other processes' clocks: a negative id names a pid's (or thread's) CPU
 * clock, or a dynamic clock by fd. The raw syscall, so that no vDSO answers
 * in the filter's place. */
static void do_clock_parent(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, parent_clock, &ts);
}
static void do_clock_getres_parent(void)
{
	struct timespec ts;
	syscall(SYS_clock_getres, parent_clock, &ts);
}
/* The parent's main thread's CPU clock: ~tid << 3 | CPUCLOCK_PERTHREAD |
 * CPUCLOCK_SCHED. */
static void do_clock_parent_thread(void)
{
	struct timespec ts;
	clockid_t id = (clockid_t)((~(unsigned)test_pid << 3) | 6);
	syscall(SYS_clock_gettime, id, &ts);
}
/* pid 1's process clock, with clean upper bits (only the low 32 count). */
static void do_clock_init_wide(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, (unsigned long long)(unsigned)((~1u << 3) | 2), &ts);
}
static void do_clock_fd(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, (clockid_t)((~0u << 3) | 3), &ts); /* FD_TO_CLOCKID(0) */
}
static void do_clock_alarm(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_REALTIME_ALARM, &ts);
}
static void do_clock_tai(void)
{
	struct timespec ts;
	syscall(SYS_clock_getres, CLOCK_TAI, &ts);
}

/* i386 getpid through int 0x80: another ABI, so the architecture check
 * must kill it even though getpid's number means something else there. */
static long int80_getpid(void)
{
	long ret = 20; /* __NR_getpid on i386 */
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	return ret;
}
static void do_int80(void) { (void)int80_getpid(); }

/* clock_nanosleep, the timers' sleep, on anything but the monotonic
 * clock: another process's CPU clock (a sleep until it has used so much
 * would time it), the realtime clock, the same id with high bits above a
 * negative low half; and nanosleep, which the loop does not use. */
static void do_sleep_parent_clock(void)
{
	struct timespec ts = {0, 1000};
	syscall(SYS_clock_nanosleep, parent_clock, 0, &ts, NULL);
}
static void do_sleep_realtime(void)
{
	struct timespec ts = {0, 1000};
	syscall(SYS_clock_nanosleep, CLOCK_REALTIME, 0, &ts, NULL);
}
static void do_sleep_cputime(void)
{
	struct timespec ts = {0, 1000};
	syscall(SYS_clock_nanosleep, CLOCK_PROCESS_CPUTIME_ID, 0, &ts, NULL);
}
static void do_sleep_wide_negative(void)
{
	struct timespec ts = {0, 1000};
	syscall(SYS_clock_nanosleep, (unsigned long long)(unsigned)((~1u << 3) | 2), 0, &ts, NULL);
}
static void do_nanosleep(void)
{
	struct timespec ts = {0, 1000};
	syscall(SYS_nanosleep, &ts, NULL);
}

START_TEST(test_open) { assert_sigsys(do_open, "open"); }
END_TEST
START_TEST(test_socket) { assert_sigsys(do_socket, "socket(AF_INET)"); }
END_TEST
START_TEST(test_unix_socket) { assert_sigsys(do_unix_socket, "socket(AF_UNIX)"); }
END_TEST
START_TEST(test_fork) { assert_sigsys(do_fork, "fork"); }
END_TEST
START_TEST(test_ptrace) { assert_sigsys(do_ptrace, "ptrace"); }
END_TEST
START_TEST(test_kill_parent) { assert_sigsys(do_kill_parent, "kill(parent)"); }
END_TEST
START_TEST(test_execve) { assert_sigsys(do_execve, "execve"); }
END_TEST
START_TEST(test_mmap_exec) { assert_sigsys(do_mmap_exec, "mmap(PROT_EXEC)"); }
END_TEST
START_TEST(test_mprotect_exec) { assert_sigsys(do_mprotect_exec, "mprotect(PROT_EXEC)"); }
END_TEST
START_TEST(test_write_fd3) { assert_sigsys(do_write_fd3, "write(3)"); }
END_TEST
START_TEST(test_write_wide_fd) { assert_sigsys(do_write_wide_fd, "write(0x100000001)"); }
END_TEST
START_TEST(test_read_stdout) { assert_sigsys(do_read_stdout, "read(1)"); }
END_TEST
START_TEST(test_setuid) { assert_sigsys(do_setuid, "setuid(0)"); }
END_TEST
START_TEST(test_prctl) { assert_sigsys(do_prctl, "prctl"); }
END_TEST
START_TEST(test_getpid) { assert_sigsys(do_getpid, "getpid"); }
END_TEST
START_TEST(test_unshare) { assert_sigsys(do_unshare, "unshare(CLONE_NEWUSER)"); }
END_TEST
START_TEST(test_x32) { assert_sigsys(do_x32, "x32 getpid"); }
END_TEST

START_TEST(test_clock_other_process)
{
	assert_sigsys(do_clock_parent, "clock_gettime(another process's CPU clock)");
	assert_sigsys(do_clock_getres_parent, "clock_getres(another process's CPU clock)");
	assert_sigsys(do_clock_parent_thread, "clock_gettime(another thread's CPU clock)");
	assert_sigsys(do_clock_init_wide, "clock_gettime(pid 1's CPU clock)");
	assert_sigsys(do_clock_fd, "clock_gettime(a dynamic clock by fd)");
}
END_TEST

START_TEST(test_clock_unneeded)
{
	assert_sigsys(do_clock_alarm, "clock_gettime(CLOCK_REALTIME_ALARM)");
	assert_sigsys(do_clock_tai, "clock_getres(CLOCK_TAI)");
}
END_TEST

START_TEST(test_int80)
{
	/* First show the i386 ABI is there at all, so that the kill below
	 * is the filter's doing and not a missing emulation layer. */
	ck_assert_msg(int80_getpid() == getpid(),
		      "this kernel lacks IA32 emulation; the int 0x80 test cannot run");
	assert_sigsys(do_int80, "int 0x80 (i386 getpid)");
}
END_TEST

/* ---- what still works inside */

static void do_allowed(void)
{
	/* malloc large and small, the clock, getrandom, write to 1 and 2. */
	void *big = malloc(8u << 20);
	char *small = malloc(100);
	struct timespec ts;
	char rnd[16];
	if (!big || !small || clock_gettime(CLOCK_MONOTONIC, &ts) != 0 ||
	    syscall(SYS_getrandom, rnd, sizeof rnd, 0) != (long)sizeof rnd)
		_exit(1);
	memset(big, 1, 8u << 20);
	free(big);
	free(small);
	/* RLIMIT_AS turns an oversized allocation into NULL, not a crash. */
	void *too_big = malloc(AS_BYTES);
	if (too_big != NULL)
		_exit(2);
	if (write(1, "ok", 2) != 2 || write(2, "!", 1) != 1)
		_exit(3);
	char c;
	if (read(0, &c, 1) != 0) /* EOF: the test closed its end */
		_exit(4);
	_exit(0);
}

/* Every standard clock, both calls, by the raw syscall; and the kernel
 * reads only the low 32 bits, so neither does the filter. */
static void do_clocks(void)
{
	static const clockid_t std[] = {CLOCK_REALTIME,		  CLOCK_MONOTONIC,
					CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
					CLOCK_MONOTONIC_RAW,	  CLOCK_REALTIME_COARSE,
					CLOCK_MONOTONIC_COARSE,	  CLOCK_BOOTTIME};
	struct timespec ts;
	for (size_t i = 0; i < sizeof std / sizeof std[0]; i++) {
		if (syscall(SYS_clock_gettime, std[i], &ts) != 0)
			_exit(10 + (int)i);
		if (syscall(SYS_clock_getres, std[i], &ts) != 0)
			_exit(20 + (int)i);
	}
	if (syscall(SYS_clock_gettime, 0xdead00000000ull | CLOCK_MONOTONIC, &ts) != 0)
		_exit(30);
	/* And through libc (the vDSO, and its fallbacks). */
	for (size_t i = 0; i < sizeof std / sizeof std[0]; i++)
		if (clock_gettime(std[i], &ts) != 0 || clock_getres(std[i], &ts) != 0)
			_exit(40 + (int)i);
	if (time(NULL) == (time_t)-1)
		_exit(50);
	_exit(0);
}

START_TEST(test_sleep_other_clocks)
{
	assert_sigsys(do_sleep_parent_clock, "clock_nanosleep(another process's CPU clock)");
	assert_sigsys(do_sleep_realtime, "clock_nanosleep(CLOCK_REALTIME)");
	assert_sigsys(do_sleep_cputime, "clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID)");
	assert_sigsys(do_sleep_wide_negative, "clock_nanosleep(pid 1's CPU clock)");
	assert_sigsys(do_nanosleep, "nanosleep");
}
END_TEST

/* The timers' sleep: relative and absolute on the monotonic clock, which
 * takes the time asked (and no more CPU than a few microseconds), and the
 * same id with junk in the upper half, which the kernel ignores. */
static void do_sleep_monotonic(void)
{
	struct timespec t0, t1, cpu0, cpu1, rel = {0, 20 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
	if (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &rel, NULL) != 0)
		_exit(1);
	struct timespec until = t0;
	until.tv_nsec += 40 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (syscall(SYS_clock_nanosleep, 0xdead00000000ull | CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
		    NULL) != 0)
		_exit(2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
	double slept =
		(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	double cpu = (double)(cpu1.tv_sec - cpu0.tv_sec) * 1e3 +
		     (double)(cpu1.tv_nsec - cpu0.tv_nsec) / 1e6;
	if (slept < 40.0)
		_exit(3);
	if (cpu > 5.0)
		_exit(4);
	_exit(0);
}

START_TEST(test_sleep_monotonic_works)
{
	int st = run_confined(do_sleep_monotonic);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "confined child failed: status %#x",
		      st);
}
END_TEST

START_TEST(test_standard_clocks_work)
{
	int st = run_confined(do_clocks);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "confined child failed: status %#x",
		      st);
}
END_TEST

START_TEST(test_allowed_calls_work)
{
	int st = run_confined(do_allowed);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "confined child failed: status %#x",
		      st);
}
END_TEST

/* ---- inspecting a confined process from outside */

static char *slurp(const char *path)
{
	static char text[16384];
	FILE *f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static const char *status_field(const char *status, const char *key)
{
	static char value[256];
	const char *p = strstr(status, key);
	ck_assert_msg(p != NULL, "no %s in /proc status", key);
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, "\n");
	snprintf(value, sizeof value, "%.*s", (int)n, p);
	return value;
}

/* Starts a confined child that waits on fd 0; returns its pid once it is
 * confined (it said so on fd 1). The caller ends it by closing in_pipe[1]. */
static pid_t start_waiting_child(void)
{
	prepare();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(in_pipe[1]);
		close(out_pipe[0]);
		confine_self();
		char c;
		if (write(1, "r", 1) != 1)
			_exit(1);
		(void)!read(0, &c, 1);
		_exit(0);
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	char c;
	ck_assert_int_eq(read(out_pipe[0], &c, 1), 1);
	return pid;
}

static void end_waiting_child(pid_t pid)
{
	close(in_pipe[1]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
}

/* What anyone may read of a confined child's /proc: no capabilities in
 * its sets, no_new_privs, the seccomp filter, its limits and session. */
START_TEST(test_proc_view)
{
	pid_t pid = start_waiting_child();
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *status = strdup(slurp(path));

	const char *sets[] = {"\nCapInh:", "\nCapPrm:", "\nCapEff:", "\nCapAmb:"};
	for (size_t i = 0; i < 4; i++)
		ck_assert_msg(strcmp(status_field(status, sets[i]), "0000000000000000") == 0,
			      "%s is %s", sets[i] + 1, status_field(status, sets[i]));
	ck_assert_str_eq(status_field(status, "\nNoNewPrivs:"), "1");
	ck_assert_str_eq(status_field(status, "\nSeccomp:"), "2");
	free(status);

	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	char *limits = strdup(slurp(path));
	ck_assert_ptr_nonnull(strstr(limits, "Max open files            3                    3"));
	ck_assert_ptr_nonnull(strstr(limits, "Max processes             0                    0"));
	ck_assert_ptr_nonnull(strstr(limits, "Max file size             0                    0"));
	ck_assert_ptr_nonnull(strstr(limits, "Max core file size        0                    0"));
	ck_assert_ptr_nonnull(
		strstr(limits, "Max address space         268435456            268435456"));
	ck_assert_ptr_nonnull(strstr(limits, "Max cpu time              10                   11"));
	free(limits);

	/* Own session: the session id is its own pid. */
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	const char *fields = strrchr(slurp(path), ')');
	int ppid, pgrp, session;
	char state;
	ck_assert_int_eq(sscanf(fields + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session), 4);
	ck_assert_int_eq(session, pid);

	/* Not dumpable: its /proc entries are root's, whoever it runs as. */
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_uid, 0);
	end_waiting_child(pid);
}
END_TEST

/* What only root can see or have done: the uid and gid the child switched
 * to with no supplementary groups, an empty bounding set (dropping it needs
 * CAP_SETPCAP), and only fds 0, 1 and 2 open (the child is not dumpable,
 * so its fd directory is root's and mode 0500). Registered as root only
 * (see main). */
START_TEST(test_proc_view_root)
{
	pid_t pid = start_waiting_child();
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	char *status = strdup(slurp(path));
	ck_assert_str_eq(status_field(status, "\nUid:"),
			 "2000000123\t2000000123\t2000000123\t2000000123");
	ck_assert_str_eq(status_field(status, "\nGid:"),
			 "2000000456\t2000000456\t2000000456\t2000000456");
	ck_assert_str_eq(status_field(status, "\nGroups:"), "");
	ck_assert_str_eq(status_field(status, "\nCapBnd:"), "0000000000000000");
	free(status);

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	for (int fd = 0; fd < 64; fd++) {
		char p[96];
		struct stat st;
		snprintf(p, sizeof p, "%s/%d", path, fd);
		ck_assert_msg((stat(p, &st) == 0) == (fd < 3), "fd %d open: %s", fd,
			      fd < 3 ? "no" : "yes");
	}
	end_waiting_child(pid);
}
END_TEST

/* PDEATHSIG: a worker whose parent dies is killed at once. */
START_TEST(test_dies_with_parent)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	ck_assert_int_eq(confine_filter_build(&filter), 0);
	ck_assert_int_eq(pipe(in_pipe), 0);
	ck_assert_int_eq(pipe(out_pipe), 0);
	pid_t middle = fork();
	ck_assert_int_ge(middle, 0);
	if (middle == 0) {
		test_pid = getpid();
		pid_t worker = fork();
		if (worker == 0) {
			confine_self();
			char c;
			(void)!write(1, "r", 1);
			(void)!read(0, &c, 1); /* blocks: the test keeps in_pipe[1] */
			_exit(0);
		}
		close(out_pipe[1]);
		char c;
		if (read(out_pipe[0], &c, 1) != 1)
			_exit(1);
		_exit(0); /* the worker's parent dies */
	}
	close(out_pipe[1]);
	int st;
	ck_assert_int_eq(waitpid(middle, &st, 0), middle);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	/* The orphaned worker comes to us (subreaper): it must have died of
	 * SIGKILL although its stdin is still open. */
	pid_t w = waitpid(-1, &st, 0);
	ck_assert_int_gt(w, 0);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "orphan status %#x", st);
}
END_TEST

/* ---- lowering the backstops (a worker parked with the largest job's
 * limits lowers them to its own job's, through prlimit64 on itself) */

static void do_prlimit_parent(void)
{
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	syscall(SYS_prlimit64, test_pid, RLIMIT_AS, &rl, NULL);
}
/* The kernel would cut this pid to 0 (an int): the filter compares 64 bits. */
static void do_prlimit_wide_pid(void)
{
	struct rlimit rl = {1 << 20, 1 << 20};
	syscall(SYS_prlimit64, 0x100000000ull, RLIMIT_AS, &rl, NULL);
}
static void do_prlimit_nofile(void)
{
	struct rlimit rl = {3, 3};
	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
}
static void do_prlimit_wide_resource(void)
{
	struct rlimit rl = {1 << 20, 1 << 20};
	syscall(SYS_prlimit64, 0, 0x100000000ull | RLIMIT_AS, &rl, NULL);
}
static void do_setrlimit_old_call(void)
{
	struct rlimit rl = {1 << 20, 1 << 20};
	syscall(SYS_setrlimit, RLIMIT_AS, &rl);
}

START_TEST(test_prlimit_parent) { assert_sigsys(do_prlimit_parent, "prlimit64(parent)"); }
END_TEST
START_TEST(test_prlimit_wide_pid) { assert_sigsys(do_prlimit_wide_pid, "prlimit64(0x100000000)"); }
END_TEST
START_TEST(test_prlimit_nofile) { assert_sigsys(do_prlimit_nofile, "prlimit64(RLIMIT_NOFILE)"); }
END_TEST
START_TEST(test_prlimit_wide_resource)
{
	assert_sigsys(do_prlimit_wide_resource, "prlimit64(0, 1<<32 | RLIMIT_AS)");
}
END_TEST
START_TEST(test_setrlimit_old_call) { assert_sigsys(do_setrlimit_old_call, "setrlimit"); }
END_TEST

/* Exits 0 when no limit could be raised: the kernel refuses a hard one
 * (no CAP_SYS_RESOURCE is left), a soft one above its hard one, and
 * confine_lower_limits refuses both before asking. */
static void do_raise(void)
{
	struct rlimit as = {2 * AS_BYTES, 2 * AS_BYTES}, cpu_hard = {10, 60}, cpu_soft = {12, 11};
	if (syscall(SYS_prlimit64, 0, RLIMIT_AS, &as, NULL) == 0 || errno != EPERM)
		_exit(1);
	if (syscall(SYS_prlimit64, 0, RLIMIT_CPU, &cpu_hard, NULL) == 0 || errno != EPERM)
		_exit(2);
	if (syscall(SYS_prlimit64, 0, RLIMIT_CPU, &cpu_soft, NULL) == 0)
		_exit(3);
	if (confine_lower_limits(2 * AS_BYTES, 5) == 0 || errno != EPERM)
		_exit(4);
	if (confine_lower_limits(AS_BYTES, 20) == 0 || errno != EPERM)
		_exit(5);
	struct rlimit now;
	if (syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &now) < 0 || now.rlim_max != AS_BYTES)
		_exit(6);
	_exit(0);
}

START_TEST(test_raise_refused)
{
	int st = run_confined(do_raise);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a limit rose: status %#x", st);
}
END_TEST

/* 200 MiB maps under the 256 MiB backstop and no longer once it is
 * lowered to 128 MiB. */
static void do_lowered_as(void)
{
	size_t big = 200u << 20;
	void *p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	munmap(p, big);
	if (confine_lower_limits(AS_BYTES / 2, 10) < 0)
		_exit(2);
	p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	_exit(p == MAP_FAILED && errno == ENOMEM ? 0 : 3);
}

START_TEST(test_lowered_as_bites)
{
	int st = run_confined(do_lowered_as);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "lowered RLIMIT_AS: status %#x", st);
}
END_TEST

/* Confined with 10 s of CPU, lowered to 1 s: a spinning loop dies of
 * SIGXCPU after about 1 s of CPU. */
static void do_lowered_cpu(void)
{
	if (confine_lower_limits(AS_BYTES, 1) < 0)
		_exit(2);
	for (volatile unsigned long i = 0;; i++)
		;
}

START_TEST(test_lowered_cpu_bites)
{
	prepare();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		confine_self();
		do_lowered_cpu();
	}
	close(in_pipe[0]);
	close(out_pipe[1]);
	close(in_pipe[1]);
	int st;
	struct rusage ru;
	ck_assert_int_eq(wait4(pid, &st, 0, &ru), pid);
	close(out_pipe[0]);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("check_confine: RLIMIT_CPU lowered to 1 s from 10 s: killed after %.2f s of "
	       "CPU\n",
	       cpu);
	ck_assert_msg(WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL),
		      "status %#x", st);
	ck_assert_double_lt(cpu, 3.0);
}
END_TEST

/* The exported filter is what is loaded: the same program twice. */
START_TEST(test_filter_is_stable)
{
	struct sock_fprog a, b;
	ck_assert_int_eq(confine_filter_build(&a), 0);
	ck_assert_int_eq(confine_filter_build(&b), 0);
	ck_assert_int_gt(a.len, 10);
	ck_assert_int_eq(a.len, b.len);
	ck_assert_int_eq(memcmp(a.filter, b.filter, a.len * sizeof *a.filter), 0);
	free(a.filter);
	free(b.filter);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("confine");
	TCase *forbidden = tcase_create("forbidden calls die by SIGSYS");
	tcase_add_test(forbidden, test_open);
	tcase_add_test(forbidden, test_socket);
	tcase_add_test(forbidden, test_unix_socket);
	tcase_add_test(forbidden, test_fork);
	tcase_add_test(forbidden, test_ptrace);
	tcase_add_test(forbidden, test_kill_parent);
	tcase_add_test(forbidden, test_execve);
	tcase_add_test(forbidden, test_mmap_exec);
	tcase_add_test(forbidden, test_mprotect_exec);
	tcase_add_test(forbidden, test_write_fd3);
	tcase_add_test(forbidden, test_write_wide_fd);
	tcase_add_test(forbidden, test_read_stdout);
	tcase_add_test(forbidden, test_setuid);
	tcase_add_test(forbidden, test_prctl);
	tcase_add_test(forbidden, test_getpid);
	tcase_add_test(forbidden, test_unshare);
	tcase_add_test(forbidden, test_x32);
	tcase_add_test(forbidden, test_int80);
	tcase_add_test(forbidden, test_clock_other_process);
	tcase_add_test(forbidden, test_clock_unneeded);
	tcase_add_test(forbidden, test_sleep_other_clocks);
	suite_add_tcase(s, forbidden);
	TCase *state = tcase_create("confined state");
	tcase_add_test(state, test_allowed_calls_work);
	tcase_add_test(state, test_standard_clocks_work);
	tcase_add_test(state, test_sleep_monotonic_works);
	tcase_add_test(state, test_proc_view);
	/* Not run, and so not counted as passed, without root: the line
	 * says so, and scripts/run-tests.sh counts such lines. */
	if (geteuid() == 0)
		tcase_add_test(state, test_proc_view_root);
	else
		printf("check_confine: not run: test_proc_view_root: needs root (the child's "
		       "uid and gid switch, its empty bounding set, and its fds 0-2 only, which "
		       "only root can list: a non-dumpable child's /proc/PID/fd is root's)\n");
	fflush(stdout); /* before Check forks the tests */
	tcase_add_test(state, test_dies_with_parent);
	tcase_add_test(state, test_filter_is_stable);
	suite_add_tcase(s, state);
	TCase *lower = tcase_create("lowering the backstops");
	tcase_add_test(lower, test_prlimit_parent);
	tcase_add_test(lower, test_prlimit_wide_pid);
	tcase_add_test(lower, test_prlimit_nofile);
	tcase_add_test(lower, test_prlimit_wide_resource);
	tcase_add_test(lower, test_setrlimit_old_call);
	tcase_add_test(lower, test_raise_refused);
	tcase_add_test(lower, test_lowered_as_bites);
	tcase_add_test(lower, test_lowered_cpu_bites);
	tcase_set_timeout(lower, 30);
	suite_add_tcase(s, lower);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
