/* cache.c - the script cache and its writer thread; see cache.h. */
#include "cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/buf.h"
#include "../protocol/limits.h"
#include "list.h"
#include "log.h"
#include "loop.h"

#define NAME_SIZE 64
#define HASH_HEX (2 * SHA256_DIGEST_SIZE)

/* What one owner holds, so that eviction can start with the biggest. */
struct holder {
	struct list_node link;
	char key[CACHE_OWNER_SIZE];
	unsigned count;
	uint64_t bytes;
};

struct entry {
	struct list_node link; /* oldest first */
	struct holder *holder;
	char owner[CACHE_OWNER_SIZE];
	char name[NAME_SIZE];
	char hash[HASH_HEX + 1];
	char *description;
	uint64_t created_ms;
	char *code;
	size_t len;
	uint64_t seq; /* which store made it (a name may come back after a removal) */
};

enum job_kind { JOB_WRITE, JOB_CLEAR };

/* Work for the writer thread, and its result coming back. */
struct job {
	struct job *next;
	enum job_kind kind;
	char owner[CACHE_OWNER_SIZE];
	char name[NAME_SIZE];
	char *data; /* JOB_WRITE: the content (a copy); JOB_CLEAR: "owner/name"s, NUL-separated */
	size_t len;
	uint64_t created_ms;
	uint64_t seq;	  /* JOB_WRITE: the entry's */
	int err;	  /* JOB_WRITE: errno, or 0 */
	unsigned removed; /* JOB_CLEAR */
	bool partial;	  /* JOB_CLEAR: not all of the scope was taken (out of memory) */
	cache_cleared_cb cleared;
	void *arg;
};

static struct cache_settings settings;
static int dir_fd = -1;
static bool enabled, warned;
/* The last write failed: stores are still tried (the disk may recover)
 * but not named to the caller, whose reply would promise what is not. */
static bool failing;
static struct list_node entries = {&entries, &entries};
static struct list_node holders = {&holders, &holders};
static unsigned n_entries;
static uint64_t n_bytes;
static uint64_t next_seq;

static pthread_t writer;
static bool writer_running, stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t settled = PTHREAD_COND_INITIALIZER;
static unsigned unfinished; /* jobs submitted and not yet done by the writer */
static struct job *running; /* the job the writer is doing */
static struct job *todo, **todo_tail = &todo, *done_jobs;
static int event_fd = -1;
static struct loop_watch event_watch = LOOP_WATCH_INIT;

/* A failure of the cache is logged once: it must not flood the log, and
 * it never fails an execution. */
static void warn_once(const char *what, int err)
{
	if (warned)
		return;
	warned = true;
	log_warn("script cache %s: %s: %s (scripts are not being cached)", settings.dir, what,
		 strerror(err));
}

/* ---- contents */

static void sha256_hex(const char *data, size_t len, char out[HASH_HEX + 1])
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, len, (const uint8_t *)data);
	sha256_digest(&ctx, sizeof digest, digest);
	for (size_t i = 0; i < sizeof digest; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

/* The script's leading comment (// lines or one block comment), as one
 * line of at most LIMIT_CACHE_DESCRIPTION_CHARS characters. */
static char *describe(const char *code, size_t len)
{
	char *out = malloc(4 * LIMIT_CACHE_DESCRIPTION_CHARS + 4);
	size_t n = 0, chars = 0;
	size_t i = 0;
	if (!out)
		return NULL;
	bool block = false, in_comment = false, space = false;
	while (i < len && isspace((unsigned char)code[i]))
		i++;
	if (i + 1 < len && code[i] == '/' && code[i + 1] == '*') {
		block = in_comment = true;
		i += 2;
	}
	while (i < len) {
		if (!in_comment) { /* between // lines: only blanks, then // */
			while (i < len && (code[i] == ' ' || code[i] == '\t'))
				i++;
			if (i + 1 < len && code[i] == '/' && code[i + 1] == '/') {
				in_comment = true;
				i += 2;
				continue;
			}
			break;
		}
		char c = code[i];
		if (block && c == '*' && i + 1 < len && code[i + 1] == '/')
			break;
		if (c == '\n' && !block) {
			in_comment = false;
			space = n > 0;
			i++;
			continue;
		}
		/* Decoration of comment blocks: leading stars and slashes. */
		bool deco = (c == '*' || c == '/') && (n == 0 || space || out[n - 1] == ' ');
		if (isspace((unsigned char)c) || deco) {
			space = n > 0;
			i++;
			continue;
		}
		/* Stop before a character (or separating space) past the limit;
		 * a character's continuation bytes always follow it. */
		bool starts_char = ((unsigned char)c & 0xC0) != 0x80;
		if (starts_char && chars + (space ? 1 : 0) >= LIMIT_CACHE_DESCRIPTION_CHARS)
			break;
		if (space) {
			out[n++] = ' ';
			chars++;
			space = false;
		}
		out[n++] = c;
		if (starts_char)
			chars++;
		i++;
	}
	out[n] = '\0';
	return out;
}

static json_t *entry_info(const struct entry *e, bool with_size)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s}", "name", e->name, "description",
			      e->description ? e->description : "", "created_at_ms",
			      (json_int_t)e->created_ms, "content_hash", e->hash);
	if (o && with_size)
		json_object_set_new(o, "size_bytes", json_integer((json_int_t)e->len));
	return o;
}

/* Whether e is in scope: the owner's, or everyone's for NULL. */
static bool in_scope(const struct entry *e, const char *scope)
{
	return !scope || strcmp(e->owner, scope) == 0;
}

/* Dedup is per owner: the same script from two owners is two entries. */
static struct entry *find_hash(const char *owner, const char *hash)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &entries) {
		struct entry *e = LIST_ITEM(n, struct entry, link);
		if (in_scope(e, owner) && strcmp(e->hash, hash) == 0)
			return e;
	}
	return NULL;
}

/* The entry of this name of owner. */
static struct entry *find_name(const char *owner, const char *name)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &entries) {
		struct entry *e = LIST_ITEM(n, struct entry, link);
		if (strcmp(e->owner, owner) == 0 && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

/* What owner holds; NULL when nothing. */
static struct holder *find_holder(const char *owner)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &holders) {
		struct holder *h = LIST_ITEM(n, struct holder, link);
		if (strcmp(h->key, owner) == 0)
			return h;
	}
	return NULL;
}

/* An owner key is a plain file name: [a-z0-9-], not empty, short. */
static bool owner_key_ok(const char *owner)
{
	size_t n = strlen(owner);
	if (n == 0 || n >= CACHE_OWNER_SIZE || owner[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((owner[i] >= 'a' && owner[i] <= 'z') ||
		      (owner[i] >= '0' && owner[i] <= '9') || owner[i] == '-'))
			return false;
	return true;
}

static void free_entry(struct entry *e)
{
	free(e->description);
	free(e->code);
	free(e);
}

static void forget(struct entry *e)
{
	list_del(&e->link);
	n_entries--;
	n_bytes -= e->len;
	struct holder *h = e->holder;
	h->count--;
	h->bytes -= e->len;
	if (h->count == 0) {
		list_del(&h->link);
		free(h);
	}
	free_entry(e);
}

/* Adds e in order of creation (loading may meet files in any order), and
 * to its owner's totals. -1 when out of memory (e is not added). */
static int insert(struct entry *e)
{
	struct holder *h = find_holder(e->owner);
	if (!h) {
		h = calloc(1, sizeof *h);
		if (!h)
			return -1;
		snprintf(h->key, sizeof h->key, "%s", e->owner);
		list_add_tail(&holders, &h->link);
	}
	h->count++;
	h->bytes += e->len;
	e->holder = h;
	struct list_node *at = &entries;
	while (at->prev != &entries &&
	       LIST_ITEM(at->prev, struct entry, link)->created_ms > e->created_ms)
		at = at->prev;
	list_add_tail(at, &e->link);
	n_entries++;
	n_bytes += e->len;
	return 0;
}

static struct entry *new_entry(const char *owner, const char *name, const char *hash,
			       const char *code, size_t len, uint64_t created_ms)
{
	struct entry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->code = malloc(len + 1);
	e->description = describe(code, len);
	if (!e->code || !e->description) {
		free(e->code);
		free(e->description);
		free(e);
		return NULL;
	}
	memcpy(e->code, code, len);
	e->code[len] = '\0';
	e->len = len;
	snprintf(e->owner, sizeof e->owner, "%s", owner);
	snprintf(e->name, sizeof e->name, "%s", name);
	snprintf(e->hash, sizeof e->hash, "%s", hash);
	e->created_ms = created_ms;
	return e;
}

/* ---- the writer thread */

static void submit(struct job *j)
{
	pthread_mutex_lock(&lock);
	j->next = NULL;
	*todo_tail = j;
	todo_tail = &j->next;
	unfinished++;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

/*
 * The directory of owner's scripts under the cache directory, opened
 * without following a symlink, and created (0700) when create is set. It
 * must be a directory of the daemon's own; its mode is made 0700. -1 with
 * errno.
 */
static int owner_dir(const char *owner, bool create)
{
	if (create && mkdirat(dir_fd, owner, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = openat(dir_fd, owner, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		int err = errno ? errno : EPERM;
		close(fd);
		errno = err;
		return -1;
	}
	if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* Writes one script into its owner's directory: temp file, fsync, rename,
 * fsync of the directory. */
static int write_file(const struct job *j)
{
	char tmp[NAME_SIZE + 8];
	snprintf(tmp, sizeof tmp, ".tmp-%s", j->name);
	errno = 0;
	int sub = owner_dir(j->owner, true);
	if (sub < 0)
		return errno ? errno : EPERM;
	int fd = openat(sub, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && unlinkat(sub, tmp, 0) == 0)
		fd = openat(sub, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = errno;
		close(sub);
		return err;
	}
	const char *p = j->data;
	size_t left = j->len;
	int err = 0;
	while (left > 0 && !err) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0) {
			p += w;
			left -= (size_t)w;
		}
	}
	/* The file's time is the entry's creation, so a restart keeps it. */
	struct timespec ts[2] = {
		{(time_t)(j->created_ms / 1000), (long)(j->created_ms % 1000) * 1000000},
		{(time_t)(j->created_ms / 1000), (long)(j->created_ms % 1000) * 1000000}};
	if (!err && (futimens(fd, ts) < 0 || fsync(fd) < 0))
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && renameat(sub, tmp, sub, j->name) < 0)
		err = errno;
	if (err) {
		unlinkat(sub, tmp, 0);
		close(sub);
		return err;
	}
	fsync(sub);
	close(sub);
	return 0;
}

/* Removes "owner/name" (the owner's directory opened without following a
 * symlink). True when it is gone. */
static bool remove_file(const char *path)
{
	const char *slash = strchr(path, '/');
	char owner[CACHE_OWNER_SIZE];
	if (!slash || (size_t)(slash - path) >= sizeof owner)
		return false;
	memcpy(owner, path, (size_t)(slash - path));
	owner[slash - path] = '\0';
	int sub = owner_dir(owner, false);
	if (sub < 0)
		return errno == ENOENT;
	bool gone = unlinkat(sub, slash + 1, 0) == 0 || errno == ENOENT;
	close(sub);
	return gone;
}

static void run_job(struct job *j)
{
	if (j->kind == JOB_WRITE) {
		j->err = write_file(j);
		return;
	}
	for (const char *path = j->data; path < j->data + j->len; path += strlen(path) + 1)
		if (remove_file(path))
			j->removed++;
}

static void *writer_main(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!todo && !stopping)
			pthread_cond_wait(&wake, &lock);
		if (!todo)
			break;
		struct job *j = todo;
		todo = j->next;
		if (!todo)
			todo_tail = &todo;
		running = j;
		pthread_mutex_unlock(&lock);
		run_job(j);
		pthread_mutex_lock(&lock);
		running = NULL;
		j->next = done_jobs;
		done_jobs = j;
		unfinished--;
		pthread_cond_broadcast(&settled);
		uint64_t one = 1;
		(void)!write(event_fd, &one, sizeof one);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Results, on the loop's thread. */
static void on_done(struct loop_watch *w, uint32_t events)
{
	(void)w;
	(void)events;
	uint64_t n;
	(void)!read(event_fd, &n, sizeof n);
	pthread_mutex_lock(&lock);
	struct job *list = done_jobs;
	done_jobs = NULL;
	pthread_mutex_unlock(&lock);
	/* The list is newest first; callbacks go oldest first. */
	struct job *ordered = NULL;
	while (list) {
		struct job *next = list->next;
		list->next = ordered;
		ordered = list;
		list = next;
	}
	while (ordered) {
		struct job *j = ordered;
		ordered = j->next;
		if (j->kind == JOB_WRITE) {
			/* The entry this write made, unless it went meanwhile
			 * (an eviction or a clear, whose removal follows). */
			struct entry *e = find_name(j->owner, j->name);
			if (e && e->seq != j->seq)
				e = NULL;
			failing = j->err != 0;
			if (j->err) {
				warn_once("cannot write a script", j->err);
				if (e)
					forget(e);
			} else if (e) {
				log_info("cached %s/%s (%zu bytes)", e->owner, e->name, e->len);
			}
		} else if (j->cleared) {
			j->cleared(j->arg, j->removed, !j->partial);
		}
		free(j->data);
		free(j);
	}
}

/* ---- limits */

/*
 * The entry to evict next: the oldest of the owner holding the most
 * (entries when over the entry limit, else bytes), so that one owner's
 * flood of scripts evicts its own before anyone else's; never keep. NULL
 * when there is nothing else.
 */
static struct entry *victim(const struct entry *keep)
{
	bool by_count = n_entries > settings.max_entries;
	const struct holder *top = NULL;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &holders) {
		const struct holder *h = LIST_ITEM(n, struct holder, link);
		if (keep && h == keep->holder && h->count == 1)
			continue; /* it holds only what must stay */
		if (!top || (by_count ? h->count > top->count : h->bytes > top->bytes))
			top = h;
	}
	LIST_FOREACH_SAFE (n, tmp, &entries) {
		struct entry *e = LIST_ITEM(n, struct entry, link);
		if (e != keep && e->holder == top)
			return e;
	}
	return NULL;
}

/* Drops entries over the limits (their files too), biggest owner first. */
static void enforce_limits(const struct entry *keep)
{
	struct job *j = NULL;
	size_t used = 0, cap = 0;
	struct entry *e;
	while ((n_entries > settings.max_entries || n_bytes > settings.max_bytes) &&
	       (e = victim(keep)) != NULL) {
		char path[CACHE_OWNER_SIZE + NAME_SIZE];
		snprintf(path, sizeof path, "%s/%s", e->owner, e->name);
		size_t len = strlen(path) + 1;
		if (!j)
			j = calloc(1, sizeof *j);
		if (j && used + len > cap) {
			char *d = realloc(j->data, cap = (cap + len) * 2);
			if (d)
				j->data = d;
			else
				cap = 0;
		}
		if (j && j->data && used + len <= cap) {
			memcpy(j->data + used, path, len);
			used += len;
		}
		log_info("cache full: evicting %s", path);
		forget(e);
	}
	if (j) {
		j->kind = JOB_CLEAR;
		j->len = used;
		submit(j);
	}
}

/* ---- the API */

json_t *cache_store(const char *owner, const char *code, size_t len)
{
	if (!enabled || len > settings.max_bytes || !owner_key_ok(owner))
		return NULL;
	char hash[HASH_HEX + 1];
	sha256_hex(code, len, hash);
	if (find_hash(owner, hash))
		return NULL;
	uint64_t now = loop_wall_ms();
	time_t secs = (time_t)(now / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	char name[NAME_SIZE];
	snprintf(name, sizeof name, "script-%04d-%02d-%02dT%02d-%02d-%02d-%.12s.js",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 hash);
	struct job *j = calloc(1, sizeof *j);
	struct entry *e = j ? new_entry(owner, name, hash, code, len, now) : NULL;
	char *data = e ? malloc(len ? len : 1) : NULL;
	json_t *info = data ? entry_info(e, false) : NULL;
	if (!info || insert(e) < 0) {
		json_decref(info);
		free(j);
		free(data);
		if (e)
			free_entry(e);
		return NULL;
	}
	memcpy(data, code, len);
	e->seq = j->seq = ++next_seq;
	enforce_limits(e);
	j->kind = JOB_WRITE;
	snprintf(j->owner, sizeof j->owner, "%s", owner);
	snprintf(j->name, sizeof j->name, "%s", name);
	j->data = data;
	j->len = len;
	j->created_ms = now;
	submit(j);
	if (failing) {
		json_decref(info);
		return NULL;
	}
	return info;
}

void cache_flush(void)
{
	if (!writer_running)
		return;
	pthread_mutex_lock(&lock);
	while (unfinished)
		pthread_cond_wait(&settled, &lock);
	pthread_mutex_unlock(&lock);
	on_done(&event_watch, 0);
}

static bool icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return n == 0;
}

/* Whether e's name matches query by the rule of a lookup's pass: 0 the
 * exact name, 1 a prefix, 2 a substring (both case-insensitive). */
static bool hits(const struct entry *e, const char *query, size_t qlen, int pass)
{
	switch (pass) {
	case 0: return strcmp(e->name, query) == 0;
	case 1: return strncasecmp(e->name, query, qlen) == 0;
	default: return icontains(e->name, query);
	}
}

/* At most this many matches are named in an ambiguous lookup's list. */
#define MATCHES_LISTED 10

enum cache_lookup_result cache_lookup(const char *scope, const char *query, const char **code,
				      size_t *len, const char **name, char **matches)
{
	/* "OWNER/QUERY" looks among that owner's scripts only (no name has a
	 * slash); an owner out of scope holds nothing for this caller. */
	char owner[CACHE_OWNER_SIZE];
	const char *slash = strchr(query, '/');
	if (slash) {
		size_t n = (size_t)(slash - query);
		if (n >= sizeof owner)
			return CACHE_NOT_FOUND;
		memcpy(owner, query, n);
		owner[n] = '\0';
		if (!owner_key_ok(owner) || (scope && strcmp(scope, owner) != 0))
			return CACHE_NOT_FOUND;
		scope = owner;
		query = slash + 1;
	}
	size_t qlen = strlen(query);
	/* The exact name, else a unique prefix, else a unique substring. Two
	 * owners may hold one name (the same content stored in the same
	 * second), so even the exact name may match several. */
	for (int pass = 0; pass < 3; pass++) {
		struct entry *found = NULL;
		unsigned n_hits = 0;
		struct buf names = BUF_INIT;
		struct list_node *n, *tmp;
		LIST_FOREACH_SAFE (n, tmp, &entries) {
			struct entry *e = LIST_ITEM(n, struct entry, link);
			if (!in_scope(e, scope) || !hits(e, query, qlen, pass))
				continue;
			found = e;
			if (++n_hits > MATCHES_LISTED)
				continue;
			if (n_hits > 1)
				buf_append(&names, ", ", 2);
			/* Across owners, each match is named as OWNER/NAME. */
			if (!scope) {
				buf_append(&names, e->owner, strlen(e->owner));
				buf_append(&names, "/", 1);
			}
			buf_append(&names, e->name, strlen(e->name));
		}
		if (n_hits > 1) {
			if (n_hits > MATCHES_LISTED)
				buf_append(&names, ", ...", 5);
			if (buf_append(&names, "", 1) < 0)
				buf_free(&names); /* no list rather than an unterminated one */
			*matches = names.data;
			return CACHE_AMBIGUOUS;
		}
		buf_free(&names);
		if (found) {
			*code = found->code;
			*len = found->len;
			*name = found->name;
			return CACHE_FOUND;
		}
	}
	return CACHE_NOT_FOUND;
}

json_t *cache_list(const char *scope, const char *filter)
{
	json_t *out = json_array();
	for (struct list_node *n = entries.prev; n != &entries; n = n->prev) {
		struct entry *e = LIST_ITEM(n, struct entry, link);
		if (!in_scope(e, scope))
			continue;
		if (filter && !icontains(e->name, filter) && !icontains(e->description, filter))
			continue;
		json_t *info = entry_info(e, true);
		if (!scope) /* everyone's: say whose */
			json_object_set_new(info, "owner", json_string(e->owner));
		json_array_append_new(out, info);
	}
	return out;
}

void cache_clear(const char *scope, cache_cleared_cb cleared, void *arg)
{
	struct job *j = calloc(1, sizeof *j);
	if (!j) {
		cleared(arg, 0, false);
		return;
	}
	size_t cap = 0;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &entries) {
		struct entry *e = LIST_ITEM(n, struct entry, link);
		if (!in_scope(e, scope))
			continue;
		char path[CACHE_OWNER_SIZE + NAME_SIZE];
		snprintf(path, sizeof path, "%s/%s", e->owner, e->name);
		size_t len = strlen(path) + 1;
		if (j->len + len > cap) {
			char *d = realloc(j->data, cap = (j->len + len) * 2);
			if (!d) {
				j->partial = true;
				break;
			}
			j->data = d;
		}
		memcpy(j->data + j->len, path, len);
		j->len += len;
		forget(e);
	}
	j->kind = JOB_CLEAR;
	j->cleared = cleared;
	j->arg = arg;
	if (!enabled) {
		bool partial = j->partial;
		free(j->data);
		free(j);
		cleared(arg, 0, !partial);
		return;
	}
	submit(j);
}

/* Whether job j writes or removes a file of scope's. */
static bool job_in_scope(const struct job *j, const char *scope)
{
	if (!scope)
		return true;
	if (j->kind == JOB_WRITE)
		return strcmp(j->owner, scope) == 0;
	size_t n = strlen(scope);
	for (const char *path = j->data; path && path < j->data + j->len; path += strlen(path) + 1)
		if (strncmp(path, scope, n) == 0 && path[n] == '/')
			return true;
	return false;
}

/* Jobs in scope not yet done and seen by the loop: queued, being done, or
 * done and not yet applied. */
static unsigned pending_jobs(const char *scope)
{
	unsigned n = 0;
	pthread_mutex_lock(&lock);
	struct job *lists[] = {todo, running, done_jobs};
	for (size_t i = 0; i < 3; i++)
		for (struct job *j = lists[i]; j; j = i == 1 ? NULL : j->next)
			if (job_in_scope(j, scope))
				n++;
	pthread_mutex_unlock(&lock);
	return n;
}

json_t *cache_describe(const char *scope)
{
	unsigned count = n_entries;
	uint64_t bytes = n_bytes;
	if (scope) {
		const struct holder *h = find_holder(scope);
		count = h ? h->count : 0;
		bytes = h ? h->bytes : 0;
	}
	return json_pack("{s:s, s:I, s:I, s:b, s:I}", "dir", settings.dir ? settings.dir : "",
			 "scripts", (json_int_t)count, "bytes", (json_int_t)bytes, "writable",
			 enabled && !warned, "pending_writes", (json_int_t)pending_jobs(scope));
}

/* ---- start-up */

static bool script_name(const char *name)
{
	size_t n = strlen(name);
	return n < NAME_SIZE && strncmp(name, "script-", 7) == 0 && n > 10 &&
	       strcmp(name + n - 3, ".js") == 0;
}

/* Reads one script file of owner (in directory sub) into the index;
 * anything odd is left alone. */
static void load_one(int sub, const char *owner, const char *name)
{
	struct stat st;
	if (fstatat(sub, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > settings.max_bytes)
		return;
	int fd = openat(sub, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t len = (size_t)st.st_size;
	char *code = malloc(len ? len : 1);
	size_t got = 0;
	while (code && got < len) {
		ssize_t r = read(fd, code + got, len - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (code && got == len) {
		char hash[HASH_HEX + 1];
		sha256_hex(code, len, hash);
		uint64_t created = (uint64_t)st.st_mtim.tv_sec * 1000u +
				   (uint64_t)st.st_mtim.tv_nsec / 1000000u;
		struct entry *e = find_hash(owner, hash)
					  ? NULL
					  : new_entry(owner, name, hash, code, len, created);
		if (e && insert(e) < 0)
			free_entry(e);
	}
	free(code);
}

/* A fresh listing of directory fd (its own offset: a dup would share it). */
static DIR *listing(int fd)
{
	int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = d >= 0 ? fdopendir(d) : NULL;
	if (!dir && d >= 0)
		close(d);
	return dir;
}

/* Loads the scripts of one owner's directory (never through a symlink),
 * removing writes that were cut short. */
static void load_owner(const char *owner)
{
	int sub = owner_dir(owner, false);
	if (sub < 0)
		return;
	DIR *d = listing(sub);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, ".tmp-", 5) == 0)
			unlinkat(sub, de->d_name, 0);
		else if (script_name(de->d_name))
			load_one(sub, owner, de->d_name);
	}
	if (d)
		closedir(d);
	close(sub);
}

/*
 * Before scripts were kept per owner they lay in the cache directory
 * itself, with no owner recorded. They move into uid 0's directory: only
 * admins see them, and nobody's script is shown to another user.
 */
static void migrate_flat(void)
{
	DIR *d = listing(dir_fd);
	struct dirent *de;
	int root = -1;
	unsigned moved = 0;
	while (d && (de = readdir(d))) {
		struct stat st;
		if (strncmp(de->d_name, ".tmp-", 5) == 0) {
			unlinkat(dir_fd, de->d_name, 0); /* a write cut short */
			continue;
		}
		if (!script_name(de->d_name) ||
		    fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (root < 0 && (root = owner_dir(CACHE_LEGACY_OWNER, true)) < 0) {
			log_warn("script cache %s: cannot make %s/: %s (older scripts stay unused)",
				 settings.dir, CACHE_LEGACY_OWNER, strerror(errno));
			break;
		}
		if (renameat(dir_fd, de->d_name, root, de->d_name) == 0)
			moved++;
	}
	if (d)
		closedir(d);
	if (root >= 0) {
		fsync(root);
		fsync(dir_fd);
		close(root);
	}
	if (moved)
		log_info("script cache %s: moved %u scripts of no recorded owner into %s/ "
			 "(admins only)",
			 settings.dir, moved, CACHE_LEGACY_OWNER);
}

static int open_dir(const char *dir)
{
	/* Create it and its parents, owner-only at the last level. */
	char path[4096];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return -1;
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

void cache_init(const struct cache_settings *s)
{
	settings = *s;
	if (!settings.dir || !*settings.dir)
		return;
	dir_fd = open_dir(settings.dir);
	if (dir_fd < 0) {
		warn_once("cannot open the directory", errno);
		return;
	}
	migrate_flat();
	DIR *d = listing(dir_fd);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (owner_key_ok(de->d_name))
			load_owner(de->d_name);
	if (d)
		closedir(d);
	/* A writer started again after cache_stop must not see the stop. */
	pthread_mutex_lock(&lock);
	stopping = false;
	pthread_mutex_unlock(&lock);
	event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (event_fd < 0 || loop_add(&event_watch, event_fd, EPOLLIN, on_done) < 0 ||
	    pthread_create(&writer, NULL, writer_main, NULL) != 0) {
		warn_once("cannot start the writer", errno);
		return;
	}
	writer_running = true;
	enabled = true;
	enforce_limits(NULL);
	log_info("script cache %s: %u scripts, %llu bytes", settings.dir, n_entries,
		 (unsigned long long)n_bytes);
}

void cache_stop(void)
{
	if (!writer_running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(writer, NULL);
	writer_running = false;
	enabled = false;
	on_done(&event_watch, 0); /* results nobody waits for any more */
	loop_del(&event_watch);
	close(event_fd);
	event_fd = -1;
	if (dir_fd >= 0)
		close(dir_fd);
	dir_fd = -1;
}
