/* exec.c - an execution's record and its clients; see exec.h. */
#include "exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/jnum.h"
#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "cache.h"
#include "lcache.h"
#include "log.h"
#include "loop.h"
#include "registry.h"
#include "run.h"
#include "sched.h"

/* An execution's state, which only exec_event changes. Its worker's life
 * is not one of them: the record is final once the run's verdict is in,
 * and the worker may be reaped after that (e->worker). */
enum phase {
	PHASE_QUEUED,	/* waiting for a worker slot */
	PHASE_HELD,	/* given its slot back: waits for the reply budget (must_hold) */
	PHASE_RUNNING,	/* its run has started and not ended */
	PHASE_REPLYING, /* final: fields are set, the reply is on its way */
	PHASE_DONE,	/* replied (or no one to reply to): the record ages out */
	PHASE_COUNT,
};

enum event {
	EV_START,    /* sched gave it a slot, and it may start */
	EV_HOLD,     /* sched gave it a slot, but its client owes too much */
	EV_REQUEUE,  /* held no longer: back to the scheduler */
	EV_FULL,     /* the scheduler had no room for it: held again */
	EV_CANCEL,   /* cancel, or its client went away */
	EV_SHUTDOWN, /* the daemon stops */
	EV_ENDED,    /* the run's verdict is in */
	EV_REPLIED,  /* the final reply is out, or has no one to go to */
	EV_COUNT,
};

struct exec {
	struct registry_entry reg; /* the id, and retention */
	struct list_node link;	   /* live: not done, or its worker not reaped */
	struct sched_entry sched;
	struct list_node watches;
	struct owner owner; /* who submitted it, and so who may see it */
	enum exec_mode mode;
	struct exec_client *client; /* who asked for it; NULL once gone or answered */
	char *code;		    /* the script (NULL once done) */
	size_t code_len;
	size_t options_len;   /* the options line, blanked for the worker */
	const char *language; /* "javascript", "typescript" or NULL: tell by the code */
	char *tests;	      /* test mode */
	size_t tests_len;
	char *cached_name; /* ran from the cache under this name */
	char preview[4 * 100 + 1];
	/* caches: the cache of lowered code's key and hit for this run. */
	struct lcache_slot lowered;
	bool cache;	    /* store the code if it succeeds */
	json_t *tool_names; /* the declared tools' names (strings), or NULL */
	char *store;	    /* the starting store as compact JSON, until sent */
	size_t store_len;
	bool had_store;	     /* the request gave a store */
	size_t source_bytes; /* code and tests counted against --queue-bytes */
	bool announced;	     /* its started event went out (or is not due) */
	struct list_node held_link;
	bool reply_waits;	     /* ended; its final reply is not out yet */
	size_t unsent;		     /* the size it counts with meanwhile */
	unsigned pins;		     /* replies streaming from the record (exec_pin) */
	size_t evicted_bytes;	     /* aged out while pinned: what it still holds */
	bool evicted;		     /* aged out while pinned: freed at the last unpin */
	json_t *calls;		     /* [{call_id, name, status, duration_ms}] so far */
	unsigned long calls_dropped; /* calls past LIMIT_TOOL_CALLS */
	json_int_t pending_call;     /* the call the worker waits on, or 0 */
	uint64_t call_start_us;
	struct exec_limits limits;
	bool paused; /* output waits for the client (set before the run exists) */

	enum phase phase;
	enum exec_state state;	 /* meaningful from PHASE_REPLYING on */
	enum run_kill cancelled; /* why it ended before it ran (never ran) */
	bool worker;		 /* its run started and is not reaped yet */
	json_t *fields;		 /* the execution fields, from PHASE_REPLYING on, but for: */
	struct buf kept;	 /* the big ones as compact JSON members: ,"value":...
				  * (value, store_writes, tests, calls) */
	size_t out_esc[2];	 /* stdout and stderr's lengths escaped as JSON strings */
	struct run run;		 /* the worker */
};

enum { OUT = RUN_OUT, ERR = RUN_ERR };

static struct list_node live = {&live, &live};
static unsigned live_count;
static unsigned long total;
static bool shutting_down;
static struct exec_settings settings;

unsigned exec_live(void) { return live_count; }

static const char *const mode_names[] = {"execute", "stream", "async", "test"};

/* ---- accessors */

struct exec *exec_find(const char *id)
{
	struct registry_entry *r = registry_find(id);
	return r ? container_of(r, struct exec, reg) : NULL;
}

const char *exec_id(const struct exec *e) { return e->reg.id; }
const struct owner *exec_owner(const struct exec *e) { return &e->owner; }

/* Whether the record is final: its fields are set. */
static bool final(const struct exec *e)
{
	return e->phase == PHASE_REPLYING || e->phase == PHASE_DONE;
}

enum exec_state exec_state(const struct exec *e)
{
	switch (e->phase) {
	case PHASE_QUEUED:
	case PHASE_HELD: return STATE_PENDING;
	/* Not terminal until the record is final: a terminal state always
	 * comes with every execution field. */
	case PHASE_RUNNING: return STATE_RUNNING;
	case PHASE_REPLYING:
	case PHASE_DONE: return e->state;
	case PHASE_COUNT: break;
	}
	return STATE_FAILED;
}

unsigned exec_queue_position(const struct exec *e)
{
	return e->phase == PHASE_QUEUED ? sched_position(&e->sched) : 0;
}

const struct buf *exec_output(const struct exec *e, int stream)
{
	return &e->run.out[stream ? 1 : 0];
}
size_t exec_output_escaped(const struct exec *e, int stream) { return e->out_esc[stream ? 1 : 0]; }
json_t *exec_fields(const struct exec *e) { return final(e) ? e->fields : NULL; }
const char *exec_kept(const struct exec *e, size_t *len)
{
	*len = final(e) ? buf_len(&e->kept) : 0;
	return *len ? buf_peek(&e->kept) : "";
}
const struct buf *exec_kept_buf(const struct exec *e) { return &e->kept; }
uint64_t exec_finished_ms(const struct exec *e) { return final(e) ? e->reg.finished_ms : 0; }
struct exec_client *exec_client(const struct exec *e) { return e->client; }

struct exec *exec_newest(void)
{
	struct registry_entry *r = registry_newest();
	return r ? container_of(r, struct exec, reg) : NULL;
}

struct exec *exec_older(struct exec *e)
{
	struct registry_entry *r = registry_older(&e->reg);
	return r ? container_of(r, struct exec, reg) : NULL;
}

json_t *exec_summary(const struct exec *e)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "execution_id", e->reg.id, "mode",
			      mode_names[e->mode], "state", request_state_name(exec_state(e)),
			      "started_at_ms", (json_int_t)e->reg.created_ms);
	if (final(e))
		json_object_set_new(o, "finished_at_ms",
				    json_integer((json_int_t)e->reg.finished_ms));
	json_object_set_new(o, "code_preview", json_string(e->preview));
	if (e->cached_name)
		json_object_set_new(o, "cached_name", json_string(e->cached_name));
	return o;
}

/* The first LIMIT_CODE_PREVIEW_CHARS characters (not bytes) of code. */
static void set_preview(struct exec *e, const char *code, size_t len)
{
	size_t n = 0, chars = 0;
	while (n < len && n < sizeof e->preview - 1) {
		if (((unsigned char)code[n] & 0xC0) != 0x80 && chars++ == LIMIT_CODE_PREVIEW_CHARS)
			break;
		n++;
	}
	while (n > 0 && n < len && ((unsigned char)code[n] & 0xC0) == 0x80)
		n--; /* never end inside a character */
	memcpy(e->preview, code, n);
	e->preview[n] = '\0';
}

/* ---- the end of an execution */

/* Test mode's verdict: its report (the summary as the supervisor counted
 * it), and success only when tests ran and none failed. */
static bool add_test_report(json_t *f, struct exec *e, json_t **error)
{
	const struct ctl_msg *r = &e->run.result;
	if (!e->run.have_result || !r->has_test)
		return false;
	const struct ctl_summary *sum = &r->summary;
	json_object_set_new(f, "summary",
			    json_pack("{s:I, s:I, s:I, s:I}", "total", (json_int_t)sum->total,
				      "passed", (json_int_t)sum->passed, "failed",
				      (json_int_t)sum->failed, "skipped",
				      (json_int_t)sum->skipped));
	if (sum->total == 0) {
		*error = json_pack("{s:s, s:s}", "kind", "script", "message",
				   "the tests registered no test: call test(name, fn)");
		return false;
	}
	return sum->failed == 0;
}

/* Appends ,"name":text to the kept members. */
static int keep(struct exec *e, const char *name, const char *text, size_t len)
{
	struct buf *b = &e->kept;
	if (buf_append(b, ",\"", 2) < 0 || buf_append(b, name, strlen(name)) < 0 ||
	    buf_append(b, "\":", 2) < 0 || buf_append(b, text, len) < 0)
		return -1;
	return 0;
}

static int dump_to_buf(const char *p, size_t n, void *data) { return buf_append(data, p, n); }

/* The state and error (a new reference, or NULL) of an ended execution:
 * its run's verdict, or why it never ran. */
static enum exec_state verdict(const struct exec *e, json_t **error)
{
	if (e->run.started) {
		*error = json_incref(e->run.error);
		return e->run.state;
	}
	*error = json_pack("{s:s, s:s}", "kind", "cancelled", "message",
			   e->cancelled == RUN_KILL_SHUTDOWN
				   ? "the daemon shut down before the script finished"
				   : "the execution was cancelled");
	return STATE_CANCELLED;
}

/* The execution fields, from the worker's verdict: small ones in a tree,
 * the big ones (value, store_writes, tests, calls) as kept text. */
static json_t *build_fields(struct exec *e)
{
	unsigned long oom = msg_alloc_failures();
	json_t *error = NULL;
	e->state = verdict(e, &error);
	bool success = e->state == STATE_COMPLETED;
	json_t *f = json_pack("{s:s, s:s}", "execution_id", e->reg.id, "state",
			      request_state_name(e->state));
	struct run *run = &e->run;
	const struct ctl_msg *r = &run->result;
	int rc = 0;
	if (e->mode == EXEC_TEST) {
		success = success && add_test_report(f, e, &error);
		if (run->have_result && r->has_test)
			rc |= keep(e, "tests", r->tests, r->tests_len);
	}
	json_object_set_new(f, "success", json_boolean(success));
	if (e->state == STATE_COMPLETED && run->have_result && r->value && e->mode != EXEC_TEST) {
		if (!buf_len(&e->kept) && r->value_borrowed && run->result_text.data) {
			/* The result frame becomes the kept text: from the value
			 * member on, the rest cut off (and given back below). */
			buf_free(&e->kept);
			e->kept = run->result_text;
			run->result_text = (struct buf)BUF_INIT;
			e->kept.start = r->value_member.off;
			e->kept.end = r->value_member.off + r->value_member.len;
			e->kept.data[e->kept.start] = ',';
		} else {
			rc |= keep(e, "value", r->value, r->value_len);
		}
	}
	/* The store's changes count only for a successful script; writes that
	 * change nothing are left out. */
	if (success && run->have_result && r->store_writes &&
	    (e->had_store || strcmp(r->store_writes, "{\"set\":{},\"delete\":[]}") != 0))
		rc |= keep(e, "store_writes", r->store_writes, r->store_writes_len);
	if (e->tool_names) {
		struct buf calls = BUF_INIT;
		if (jnum_dump_callback(e->calls, dump_to_buf, &calls, JSON_COMPACT) < 0)
			rc = -1;
		else
			rc |= keep(e, "calls", buf_peek(&calls), buf_len(&calls));
		buf_free(&calls);
		if (e->calls_dropped)
			json_object_set_new(f, "calls_dropped",
					    json_integer((json_int_t)e->calls_dropped));
	}
	json_decref(e->calls);
	e->calls = NULL;
	if (rc < 0) {
		/* Out of memory keeping the results: say so rather than lie. */
		buf_free(&e->kept);
		json_decref(error);
		error = json_pack("{s:s, s:s}", "kind", "sandbox", "message",
				  "the daemon ran out of memory keeping the result");
		json_object_set_new(f, "success", json_false());
		e->state = STATE_FAILED; /* and its record says failed, not completed */
		json_object_set_new(f, "state", json_string(request_state_name(e->state)));
		json_object_del(f, "summary"); /* a report whose entries are lost */
	}
	if (error)
		json_object_set_new(f, "error", error);
	json_object_set_new(f, "started_at_ms", json_integer((json_int_t)e->reg.created_ms));
	json_object_set_new(f, "finished_at_ms", json_integer((json_int_t)e->reg.finished_ms));
	uint64_t elapsed =
		run->t_start_us && run->t_end_us ? (run->t_end_us - run->t_start_us) / 1000u : 0;
	json_object_set_new(f, "execution_time_ms", json_integer((json_int_t)elapsed));
	/* Ended on its result (the usual case), the worker is not reaped yet:
	 * its CPU time is then its own report (bounded by run.c), and its
	 * peak RSS is not known. */
	json_object_set_new(f, "cpu_time_ms", json_integer((json_int_t)run->cpu_ms));
	if (!run->early)
		json_object_set_new(f, "memory_peak_bytes",
				    json_integer((json_int_t)run->rss_peak));
	if (run->have_result && r->heap_peak >= 0)
		json_object_set_new(f, "heap_peak_bytes", json_integer(r->heap_peak));
	if (f && msg_alloc_failures() == oom)
		return f;
	/* A record with holes would tell a lie (a value missing, success
	 * without its state): the result is lost, and the record says so. */
	json_decref(f);
	buf_free(&e->kept);
	e->state = STATE_FAILED;
	return json_pack("{s:s, s:s, s:b, s:{s:s, s:s}}", "execution_id", e->reg.id, "state",
			 request_state_name(e->state), "success", 0, "error", "kind", "sandbox",
			 "message", "out of memory recording the result");
}

/* What an ended execution keeps, in bytes, as retention counts it: its
 * record, its output, its kept text, its small fields (as text, twice
 * over for the tree that holds them) and its tools' names. */
static size_t kept_bytes(struct exec *e)
{
	for (int i = 0; i < 2; i++) {
		/* Give back what the buffers grew beyond their contents. */
		struct buf *b = &e->run.out[i];
		if (b->data && b->start == 0 && b->cap > b->end) {
			char *p = realloc(b->data, b->end ? b->end : 1);
			if (p) {
				b->data = p;
				b->cap = b->end ? b->end : 1;
			}
		}
	}
	struct buf *k = &e->kept;
	if (k->data && k->cap > k->end && k->end) { /* in place: nothing moves */
		char *p = realloc(k->data, k->end);
		if (p) {
			k->data = p;
			k->cap = k->end;
		}
	}
	size_t n = sizeof *e + e->run.out[OUT].cap + e->run.out[ERR].cap + e->kept.cap;
	char *f = jnum_dumps(e->fields, JSON_COMPACT);
	n += f ? 2 * strlen(f) : 0;
	free(f);
	if (e->cached_name)
		n += strlen(e->cached_name) + 1;
	size_t i;
	json_t *t;
	json_array_foreach (e->tool_names, i, t) /* the string and its slot */
		n += json_string_length(t) + 64;
	return n;
}

/* The source copies an execution holds count against --queue-bytes until
 * they are freed, and the replies waiting for room against --reply-bytes
 * until they are out, in all and per owner (a small table: owners with
 * source or replies held, found by their scheduling key). */
static size_t source_bytes;
struct owner_source {
	unsigned long long key;
	size_t bytes;  /* source */
	size_t unsent; /* replies waiting or streaming */
	unsigned held; /* executions waiting to start (see must_hold) */
};
static struct owner_source *owner_sources;
static size_t owner_sources_len, owner_sources_cap;

/* The entry of owner key, created (with 0 bytes) when create is set;
 * NULL when absent or out of memory. */
static struct owner_source *owner_source(unsigned long long key, bool create)
{
	for (size_t i = 0; i < owner_sources_len; i++)
		if (owner_sources[i].key == key)
			return &owner_sources[i];
	if (!create)
		return NULL;
	if (owner_sources_len == owner_sources_cap) {
		size_t cap = owner_sources_cap ? 2 * owner_sources_cap : 16;
		struct owner_source *p = realloc(owner_sources, cap * sizeof *p);
		if (!p)
			return NULL;
		owner_sources = p;
		owner_sources_cap = cap;
	}
	owner_sources[owner_sources_len] = (struct owner_source){key, 0, 0, 0};
	return &owner_sources[owner_sources_len++];
}

/* Forgets o once it holds nothing (the last entry moves into its place). */
static void owner_tidy(struct owner_source *o)
{
	if (!o->bytes && !o->unsent && !o->held)
		*o = owner_sources[--owner_sources_len];
}

/* Gives back n bytes of e's owner's share. */
static void owner_source_drop(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (!o || !n)
		return;
	o->bytes -= n < o->bytes ? n : o->bytes;
	owner_tidy(o);
}

/* e's reply of n bytes waits (add) or is out (drop), for its owner. */
static void owner_unsent_add(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), true);
	if (o)
		o->unsent += n; /* without memory for the entry, the total alone bounds it */
}

static void owner_unsent_drop(const struct exec *e, size_t n)
{
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (!o || !n)
		return;
	o->unsent -= n < o->unsent ? n : o->unsent;
	owner_tidy(o);
}

/* Replies waiting for room (their executions ended, their clients slow to
 * read), in bytes. Executions of clients that owe too much wait here
 * instead of starting (see must_hold), so unread replies cannot pile up
 * without end; they hold no worker slot while they wait. */
static size_t unsent_bytes;
/* Records aged out but still streamed from (see exec_unpin), in bytes. */
static size_t evicted_pinned;
static struct list_node held = {&held, &held};
/* Held executions count as waiting, in all and per owner, against --queue
 * and --max-queued-per-owner: holding one gives its worker slot back, and
 * the scheduler's own counts no longer see it. */
static unsigned held_count;

static int exec_event(struct exec *e, enum event ev);

static void hold(struct exec *e)
{
	list_add_tail(&held, &e->held_link);
	held_count++;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), true);
	if (o) /* without memory for the entry, the total alone bounds it */
		o->held++;
}

static void unhold(struct exec *e)
{
	list_del(&e->held_link);
	held_count--;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	if (o && o->held) {
		o->held--;
		owner_tidy(o);
	}
}

/* Should e wait before it starts? When its own client already owes more
 * than its connection's budget; when its owner's replies waiting for room
 * already take their share of the global budget (half of --reply-bytes,
 * so that one owner's unread replies leave room for others'); or when
 * all owners' together take all of it. Replies of executions already
 * running when the budget fills may add one output each (bounded by
 * --max-workers): so unsent replies never pass reply-bytes by more. */
static bool must_hold(const struct exec *e)
{
	if (shutting_down)
		return false;
	/* Records that aged out while replies still stream from them are
	 * freed only once those end: new records (whose arrival ages old
	 * ones out) wait while they hold the reply budget. */
	if (evicted_pinned >= settings.reply_bytes)
		return true;
	if (!e->client || e->mode == EXEC_ASYNC)
		return false;
	if (e->client->ops->owes_too_much(e->client) || unsent_bytes >= settings.reply_bytes)
		return true;
	struct owner_source *o = owner_source(owner_sched_key(&e->owner), false);
	return o && o->unsent >= settings.reply_bytes / LIMIT_REPLY_BYTES_OWNER_SHARE;
}

/* Held executions whose clients caught up go back to the scheduler (at
 * the end of the queue: they had their turn). */
static void start_held(void)
{
	static bool starting, asked;
	if (starting) {
		asked = true; /* looked at again once this walk is over */
		return;
	}
	starting = true;
again:
	asked = false;
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &held) {
		struct exec *e = LIST_ITEM(n, struct exec, held_link);
		if (must_hold(e))
			continue;
		exec_event(e, EV_REQUEUE);
		if (e->phase == PHASE_HELD) { /* full: later */
			asked = false;	      /* the queue is full: a slot's release asks again */
			break;
		}
	}
	if (asked)
		goto again;
	starting = false;
}

static void exec_drop_source(struct exec *e, bool keep_code)
{
	free(e->tests);
	free(e->store);
	e->tests = e->store = NULL;
	if (!keep_code) {
		free(e->code);
		e->code = NULL;
	}
	if (!e->code && e->source_bytes) {
		source_bytes -= e->source_bytes;
		owner_source_drop(e, e->source_bytes);
		e->source_bytes = 0;
	}
}

/* The record is final and its reply (if any) sent: it ages out now. */
static void retire(struct exec *e)
{
	e->client = NULL;
	registry_finished(&e->reg, kept_bytes(e));
}

static void reply_unwait(struct exec *e)
{
	if (!e->reply_waits)
		return;
	e->reply_waits = false;
	unsent_bytes -= e->unsent;
	owner_unsent_drop(e, e->unsent);
	e->unsent = 0;
	start_held();
}

void exec_replied(struct exec *e)
{
	e->client = NULL;
	reply_unwait(e);
	exec_event(e, EV_REPLIED);
}

/* Final: wakes the watches, then its client sends the final reply (until
 * it is out the record is not retired, so it cannot age out under the
 * reply), and the record goes to the registry. Replies waiting count
 * against the reply budgets meanwhile. */
static void complete(struct exec *e)
{
	log_info("%s %s %s in %lld ms (pid %d%s)", e->reg.id, mode_names[e->mode],
		 request_state_name(e->state),
		 (long long)json_integer_value(json_object_get(e->fields, "execution_time_ms")),
		 (int)e->run.pid, e->client || e->mode == EXEC_ASYNC ? "" : ", client gone");
	exec_drop_source(e, false);
	struct list_node *n;
	while ((n = list_first(&e->watches)) != NULL) {
		struct exec_watch *w = LIST_ITEM(n, struct exec_watch, link);
		list_del(n);
		w->done(w, e);
	}
	if (!e->client) {
		exec_event(e, EV_REPLIED);
		return;
	}
	size_t hint = 0;
	if (e->mode != EXEC_ASYNC) {
		hint = buf_len(&e->kept) + 4096;
		if (e->mode != EXEC_STREAM)
			hint += e->out_esc[OUT] + e->out_esc[ERR];
		e->reply_waits = true;
		/* One reply counts a quarter of the budget at most, so that a
		 * reply bigger than the budget being read does not hold
		 * everything else back: beyond the budget there are then at
		 * most four such. */
		size_t most = settings.reply_bytes / LIMIT_REPLY_COUNTED_SHARE;
		e->unsent = hint < most ? hint : most;
		unsent_bytes += e->unsent;
		owner_unsent_add(e, e->unsent);
	}
	/* Last: the client may answer at once, and the record age out. */
	e->client->ops->done(e->client, e, hint);
}

static void leave_live(struct exec *e)
{
	list_del(&e->link);
	live_count--;
}

/* ---- tool calls */

static void finish_call(struct exec *e, const char *status)
{
	json_t *call = json_array_get(e->calls, json_array_size(e->calls) - 1);
	json_object_set_new(call, "status", json_string(status));
	json_object_set_new(
		call, "duration_ms",
		json_integer((json_int_t)((loop_clock_us() - e->call_start_us) / 1000)));
	e->pending_call = 0;
}

/* Answers the pending call: value (borrowed; or value_json, its compact
 * text when rendered already, off the loop) or error. */
static void answer_call_text(struct exec *e, json_t *value, const char *value_json,
			     size_t value_json_len, const char *error)
{
	unsigned long oom = msg_alloc_failures();
	json_t *m = json_pack("{s:s, s:I}", "type", "tool_result", "call_id", e->pending_call);
	struct buf members = BUF_INIT;
	if (error)
		json_object_set_new(m, "error", json_string(error));
	else if (!value_json)
		json_object_set(m, "value", value);
	else if (buf_append(&members, ",\"value\":", 9) < 0 ||
		 buf_append(&members, value_json, value_json_len) < 0)
		json_object_set_new(
			m, "error",
			json_string("the daemon ran out of memory relaying the result"));
	if (msg_alloc_failures() != oom) {
		/* An answer with holes would be a lie: run_send_raw kills the
		 * worker over an answer it cannot send. */
		json_decref(m);
		m = NULL;
	}
	run_send_raw(&e->run, m, buf_len(&members) ? buf_peek(&members) : NULL, buf_len(&members));
	buf_free(&members);
	json_decref(m);
	finish_call(e, error ? "error" : "ok");
}

static void answer_call(struct exec *e, json_t *value, const char *error)
{
	answer_call_text(e, value, NULL, 0, error);
}

static const char gone_message[] =
	"the client that submitted this execution has gone, so its tools cannot be called";

/* run.c: the worker calls a tool (args: compact JSON text, malloc'd;
 * taken). */
static void on_run_tool_call(struct run *r, int64_t call_id, const char *name, char *args,
			     size_t args_len)
{
	struct exec *e = container_of(r, struct exec, run);
	e->pending_call = call_id;
	e->call_start_us = loop_clock_us();
	/* Past the limit a call never reaches the client: it throws inside
	 * the script, and the record counts it. */
	if (json_array_size(e->calls) >= LIMIT_TOOL_CALLS) {
		e->calls_dropped++;
		json_t *m = json_pack("{s:s, s:I, s:s}", "type", "tool_result", "call_id", call_id,
				      "error",
				      "too many tool calls: an execution may make at "
				      "most " LIMIT_TOOL_CALLS_TEXT);
		run_send(&e->run, m);
		json_decref(m);
		e->pending_call = 0;
		free(args);
		return;
	}
	json_array_append_new(e->calls, json_pack("{s:I, s:s, s:s}", "call_id", call_id, "name",
						  name, "status", "pending"));
	if (!e->client) {
		free(args);
		answer_call(e, NULL, gone_message);
		return;
	}
	const char *refusal = "the call could not be relayed";
	if (e->client->ops->tool_call(e->client, e, call_id, name, args, args_len, &refusal) < 0)
		answer_call(e, NULL, refusal);
}

int exec_tool_result(struct exec *e, const struct exec_client *from, uint64_t call_id,
		     json_t *value, const char *value_json, size_t value_json_len,
		     const char *error, enum status *code, const char **message)
{
	if (e->phase != PHASE_RUNNING) {
		*code = STATUS_FAILED_PRECONDITION;
		*message = "the execution is not running";
		return -1;
	}
	if (!e->pending_call || (uint64_t)e->pending_call != call_id) {
		*code = STATUS_NOT_FOUND;
		*message = "call_id: no such call is waiting for its result";
		return -1;
	}
	if (!from || from != e->client) {
		*code = STATUS_PERMISSION_DENIED;
		*message = "only the connection that received the call may answer it";
		return -1;
	}
	answer_call_text(e, value, value_json, value_json_len, error);
	return 0;
}

/* The run's verdict is in (the worker may still be being reaped): the
 * record is made final, new code that ran successfully goes to the cache
 * (the reply says where; the write itself goes on after the reply), and
 * the reply goes. */
static void act_ended(struct exec *e, enum event ev)
{
	(void)ev;
	if (e->pending_call)
		finish_call(e, "cancelled");
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	/* caches: the lowered text the worker made, kept for its owner. */
	if (e->run.have_result && e->run.killed != RUN_KILL_PROTOCOL)
		lcache_offer(&e->lowered, e->owner.key, e->run.result.lowered,
			     e->run.result.lowered_len);
	lcache_slot_clear(&e->lowered);
	run_drop_result(&e->run);
	bool store =
		e->cache && !e->cached_name && e->mode != EXEC_TEST && e->state == STATE_COMPLETED;
	json_t *info = store ? cache_store(e->owner.key, e->code, e->code_len) : NULL;
	if (info)
		json_object_set_new(e->fields, "cached", info);
	complete(e);
}

static void on_run_ended(struct run *r) { exec_event(container_of(r, struct exec, run), EV_ENDED); }

/* run.c: the worker is gone: its slot goes to the next execution, and a
 * record that aged out meanwhile is freed (exec_unpin). */
static void on_run_reaped(struct run *r)
{
	struct exec *e = container_of(r, struct exec, run);
	e->worker = false;
	leave_live(e);
	sched_release(&e->sched);
	exec_unpin(e);
}

/* run.c: the worker has its whole job: the request's copies of the tests
 * and the store go, and the code unless it is to be cached. */
static void on_run_job_sent(struct run *r)
{
	struct exec *e = container_of(r, struct exec, run);
	exec_drop_source(e, e->cache && !e->cached_name && e->mode != EXEC_TEST);
}

/* Ends an execution that never got a worker: cancelled, or the daemon
 * stops. */
static void end_unstarted(struct exec *e, enum event ev)
{
	e->cancelled = ev == EV_SHUTDOWN ? RUN_KILL_SHUTDOWN : RUN_KILL_CANCEL;
	e->reg.finished_ms = loop_wall_ms();
	e->fields = build_fields(e);
	leave_live(e);
	complete(e);
}

static void act_drop_queued(struct exec *e, enum event ev)
{
	sched_remove(&e->sched);
	end_unstarted(e, ev);
}

static void act_drop_held(struct exec *e, enum event ev)
{
	unhold(e);
	end_unstarted(e, ev);
}

static void exec_free(struct registry_entry *r)
{
	struct exec *e = container_of(r, struct exec, reg);
	if (e->pins) {
		/* A reply still streams from it: freed at the last unpin, and
		 * counted meanwhile (see must_hold). */
		e->evicted = true;
		e->evicted_bytes =
			sizeof *e + e->run.out[OUT].cap + e->run.out[ERR].cap + e->kept.cap;
		evicted_pinned += e->evicted_bytes;
		return;
	}
	source_bytes -= e->source_bytes;
	owner_source_drop(e, e->source_bytes);
	json_decref(e->fields);
	json_decref(e->tool_names);
	free(e->store);
	json_decref(e->calls);
	buf_free(&e->kept);
	lcache_slot_clear(&e->lowered); /* caches */
	run_clear(&e->run);
	free(e->cached_name);
	free(e->code);
	free(e->tests);
	free(e);
}

void exec_pin(struct exec *e) { e->pins++; }

void exec_unpin(struct exec *e)
{
	if (--e->pins == 0 && e->evicted) {
		evicted_pinned -= e->evicted_bytes;
		e->evicted = false; /* freed now, for good */
		exec_free(&e->reg);
		start_held();
	}
}

/* ---- clients */

int exec_cancel(struct exec *e) { return exec_event(e, EV_CANCEL); }

void exec_watch(struct exec *e, struct exec_watch *w)
{
	if (final(e)) {
		list_init(&w->link);
		w->done(w, e);
		return;
	}
	list_add_tail(&e->watches, &w->link);
}

void exec_unwatch(struct exec_watch *w) { list_del(&w->link); }

/* run.c: output arrived on stream i (bytes appended to its buffer from
 * offset from). */
static void on_run_output(struct run *r, int i, size_t from)
{
	struct exec *e = container_of(r, struct exec, run);
	const struct buf *b = &r->out[i];
	e->out_esc[i] += jstr_escaped_len(buf_peek(b) + from, buf_len(b) - from);
	if (e->mode != EXEC_STREAM || !e->client)
		return;
	if (e->client->ops->output(e->client, e, i, from))
		run_pause(&e->run, true);
}

void exec_client_gone(struct exec *e)
{
	e->client = NULL;
	if (e->phase == PHASE_REPLYING) {
		/* Ended; its reply has no one to go to any more. */
		exec_replied(e);
		return;
	}
	if (e->run.paused)
		run_pause(&e->run, false); /* drain and drop */
	/* An async execution goes on; only its tools are out of reach. */
	if (e->mode != EXEC_ASYNC)
		exec_event(e, EV_CANCEL);
	else if (e->pending_call)
		answer_call(e, NULL, gone_message);
}

void exec_client_drained(struct exec *e)
{
	if (e->run.paused)
		run_pause(&e->run, false);
	if (e->phase == PHASE_HELD)
		start_held();
}

/* The started news of an execute, stream or test request, once (see
 * exec_client_ops). Told before the execution starts, since a start that
 * fails answers the request at once. */
static void announce(struct exec *e, enum exec_state state)
{
	if (e->announced)
		return;
	e->announced = true;
	if (!e->client || e->mode == EXEC_ASYNC)
		return; /* async: its reply carries the id */
	unsigned pos = state == STATE_PENDING ? exec_queue_position(e) : 0;
	e->client->ops->started(e->client, e, state, pos);
}

static const struct run_ops run_ops = {on_run_output, on_run_tool_call, on_run_job_sent,
				       on_run_ended, on_run_reaped};

/* The execution exec_submit is submitting, and whether it started (and
 * was announced) before sched_submit returned: then it may have ended
 * already, and exec_submit does not look at it again. */
static struct exec *submitting;
static bool submitting_started;

/* It has a slot and starts now: its run gets the job's views (kept until
 * the run says it sent them, see on_run_job_sent). */
static void act_start(struct exec *e, enum event ev)
{
	(void)ev;
	announce(e, STATE_RUNNING); /* it starts now */
	if (e == submitting)
		submitting_started = true;
	struct run *r = &e->run;
	r->limits = e->limits;
	if (e->mode == EXEC_TEST) {
		r->job.code = e->code;
		r->job.code_len = e->code ? e->code_len : 0;
		r->job.tests = e->tests;
		r->job.tests_len = e->tests_len;
	} else {
		/* The options line becomes an empty line: line numbers hold. */
		r->job.code = e->code + e->options_len;
		r->job.code_len = e->code_len - e->options_len;
		/* caches: the owner's lowered text of this code, when it has one. */
		lcache_lookup(&e->lowered, e->owner.key, e->language, r->job.code, r->job.code_len);
		r->job.lowered = lcache_slot_text(&e->lowered, &r->job.lowered_len);
	}
	r->job.store = e->store;
	r->job.store_len = e->store_len;
	r->job.language = e->language;
	r->job.tool_names = e->tool_names;
	/* The record outlives an early reply until its worker is reaped. */
	e->worker = true;
	exec_pin(e);
	run_start(r);
}

/* It gives its slot back and waits, holding only its code. */
static void act_hold(struct exec *e, enum event ev)
{
	(void)ev;
	hold(e);
	sched_release(&e->sched);
}

/* Back to the scheduler (which may start it at once); held again when it
 * has no room. */
static void act_requeue(struct exec *e, enum event ev)
{
	(void)ev;
	unhold(e);
	if (sched_submit(&e->sched, owner_sched_key(&e->owner)) != SCHED_OK)
		exec_event(e, EV_FULL);
}

static void act_rehold(struct exec *e, enum event ev)
{
	(void)ev;
	hold(e);
}

static void act_kill(struct exec *e, enum event ev)
{
	run_kill(&e->run, ev == EV_SHUTDOWN ? RUN_KILL_SHUTDOWN : RUN_KILL_CANCEL);
}

static void act_retire(struct exec *e, enum event ev)
{
	(void)ev;
	retire(e);
}

/*
 * The life of an execution: for each state, the events it takes, the
 * state each leads to and what is done on the way. The state is set before
 * the action runs, so that an action may raise the next event itself (a
 * start that fails ends at once). An event a state does not take changes
 * nothing: exec_event returns -1 (cancel after the end, say).
 */
static const struct transition {
	enum phase to;
	void (*act)(struct exec *e, enum event ev);
} transitions[PHASE_COUNT][EV_COUNT] = {
	[PHASE_QUEUED] =
		{
			[EV_START] = {PHASE_RUNNING, act_start},
			[EV_HOLD] = {PHASE_HELD, act_hold},
			[EV_FULL] = {PHASE_HELD, act_rehold},
			[EV_CANCEL] = {PHASE_REPLYING, act_drop_queued},
			[EV_SHUTDOWN] = {PHASE_REPLYING, act_drop_queued},
		},
	[PHASE_HELD] =
		{
			[EV_REQUEUE] = {PHASE_QUEUED, act_requeue},
			[EV_CANCEL] = {PHASE_REPLYING, act_drop_held},
			[EV_SHUTDOWN] = {PHASE_REPLYING, act_drop_held},
		},
	[PHASE_RUNNING] =
		{
			[EV_CANCEL] = {PHASE_RUNNING, act_kill},
			[EV_SHUTDOWN] = {PHASE_RUNNING, act_kill},
			[EV_ENDED] = {PHASE_REPLYING, act_ended},
		},
	[PHASE_REPLYING] =
		{
			[EV_REPLIED] = {PHASE_DONE, act_retire},
		},
};

static int exec_event(struct exec *e, enum event ev)
{
	const struct transition *t = &transitions[e->phase][ev];
	if (!t->act)
		return -1;
	e->phase = t->to;
	t->act(e, ev);
	return 0;
}

static void on_start(struct sched_entry *s)
{
	struct exec *e = container_of(s, struct exec, sched);
	exec_event(e, must_hold(e) ? EV_HOLD : EV_START);
}

/* The queue caps, counting held executions as waiting: SCHED_OK when e
 * may be submitted. */
static enum sched_result held_queue_full(const struct exec *e)
{
	if (!held_count)
		return SCHED_OK;
	if (sched_queued() + held_count >= settings.queue_max)
		return SCHED_QUEUE_FULL;
	uint64_t key = owner_sched_key(&e->owner);
	const struct owner_source *o = owner_source(key, false);
	if (o && o->held && sched_owner_queued(key) + o->held >= sched_per_owner_queued())
		return SCHED_OWNER_FULL;
	return SCHED_OK;
}

static char *copy(const char *s, size_t len)
{
	char *p = malloc(len + 1);
	if (p) {
		if (len)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

struct exec *exec_submit(struct exec_client *client, const struct owner *owner,
			 const struct request *req, const char *code, size_t code_len,
			 size_t options_len, const char *cached_name, enum status *status,
			 const char **message)
{
	static char queue_msg[256];
	*status = STATUS_RESOURCE_EXHAUSTED;
	*message = "out of memory";
	if (shutting_down) {
		*status = STATUS_UNAVAILABLE;
		*message = "the daemon is shutting down";
		return NULL;
	}
	/* What waits to run is bounded in bytes too, not only in number: its
	 * code, tests and store (rendered already when parsed off the loop,
	 * else measured without rendering). */
	size_t store_len = !req->store	     ? 0
			   : req->store_json ? req->store_json_len
					     : jnum_dumpb(req->store, NULL, 0, JSON_COMPACT);
	size_t source = (code ? code_len : 0) + (req->tests ? req->tests_len : 0) + store_len;
	if (source_bytes && source_bytes + source > settings.queue_bytes) {
		snprintf(queue_msg, sizeof queue_msg,
			 "the executions waiting or running already hold %zu bytes of code, "
			 "tests and stores (--queue-bytes %zu)",
			 source_bytes, settings.queue_bytes);
		*message = queue_msg;
		return NULL;
	}
	/* And one owner's share of it is bounded, so that others find room. */
	struct owner_source *mine = owner_source(owner_sched_key(owner), false);
	size_t share = settings.queue_bytes / LIMIT_QUEUE_BYTES_OWNER_SHARE;
	if (mine && mine->bytes + source > share) {
		snprintf(queue_msg, sizeof queue_msg,
			 "your executions waiting or running already hold %zu bytes of code, "
			 "tests and stores, and "
			 "one owner may hold at most %zu (half of --queue-bytes %zu)",
			 mine->bytes, share, settings.queue_bytes);
		*message = queue_msg;
		return NULL;
	}
	struct exec *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->owner = *owner;
	e->mode = req->op == OP_STREAM	? EXEC_STREAM
		  : req->op == OP_ASYNC ? EXEC_ASYNC
		  : req->op == OP_TEST	? EXEC_TEST
					: EXEC_EXECUTE;
	if (code && code == req->code && req->code_take && *req->code_take) {
		e->code = *req->code_take; /* copied off the loop already */
		*req->code_take = NULL;
	} else {
		e->code = code ? copy(code, code_len) : NULL;
	}
	e->code_len = code_len;
	e->options_len = options_len;
	e->tests = req->tests ? copy(req->tests, req->tests_len) : NULL;
	e->tests_len = req->tests_len;
	e->cached_name = cached_name ? strdup(cached_name) : NULL;
	if ((code && !e->code) || (req->tests && !e->tests) || (cached_name && !e->cached_name) ||
	    registry_add(&e->reg) < 0) {
		free(e->code);
		free(e->tests);
		free(e->cached_name);
		free(e);
		return NULL;
	}
	set_preview(e, code ? code : req->tests, code ? code_len : req->tests_len);
	e->source_bytes = source;
	source_bytes += source;
	/* Looked up again: the table may have moved since. */
	struct owner_source *o = source ? owner_source(owner_sched_key(&e->owner), true) : NULL;
	if (o)
		o->bytes += source;
	e->cache = req->cache;
	e->limits = req->limits;
	e->language = req->typescript ? "typescript" : req->javascript ? "javascript" : NULL;
	run_init(&e->run, &run_ops, e->reg.id);
	list_init(&e->watches);
	e->phase = PHASE_QUEUED;
	list_add_tail(&live, &e->link);
	live_count++;
	/* The requester gets tool calls and, but for async, the reply; an
	 * async execution outlives it (see exec_client_gone). */
	e->client = client;
	e->run.paused = e->mode == EXEC_STREAM && client && client->ops->backlogged(client);
	/* Of the request only what the run needs stays: the tools' names
	 * (not their schemas) and the store as text until the worker has it. */
	if (req->tools) {
		e->tool_names = json_array();
		size_t i;
		json_t *t;
		json_array_foreach (req->tools, i, t)
			json_array_append(e->tool_names, json_object_get(t, "name"));
	}
	if (req->store) {
		/* Rendered already when the request was parsed off the loop. */
		e->store = req->store_json ? copy(req->store_json, req->store_json_len)
					   : jnum_dumps(req->store, JSON_COMPACT);
		e->store_len = e->store ? strlen(e->store) : 0;
		e->had_store = true;
	}
	e->calls = json_array();
	total++;
	enum sched_result sr = held_queue_full(e);
	submitting = e;
	submitting_started = false;
	if (sr == SCHED_OK)
		sr = sched_submit(&e->sched, owner_sched_key(&e->owner));
	submitting = NULL;
	if (sr != SCHED_OK) {
		total--;
		e->client = NULL;
		leave_live(e);
		registry_remove(&e->reg);
		exec_free(&e->reg);
		if (sr == SCHED_OWNER_FULL)
			snprintf(queue_msg, sizeof queue_msg,
				 "the per-owner queue limit is reached: %u of your executions are "
				 "already waiting (--max-queued-per-owner)",
				 sched_per_owner_queued());
		else if (sr == SCHED_QUEUE_FULL)
			snprintf(queue_msg, sizeof queue_msg,
				 "the execution queue is full (%u waiting)",
				 sched_queued() + held_count);
		if (sr != SCHED_NO_MEMORY)
			*message = queue_msg;
		return NULL;
	}
	/* Unless it started already (on_start said so): it waits, queued or
	 * held (then without a position, as status says). */
	if (!submitting_started)
		announce(e, exec_state(e));
	return e;
}

void exec_shutdown(void)
{
	shutting_down = true;
	struct sched_entry *s;
	while ((s = sched_first_queued()) != NULL)
		exec_event(container_of(s, struct exec, sched), EV_SHUTDOWN);
	struct list_node *n;
	while ((n = list_first(&held)) != NULL)
		exec_event(LIST_ITEM(n, struct exec, held_link), EV_SHUTDOWN);
}

void exec_kill_all(void)
{
	struct list_node *n, *tmp;
	LIST_FOREACH_SAFE (n, tmp, &live) {
		struct exec *e = LIST_ITEM(n, struct exec, link);
		/* A worker whose verdict is in is killed too (run_kill changes
		 * nothing else then). */
		if (exec_event(e, EV_SHUTDOWN) < 0 && e->worker)
			run_kill(&e->run, RUN_KILL_SHUTDOWN);
	}
}

void exec_stats(struct exec_stats *s)
{
	*s = (struct exec_stats){
		.total = total,
		.live = live_count,
		.running = sched_running(),
		.max_workers = sched_max_workers(),
		.queued = sched_queued(),
		.held = held_count,
		.retained = registry_count(),
		.reply_bytes = settings.reply_bytes,
	};
}

void exec_init(const struct exec_settings *s)
{
	settings = *s;
	struct sched_settings ss = {s->max_workers, s->queue_max, s->per_owner_running,
				    s->per_owner_queued};
	sched_init(&ss, on_start);
	struct registry_config rc = {s->retention_ms, s->retain_count, s->retain_bytes, exec_free};
	registry_init(&rc);
}
