/*
 * config.h - the daemon's options (see `sandboxd --help`).
 */
#ifndef SANDBOXD_CONFIG_H
#define SANDBOXD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../protocol/request.h"

struct config {
	const char *socket_path;
	mode_t socket_mode;
	size_t max_frame_bytes;
	unsigned max_workers;
	unsigned queue_max;
	unsigned max_running_per_owner; /* not given: --max-workers minus 1 */
	unsigned max_queued_per_owner;
	const char *admin_group; /* NULL: only uid 0 is admin */
	const char *allow_users; /* NULL with allow_groups NULL: admit every peer */
	const char *allow_groups;
	unsigned max_connections;
	uint64_t frame_timeout_ms;
	uint64_t idle_timeout_ms;
	struct request_limits limits;
	const char *worker_user;   /* NULL: a uid of the range per worker */
	uint32_t worker_uid_first; /* --worker-uids */
	uint32_t worker_uid_last;
	bool worker_uids_given;
	const char *uid_lock; /* --uid-lock: where the range's ids are claimed */
	uint64_t grace_ms;
	int log_level;
	const char *cache_dir; /* NULL: no cache */
	bool no_cache;	       /* --no-cache: cache_dir is then NULL */
	unsigned cache_max_entries;
	uint64_t cache_max_bytes;
	uint64_t retention_ms;
	unsigned retain_count;
	uint64_t retain_bytes;
	size_t reply_bytes, conn_reply_bytes; /* replies queued: all, one connection */
	size_t partial_bytes;		      /* half-sent requests, all connections */
	size_t queue_bytes;		      /* code and tests of executions not done */
};

/* Exit statuses of the daemon, after s6: bad usage and system errors. */
#define EXIT_USAGE 100

/*
 * Fills cfg from defaults, SANDBOXD_SOCKET and argv. Returns -1 to go on,
 * or an exit status (0 after --help/--version, EXIT_USAGE on bad usage,
 * with the reason printed).
 */
int config_parse(struct config *cfg, int argc, char **argv);

#endif
