/* testlib.c - daemon and client helpers for the integration suites. */
#include "testlib.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../protocol/jnum.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *daemon_log(const struct daemon *d)
{
	FILE *f = fopen(d->log, "re");
	ck_assert_msg(f != NULL, "%s: %s", d->log, strerror(errno));
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	buf_append(&b, "", 1);
	fclose(f);
	return b.data;
}

void daemon_start(struct daemon *d, const char *const *args)
{
	const char *bin = getenv("SANDBOXD_BIN");
	ck_assert_msg(bin != NULL, "SANDBOXD_BIN is not set (run through make check)");
	strcpy(d->dir, "/tmp/sandboxd-test-XXXXXX");
	ck_assert_msg(mkdtemp(d->dir) != NULL, "mkdtemp: %s", strerror(errno));
	/* Workers run as nobody and must not be able to reach anything here;
	 * the socket itself is made by the daemon. */
	snprintf(d->sock, sizeof d->sock, "%s/s.sock", d->dir);
	snprintf(d->log, sizeof d->log, "%s/log", d->dir);
	char notify[128];
	snprintf(notify, sizeof notify, "%s/notify", d->dir);
	int nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un na = {.sun_family = AF_UNIX};
	ck_assert_uint_lt(strlen(notify), sizeof na.sun_path);
	memcpy(na.sun_path, notify, strlen(notify) + 1);
	ck_assert_int_eq(bind(nfd, (struct sockaddr *)&na, sizeof na), 0);

	/* The script cache goes in the test's directory unless a test says. */
	char cache[160];
	snprintf(cache, sizeof cache, "%s/scripts", d->dir);
	/* So does the lock file worker ids are claimed in: a test's daemons
	 * never meet those of the machine (or of another suite). */
	char uid_lock[160];
	snprintf(uid_lock, sizeof uid_lock, "%s/uids.lock", d->dir);
	const char *argv[40] = {bin, "--socket", d->sock};
	int n = 3;
	bool own_cache = false, own_lock = false;
	for (; args && *args && n < 35; args++) {
		own_cache |= strcmp(*args, "--cache-dir") == 0 || strcmp(*args, "--no-cache") == 0;
		own_lock |= strcmp(*args, "--uid-lock") == 0;
		argv[n++] = *args;
	}
	if (!own_cache) {
		argv[n++] = "--cache-dir";
		argv[n++] = cache;
	}
	if (!own_lock) {
		argv[n++] = "--uid-lock";
		argv[n++] = uid_lock;
	}
	argv[n] = NULL;
	d->pid = fork();
	ck_assert_int_ge(d->pid, 0);
	if (d->pid == 0) {
		int log = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (log < 0 || dup2(log, 2) < 0)
			_exit(126);
		setenv("NOTIFY_SOCKET", notify, 1);
		/* A test that fails midway must not leave its daemon behind. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	struct pollfd p = {nfd, POLLIN, 0};
	long long deadline = now_ms() + 10000;
	while (now_ms() < deadline) {
		int st;
		if (poll(&p, 1, 100) == 1) {
			char msg[256];
			ssize_t r = recv(nfd, msg, sizeof msg - 1, 0);
			if (r > 0) {
				msg[r] = '\0';
				if (strstr(msg, "READY=1")) {
					close(nfd);
					unlink(notify);
					return;
				}
			}
		}
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = -1;
			char *log = daemon_log(d);
			ck_abort_msg("daemon exited at start (status %#x): %s", st, log);
		}
	}
	ck_abort_msg("daemon did not become ready");
}

int daemon_wait(struct daemon *d, int timeout_ms)
{
	int pidfd = pidfd_open(d->pid, 0);
	ck_assert_int_ge(pidfd, 0);
	struct pollfd p = {pidfd, POLLIN, 0};
	ck_assert_msg(poll(&p, 1, timeout_ms) == 1, "daemon did not exit within %d ms", timeout_ms);
	close(pidfd);
	int st;
	ck_assert_int_eq(waitpid(d->pid, &st, 0), d->pid);
	d->pid = -1;
	return st;
}

int daemon_stop(struct daemon *d)
{
	int st = -1;
	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		st = daemon_wait(d, 30000);
	}
	/* The directory holds the socket, the log and the script cache. */
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
	if (strncmp(d->dir, "/tmp/sandboxd-test-", 19) == 0)
		(void)!system(cmd);
	return st;
}

int daemon_fd_count(const struct daemon *d)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)d->pid);
	DIR *dir = opendir(path);
	ck_assert_msg(dir != NULL, "opendir %s: %s", path, strerror(errno));
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* Calls fn for each process whose parent is the daemon. */
static void each_child(const struct daemon *d, void (*fn)(pid_t pid, char state, void *arg),
		       void *arg)
{
	DIR *proc = opendir("/proc");
	ck_assert_ptr_nonnull(proc);
	struct dirent *de;
	while ((de = readdir(proc))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char path[300], line[512];
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof line, f)) {
			/* pid (comm) state ppid ...: comm may hold spaces. */
			char *rp = strrchr(line, ')');
			char state;
			int ppid;
			if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == d->pid)
				fn((pid_t)atoi(de->d_name), state, arg);
		}
		fclose(f);
	}
	closedir(proc);
}

struct tally {
	int n, zombies, max;
	pid_t *pids;
};

static void count_child(pid_t pid, char state, void *arg)
{
	struct tally *t = arg;
	if (t->pids && t->n < t->max)
		t->pids[t->n] = pid;
	t->n++;
	if (state == 'Z')
		t->zombies++;
}

int daemon_child_count(const struct daemon *d, int *zombies)
{
	struct tally t = {0, 0, 0, NULL};
	each_child(d, count_child, &t);
	*zombies = t.zombies;
	return t.n;
}

int daemon_children(const struct daemon *d, pid_t *pids, int max)
{
	struct tally t = {0, 0, max, pids};
	each_child(d, count_child, &t);
	return t.n < max ? t.n : max;
}

/* Tests read replies of any size the daemon may send. */
#define TESTLIB_MAX_FRAME (1u << 30)

static void client_init(struct client *c, struct sdc *s, enum frame_mode mode)
{
	c->sdc = s;
	c->fd = s ? sdc_fd(s) : -1;
	c->mode = mode;
	if (s)
		sdc_set_max_frame(s, TESTLIB_MAX_FRAME);
}

int client_open(struct client *c, const char *sock, enum frame_mode mode)
{
	struct sdc *s = sdc_connect(sock, mode, 0);
	client_init(c, s, mode);
	return s ? 0 : -1;
}

void client_close(struct client *c)
{
	sdc_close(c->sdc);
	c->sdc = NULL;
	c->fd = -1;
}

void client_send_raw(struct client *c, const void *p, size_t n)
{
	int st = sdc_send_raw(c->sdc, p, n);
	ck_assert_msg(st == SDC_OK, "send: %s", sdc_error(c->sdc));
}

void client_send(struct client *c, const json_t *msg)
{
	int st = sdc_send_msg(c->sdc, msg);
	ck_assert_msg(st == SDC_OK, "send: %s",
		      st == SDC_EINVAL ? "cannot encode the message" : sdc_error(c->sdc));
}

void client_sendf(struct client *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
	va_end(ap);
	json_error_t err;
	json_t *msg = jnum_loads(text, 0, &err);
	ck_assert_msg(msg != NULL, "bad test JSON %s: %s", text, err.text);
	client_send(c, msg);
	json_decref(msg);
	free(text);
}

json_t *client_recv(struct client *c, int timeout_ms)
{
	int st;
	json_t *m = sdc_recv(c->sdc, timeout_ms, &st);
	ck_assert_msg(m || st == SDC_EOF || st == SDC_ETIMEOUT, "%s", sdc_error(c->sdc));
	return m;
}

json_t *client_reply(struct client *c, json_t *events, int timeout_ms)
{
	for (;;) {
		json_t *m = client_recv(c, timeout_ms);
		if (!m || json_object_get(m, "ok"))
			return m;
		if (events)
			json_array_append(events, m);
		json_decref(m);
	}
}

bool client_eof(struct client *c, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return false;
		int st;
		json_t *m = sdc_recv(c->sdc, (int)left, &st);
		if (!m)
			return st == SDC_EOF;
		json_decref(m);
	}
}

json_t *exec_once(const char *sock, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
	va_end(ap);
	struct client c;
	ck_assert_int_eq(client_open(&c, sock, FRAME_MODE_BINARY), 0);
	json_error_t err;
	json_t *msg = jnum_loads(text, 0, &err);
	ck_assert_msg(msg != NULL, "bad test JSON %s: %s", text, err.text);
	if (!json_object_get(msg, "op"))
		json_object_set_new(msg, "op", json_string("execute"));
	client_send(&c, msg);
	json_decref(msg);
	free(text);
	json_t *r = client_reply(&c, NULL, 60000);
	ck_assert_msg(r != NULL, "no reply");
	client_close(&c);
	return r;
}

void client_request(struct client *c, json_t *req)
{
	ck_assert_ptr_nonnull(req);
	client_send(c, req);
	json_decref(req);
}

json_t *client_call(struct client *c, json_t *req)
{
	client_request(c, req);
	json_t *r = client_reply(c, NULL, 10000);
	ck_assert_msg(r != NULL, "no reply");
	return r;
}

json_t *call_once(const char *sock, json_t *req)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, sock, FRAME_MODE_BINARY), 0);
	json_t *r = client_call(&c, req);
	client_close(&c);
	return r;
}

json_t *err_obj(json_t *r) { return json_object_get(r, "error"); }
const char *err_code(json_t *r) { return jstr(err_obj(r), "code"); }
const char *err_msg(json_t *r) { return jstr(err_obj(r), "message"); }
const char *err_kind(json_t *r) { return jstr(err_obj(r), "kind"); }

void assert_error(json_t *r, const char *code, const char *needle)
{
	ck_assert_msg(!jtrue(r, "ok"), "expected %s, got ok", code);
	ck_assert_msg(strcmp(err_code(r), code) == 0, "expected %s, got %s (%s)", code, err_code(r),
		      err_msg(r));
	if (needle)
		ck_assert_msg(strstr(err_msg(r), needle) != NULL, "\"%s\" not in \"%s\"", needle,
			      err_msg(r));
}

const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

long long jint(json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }
bool jtrue(json_t *o, const char *key) { return json_is_true(json_object_get(o, key)); }

char *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: %s (run from the source tree)", path, strerror(errno));
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		ck_assert_int_eq(buf_append(&b, chunk, n), 0);
	ck_assert_int_eq(buf_append(&b, "", 1), 0);
	fclose(f);
	if (len)
		*len = buf_len(&b) - 1;
	return b.data;
}

unsigned testlib_unused_id(unsigned after)
{
	if (after < TESTLIB_ID_BASE)
		after = TESTLIB_ID_BASE;
	for (unsigned id = after + 1; id < TESTLIB_ID_BASE + 100000u; id++)
		if (!getpwuid((uid_t)id) && !getgrgid((gid_t)id))
			return id;
	ck_abort_msg("no unused uid above %u", TESTLIB_ID_BASE);
	return 0;
}

/* The child switches to uid:gid (no supplementary groups), connects, and
 * hands the connected socket back over a socketpair: the kernel recorded
 * uid:gid as the peer when it connected. */
void client_open_as(struct client *c, const char *sock, uid_t uid, gid_t gid)
{
	int sp[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sp[0]);
		struct client cc;
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(2);
		if (getuid() != uid || geteuid() != uid || getegid() != gid)
			_exit(3);
		if (client_open(&cc, sock, FRAME_MODE_BINARY) < 0)
			_exit(4);
		char byte = 'c';
		struct iovec iov = {&byte, 1};
		char control[CMSG_SPACE(sizeof(int))] = {0};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = control,
				   .msg_controllen = sizeof control};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &cc.fd, sizeof(int));
		_exit(sendmsg(sp[1], &m, 0) == 1 ? 0 : 5);
	}
	close(sp[1]);
	char byte;
	struct iovec iov = {&byte, 1};
	char control[CMSG_SPACE(sizeof(int))];
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = control,
			   .msg_controllen = sizeof control};
	ssize_t got = recvmsg(sp[0], &m, MSG_CMSG_CLOEXEC);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the client process for uid %u failed (status %#x)", (unsigned)uid, st);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	ck_assert_msg(got == 1 && cm && cm->cmsg_type == SCM_RIGHTS, "no socket from uid %u",
		      (unsigned)uid);
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	close(sp[0]);
	struct sdc *s = sdc_adopt(fd, FRAME_MODE_BINARY, 0);
	ck_assert_msg(s != NULL, "sdc_adopt: %s", strerror(errno));
	client_init(c, s, FRAME_MODE_BINARY);
}

json_t *client_started(struct client *c, const char *id, int timeout_ms)
{
	json_t *m = client_recv(c, timeout_ms);
	ck_assert_msg(m != NULL, "no started event within %d ms", timeout_ms);
	const char *ev = json_string_value(json_object_get(m, "event"));
	char *text = jnum_dumps(m, JSON_COMPACT);
	ck_assert_msg(ev && strcmp(ev, "started") == 0, "the first frame is not started: %s", text);
	json_t *got = json_object_get(m, "id");
	char num[32] = "";
	if (json_is_integer(got))
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(got));
	if (id)
		ck_assert_msg(strcmp(json_is_string(got) ? json_string_value(got) : num, id) == 0,
			      "started for another id: %s", text);
	else
		ck_assert_msg(!got, "started with an id: %s", text);
	ck_assert_msg(strncmp(jstr(m, "execution_id"), "exec_", 5) == 0, "no execution id: %s",
		      text);
	const char *state = jstr(m, "state");
	ck_assert_msg(strcmp(state, "pending") == 0 || strcmp(state, "running") == 0,
		      "started in state %s", state);
	json_t *pos = json_object_get(m, "queue_position");
	ck_assert_msg(!pos || (strcmp(state, "pending") == 0 && json_integer_value(pos) >= 1),
		      "a queue position out of place: %s", text);
	free(text);
	return m;
}

/* ---- the warm pool */

long long daemon_pool_stat(const struct daemon *d, const char *field)
{
	json_t *h = call_once(d->sock, json_pack("{s:s}", "op", "health"));
	json_t *v = json_object_get(json_object_get(h, "pool"), field);
	long long n = json_is_integer(v) ? json_integer_value(v) : -1;
	json_decref(h);
	return n;
}

/* The forkserver is the child named sandboxd-fork that leads its own
 * session: a worker just cloned from it has its name, and its session,
 * until it renames itself and calls setsid. */
static bool is_forkserver(pid_t pid, const char *comm)
{
	if (strncmp(comm, "sandboxd-fork", 13) != 0)
		return false;
	char path[64], st[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(st, 1, sizeof st - 1, f) : 0;
	if (f)
		fclose(f);
	st[n] = '\0';
	const char *p = strrchr(st, ')');
	int ppid, pgrp, sid;
	return p && sscanf(p + 2, "%*c %d %d %d", &ppid, &pgrp, &sid) == 3 && sid == pid;
}

/* The process's name (/proc/PID/comm, newline kept), or "" when gone. */
static void read_comm(pid_t pid, char *comm, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	comm[0] = '\0';
	FILE *f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, (int)size, f))
			comm[0] = '\0';
		fclose(f);
	}
}

static void find_forkserver(pid_t pid, char state, void *arg)
{
	char comm[32];
	(void)state;
	read_comm(pid, comm, sizeof comm);
	if (is_forkserver(pid, comm))
		*(pid_t *)arg = pid;
}

pid_t daemon_forkserver(const struct daemon *d)
{
	pid_t pid = -1;
	each_child(d, find_forkserver, &pid);
	return pid;
}

static void count_unconfined(pid_t pid, char state, void *arg)
{
	char path[64], text[4096], comm[32];
	(void)state;
	read_comm(pid, comm, sizeof comm);
	FILE *f;
	if (is_forkserver(pid, comm))
		return;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	/* A worker cloned for the pool confines itself after the clone: it
	 * is parked from then on, confined once its filter is loaded. Any
	 * child but the forkserver is a worker. */
	if (!strstr(text, "\nSeccomp:\t2\n"))
		(*(int *)arg)++;
}

/* Whether every worker of d has its seccomp filter loaded. */
static bool all_workers_confined(const struct daemon *d)
{
	int unconfined = 0;
	each_child(d, count_unconfined, &unconfined);
	return unconfined == 0;
}

int daemon_pool_full(const struct daemon *d, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		json_t *h = call_once(d->sock, json_pack("{s:s}", "op", "health"));
		json_t *pool = json_object_get(h, "pool");
		ck_assert_msg(json_is_object(pool), "health has no pool object");
		long long target = jint(pool, "target"), parked = jint(pool, "parked"),
			  starting = jint(pool, "starting");
		json_decref(h);
		if (parked == target && starting == 0 && all_workers_confined(d))
			return (int)target;
		ck_assert_msg(now_ms() < deadline, "the pool did not fill: %lld of %lld parked",
			      parked, target);
		/* The refills run on the daemon's loop and in the forkserver:
		 * give them the CPU rather than spin against them. */
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

struct by_limit {
	long long seconds;
	pid_t *pids;
	int n, max;
};

static void match_cpu_limit(pid_t pid, char state, void *arg)
{
	struct by_limit *b = arg;
	char path[64], line[256], comm[32];
	(void)state;
	read_comm(pid, comm, sizeof comm);
	if (strncmp(comm, "sandboxd-work", 13) != 0)
		return;
	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		long long soft;
		if (sscanf(line, "Max cpu time %lld", &soft) == 1 && soft == b->seconds) {
			if (b->n < b->max)
				b->pids[b->n] = pid;
			b->n++;
		}
	}
	fclose(f);
}

int daemon_workers_by_timeout(const struct daemon *d, long long timeout_ms, pid_t *pids, int max)
{
	struct by_limit b = {timeout_ms / 1000 + 1, pids, 0, max};
	each_child(d, match_cpu_limit, &b);
	return b.n < max ? b.n : max;
}

pid_t daemon_worker_by_timeout(const struct daemon *d, long long timeout_ms)
{
	pid_t pid;
	return daemon_workers_by_timeout(d, timeout_ms, &pid, 1) == 1 ? pid : -1;
}
