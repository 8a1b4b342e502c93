/*
 * limits.h - every bound sandboxd enforces, with its default and why.
 *
 * Daemon options override the defaults (see server/config.c); nothing else
 * in the tree hard-codes one of these numbers.
 */
#ifndef SANDBOXD_LIMITS_H
#define SANDBOXD_LIMITS_H

/* Wire framing. 16 MiB holds any script a model writes with room to spare,
 * yet bounds what one half-sent frame can pin in memory. */
#define LIMIT_FRAME_BYTES_DEFAULT (16u * 1024u * 1024u)
/* Below this a request cannot even name an op with some code. */
#define LIMIT_FRAME_BYTES_MIN 1024u
/* Nesting depth accepted in request JSON; jansson itself stops at 2048. */
#define LIMIT_JSON_DEPTH 64
/* A request "id" is an opaque correlation token, not a payload. */
#define LIMIT_ID_BYTES 256u

/* Per-execution limits: default and daemon-wide maximum. */
#define LIMIT_TIMEOUT_MS_DEFAULT 30000u
#define LIMIT_TIMEOUT_MS_MAX 120000u
/* Memory a script may use beyond the runtime's own mappings (libc, the
 * engine, its prepared heap): RLIMIT_AS is that baseline plus this. */
#define LIMIT_MEMORY_BYTES_DEFAULT (64ull * 1024 * 1024)
#define LIMIT_MEMORY_BYTES_MIN (1ull * 1024 * 1024)
#define LIMIT_MEMORY_BYTES_MAX (1024ull * 1024 * 1024)
/* stdout + stderr bytes kept per execution; the worker dies past it. */
#define LIMIT_OUTPUT_BYTES_DEFAULT (8ull * 1024 * 1024)
#define LIMIT_OUTPUT_BYTES_MAX (64ull * 1024 * 1024)

/* status long-polls: how long a wait lasts by default and at most. */
#define LIMIT_WAIT_MS_DEFAULT 30000u
#define LIMIT_WAIT_MS_MAX 120000u
/* list: executions per reply. */
#define LIMIT_LIST_DEFAULT 10u
#define LIMIT_LIST_MAX 100u

/* Finished executions stay queryable this long, and at most this many, and
 * with at most this much buffered output among them (oldest dropped first):
 * long enough for an agent to come back for a result, bounded so a burst of
 * big outputs cannot hold the daemon's memory. */
#define LIMIT_RETENTION_MS_DEFAULT 600000u
#define LIMIT_RETAIN_COUNT_DEFAULT 1000u
#define LIMIT_RETAIN_BYTES_DEFAULT (256ull * 1024 * 1024)

/* The script cache: entries and bytes on disk (and in memory), oldest
 * evicted first. A description is the script's leading comment, cut. */
#define LIMIT_CACHE_ENTRIES_DEFAULT 1000u
#define LIMIT_CACHE_BYTES_DEFAULT (64ull * 1024 * 1024)
#define LIMIT_CACHE_DESCRIPTION_CHARS 200u
/* list: the start of each execution's code. */
#define LIMIT_CODE_PREVIEW_CHARS 100u

/* Tools a request may declare, and the length of a (dotted) tool name. */
#define LIMIT_TOOLS 256u
#define LIMIT_TOOL_NAME 128u
/* store/load: JSON bytes per value and in all, as in the design scripts
 * are written for; the script gets a RangeError beyond them. */
#define LIMIT_STORE_VALUE_BYTES (256u * 1024u)
#define LIMIT_STORE_TOTAL_BYTES (1024u * 1024u)

/* Scheduling: concurrent workers default to 2 x CPUs (CPU-bound scripts
 * gain nothing beyond that); the FIFO behind them is bounded so a burst
 * is absorbed but a flood is refused early with RESOURCE_EXHAUSTED. */
#define LIMIT_WORKERS_PER_CPU 2u
#define LIMIT_WORKERS_MAX 1024u
#define LIMIT_QUEUE_DEFAULT 256u
#define LIMIT_QUEUE_MAX 65536u

/* Connections. Each costs a buffer of up to one frame, so they are capped;
 * past the cap a client gets UNAVAILABLE and is closed. */
#define LIMIT_CONNECTIONS_DEFAULT 1024u
/* A frame that has started must finish within this time, so a half-sent
 * frame cannot hold its buffer forever. */
#define LIMIT_FRAME_TIMEOUT_MS 30000u
/* A connection with nothing in flight and nothing said for this long is
 * closed; long enough for an interactive socat session. */
#define LIMIT_IDLE_TIMEOUT_MS 600000u
/* A client that reads nothing while replies wait for it is cut off after
 * this long, so an abandoned reader cannot pin its replies. */
#define LIMIT_WRITE_STALL_MS 60000u
/* Replies waiting for a slow reader beyond this stop the relaying of its
 * streams' output (the workers block on their pipes) and the reading of
 * its requests until the backlog drains. */
#define LIMIT_CONN_BACKLOG_BYTES (4u * 1024u * 1024u)

/* SIGTERM: running executions get this long to finish before SIGKILL. */
#define LIMIT_GRACE_MS_DEFAULT 10000u

/* One read from a worker pipe, and so at most one output event's data. */
#define LIMIT_PIPE_READ_BYTES 65536u

/* Out of memory. jansson (2.14) aborts instead of failing when an
 * allocation inside its parser returns NULL; this much is kept in reserve
 * and given back at the first failure, so a parse in progress can finish
 * (a request's strings are rarely larger) and the daemon answers
 * RESOURCE_EXHAUSTED from then on instead of dying. */
#define LIMIT_JSON_RESERVE_BYTES (1024u * 1024u)

#endif
