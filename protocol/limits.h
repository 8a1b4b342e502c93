/*
 * limits.h - every bound sandboxd enforces, with its default and why.
 *
 * Daemon options override the defaults (see server/config.c); nothing else
 * in the tree hard-codes one of these numbers.
 */
#ifndef SANDBOXD_LIMITS_H
#define SANDBOXD_LIMITS_H

/* Wire framing. 4 MiB holds any script a model writes with room to spare
 * (and most tool results), yet bounds what one half-sent frame pins in
 * memory and how long parsing one takes (jansson reads some 100 MB/s: a
 * 16 MiB frame was 150 ms; frames this big are parsed off the loop, see
 * LIMIT_PARSE_INLINE_BYTES). */
#define LIMIT_FRAME_BYTES_DEFAULT (4u * 1024u * 1024u)
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
/* The daemon's --max-output-bytes unless told otherwise: each running
 * worker's output is held whole, so this times --max-workers is the
 * biggest term of the supervisor's memory (README, Memory). */
#define LIMIT_OUTPUT_BYTES_MAX_DEFAULT (16ull * 1024 * 1024)

/* status long-polls: how long a wait lasts by default and at most. */
#define LIMIT_WAIT_MS_DEFAULT 30000u
#define LIMIT_WAIT_MS_MAX 120000u
/* list: executions per reply. */
#define LIMIT_LIST_DEFAULT 10u
#define LIMIT_LIST_MAX 100u

/* Finished executions stay queryable this long, and at most this many, and
 * holding at most this many bytes among them (oldest dropped first; every
 * byte an ended execution keeps counts: output, value, store_writes, test
 * report, calls, fields, the record itself):
 * long enough for an agent to come back for a result, bounded so a burst of
 * big outputs cannot hold the daemon's memory. */
#define LIMIT_RETENTION_MS_DEFAULT 600000u
#define LIMIT_RETAIN_COUNT_DEFAULT 1000u
#define LIMIT_RETAIN_BYTES_DEFAULT (64ull * 1024 * 1024)

/* The script cache: entries and bytes on disk (and in memory), oldest
 * evicted first. A description is the script's leading comment, cut. */
#define LIMIT_CACHE_ENTRIES_DEFAULT 1000u
#define LIMIT_CACHE_BYTES_DEFAULT (32ull * 1024 * 1024)
#define LIMIT_CACHE_DESCRIPTION_CHARS 200u
/* list: the start of each execution's code. */
#define LIMIT_CODE_PREVIEW_CHARS 100u

/* The cache of lowered code (server/lcache.h): the ES5 text a worker made
 * of a modern script or TypeScript, kept by the supervisor per owner and
 * handed to that owner's next run of the same code. A 10-line modern
 * script lowers to some 1-2 KiB, a big one to a few hundred: 512 entries
 * and 8 MiB hold an agent's working set of scripts many times over while
 * staying a small term of the supervisor's memory (README, Memory). When
 * either is reached, the owner holding the most loses its least recently
 * used entry first. An entry's own bound is the control frame's
 * (CTL_LOWERED_BYTES). */
#define LIMIT_LCACHE_ENTRIES_DEFAULT 512u
#define LIMIT_LCACHE_BYTES_DEFAULT (8ull * 1024 * 1024)

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

/* Tenants: fairness between owners (uids). The queue is served round-robin
 * between owners, and each owner may hold at most this many of its
 * executions waiting: 64 absorbs an agent's burst of parallel tool scripts,
 * yet a quarter of the default queue, so at least four owners always find
 * room to queue. By default an owner may run at most max-workers - 1 at
 * once (when max-workers > 1): one slot is always left to others, so one
 * owner's long-running executions can never make another's wait for one
 * of them to end. */
#define LIMIT_QUEUED_PER_OWNER_DEFAULT 64u

/* Connections. Each costs its record, a read buffer and up to 64 requests
 * waiting (README, Memory), so they are capped; past the cap a client gets
 * UNAVAILABLE and is closed. Plenty for one machine's agents and shells. */
#define LIMIT_CONNECTIONS_DEFAULT 256u
/* A frame that has started must finish within this time, so a half-sent
 * frame cannot hold its buffer forever. */
#define LIMIT_FRAME_TIMEOUT_MS 30000u
/* A connection with nothing in flight and nothing said for this long is
 * closed; long enough for an interactive socat session. */
#define LIMIT_IDLE_TIMEOUT_MS 600000u
/* A client that reads nothing while replies wait for it is cut off after
 * this long, so an abandoned reader cannot pin its replies. */
#define LIMIT_WRITE_STALL_MS 60000u
/* A connection whose read buffer cannot be had (no memory) is read again
 * this much later: its requests wait in the socket meanwhile, none lost. */
#define LIMIT_READ_RETRY_MS 20u
/* Replies waiting for a slow reader beyond this stop the relaying of its
 * streams' output (the workers block on their pipes) and the reading of
 * its requests until the backlog drains. */
#define LIMIT_CONN_BACKLOG_BYTES (4u * 1024u * 1024u)

/* SIGTERM: running executions get this long to finish before SIGKILL. */
#define LIMIT_GRACE_MS_DEFAULT 10000u

/* One read from a worker pipe, and so at most one output event's data. */
#define LIMIT_PIPE_READ_BYTES 65536u

/* Worker identities. When the daemon runs as root, each running worker has
 * a uid and a gid (the same number) of its own from --worker-uids FIRST-LAST,
 * so no worker shares an identity with another worker, with a service, or
 * with a user. The default block lies where nothing else allocates ids:
 * above the system (0-999), user (1000-60000), systemd-homed (60001-60513),
 * dynamic-user (61184-65519) and nobody (65534) ids, above the usual
 * /etc/subuid ranges of rootless containers (100000 on, 65536 per user) and
 * the container range systemd-nspawn hands out (524288-1879048191), below
 * systemd's foreign range (2147352576-2147418111) and below 2^31, which some
 * tools still read as a signed number. 65536 ids: daemons sharing the range
 * each claim --max-workers of them (at most 1024), so at least 64 fit. */
#define LIMIT_WORKER_UID_FIRST_DEFAULT 2000000000u
#define LIMIT_WORKER_UIDS_DEFAULT 65536u
/* A larger range buys nothing and costs a bit per id in the pool. */
#define LIMIT_WORKER_UIDS_MAX (1u << 24)

/* Claiming ids among daemons that share a range (server/uidpool.h). A claim
 * in the way that vanishes between the failed lock and the look at it (its
 * daemon just exited) sends the search back to the same run; a run that
 * keeps doing so this often is given up on, so a daemon whose range churns
 * exits at start rather than spin. Daemons starting at once need one or
 * two such retries. */
#define LIMIT_UID_CLAIM_RETRIES 1000u

/* declarations: the TypeScript rendered from a request's tool schemas.
 * 1 MiB is far more than a model's context can use, yet small enough to
 * build in a few milliseconds; the work budget (schema nodes visited,
 * $refs resolved, required names compared) bounds the time spent on
 * schemas that render to little (a step is about 5 ns: 1M of them take
 * 5 ms). */
#define LIMIT_DECL_OUTPUT_BYTES (1024u * 1024u)
#define LIMIT_DECL_STEPS 1000000u
/* $ref renderings remembered for reuse (32 bytes each, in a table twice
 * as large: 1 MiB); past it refs are expanded again, still within the
 * budgets above. */
#define LIMIT_DECL_MEMO_ENTRIES 16384u

/* File descriptors. At start the soft RLIMIT_NOFILE is raised to the hard
 * one, and clients may hold only what is left once the daemon's own fds
 * (those open after start-up), LIMIT_FD_PER_WORKER for each of
 * --max-workers and LIMIT_FD_SPARE are set aside, so an execution never
 * fails for an fd a client took. A running worker costs the supervisor its
 * pidfd, its control socket and its stdout and stderr pipes (4), and while
 * it is being spawned the three ends meant for the worker (7 at most). The
 * spare covers the cache writer's temporary file, a read of a cached
 * script, the sd_notify datagram socket and the fd a connection refused
 * over the cap is accepted into before it is closed. */
#define LIMIT_FD_PER_WORKER 7u
#define LIMIT_FD_SPARE 8u
/* With room for fewer clients than this the daemon does not start. */
#define LIMIT_FD_MIN_CLIENTS 4u
/* After accept fails for lack of fds (EMFILE, ENFILE) or memory, the
 * listener is left alone this long, so the loop does not spin on it. */
#define LIMIT_ACCEPT_RETRY_MS 100u
/* A warning that could repeat with every event is logged at most once in
 * this long, with a count of those held back. */
#define LIMIT_LOG_REPEAT_MS 1000u
/* ---- What the supervisor holds for clients and workers.
 *
 * Everything below bounds memory a client or a worker can make the
 * supervisor hold; README's "Memory" section adds them up. */

/* Tool calls one execution may make. Each is a round trip through the
 * client and a line in the record; a script looping on a tool (its client
 * gone, each call failing at once) would otherwise grow the record for as
 * long as it runs. Past it a call throws inside the script and never
 * reaches the client; the record's calls_dropped counts them. */
#define LIMIT_TOOL_CALLS 1000u
#define LIMIT_TOOL_CALLS_TEXT "1000"
/* Answers to a worker waiting unsent. An honest worker reads each answer
 * before it asks again, so this is only ever reached by one that does not
 * read: it is killed (kind sandbox). */
#define LIMIT_CTL_BACKLOG_BYTES (1024u * 1024u)
/* A request's JSON values in all, checked on the text before a tree is
 * built: jansson spends some 80 bytes and 75 ns a value, so 128K values
 * are a 10 MiB tree built in about 10 ms. Tool declarations and the store
 * get shares of it. Only the tools' names outlive the request; schemas
 * matter only to declarations, and 64 KiB is a very large schema. */
#define LIMIT_REQUEST_NODES (128u * 1024u)
#define LIMIT_TOOLS_NODES (64u * 1024u)
#define LIMIT_TOOLS_BYTES (1024u * 1024u)
#define LIMIT_SCHEMA_BYTES (64u * 1024u)
#define LIMIT_STORE_NODES (64u * 1024u)
/* Replies queued for all clients (--reply-bytes): work that must answer
 * waits for room before it builds its reply, and past it no new execution
 * starts. Room for two of the largest replies (a 16 MiB value with a chunk
 * of output) keeps one big reader from stopping everyone. */
#define LIMIT_REPLY_BYTES_DEFAULT (32u * 1024u * 1024u)
/* Half-sent request frames over all connections (--partial-bytes): four
 * frames of the largest size. Past it the connection whose bytes went over
 * gets RESOURCE_EXHAUSTED and is closed. */
#define LIMIT_PARTIAL_BYTES_DEFAULT (16u * 1024u * 1024u)
/* Code and tests held by executions not yet done (--queue-bytes): 256
 * queued requests of a full frame each would otherwise hold 1 GiB; typical
 * scripts are a few KiB, so thousands fit. */
#define LIMIT_QUEUE_BYTES_DEFAULT (16u * 1024u * 1024u)
/* The smallest a budget may be set to. */
#define LIMIT_BUDGET_MIN (64u * 1024u)
/* stdout + stderr bytes in one status reply: a reader polls on with the
 * offsets the reply gives, so no reply copies a whole big output. */
#define LIMIT_STATUS_OUTPUT_BYTES (1024u * 1024u)
/* Out of memory. jansson (2.14) aborts instead of failing when an
 * allocation inside its parser returns NULL; this much is kept in reserve
 * and given back at the first failure, so a parse in progress can finish
 * (a request's strings are rarely larger) and the daemon answers
 * RESOURCE_EXHAUSTED from then on instead of dying. */
#define LIMIT_JSON_RESERVE_BYTES (1024u * 1024u)

/* ---- Loop turns: nothing a client or a worker sends holds the event loop
 * for more than about 10 ms.
 *
 * A reply too big to build at once (an execute's whole output, a kept
 * value) is produced as the client reads it, this many bytes a turn at
 * most: escaping runs at 1-2 GB/s, so a chunk is well under a millisecond,
 * and big enough that a fast reader is fed in few turns. */
#define LIMIT_STREAM_CHUNK_BYTES (256u * 1024u)
/* A request frame of this size or more is parsed (and its tree freed) on a
 * thread of its own, not in the loop: jansson reads some 100 MB/s, so this
 * is about 2.5 ms of parsing, while smaller frames, the common case, pay
 * no hand-off. */
#define LIMIT_PARSE_INLINE_BYTES (256u * 1024u)
/* That thread holds one request at a time, from its frame to its tree
 * (at most LIMIT_REQUEST_NODES values, about 10 MiB) until it is answered,
 * just as the loop did when it parsed them: another connection's big frame
 * waits in its read buffer (counted by --partial-bytes), that connection
 * unread further, until the one before it is done. One thread parses no
 * faster with more in hand, and the memory stays one request's. */

/* ---- Flow control: how much one client gets done per loop turn, and how
 * much it may have waiting.
 *
 * Requests a connection may have unanswered at once: long-polls waiting,
 * replies waiting for room, cancels waiting for the end (executions are
 * bounded by the queue's caps instead, and the tool_results they need must
 * still be read). At the cap the daemon stops reading that connection (as
 * when its replies back up) until one is answered, so nothing it sent is
 * refused or lost, and what it makes the daemon hold is bounded: a waiter
 * is about 900 bytes, 1.2 KiB with an id of the largest size
 * (LIMIT_ID_BYTES). 64 is more than an agent pipelines; a
 * client that fills it with long-polls and then sends a tool_result has
 * that result read once a long-poll ends. */
#define LIMIT_CONN_OUTSTANDING 64u
/* Frames handled from one connection in one loop turn; the rest wait for
 * the next turn. Cheap requests take some 15-30 us, so this is about 1-2
 * ms of one client's work before the others get their turn. */
#define LIMIT_FRAMES_PER_TURN 64u
/* Once a turn has run this long, connections stop taking more frames and
 * waiting replies stop being built until the next turn (each still makes
 * progress: one frame, one reply). Well under the 10 ms target, so that
 * the one piece of work under way when it is passed fits too. */
#define LIMIT_TURN_WORK_US 3000u
/* Connections accepted in one turn: the listener stays readable and the
 * rest are accepted next turn, after the events of those already open
 * (their closes among them) are handled. */
#define LIMIT_ACCEPTS_PER_TURN 32u
/* --queue-bytes is shared: one owner's executions may hold at most this
 * fraction (1/N) of it, so that one owner's big scripts leave room for
 * others' (an owner holding nothing may always submit one). */
#define LIMIT_QUEUE_BYTES_OWNER_SHARE 2u
/* Likewise --reply-bytes: once one owner's replies waiting for room take
 * this fraction (1/N) of it, that owner's next executions wait to start
 * until its clients read, so others' still start. */
#define LIMIT_REPLY_BYTES_OWNER_SHARE 2u
/* An execution's reply waiting for room counts against --reply-bytes as at
 * most this fraction (1/N) of it: one reply bigger than the whole budget,
 * being read, leaves room for others' executions (and its owner's); the
 * memory beyond the budget is then at most N such replies. */
#define LIMIT_REPLY_COUNTED_SHARE 4u

/* ---- Fairness between cheap and expensive clients when the loop is
 * saturated.
 *
 * A connection whose last frames took this much of the loop's CPU time
 * or more (a big declarations render takes 5-7 ms, a health or an execute
 * some 20-100 us, 64 pipelined cheap requests about 1-2 ms) has the rest
 * of its frames handled after the light work of the next turn, not in
 * line with it: 250 connections draining big replies then no longer make
 * a client with one cheap request wait 250 renders (1.5 s). Heavy work
 * still runs at least every other turn. A third of LIMIT_TURN_WORK_US. */
#define LIMIT_HEAVY_WORK_US 1000u

/* ---- Clients (client/sdc.c).
 *
 * The largest frame a client accepts from the daemon. Replies carry whole
 * outputs (at most LIMIT_OUTPUT_BYTES_MAX, 64 MiB, as JSON strings that
 * grow when escaped), so this is far above the request limit; yet it
 * refuses a garbage length prefix (up to 4 GiB) before allocating for it. */
#define LIMIT_CLIENT_REPLY_BYTES (256u * 1024u * 1024u)
/* A client reads the daemon's socket this much at a time: an output event
 * carries at most 64 KiB of data, so one read usually holds whole frames. */
#define LIMIT_CLIENT_READ_BYTES 65536u

/* ---- MCP bridge tools (client/mcp_tools.c).
 *
 * What one tool result shows a model. Hosts put the result in the model's
 * context (Claude Code warns past some 25000 tokens), and each result says
 * everything twice, in structuredContent and in content[0].text, since
 * some hosts show only one: 16 KiB of output is some 4000 tokens, twice
 * 8000, well inside that. The rest of the output is a `status` call away,
 * at the offsets the result names. */
#define LIMIT_MCP_OUTPUT_BYTES (16u * 1024u)
/* stderr's share of that when both streams are longer: errors are short
 * and matter, so a chatty stdout cannot push them out. */
#define LIMIT_MCP_STDERR_SHARE_BYTES (4u * 1024u)
/* A returned value whose compact JSON is longer than this is shown as a
 * preview of that many bytes (value_preview), not as the value. */
#define LIMIT_MCP_VALUE_BYTES (16u * 1024u)
/* Tool calls and test entries listed in one result (the summary and the
 * counts are always whole), and each test error's bytes in it. */
#define LIMIT_MCP_CALLS 100u
#define LIMIT_MCP_TESTS 200u
#define LIMIT_MCP_TEST_ERROR_BYTES 1024u
/* notifications/progress: at most one every PROGRESS_MS while output
 * comes, and one at least every HEARTBEAT_MS while nothing does, so hosts
 * with idle timeouts (some at 10 s) keep waiting; the message is the last
 * line of output, cut. */
#define LIMIT_MCP_PROGRESS_MS 250u
#define LIMIT_MCP_HEARTBEAT_MS 4000u
#define LIMIT_MCP_PROGRESS_MESSAGE_CHARS 200u
/* At the end of a session the bridge cancels what it started and waits
 * this long at most for the daemon to confirm. */
#define LIMIT_MCP_SHUTDOWN_MS 2000u
/* Background executions a session remembers: to bound and end their code
 * mode calls, and to cancel them at its end. */
#define LIMIT_MCP_BACKGROUND 1024u

/* ---- The MCP bridge (bin/sandboxd-mcp).
 *
 * One line of MCP input from the host (one JSON-RPC message). A tools/call
 * carries a script that goes to the daemon in one request frame
 * (LIMIT_FRAME_BYTES_DEFAULT, 4 MiB); twice that leaves room for the same
 * script escaped in a JSON string, and keeps one bad line from growing the
 * bridge without bound. A longer line is answered -32700 and skipped. */
#define LIMIT_MCP_LINE_BYTES (8u << 20)
/* Output queued for a host that does not read its stdout: beyond this the
 * bridge stops reading new requests from stdin until the host reads (the
 * answers already owed are still queued, never dropped). */
#define LIMIT_MCP_OUT_QUEUE_BYTES (16u << 20)
/* tools/list page size: one page holds every tool the bridge has today
 * (seven); a cursor is given only beyond this. */
#define LIMIT_MCP_TOOLS_PAGE 64u
/* subscriptions/listen streams one modern-era session may hold open: a
 * host opens one (tools list changes); a few more cost nothing, and a
 * client opening them without end gets -32603 instead of growing the
 * bridge. */
#define LIMIT_MCP_SUBSCRIPTIONS 16u
/* tools/call requests one session runs at once. A host runs a few side by
 * side, and the daemon queues 64 executions of one owner anyway; each call
 * holds its arguments and a daemon request (a status long-poll for up to
 * two minutes), so 20000 of them held 56 MiB and a host sending them
 * without end grew the bridge without end. One more is answered -32603
 * at once. */
#define LIMIT_MCP_CALLS_RUNNING 256u
/* A request's id (as written) and a progress token: hosts use integers or
 * UUIDs; each running call keeps both, so 100 calls with 4 MiB ids held
 * 846 MiB. A longer one is answered -32600 (-32602 for the token). */
#define LIMIT_MCP_ID_BYTES 1024u

/* ---- Code mode over upstream MCP servers (the bridge, client/mcp_*).
 *
 * Upstream servers one --config may name: each is a child process with
 * three pipes, and 64 is far past what a host configures (a handful). */
#define LIMIT_MCP_UPSTREAMS 64u
/* A --config file: hosts' files are a few KiB; 1 MiB leaves room for long
 * env blocks without reading a wrong file (a log, a dump) whole. */
#define LIMIT_MCP_CONFIG_BYTES (1024u * 1024u)
/* Bytes of one identifier made from a server or tool name: two of them
 * and the dot fit the daemon's LIMIT_TOOL_NAME (128). */
#define LIMIT_MCP_IDENT_BYTES 63u
/* One line (JSON-RPC message) read from an upstream server: tool results
 * with images run to a few MiB; beyond 16 MiB (the daemon's control
 * frame, which a tool_result must fit anyway) the server is stopped. */
#define LIMIT_MCP_UPSTREAM_LINE_BYTES (16u * 1024u * 1024u)
/* Pages of tools/list followed for one server, and tools kept of it: a
 * server that never stops paging is cut there, not followed forever. */
#define LIMIT_MCP_LIST_PAGES 64u
/* Tools kept of one server (those its filter lets through), and the bytes
 * of tools/list answers read for one listing: the largest servers in use
 * list a few hundred tools; a server that lists hundreds of thousands
 * (one 16 MiB line holds a million small ones) would otherwise be held,
 * named and declared whole, hundreds of MiB and minutes of the bridge's
 * loop. Past either, the rest is left out and the log says so. */
#define LIMIT_MCP_SERVER_TOOLS 1024u
#define LIMIT_MCP_LISTING_BYTES (16u * 1024u * 1024u)
/* Time an upstream server has to answer initialize and each tools/list
 * page: a server started by npx may first download itself. */
#define LIMIT_MCP_START_MS 30000u
/* Restart backoff for a server that failed to start or died: the first
 * retry at once on the next call, then waits doubling from 1 s up to 60 s
 * between attempts; calls made inside the wait fail at once, naming the
 * server and why it is down. A server that stayed up 60 s starts over at
 * no wait. */
#define LIMIT_MCP_BACKOFF_FIRST_MS 1000u
#define LIMIT_MCP_BACKOFF_MAX_MS 60000u
/* An upstream tool's schema nested deeper than this is not declared (the
 * daemon refuses a request nested past 64 levels, and renders anything
 * past 32 as unknown anyway). */
#define LIMIT_MCP_SCHEMA_DEPTH 32
/* When the bridge stops, a server has this long after its stdin closes
 * and SIGTERM to exit before SIGKILL; likewise a server that closed its
 * stdout, to exit (and give its status) before it is killed. */
#define LIMIT_MCP_STOP_MS 2000u
/* execute's description carries the upstream tools' TypeScript
 * declarations while they fit in this much (hosts put every tool
 * description in the model's context: 16 KiB is some 4k tokens); beyond
 * it, a one-line catalogue of tool names and search_tools. */
#define LIMIT_MCP_DECL_BYTES (16u * 1024u)
/* The one-line catalogue that replaces them: some 100 tool names. */
#define LIMIT_MCP_CATALOGUE_BYTES (4u * 1024u)
/* Tools search_tools returns declarations for at most: 20 tools' schemas
 * are a few KiB of TypeScript, what a model reads at once. */
#define LIMIT_MCP_SEARCH_RESULTS 20u
#define LIMIT_MCP_SEARCH_RESULTS_TEXT "20"

/* The ES5 fast path's pre-scan (worker/prescan.c): brackets it follows
 * nested at most this deep; deeper code is lowered (the lowering has its
 * own bounds under the script's heap and CPU limits). Far beyond what
 * people or models write, well within Duktape's own compiler limit of
 * 2500 (DUK_USE_COMPILER_RECLIMIT), and 20 bytes a level on the stack. */
#define LIMIT_PRESCAN_DEPTH 1000

/* ---- JSON as sandboxd writes it (protocol/jnum.c). A tree nested deeper
 * than this is taken for a cycle and not written: jansson's parser stops at
 * 2048, and nothing sandboxd builds is deeper than what it parsed plus a
 * few levels of reply around it. */
#define LIMIT_JSON_DUMP_DEPTH 4096u

/* ---- error.data: a script error's own fields (code, status, details,
 * cause ...) as JSON. Enough for an HTTP error's body excerpt or a tool's
 * error details; beyond it the fields are left out (message and stack
 * still say what failed) so that a failed reply stays small. Errors inside
 * them (a cause chain) are described this many levels down. */
#define LIMIT_ERROR_DATA_BYTES (64u * 1024u)
#define LIMIT_ERROR_DATA_NODES 4096u
#define LIMIT_ERROR_DATA_DEPTH 4
/* A syntax error's stack shows the offending source line under its
 * place ("script.js:LINE"), with a caret under the column, as Node prints
 * it. Of a longer line (minified code, a data literal) it shows this many
 * bytes around the column, cut at characters, "..." marking each cut: two
 * terminal lines' worth, enough context to read, and a bound on what a
 * one-line script of megabytes puts into the reply twice. */
#define LIMIT_SYNTAX_LINE_BYTES 160u

/* ---- timers (worker/js/timers.js) */

/* Timers and immediates a script may have pending at once; one more makes
 * setTimeout, setInterval or setImmediate throw a RangeError. Each costs a
 * few hundred bytes of the script's heap, so memory_bytes bounds them too;
 * this number says plainly what a runaway loop of setTimeout calls ran into
 * (a script that means to wait on more is better off with one timer and a
 * queue of its own) long before the heap would. */
#define LIMIT_TIMERS_PENDING 10000u

/* ---- The execution lifecycle (server/run.c, server/exec.c) */

/* The CPU time a worker may claim in its result's cpu_ms: the longest
 * timeout there may be, twice over (a worker is single-threaded, so it
 * cannot spend more CPU than wall time; the supervisor also clamps a claim
 * to the time the run has taken). A larger or mistyped claim breaks the
 * protocol. The figure is a diagnostic only: no limit relies on it. */
#define LIMIT_RESULT_CPU_MS_MAX (2u * LIMIT_TIMEOUT_MS_MAX)

#endif
