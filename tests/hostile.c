/* hostile.c - the hostile corpus, replayed; see hostile.h. */
#include "hostile.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void split(struct hostile_case *hc, char *text)
{
	struct buf setup = BUF_INIT, body = BUF_INIT;
	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		if (n > 0) {
			if (strncmp(line, "@setup ", 7) == 0) {
				buf_append(&setup, line + 7, n - 7);
				buf_append(&setup, "\n", 1);
			} else {
				buf_append(&body, line, n);
				buf_append(&body, "\n", 1);
				hc->body_lines++;
			}
		}
		line += n + (end != NULL);
	}
	buf_append(&setup, "", 1);
	buf_append(&body, "", 1);
	hc->setup = setup.data;
	hc->body = body.data;
}

int hostile_load(const char *dir, struct hostile_case *cases, int max)
{
	char path[512];
	snprintf(path, sizeof path, "%s/MANIFEST", dir);
	size_t len;
	char *manifest = test_read_file(path, &len);
	int n = 0;
	for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#' || line[0] == '\0')
			continue;
		ck_assert_int_lt(n, max);
		struct hostile_case *hc = &cases[n];
		memset(hc, 0, sizeof *hc);
		char mode[16];
		int used = 0;
		ck_assert_msg(sscanf(line, "%63s %d %15s %n", hc->name, &hc->conns, mode, &used) ==
				      3,
			      "MANIFEST: bad line: %s", line);
		ck_assert_msg(hc->conns >= 1 && hc->conns <= HOSTILE_MAX_CONNS,
			      "MANIFEST: %s: conns", hc->name);
		if (strcmp(mode, "read") == 0)
			hc->mode = HOSTILE_READ;
		else if (strcmp(mode, "noread") == 0)
			hc->mode = HOSTILE_NOREAD;
		else if (strcmp(mode, "leave") == 0)
			hc->mode = HOSTILE_LEAVE;
		else
			ck_abort_msg("MANIFEST: %s: unknown mode %s", hc->name, mode);
		snprintf(hc->what, sizeof hc->what, "%s", line + used);
		snprintf(path, sizeof path, "%s/%s.jsonl", dir, hc->name);
		char *text = test_read_file(path, &len);
		split(hc, text);
		free(text);
		ck_assert_msg(hc->body_lines > 0, "%s: no requests", path);
		n++;
	}
	free(manifest);
	return n;
}

void hostile_free(struct hostile_case *cases, int n)
{
	for (int i = 0; i < n; i++) {
		free(cases[i].setup);
		free(cases[i].body);
	}
}

/* text with every "${execution_id}" replaced by id; malloc'd. */
static char *substitute(const char *text, const char *id)
{
	static const char key[] = "${execution_id}";
	struct buf b = BUF_INIT;
	for (const char *p = text;;) {
		const char *at = strstr(p, key);
		if (!at) {
			buf_append(&b, p, strlen(p) + 1);
			break;
		}
		buf_append(&b, p, (size_t)(at - p));
		buf_append(&b, id, strlen(id));
		p = at + sizeof key - 1;
	}
	return b.data;
}

void hostile_start(struct hostile_run *r, const char *sock, const struct hostile_case *hc)
{
	memset(r, 0, sizeof *r);
	r->hc = hc;
	char id[64] = "";
	if (hc->setup[0]) {
		struct client s;
		ck_assert_int_eq(client_open(&s, sock, FRAME_MODE_LINE), 0);
		for (char *line = hc->setup; *line;) {
			char *end = strchr(line, '\n');
			char *copy = strndup(line, (size_t)(end - line + 1));
			char *one = substitute(copy, id);
			client_send_raw(&s, one, strlen(one));
			free(one);
			free(copy);
			json_t *rep = client_reply(&s, NULL, 60000);
			ck_assert_msg(rep != NULL, "%s: no reply to a setup request", hc->name);
			const char *eid = jstr(rep, "execution_id");
			if (*eid)
				snprintf(id, sizeof id, "%s", eid);
			json_decref(rep);
			line = end + 1;
		}
		client_close(&s);
	}
	char *body = substitute(hc->body, id);
	for (r->n = 0; r->n < hc->conns; r->n++) {
		struct client *c = &r->c[r->n];
		ck_assert_int_eq(client_open(c, sock, FRAME_MODE_LINE), 0);
		client_send_raw(c, body, strlen(body));
		if (hc->mode == HOSTILE_LEAVE)
			client_close(c);
	}
	free(body);
}

void hostile_finish(struct hostile_run *r, int timeout_ms)
{
	for (int i = 0; i < r->n; i++) {
		struct client *c = &r->c[i];
		if (r->hc->mode == HOSTILE_READ) {
			for (int k = 0; k < r->hc->body_lines; k++) {
				json_t *rep = client_reply(c, NULL, timeout_ms);
				ck_assert_msg(rep != NULL, "%s: reply %d of %d missing",
					      r->hc->name, k + 1, r->hc->body_lines);
				r->replies++;
				if (!jtrue(rep, "ok")) {
					if (!r->errors++)
						snprintf(r->first_error, sizeof r->first_error,
							 "%s: %.120s", err_code(rep), err_msg(rep));
				}
				json_decref(rep);
			}
		}
		client_close(c);
	}
	r->n = 0;
}

json_t *hostile_health(const char *sock)
{
	struct client c;
	ck_assert_int_eq(client_open(&c, sock, FRAME_MODE_LINE), 0);
	client_sendf(&c, "{\"op\":\"health\"}");
	json_t *r = client_reply(&c, NULL, 30000);
	client_close(&c);
	ck_assert_msg(r && jtrue(r, "ok"), "health failed");
	return r;
}

long long hostile_max_turn_us(json_t *health)
{
	json_t *loop = json_object_get(health, "loop");
	ck_assert_msg(loop != NULL, "health has no loop object");
	return jint(loop, "max_turn_us");
}

long long hostile_max_turn_cpu_us(json_t *health)
{
	json_t *loop = json_object_get(health, "loop");
	ck_assert_msg(loop != NULL, "health has no loop object");
	return jint(loop, "max_turn_cpu_us");
}

bool hostile_wait_idle(const char *sock, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 50) {
		json_t *h = hostile_health(sock);
		bool idle = jint(h, "workers_running") == 0 && jint(h, "queued") == 0;
		json_decref(h);
		if (idle)
			return true;
		struct timespec ts = {0, 50 * 1000000};
		nanosleep(&ts, NULL);
	}
	return false;
}

long proc_status_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long v = -1;
	size_t n = strlen(field);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}
