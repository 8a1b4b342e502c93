/* config.c - command-line options; see config.h. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../protocol/limits.h"
#include "../protocol/size.h"
#include "log.h"
#include "owner.h"

#ifndef SANDBOXD_VERSION
#define SANDBOXD_VERSION "0"
#endif

#define DEFAULT_SOCKET "/run/sandboxd/sandboxd.sock"
/* Shared by every daemon of the machine: on the real /run (not a private
 * /tmp), beside the default socket, in a directory only root may write to
 * (not the world-writable /run/lock, where any user could create the file
 * first and so keep every daemon from starting). */
#define DEFAULT_UID_LOCK "/run/sandboxd/worker-uids.lock"

static const char usage[] =
	"usage: sandboxd [options]\n"
	"Runs untrusted JavaScript in confined single-use worker processes, answering\n"
	"length-prefixed or line-delimited JSON requests on a Unix socket.\n"
	"\n"
	"  --socket PATH          listen here (env SANDBOXD_SOCKET; default " DEFAULT_SOCKET ")\n"
	"                         ignored when systemd passes a socket (LISTEN_FDS)\n"
	"  --socket-mode MODE     permissions of the socket file (octal; default 0660)\n"
	"  --max-frame-bytes N    largest request frame (default 4M)\n"
	"  --max-workers N        executions running at once (default 2 x CPUs)\n"
	"  --pool N               workers kept cloned and confined ahead of time, each\n"
	"                         for one execution (default --max-workers; 0: none)\n"
	"  --queue N              executions waiting for a worker (default 256)\n"
	"  --max-running-per-owner N  executions one owner (uid) runs at once (default\n"
	"                         --max-workers minus 1, so others always find a slot)\n"
	"  --max-queued-per-owner N   executions one owner may have waiting (default 64)\n"
	"  --admin-group GROUP    members see and manage every owner's executions and\n"
	"                         scripts, as uid 0 does (name or gid)\n"
	"  --allow-users LIST     admit only these users (comma-separated names or uids)\n"
	"  --allow-groups LIST    admit only members of these groups (names or gids)\n"
	"  --max-connections N    clients connected at once (default 256)\n"
	"  --frame-timeout-ms N   time a started frame has to arrive in full (default 30000)\n"
	"  --idle-timeout-ms N    close connections idle this long (default 600000)\n"
	"  --timeout-ms N         default execution timeout (default 30000)\n"
	"  --max-timeout-ms N     largest timeout a request may ask for (default 120000)\n"
	"  --memory-bytes N       default memory for a script (default 64M)\n"
	"  --max-memory-bytes N   largest memory a request may ask for (default 1G)\n"
	"  --output-bytes N       default stdout+stderr cap (default 8M)\n"
	"  --max-output-bytes N   largest output cap a request may ask for (default 16M)\n"
	"  --worker-uids FIRST-LAST  when run as root, each worker its own uid and gid\n"
	"                         from this range, unused by any user or group\n"
	"                         (default 2000000000-2000065535)\n"
	"  --uid-lock PATH        the lock file in which daemons sharing a range claim\n"
	"                         --max-workers ids each, in a directory (made if\n"
	"                         missing) that only root may write to\n"
	"                         (default " DEFAULT_UID_LOCK ")\n"
	"  --worker-user USER     instead, every worker runs as this user\n"
	"  --grace-ms N           on SIGTERM, time running work gets to finish (default 10000)\n"
	"  --max-wait-ms N        longest status long-poll; longer waits are cut (default 120000)\n"
	"  --retention-ms N       how long finished executions stay queryable (default 600000)\n"
	"  --retain-count N       finished executions kept at most (default 1000)\n"
	"  --retain-bytes N       bytes kept among finished executions at most: output,\n"
	"                         values, reports, records (default 64M)\n"
	"  --reply-bytes N        replies queued for all clients; past it replies wait and\n"
	"                         no new execution starts (default 32M)\n"
	"  --conn-reply-bytes N   replies queued for one client before its requests wait\n"
	"                         (default 4M)\n"
	"  --partial-bytes N      half-sent requests over all connections (default 16M)\n"
	"  --queue-bytes N        code, tests and stores held by executions not yet done\n"
	"                         (default 16M)\n"
	"  --cache-dir DIR        script cache (default $STATE_DIRECTORY/scripts under systemd,\n"
	"                         /var/lib/sandboxd/scripts as root, else\n"
	"                         $XDG_STATE_HOME/sandboxd/scripts)\n"
	"  --cache-max-entries N  scripts kept at most (default 1000)\n"
	"  --cache-max-bytes N    script bytes kept at most (default 32M)\n"
	"  --no-cache             do not cache scripts\n"
	"  --log-level LEVEL      error, warn, info or debug (default info)\n"
	"  -h, --help             this text, on stdout\n"
	"  --version              the version, on stdout\n"
	"Sizes take a K, M or G suffix (powers of 1024).\n"
	"Exit status: 0 stopped by SIGTERM/SIGINT (or -h, --help, --version); 100 bad usage\n"
	"(or worker uids that cannot be had: a range in use, no ids left, no lock file);\n"
	"1 a system error (socket, forkserver, worker user, open-files limit, epoll).\n";

enum {
	OPT_SOCKET = 256,
	OPT_SOCKET_MODE,
	OPT_MAX_FRAME,
	OPT_MAX_WORKERS,
	OPT_QUEUE,
	OPT_MAX_RUNNING_OWNER,
	OPT_MAX_QUEUED_OWNER,
	OPT_ADMIN_GROUP,
	OPT_ALLOW_USERS,
	OPT_ALLOW_GROUPS,
	OPT_MAX_CONNS,
	OPT_FRAME_TIMEOUT,
	OPT_IDLE_TIMEOUT,
	OPT_TIMEOUT,
	OPT_MAX_TIMEOUT,
	OPT_MEMORY,
	OPT_MAX_MEMORY,
	OPT_OUTPUT,
	OPT_MAX_OUTPUT,
	OPT_WORKER_USER,
	OPT_WORKER_UIDS,
	OPT_UID_LOCK,
	OPT_GRACE,
	OPT_LOG_LEVEL,
	OPT_MAX_WAIT,
	OPT_RETENTION,
	OPT_RETAIN_COUNT,
	OPT_RETAIN_BYTES,
	OPT_REPLY_BYTES,
	OPT_CONN_REPLY_BYTES,
	OPT_PARTIAL_BYTES,
	OPT_QUEUE_BYTES,
	OPT_CACHE_DIR,
	OPT_CACHE_ENTRIES,
	OPT_CACHE_BYTES,
	OPT_NO_CACHE,
	OPT_POOL,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option options[] = {
	{"socket", required_argument, NULL, OPT_SOCKET},
	{"socket-mode", required_argument, NULL, OPT_SOCKET_MODE},
	{"max-frame-bytes", required_argument, NULL, OPT_MAX_FRAME},
	{"max-workers", required_argument, NULL, OPT_MAX_WORKERS},
	{"queue", required_argument, NULL, OPT_QUEUE},
	{"max-running-per-owner", required_argument, NULL, OPT_MAX_RUNNING_OWNER},
	{"max-queued-per-owner", required_argument, NULL, OPT_MAX_QUEUED_OWNER},
	{"admin-group", required_argument, NULL, OPT_ADMIN_GROUP},
	{"allow-users", required_argument, NULL, OPT_ALLOW_USERS},
	{"allow-groups", required_argument, NULL, OPT_ALLOW_GROUPS},
	{"max-connections", required_argument, NULL, OPT_MAX_CONNS},
	{"frame-timeout-ms", required_argument, NULL, OPT_FRAME_TIMEOUT},
	{"idle-timeout-ms", required_argument, NULL, OPT_IDLE_TIMEOUT},
	{"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
	{"max-timeout-ms", required_argument, NULL, OPT_MAX_TIMEOUT},
	{"memory-bytes", required_argument, NULL, OPT_MEMORY},
	{"max-memory-bytes", required_argument, NULL, OPT_MAX_MEMORY},
	{"output-bytes", required_argument, NULL, OPT_OUTPUT},
	{"max-output-bytes", required_argument, NULL, OPT_MAX_OUTPUT},
	{"worker-user", required_argument, NULL, OPT_WORKER_USER},
	{"worker-uids", required_argument, NULL, OPT_WORKER_UIDS},
	{"uid-lock", required_argument, NULL, OPT_UID_LOCK},
	{"grace-ms", required_argument, NULL, OPT_GRACE},
	{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
	{"max-wait-ms", required_argument, NULL, OPT_MAX_WAIT},
	{"retention-ms", required_argument, NULL, OPT_RETENTION},
	{"retain-count", required_argument, NULL, OPT_RETAIN_COUNT},
	{"retain-bytes", required_argument, NULL, OPT_RETAIN_BYTES},
	{"reply-bytes", required_argument, NULL, OPT_REPLY_BYTES},
	{"conn-reply-bytes", required_argument, NULL, OPT_CONN_REPLY_BYTES},
	{"partial-bytes", required_argument, NULL, OPT_PARTIAL_BYTES},
	{"queue-bytes", required_argument, NULL, OPT_QUEUE_BYTES},
	{"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
	{"cache-max-entries", required_argument, NULL, OPT_CACHE_ENTRIES},
	{"cache-max-bytes", required_argument, NULL, OPT_CACHE_BYTES},
	{"no-cache", no_argument, NULL, OPT_NO_CACHE},
	{"pool", required_argument, NULL, OPT_POOL},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

/* FIRST-LAST, two decimal ids with 0 < FIRST <= LAST < 2^32 - 1 (the
 * kernel's "no id"), at most LIMIT_WORKER_UIDS_MAX of them; -1 when not. */
static int parse_id_range(const char *s, uint32_t *first, uint32_t *last)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long a = strtoull(s, &end, 10);
	if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
		return -1;
	unsigned long long b = strtoull(end + 1, &end, 10);
	if (errno || *end || a == 0 || a > b || b >= UINT32_MAX || b - a >= LIMIT_WORKER_UIDS_MAX)
		return -1;
	*first = (uint32_t)a;
	*last = (uint32_t)b;
	return 0;
}

/* Where scripts are cached when --cache-dir is not given: the service's
 * state directory, the system's as root, the user's otherwise. */
static const char *default_cache_dir(void)
{
	static char path[4096];
	const char *state = getenv("STATE_DIRECTORY"); /* set by systemd's StateDirectory= */
	if (state && *state) {
		/* It may list several directories, separated by ':'. */
		snprintf(path, sizeof path, "%.*s/scripts", (int)strcspn(state, ":"), state);
		return path;
	}
	if (geteuid() == 0)
		return "/var/lib/sandboxd/scripts";
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(path, sizeof path, "%s/sandboxd/scripts", xdg);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.local/state/sandboxd/scripts", home);
	else
		return NULL;
	return path;
}

/* What a usage error ends with, instead of the whole usage text. */
#define USAGE_HINT " (try 'sandboxd --help')"

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "sandboxd: --%s %s: %s\n", opt, arg, why);
	return EXIT_USAGE;
}

static int check(const struct config *c)
{
	const struct request_limits *l = &c->limits;
	const char *why = NULL;
	if (l->def.timeout_ms == 0 || l->def.timeout_ms > l->max.timeout_ms)
		why = "--timeout-ms must be between 1 and --max-timeout-ms";
	else if (l->def.memory_bytes < l->min.memory_bytes ||
		 l->def.memory_bytes > l->max.memory_bytes)
		why = "--memory-bytes must be between 1M and --max-memory-bytes";
	else if (l->def.output_bytes == 0 || l->def.output_bytes > l->max.output_bytes)
		why = "--output-bytes must be between 1 and --max-output-bytes";
	else if (c->max_frame_bytes < LIMIT_FRAME_BYTES_MIN || c->max_frame_bytes > (1u << 30))
		why = "--max-frame-bytes must be between 1K and 1G";
	else if (c->max_workers == 0 || c->max_workers > LIMIT_WORKERS_MAX)
		why = "--max-workers must be between 1 and 1024";
	else if (c->queue_max > LIMIT_QUEUE_MAX)
		why = "--queue must be at most 65536";
	else if (c->max_running_per_owner == 0 || c->max_running_per_owner > c->max_workers)
		why = "--max-running-per-owner must be between 1 and --max-workers";
	else if (c->max_queued_per_owner > c->queue_max)
		why = "--max-queued-per-owner must be at most --queue";
	else if (c->max_connections == 0)
		why = "--max-connections must be at least 1";
	else if (l->wait_ms_max == 0)
		why = "--max-wait-ms must be at least 1";
	else if (c->frame_timeout_ms == 0 || c->idle_timeout_ms == 0)
		why = "--frame-timeout-ms and --idle-timeout-ms must be at least 1";
	else if (c->worker_user && c->worker_uids_given)
		why = "--worker-user and --worker-uids exclude each other";
	else if (c->pool > LIMIT_POOL_MAX)
		why = "--pool must be at most 1024";
	else if ((uint64_t)c->worker_uid_last - c->worker_uid_first + 1 <
		 (uint64_t)c->max_workers + c->pool)
		why = "--worker-uids must hold at least --max-workers plus --pool ids";
	else if (c->reply_bytes < LIMIT_BUDGET_MIN || c->conn_reply_bytes < LIMIT_BUDGET_MIN ||
		 c->queue_bytes < LIMIT_BUDGET_MIN)
		why = "--reply-bytes, --conn-reply-bytes and --queue-bytes must be at least 64K";
	else if (c->partial_bytes < c->max_frame_bytes)
		why = "--partial-bytes must be at least --max-frame-bytes";
	if (why) {
		fprintf(stderr, "sandboxd: %s\n", why);
		return EXIT_USAGE;
	}
	/* Names are resolved now, once: an unknown one is bad usage. */
	char msg[256];
	if (owner_policy_init(c->admin_group, c->allow_users, c->allow_groups, msg, sizeof msg) <
	    0) {
		fprintf(stderr, "sandboxd: %s\n", msg);
		return EXIT_USAGE;
	}
	return -1;
}

int config_parse(struct config *c, int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	const char *env = getenv("SANDBOXD_SOCKET");
	c->socket_path = env && *env ? env : DEFAULT_SOCKET;
	c->socket_mode = 0660;
	c->max_frame_bytes = LIMIT_FRAME_BYTES_DEFAULT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->max_workers = LIMIT_WORKERS_PER_CPU * (unsigned)(cpus > 0 ? cpus : 1);
	c->queue_max = LIMIT_QUEUE_DEFAULT;
	bool running_given = false, queued_given = false;
	c->max_connections = LIMIT_CONNECTIONS_DEFAULT;
	c->frame_timeout_ms = LIMIT_FRAME_TIMEOUT_MS;
	c->idle_timeout_ms = LIMIT_IDLE_TIMEOUT_MS;
	request_limits_default(&c->limits);
	c->worker_user = NULL;
	c->worker_uid_first = LIMIT_WORKER_UID_FIRST_DEFAULT;
	c->worker_uid_last = LIMIT_WORKER_UID_FIRST_DEFAULT + LIMIT_WORKER_UIDS_DEFAULT - 1;
	c->uid_lock = DEFAULT_UID_LOCK;
	c->grace_ms = LIMIT_GRACE_MS_DEFAULT;
	c->log_level = LOG_LEVEL_INFO;
	c->cache_max_entries = LIMIT_CACHE_ENTRIES_DEFAULT;
	c->cache_max_bytes = LIMIT_CACHE_BYTES_DEFAULT;
	c->retention_ms = LIMIT_RETENTION_MS_DEFAULT;
	c->retain_count = LIMIT_RETAIN_COUNT_DEFAULT;
	c->retain_bytes = LIMIT_RETAIN_BYTES_DEFAULT;
	c->reply_bytes = LIMIT_REPLY_BYTES_DEFAULT;
	c->conn_reply_bytes = LIMIT_CONN_BACKLOG_BYTES;
	c->partial_bytes = LIMIT_PARTIAL_BYTES_DEFAULT;
	c->queue_bytes = LIMIT_QUEUE_BYTES_DEFAULT;
	bool no_cache = false, pool_given = false;

	int opt;
	/* Usage errors are said here, one line and a hint (":" makes a
	 * missing value ':' rather than '?'). */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		const char *name = opt >= OPT_SOCKET && opt <= OPT_VERSION
					   ? options[opt - OPT_SOCKET].name
					   : "?";
		uint64_t v = 0;
		char *end;
		switch (opt) {
		case OPT_SOCKET: c->socket_path = optarg; continue;
		case OPT_WORKER_USER: c->worker_user = optarg; continue;
		case OPT_WORKER_UIDS:
			if (parse_id_range(optarg, &c->worker_uid_first, &c->worker_uid_last) < 0)
				return bad(name, optarg,
					   "expected FIRST-LAST, two uids with 0 < FIRST <= LAST, "
					   "at most 16777216 of them");
			c->worker_uids_given = true;
			continue;
		case OPT_UID_LOCK:
			if (!*optarg)
				return bad(name, optarg, "expected a path");
			c->uid_lock = optarg;
			continue;
		case OPT_CACHE_DIR: c->cache_dir = optarg; continue;
		case OPT_ADMIN_GROUP: c->admin_group = optarg; continue;
		case OPT_ALLOW_USERS: c->allow_users = optarg; continue;
		case OPT_ALLOW_GROUPS: c->allow_groups = optarg; continue;
		case OPT_NO_CACHE:
			c->cache_dir = NULL;
			no_cache = true;
			continue;
		case OPT_SOCKET_MODE:
			errno = 0;
			v = strtoull(optarg, &end, 8);
			if (errno || *end || end == optarg || v > 0777)
				return bad(name, optarg, "expected an octal mode such as 0660");
			c->socket_mode = (mode_t)v;
			continue;
		case OPT_LOG_LEVEL:
			c->log_level = log_level_parse(optarg);
			if (c->log_level < 0)
				return bad(name, optarg, "expected error, warn, info or debug");
			continue;
		case 'h':
		case OPT_HELP: fputs(usage, stdout); return 0;
		case OPT_VERSION: printf("sandboxd %s\n", SANDBOXD_VERSION); return 0;
		case ':':
			fprintf(stderr, "sandboxd: %s needs a value" USAGE_HINT "\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		case '?':
			if (strncmp(argv[optind - 1], "--", 2) != 0)
				fprintf(stderr, "sandboxd: unknown option '-%c'" USAGE_HINT "\n",
					optopt);
			else
				fprintf(stderr, "sandboxd: unknown option '%s'" USAGE_HINT "\n",
					argv[optind - 1]);
			return EXIT_USAGE;
		default: break;
		}
		if (size_parse(optarg, &v) < 0)
			return bad(name, optarg,
				   "expected a non-negative number (K, M, G allowed)");
		switch (opt) {
		case OPT_MAX_FRAME: c->max_frame_bytes = (size_t)v; break;
		case OPT_MAX_WORKERS: c->max_workers = v > UINT32_MAX ? 0 : (unsigned)v; break;
		case OPT_QUEUE: c->queue_max = v > UINT32_MAX ? UINT32_MAX : (unsigned)v; break;
		case OPT_MAX_RUNNING_OWNER:
			c->max_running_per_owner = v > UINT32_MAX ? 0 : (unsigned)v;
			running_given = true;
			break;
		case OPT_MAX_QUEUED_OWNER:
			c->max_queued_per_owner = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
			queued_given = true;
			break;
		case OPT_MAX_CONNS: c->max_connections = v > 1000000 ? 1000000 : (unsigned)v; break;
		case OPT_FRAME_TIMEOUT: c->frame_timeout_ms = v; break;
		case OPT_IDLE_TIMEOUT: c->idle_timeout_ms = v; break;
		case OPT_TIMEOUT: c->limits.def.timeout_ms = v; break;
		case OPT_MAX_TIMEOUT: c->limits.max.timeout_ms = v; break;
		case OPT_MEMORY: c->limits.def.memory_bytes = v; break;
		case OPT_MAX_MEMORY: c->limits.max.memory_bytes = v; break;
		case OPT_OUTPUT: c->limits.def.output_bytes = v; break;
		case OPT_MAX_OUTPUT: c->limits.max.output_bytes = v; break;
		case OPT_GRACE: c->grace_ms = v; break;
		case OPT_MAX_WAIT: c->limits.wait_ms_max = v; break;
		case OPT_RETENTION: c->retention_ms = v; break;
		case OPT_RETAIN_COUNT:
			c->retain_count = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
			break;
		case OPT_RETAIN_BYTES: c->retain_bytes = v; break;
		case OPT_REPLY_BYTES: c->reply_bytes = (size_t)v; break;
		case OPT_CONN_REPLY_BYTES: c->conn_reply_bytes = (size_t)v; break;
		case OPT_PARTIAL_BYTES: c->partial_bytes = (size_t)v; break;
		case OPT_QUEUE_BYTES: c->queue_bytes = (size_t)v; break;
		case OPT_CACHE_ENTRIES:
			c->cache_max_entries = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
			break;
		case OPT_CACHE_BYTES: c->cache_max_bytes = v; break;
		case OPT_POOL:
			c->pool = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
			pool_given = true;
			break;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sandboxd: unexpected argument '%s'" USAGE_HINT "\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!c->cache_dir && !no_cache)
		c->cache_dir = default_cache_dir();
	/* Defaults that follow the other options (see limits.h). */
	if (!pool_given)
		c->pool = c->max_workers;
	request_limits_settle(&c->limits);
	if (!running_given)
		c->max_running_per_owner = c->max_workers > 1 ? c->max_workers - 1 : 1;
	if (!queued_given)
		c->max_queued_per_owner = c->queue_max < LIMIT_QUEUED_PER_OWNER_DEFAULT
						  ? c->queue_max
						  : LIMIT_QUEUED_PER_OWNER_DEFAULT;
	return check(c);
}
