/* parse.c - big request frames parsed off the event loop; see parse.h. */
#include "parse.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../protocol/jnum.h"
#include "../protocol/limits.h"
#include "log.h"
#include "loop.h"

static pthread_t thread;
static bool running, stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
/* Under lock: jobs for the thread (oldest first), results back (newest
 * first), the bytes jobs hold, and whether budget was given back. */
static struct parse_job *todo, **todo_tail = &todo, *results;
static size_t held;
static bool freed;
static int event_fd = -1;
static struct loop_watch event_watch = LOOP_WATCH_INIT;
static const struct request_limits *job_limits;
static void (*room_cb)(void);

bool parse_wanted(size_t len) { return running && len >= LIMIT_PARSE_INLINE_BYTES; }

bool parse_has_room(size_t len)
{
	(void)len;
	pthread_mutex_lock(&lock);
	bool ok = held == 0; /* one request at a time: see limits.h */
	pthread_mutex_unlock(&lock);
	return ok;
}

/* On the thread: parse, or free what a released job holds. */
static void run_job(struct parse_job *j)
{
	if (j->work) {
		j->work(j);
		return;
	}
	if (j->release) {
		json_decref(j->root ? j->root : j->bad_root);
		if (!j->root)
			request_error_clear(&j->err);
		free(j->store_json);
		free(j->code_copy);
		free(j->owned);
		return;
	}
	j->root = request_parse(j->payload, j->len, job_limits, &j->req, &j->err, &j->bad_root);
	free(j->owned);
	j->owned = NULL;
	j->payload = NULL;
	/* The copy of the code the execution keeps, made here too. */
	if (j->root && j->req.code) {
		j->code_copy = malloc(j->req.code_len + 1);
		if (j->code_copy) {
			memcpy(j->code_copy, j->req.code, j->req.code_len);
			j->code_copy[j->req.code_len] = '\0';
			j->req.code_take = &j->code_copy;
		}
	}
	/* The store goes to the worker as text: rendered here, not in the
	 * loop (a store of 4 MiB of strings is 25 ms of jansson's dump). */
	if (j->root && j->req.store) {
		j->store_json = jnum_dumps(j->req.store, JSON_COMPACT);
		if (j->store_json) {
			j->req.store_json = j->store_json;
			j->req.store_json_len = strlen(j->store_json);
		}
	}
	/* A tool's result goes to the worker as text too. */
	if (j->root && j->req.value) {
		j->store_json = jnum_dumps(j->req.value, JSON_COMPACT | JSON_ENCODE_ANY);
		if (j->store_json) {
			j->req.value_json = j->store_json;
			j->req.value_json_len = strlen(j->store_json);
		}
	}
}

static void *parse_main(void *unused)
{
	(void)unused;
	uint64_t one = 1;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!todo && !stopping)
			pthread_cond_wait(&wake, &lock);
		if (!todo)
			break;
		struct parse_job *j = todo;
		todo = j->next;
		if (!todo)
			todo_tail = &todo;
		pthread_mutex_unlock(&lock);
		run_job(j);
		pthread_mutex_lock(&lock);
		if (j->release) {
			held -= j->len;
			free(j);
			freed = true;
		} else {
			j->next = results;
			results = j;
		}
		(void)!write(event_fd, &one, sizeof one);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void enqueue(struct parse_job *j)
{
	pthread_mutex_lock(&lock);
	j->next = NULL;
	*todo_tail = j;
	todo_tail = &j->next;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

/* Results, in the loop: handed over oldest first, one a turn (answering a
 * big request is work of its own: copying its code, starting its run). */
static void on_event(struct loop_watch *w, uint32_t events)
{
	(void)w;
	(void)events;
	uint64_t n;
	(void)!read(event_fd, &n, sizeof n);
	pthread_mutex_lock(&lock);
	/* The list is newest first: take its last. */
	struct parse_job **p = &results, *j = NULL;
	while (*p && (*p)->next)
		p = &(*p)->next;
	if (*p) {
		j = *p;
		*p = NULL;
	}
	bool more = results != NULL;
	bool room = freed;
	freed = false;
	pthread_mutex_unlock(&lock);
	if (more) {
		uint64_t one = 1;
		(void)!write(event_fd, &one, sizeof one);
	}
	if (j && j->work) {
		j->done(j);
		free(j);
	} else if (j) {
		if (j->cancelled)
			parse_release(j);
		else
			j->done(j);
	}
	if (room && room_cb)
		room_cb();
}

struct parse_job *parse_submit(char *owned, const char *payload, size_t len,
			       const struct request_limits *limits,
			       void (*done)(struct parse_job *j), void *arg)
{
	struct parse_job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->owned = owned;
	j->payload = payload;
	j->len = len;
	j->done = done;
	j->arg = arg;
	job_limits = limits;
	pthread_mutex_lock(&lock);
	held += len;
	pthread_mutex_unlock(&lock);
	enqueue(j);
	return j;
}

struct parse_job *parse_submit_work(void (*work)(struct parse_job *j),
				    void (*done)(struct parse_job *j), void *arg)
{
	struct parse_job *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->work = work;
	j->done = done;
	j->arg = arg;
	enqueue(j);
	return j;
}

void parse_release(struct parse_job *j)
{
	j->release = true;
	enqueue(j);
}

void parse_cancel(struct parse_job *j) { j->cancelled = true; }

void parse_set_room(void (*room)(void)) { room_cb = room; }

int parse_init(void)
{
	event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int err = event_fd < 0 ? errno : 0;
	if (!err && loop_add(&event_watch, event_fd, EPOLLIN, on_event) < 0)
		err = errno;
	else if (!err && (err = pthread_create(&thread, NULL, parse_main, NULL)) != 0)
		loop_del(&event_watch);
	if (err) {
		log_warn("cannot start the request parser thread (%s): big requests are parsed "
			 "in the event loop",
			 strerror(err));
		if (event_fd >= 0)
			close(event_fd);
		event_fd = -1;
		return -1;
	}
	running = true;
	return 0;
}

void parse_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = false;
}
