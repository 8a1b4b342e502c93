/*
 * syscall_allow.c - runs a program under an allow list of system calls, as
 * systemd's SystemCallFilter= with SystemCallErrorNumber=EPERM does: every
 * call not listed fails with EPERM. scripts/check-unit.sh uses it to run
 * the daemon under the filter sandboxd.service sets where systemd itself
 * does not run.
 *
 * usage: syscall_allow LIST PROGRAM [ARG...]   (LIST: one name a line)
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: syscall_allow LIST PROGRAM [ARG...]\n");
		return 100;
	}
	FILE *f = fopen(argv[1], "re");
	if (!f) {
		perror(argv[1]);
		return 111;
	}
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx) {
		fprintf(stderr, "syscall_allow: seccomp_init failed\n");
		fclose(f);
		return 111;
	}
	char name[128];
	int allowed = 0;
	while (fscanf(f, "%127s", name) == 1) {
		int nr = seccomp_syscall_resolve_name(name);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a call of this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) == 0)
			allowed++;
	}
	fclose(f);
	int rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fprintf(stderr, "syscall_allow: seccomp_load: %s\n", strerror(-rc));
		return 111;
	}
	fprintf(stderr, "syscall_allow: %d system calls allowed\n", allowed);
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 111;
}
