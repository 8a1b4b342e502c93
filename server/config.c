/* config.c - command-line options; see config.h. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
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

/* The usage text around the options, which the table below writes. */
static const char usage_head[] =
	"usage: sandboxd [options]\n"
	"Runs untrusted JavaScript in confined single-use worker processes, answering\n"
	"length-prefixed or line-delimited JSON requests on a Unix socket.\n"
	"\n";
static const char usage_tail[] =
	"Sizes take a K, M or G suffix (powers of 1024).\n"
	"Exit status: 0 stopped by SIGTERM/SIGINT (or -h, --help, --version); 100 bad usage\n"
	"(or worker uids that cannot be had: a range in use, no ids left, no lock file);\n"
	"1 a system error (socket, forkserver, worker user, open-files limit, epoll).\n";

/* How an option's value is read, and into what (at offset in struct config). */
enum opt_kind {
	OPT_STRING,    /* const char *, as given */
	OPT_PATH,      /* const char *, not empty */
	OPT_UNSIGNED,  /* unsigned: a size or count, larger ones cut to UINT32_MAX */
	OPT_U64,       /* uint64_t: a size or count */
	OPT_SIZE,      /* size_t: a size */
	OPT_MODE,      /* mode_t, octal */
	OPT_LOG_LEVEL, /* int: log_level_parse */
	OPT_ID_RANGE,  /* worker_uid_first/last: FIRST-LAST */
	OPT_FLAG,      /* bool, set by the option's presence */
	OPT_LIMITS,    /* not an option: here come the per-execution limits'
			* options, from request.c's exec_limit_fields */
	OPT_HELP,
	OPT_VERSION,
};

/*
 * One option: --name ARG, its --help text (lines after the first indented;
 * a default that follows other options is in the text), where its value
 * goes and how it is checked: numbers within [min, max] (max 0: no upper
 * bound), checked once every option is read, in the table's order; a
 * relation between options is check()'s.
 */
struct opt_spec {
	const char *name;
	const char *arg; /* NULL: takes no value */
	const char *help;
	enum opt_kind kind;
	size_t offset;
	uint64_t min, max;
	bool bytes; /* min and max are said as sizes (1K) in messages */
};

#define AT(member) offsetof(struct config, member)

static const struct opt_spec opt_specs[] = {
	{"socket", "PATH",
	 "listen here (env SANDBOXD_SOCKET; default " DEFAULT_SOCKET ")\n"
	 "ignored when systemd passes a socket (LISTEN_FDS)",
	 OPT_STRING, AT(socket_path), 0, 0, false},
	{"socket-mode", "MODE", "permissions of the socket file (octal; default 0660)", OPT_MODE,
	 AT(socket_mode), 0, 0, false},
	{"max-frame-bytes", "N", "largest request frame (default 4M)", OPT_SIZE,
	 AT(max_frame_bytes), LIMIT_FRAME_BYTES_MIN, 1u << 30, true},
	{"max-workers", "N", "executions running at once (default 2 x CPUs)", OPT_UNSIGNED,
	 AT(max_workers), 1, LIMIT_WORKERS_MAX, false},
	{"queue", "N", "executions waiting for a worker (default 256)", OPT_UNSIGNED, AT(queue_max),
	 0, LIMIT_QUEUE_MAX, false},
	{"max-running-per-owner", "N",
	 "executions one owner (uid) runs at once (default\n"
	 "--max-workers minus 1, so others always find a slot)",
	 OPT_UNSIGNED, AT(max_running_per_owner), 1, 0, false},
	{"max-queued-per-owner", "N", "executions one owner may have waiting (default 64)",
	 OPT_UNSIGNED, AT(max_queued_per_owner), 0, 0, false},
	{"admin-group", "GROUP",
	 "members see and manage every owner's executions and\n"
	 "scripts, as uid 0 does (name or gid)",
	 OPT_STRING, AT(admin_group), 0, 0, false},
	{"allow-users", "LIST", "admit only these users (comma-separated names or uids)",
	 OPT_STRING, AT(allow_users), 0, 0, false},
	{"allow-groups", "LIST", "admit only members of these groups (names or gids)", OPT_STRING,
	 AT(allow_groups), 0, 0, false},
	{"max-connections", "N", "clients connected at once (default 256)", OPT_UNSIGNED,
	 AT(max_connections), 1, 1000000, false},
	{"frame-timeout-ms", "N", "time a started frame has to arrive in full (default 30000)",
	 OPT_U64, AT(frame_timeout_ms), 1, 0, false},
	{"idle-timeout-ms", "N", "close connections idle this long (default 600000)", OPT_U64,
	 AT(idle_timeout_ms), 1, 0, false},
	{"", NULL, NULL, OPT_LIMITS, 0, 0, 0, false},
	{"worker-uids", "FIRST-LAST",
	 "when run as root, each worker its own uid and gid\n"
	 "from this range, unused by any user or group\n"
	 "(default 2000000000-2000065535)",
	 OPT_ID_RANGE, 0, 0, 0, false},
	{"uid-lock", "PATH",
	 "the lock file in which daemons sharing a range claim\n"
	 "--max-workers ids each, in a directory (made if\n"
	 "missing) that only root may write to\n"
	 "(default " DEFAULT_UID_LOCK ")",
	 OPT_PATH, AT(uid_lock), 0, 0, false},
	{"worker-user", "USER", "instead, every worker runs as this user", OPT_STRING,
	 AT(worker_user), 0, 0, false},
	{"grace-ms", "N", "on SIGTERM, time running work gets to finish (default 10000)", OPT_U64,
	 AT(grace_ms), 0, 0, false},
	{"max-wait-ms", "N", "longest status long-poll; longer waits are cut (default 120000)",
	 OPT_U64, AT(limits.wait_ms_max), 1, 0, false},
	{"retention-ms", "N", "how long finished executions stay queryable (default 600000)",
	 OPT_U64, AT(retention_ms), 0, 0, false},
	{"retain-count", "N", "finished executions kept at most (default 1000)", OPT_UNSIGNED,
	 AT(retain_count), 0, 0, false},
	{"retain-bytes", "N",
	 "bytes kept among finished executions at most: output,\n"
	 "values, reports, records (default 64M)",
	 OPT_U64, AT(retain_bytes), 0, 0, false},
	{"reply-bytes", "N",
	 "replies queued for all clients; past it replies wait and\n"
	 "no new execution starts (default 32M)",
	 OPT_SIZE, AT(reply_bytes), LIMIT_BUDGET_MIN, 0, true},
	{"conn-reply-bytes", "N",
	 "replies queued for one client before its requests wait\n"
	 "(default 4M)",
	 OPT_SIZE, AT(conn_reply_bytes), LIMIT_BUDGET_MIN, 0, true},
	{"partial-bytes", "N", "half-sent requests over all connections (default 16M)", OPT_SIZE,
	 AT(partial_bytes), 0, 0, true},
	{"queue-bytes", "N",
	 "code, tests and stores held by executions not yet done\n"
	 "(default 16M)",
	 OPT_SIZE, AT(queue_bytes), LIMIT_BUDGET_MIN, 0, true},
	{"cache-dir", "DIR",
	 "script cache (default $STATE_DIRECTORY/scripts under systemd,\n"
	 "/var/lib/sandboxd/scripts as root, else\n"
	 "$XDG_STATE_HOME/sandboxd/scripts)",
	 OPT_STRING, AT(cache_dir), 0, 0, false},
	{"cache-max-entries", "N", "scripts kept at most (default 1000)", OPT_UNSIGNED,
	 AT(cache_max_entries), 0, 0, false},
	{"cache-max-bytes", "N", "script bytes kept at most (default 32M)", OPT_U64,
	 AT(cache_max_bytes), 0, 0, false},
	{"no-cache", NULL, "do not cache scripts", OPT_FLAG, AT(no_cache), 0, 0, false},
	{"log-level", "LEVEL", "error, warn, info or debug (default info)", OPT_LOG_LEVEL,
	 AT(log_level), 0, 0, false},
	{"help", NULL, "this text, on stdout", OPT_HELP, 0, 0, 0, false},
	{"version", NULL, "the version, on stdout", OPT_VERSION, 0, 0, 0, false},
};

#define N_SPECS (sizeof opt_specs / sizeof opt_specs[0])
/* Room for the per-execution limits' options: two each. */
#define MAX_LIMIT_OPTS 32
#define MAX_OPTS (N_SPECS + MAX_LIMIT_OPTS)

/* An option as getopt sees it: a row of opt_specs, or a limit's default or
 * maximum (spec the OPT_LIMITS row, limit its row). */
struct opt_entry {
	const char *name, *arg;
	const struct opt_spec *spec;
	const struct exec_limit_field *limit;
	bool limit_max;
};

static struct opt_entry entries[MAX_OPTS];
static struct option longopts[MAX_OPTS + 1];
static size_t n_entries;

/* Lays the table out once: entries[i] is getopt's longopts[i], and its
 * value is 256 + i, so the two cannot drift apart. */
static void entries_init(void)
{
	if (n_entries)
		return;
	for (size_t i = 0; i < N_SPECS; i++) {
		const struct opt_spec *o = &opt_specs[i];
		if (o->kind != OPT_LIMITS) {
			entries[n_entries++] = (struct opt_entry){o->name, o->arg, o, NULL, false};
			continue;
		}
		for (size_t k = 0; k < exec_limit_count; k++) {
			const struct exec_limit_field *f = &exec_limit_fields[k];
			if (!f->opt)
				continue;
			if (n_entries + 2 > N_SPECS + MAX_LIMIT_OPTS)
				fatalx("config: more limits than MAX_LIMIT_OPTS");
			entries[n_entries++] = (struct opt_entry){f->opt, "N", o, f, false};
			entries[n_entries++] = (struct opt_entry){f->opt_max, "N", o, f, true};
		}
	}
	for (size_t i = 0; i < n_entries; i++)
		longopts[i] = (struct option){entries[i].name,
					      entries[i].arg ? required_argument : no_argument,
					      NULL, 256 + (int)i};
	longopts[n_entries] = (struct option){NULL, 0, NULL, 0};
}

/* v as the usage text says sizes: 64M rather than 67108864, when exact. */
static const char *size_text(uint64_t v, bool bytes, char *buf, size_t n)
{
	static const char suffix[] = "GMK";
	for (int i = 0; bytes && v && i < 3; i++) {
		uint64_t unit = 1ull << (10 * (3 - i));
		if (v % unit == 0) {
			snprintf(buf, n, "%" PRIu64 "%c", v / unit, suffix[i]);
			return buf;
		}
	}
	snprintf(buf, n, "%" PRIu64, v);
	return buf;
}

/* The help text of entry e, with the default of a limit's option. */
static void entry_help(const struct opt_entry *e, char *buf, size_t n)
{
	if (!e->limit) {
		snprintf(buf, n, "%s", e->spec->help);
		return;
	}
	const struct exec_limit_field *f = e->limit;
	char num[32];
	bool bytes = strcmp(f->unit, "bytes") == 0;
	snprintf(buf, n, "%s (default %s)", e->limit_max ? f->help_max : f->help,
		 size_text(e->limit_max ? f->max : f->def, bytes, num, sizeof num));
}

/* The usage text, on stdout: the options in the table's order, each help
 * in a column of its own. */
static void print_usage(void)
{
	fputs(usage_head, stdout);
	for (size_t i = 0; i < n_entries; i++) {
		const struct opt_entry *e = &entries[i];
		char head[64], help[512];
		snprintf(head, sizeof head, "%s--%s%s%s", e->spec->kind == OPT_HELP ? "-h, " : "",
			 e->name, e->arg ? " " : "", e->arg ? e->arg : "");
		entry_help(e, help, sizeof help);
		/* The first line after the name, or after two spaces when the
		 * name is longer than its column; the others indented. */
		printf("  %-*s", strlen(head) < 21 ? 21 : (int)strlen(head), head);
		const char *line = help;
		for (bool first = true; *line; first = false) {
			size_t len = strcspn(line, "\n");
			printf("%s%.*s\n", first ? "  " : "                         ", (int)len,
			       line);
			line += len + (line[len] == '\n');
		}
	}
	fputs(usage_tail, stdout);
}

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

/* Reads the number at e's place in c (as check() sees it). */
static uint64_t number_at(const struct config *c, const struct opt_spec *o)
{
	const char *p = (const char *)c + o->offset;
	switch (o->kind) {
	case OPT_UNSIGNED: return *(const unsigned *)(const void *)p;
	case OPT_U64: return *(const uint64_t *)(const void *)p;
	case OPT_SIZE: return *(const size_t *)(const void *)p;
	default: return 0;
	}
}

/* The table's own ranges, then the relations between options. */
static int check(const struct config *c)
{
	const struct request_limits *l = &c->limits;
	char why[192] = "", lo[32], hi[32];
	for (size_t i = 0; i < N_SPECS && !why[0]; i++) {
		const struct opt_spec *o = &opt_specs[i];
		uint64_t v = number_at(c, o);
		if (o->kind != OPT_UNSIGNED && o->kind != OPT_U64 && o->kind != OPT_SIZE)
			continue;
		if (v >= o->min && (!o->max || v <= o->max))
			continue;
		size_text(o->min, o->bytes, lo, sizeof lo);
		size_text(o->max, o->bytes, hi, sizeof hi);
		if (!o->max)
			snprintf(why, sizeof why, "--%s must be at least %s", o->name, lo);
		else if (!o->min)
			snprintf(why, sizeof why, "--%s must be at most %s", o->name, hi);
		else
			snprintf(why, sizeof why, "--%s must be between %s and %s", o->name, lo,
				 hi);
	}
	for (size_t i = 0; i < exec_limit_count && !why[0]; i++) {
		const struct exec_limit_field *f = &exec_limit_fields[i];
		uint64_t v = exec_limit_get(&l->def, f), max = exec_limit_get(&l->max, f);
		if (f->opt && f->ceiling && max > f->ceiling)
			snprintf(why, sizeof why, "--%s must be at most %s", f->opt_max,
				 size_text(f->ceiling, strcmp(f->unit, "bytes") == 0, hi,
					   sizeof hi));
		else if (f->opt && (v < f->min || v > max))
			snprintf(why, sizeof why, "--%s must be between %s and --%s", f->opt,
				 size_text(f->min, strcmp(f->unit, "bytes") == 0, lo, sizeof lo),
				 f->opt_max);
	}
	const char *rel = NULL;
	if (why[0])
		rel = why;
	else if (c->max_running_per_owner > c->max_workers)
		rel = "--max-running-per-owner must be between 1 and --max-workers";
	else if (c->max_queued_per_owner > c->queue_max)
		rel = "--max-queued-per-owner must be at most --queue";
	else if (c->worker_user && c->worker_uids_given)
		rel = "--worker-user and --worker-uids exclude each other";
	else if ((uint64_t)c->worker_uid_last - c->worker_uid_first + 1 < c->max_workers)
		rel = "--worker-uids must hold at least --max-workers ids";
	else if (c->partial_bytes < c->max_frame_bytes)
		rel = "--partial-bytes must be at least --max-frame-bytes";
	if (rel) {
		fprintf(stderr, "sandboxd: %s\n", rel);
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

/* Stores optarg as entry e says. 0, or EXIT_USAGE with the reason said. */
static int set_option(struct config *c, const struct opt_entry *e, const char *arg)
{
	const struct opt_spec *o = e->spec;
	char *p = (char *)c + o->offset, *end;
	uint64_t v = 0;
	switch (o->kind) {
	case OPT_STRING: *(const char **)(void *)p = arg; return 0;
	case OPT_PATH:
		if (!*arg)
			return bad(e->name, arg, "expected a path");
		*(const char **)(void *)p = arg;
		return 0;
	case OPT_FLAG: *(bool *)(void *)p = true; return 0;
	case OPT_ID_RANGE:
		if (parse_id_range(arg, &c->worker_uid_first, &c->worker_uid_last) < 0)
			return bad(e->name, arg,
				   "expected FIRST-LAST, two uids with 0 < FIRST <= LAST, "
				   "at most 16777216 of them");
		c->worker_uids_given = true;
		return 0;
	case OPT_MODE:
		errno = 0;
		v = strtoull(arg, &end, 8);
		if (errno || *end || end == arg || v > 0777)
			return bad(e->name, arg, "expected an octal mode such as 0660");
		*(mode_t *)(void *)p = (mode_t)v;
		return 0;
	case OPT_LOG_LEVEL:
		*(int *)(void *)p = log_level_parse(arg);
		if (*(int *)(void *)p < 0)
			return bad(e->name, arg, "expected error, warn, info or debug");
		return 0;
	case OPT_UNSIGNED:
	case OPT_U64:
	case OPT_SIZE:
	case OPT_LIMITS: break;
	case OPT_HELP:
	case OPT_VERSION: return 0;
	}
	if (size_parse(arg, &v) < 0)
		return bad(e->name, arg, "expected a non-negative number (K, M, G allowed)");
	if (e->limit)
		*exec_limit_at(e->limit_max ? &c->limits.max : &c->limits.def, e->limit) = v;
	else if (o->kind == OPT_UNSIGNED)
		*(unsigned *)(void *)p = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
	else if (o->kind == OPT_SIZE)
		*(size_t *)(void *)p = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
	else
		*(uint64_t *)(void *)p = v;
	return 0;
}

/* Was the option named given on the command line? */
static bool was_given(const bool *given, const char *name)
{
	for (size_t i = 0; i < n_entries; i++)
		if (strcmp(entries[i].name, name) == 0)
			return given[i];
	return false;
}

int config_parse(struct config *c, int argc, char **argv)
{
	entries_init();
	memset(c, 0, sizeof *c);
	const char *env = getenv("SANDBOXD_SOCKET");
	c->socket_path = env && *env ? env : DEFAULT_SOCKET;
	c->socket_mode = 0660;
	c->max_frame_bytes = LIMIT_FRAME_BYTES_DEFAULT;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->max_workers = LIMIT_WORKERS_PER_CPU * (unsigned)(cpus > 0 ? cpus : 1);
	c->queue_max = LIMIT_QUEUE_DEFAULT;
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
	bool given[MAX_OPTS] = {false};

	int opt;
	/* Usage errors are said here, one line and a hint (":" makes a
	 * missing value ':' rather than '?'). */
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const struct opt_entry *e =
			opt >= 256 && (size_t)(opt - 256) < n_entries ? &entries[opt - 256] : NULL;
		if (opt == 'h' || (e && e->spec->kind == OPT_HELP)) {
			print_usage();
			return 0;
		}
		if (e && e->spec->kind == OPT_VERSION) {
			printf("sandboxd %s\n", SANDBOXD_VERSION);
			return 0;
		}
		if (opt == ':') {
			fprintf(stderr, "sandboxd: %s needs a value" USAGE_HINT "\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (!e) {
			if (strncmp(argv[optind - 1], "--", 2) != 0)
				fprintf(stderr, "sandboxd: unknown option '-%c'" USAGE_HINT "\n",
					optopt);
			else
				fprintf(stderr, "sandboxd: unknown option '%s'" USAGE_HINT "\n",
					argv[optind - 1]);
			return EXIT_USAGE;
		}
		int rc = set_option(c, e, optarg);
		if (rc)
			return rc;
		given[opt - 256] = true;
	}
	if (optind < argc) {
		fprintf(stderr, "sandboxd: unexpected argument '%s'" USAGE_HINT "\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (c->no_cache)
		c->cache_dir = NULL;
	else if (!c->cache_dir)
		c->cache_dir = default_cache_dir();
	/* Defaults that follow the other options (see limits.h). */
	request_limits_settle(&c->limits);
	if (!was_given(given, "max-running-per-owner"))
		c->max_running_per_owner = c->max_workers > 1 ? c->max_workers - 1 : 1;
	if (!was_given(given, "max-queued-per-owner"))
		c->max_queued_per_owner = c->queue_max < LIMIT_QUEUED_PER_OWNER_DEFAULT
						  ? c->queue_max
						  : LIMIT_QUEUED_PER_OWNER_DEFAULT;
	return check(c);
}
