/* uidpool.c - worker identities from a dedicated range; see uidpool.h. */
#include "uidpool.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../protocol/limits.h"

static uint32_t pool_first, pool_size, pool_free;
static uint64_t *taken; /* one bit per id: taken or retired */
static uint32_t cursor; /* where the next search starts */

static bool overlaps(uint64_t a_first, uint64_t a_last, uint64_t b_first, uint64_t b_last)
{
	return a_first <= b_last && b_first <= a_last;
}

/* An /etc/subuid-style file ("name:start:count" lines): 0 when none of its
 * ranges meets [first, last] (or it does not exist), else -1 with why. */
static int check_subids(const char *path, uint32_t first, uint32_t last, char *why, size_t why_len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[512];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		char *name = line, *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *end;
		errno = 0;
		unsigned long long start = strtoull(colon + 1, &end, 10);
		if (errno || *end != ':')
			continue;
		unsigned long long count = strtoull(end + 1, &end, 10);
		if (errno || count == 0)
			continue;
		if (overlaps(first, last, start, start + count - 1)) {
			snprintf(why, why_len, "%s gives %s the ids %llu-%llu", path, name, start,
				 start + count - 1);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

int uidpool_check(uint32_t first, uint32_t last, char *why, size_t why_len)
{
	int rc = 0;
	struct passwd *pw;
	setpwent();
	while (rc == 0 && (pw = getpwent()) != NULL) {
		if (pw->pw_uid >= first && pw->pw_uid <= last) {
			snprintf(why, why_len, "user %s has uid %u", pw->pw_name,
				 (unsigned)pw->pw_uid);
			rc = -1;
		} else if (pw->pw_gid >= first && pw->pw_gid <= last) {
			snprintf(why, why_len, "user %s has gid %u", pw->pw_name,
				 (unsigned)pw->pw_gid);
			rc = -1;
		}
	}
	endpwent();
	struct group *gr;
	setgrent();
	while (rc == 0 && (gr = getgrent()) != NULL) {
		if (gr->gr_gid >= first && gr->gr_gid <= last) {
			snprintf(why, why_len, "group %s has gid %u", gr->gr_name,
				 (unsigned)gr->gr_gid);
			rc = -1;
		}
	}
	endgrent();
	if (rc == 0)
		rc = check_subids("/etc/subuid", first, last, why, why_len);
	if (rc == 0)
		rc = check_subids("/etc/subgid", first, last, why, why_len);
	return rc;
}

/*
 * Opens (read-only, CLOEXEC) the directory dir the lock file goes in, first
 * creating it, mode 0755 whatever the umask, when missing. It must be a
 * directory, not a symlink to one, of root or our euid, that neither group
 * nor others may write to: whoever can create files in it can create the
 * lock file first, or replace it, and so keep every daemon from starting.
 * The fd, or -1 with a sentence naming what failed in why.
 */
static int open_lock_dir(const char *dir, char *why, size_t why_len)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool made = false;
	int fd = open(dir, flags);
	if (fd < 0 && errno == ENOENT) {
		/* mkdir never follows a symlink in the last component: one
		 * planted there is an EEXIST, then refused below. */
		made = mkdir(dir, 0755) == 0;
		if (!made && errno != EEXIST) {
			snprintf(why, why_len, "cannot create the lock directory %s: %s", dir,
				 strerror(errno));
			return -1;
		}
		fd = open(dir, flags);
	}
	if (fd < 0) {
		int err = errno;
		struct stat st;
		/* O_DIRECTORY fails a symlink with ENOTDIR, O_NOFOLLOW with
		 * ELOOP: which one, for the message only. */
		if (err == ELOOP || (err == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
			snprintf(why, why_len, "the lock directory %s is a symlink", dir);
		else if (err == ENOTDIR)
			snprintf(why, why_len, "the lock directory %s is not a directory", dir);
		else
			snprintf(why, why_len, "cannot open the lock directory %s: %s", dir,
				 strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0)
		snprintf(why, why_len, "%s: fstat: %s", dir, strerror(errno));
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		snprintf(why, why_len,
			 "the lock directory %s belongs to uid %u, not to root or to us (uid %u)",
			 dir, (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & 022)
		snprintf(why, why_len,
			 "the lock directory %s has mode %04o: other users may create files in it",
			 dir, (unsigned)(st.st_mode & 07777));
	else if (made && (st.st_mode & 07777) != 0755 && fchmod(fd, 0755) < 0)
		/* The umask took from 0755: the directory may hold the socket too,
		 * which clients must reach. */
		snprintf(why, why_len, "%s: chmod 0755: %s", dir, strerror(errno));
	else
		return fd;
	close(fd);
	return -1;
}

int uidpool_lock_open(const char *path, char *why, size_t why_len)
{
	/* The directory part of path ("." or "/" for none), and the name. */
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	size_t dir_len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	if (!*name) {
		snprintf(why, why_len, "the lock file %s names no file (it ends in /)", path);
		return -1;
	}
	if (dir_len >= sizeof dir) {
		snprintf(why, why_len, "the lock file %s: %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	if (slash) {
		memcpy(dir, path, dir_len);
		dir[dir_len] = '\0';
	} else {
		strcpy(dir, ".");
	}
	int dfd = open_lock_dir(dir, why, why_len);
	if (dfd < 0)
		return -1;
	/* In the directory just checked, whatever its path now leads to. */
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	int err = errno;
	close(dfd);
	if (fd < 0) {
		snprintf(why, why_len, "cannot open the lock file %s: %s", path, strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0)
		snprintf(why, why_len, "%s: fstat: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, why_len, "the lock file %s is not a regular file", path);
	else if (st.st_uid != geteuid())
		snprintf(why, why_len, "the lock file %s belongs to uid %u, not to us (uid %u)",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & 077)
		/* Whoever can open it can lock ids in it, and so keep every
		 * daemon from starting. */
		snprintf(why, why_len, "the lock file %s has mode %04o: other users may open it",
			 path, (unsigned)(st.st_mode & 07777));
	else
		return fd;
	close(fd);
	return -1;
}

int uidpool_claim(int fd, uint32_t first, uint32_t last, uint32_t count, uint32_t *claimed,
		  char *why, size_t why_len)
{
	uint64_t start = first;
	unsigned retries = 0;
	while (count > 0 && start + count - 1 <= last) {
		struct flock fl = {.l_type = F_WRLCK,
				   .l_whence = SEEK_SET,
				   .l_start = (off_t)start,
				   .l_len = (off_t)count};
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
			*claimed = (uint32_t)start;
			return 0;
		}
		int err = errno;
		if (err == EAGAIN || err == EACCES) {
			/* Which claim is in the way: go on just past it. */
			fl = (struct flock){.l_type = F_WRLCK,
					    .l_whence = SEEK_SET,
					    .l_start = (off_t)start,
					    .l_len = (off_t)count};
			if (fcntl(fd, F_OFD_GETLK, &fl) == 0) {
				if (fl.l_type == F_UNLCK) {
					/* Gone since: the same run again. */
					if (++retries > LIMIT_UID_CLAIM_RETRIES)
						break;
					continue;
				}
				if (fl.l_len == 0) /* a lock to the end of the file */
					break;
				uint64_t next = (uint64_t)fl.l_start + (uint64_t)fl.l_len;
				start = next > start ? next : start + 1;
				continue;
			}
			err = errno;
		}
		snprintf(why, why_len,
			 "cannot lock ids %" PRIu64 "-%" PRIu64 " in the lock file: %s", start,
			 start + count - 1, strerror(err));
		errno = err;
		return -1;
	}
	snprintf(why, why_len,
		 "no %" PRIu32 " consecutive ids of %" PRIu32 "-%" PRIu32
		 " are free: other daemons claim the rest",
		 count, first, last);
	errno = EBUSY;
	return -1;
}

int uidpool_init(uint32_t first, uint32_t last)
{
	uint64_t size = (uint64_t)last - first + 1;
	uint64_t *bits = calloc((size_t)((size + 63) / 64), sizeof *bits);
	if (!bits || first > last) {
		free(bits);
		return -1;
	}
	free(taken);
	taken = bits;
	pool_first = first;
	pool_size = (uint32_t)size;
	pool_free = pool_size;
	cursor = 0;
	return 0;
}

static bool is_taken(uint32_t i) { return taken[i / 64] >> (i % 64) & 1; }

int uidpool_take(uint32_t *id)
{
	if (!pool_free)
		return -1;
	/* Round-robin from the cursor; pool_free > 0 means this ends. */
	uint32_t i = cursor;
	while (is_taken(i))
		i = i + 1 == pool_size ? 0 : i + 1;
	taken[i / 64] |= 1ull << (i % 64);
	pool_free--;
	cursor = i + 1 == pool_size ? 0 : i + 1;
	*id = pool_first + i;
	return 0;
}

void uidpool_put(uint32_t id)
{
	uint32_t i = id - pool_first;
	if (id < pool_first || i >= pool_size || !is_taken(i))
		return;
	taken[i / 64] &= ~(1ull << (i % 64));
	pool_free++;
}

uint32_t uidpool_free_count(void) { return pool_free; }
