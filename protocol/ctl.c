/* ctl.c - validate what a worker reports; see ctl.h. */
#include "ctl.h"

#include <string.h>

/* The kinds a worker may claim (timeout: its CPU budget); the rest
 * (output_limit, cancelled, sandbox) are the supervisor's verdicts and
 * cannot be forged from inside. */
static const char *const worker_kinds[] = {"syntax", "script", "memory", "timeout", NULL};

static bool known_kind(const char *k)
{
	for (const char *const *p = worker_kinds; *p; p++)
		if (strcmp(*p, k) == 0)
			return true;
	return false;
}

/* A copy of a string field cut to at most max bytes on a character boundary. */
static json_t *bounded_string(json_t *v, size_t max)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return json_stringn(s, n);
}

static json_t *parse_error(json_t *e, const char **why)
{
	json_t *kind = json_object_get(e, "kind");
	json_t *msg = json_object_get(e, "message");
	json_t *line = json_object_get(e, "line");
	json_t *column = json_object_get(e, "column");
	json_t *stack = json_object_get(e, "stack");
	if (!json_is_string(kind) || !known_kind(json_string_value(kind))) {
		*why = "result error has no valid kind";
		return NULL;
	}
	if (!json_is_string(msg)) {
		*why = "result error has no message";
		return NULL;
	}
	if ((line && (!json_is_integer(line) || json_integer_value(line) < 0)) ||
	    (column && (!json_is_integer(column) || json_integer_value(column) < 1)) ||
	    (stack && !json_is_string(stack))) {
		*why = "result error has a mistyped line or stack";
		return NULL;
	}
	json_t *out = json_object();
	json_object_set(out, "kind", kind);
	json_object_set_new(out, "message", bounded_string(msg, CTL_MESSAGE_BYTES));
	if (line)
		json_object_set(out, "line", line);
	if (column)
		json_object_set(out, "column", column);
	if (stack)
		json_object_set_new(out, "stack", bounded_string(stack, CTL_STACK_BYTES));
	json_t *source = json_object_get(e, "source");
	const char *src = json_string_value(source);
	if (src && (strcmp(src, "code") == 0 || strcmp(src, "tests") == 0))
		json_object_set(out, "source", source);
	return out;
}

static bool count_ok(json_t *v) { return json_is_integer(v) && json_integer_value(v) >= 0; }

/* A copy of test mode's report with every field checked and bounded. */
static json_t *parse_test(json_t *t, const char **why)
{
	json_t *summary = json_object_get(t, "summary");
	json_t *tests = json_object_get(t, "tests");
	static const char *const counts[] = {"total", "passed", "failed", "skipped"};
	if (!json_is_object(summary) || !json_is_array(tests) ||
	    json_array_size(tests) > CTL_TESTS_MAX) {
		*why = "test report has no summary or tests";
		return NULL;
	}
	json_t *out_summary = json_object();
	for (size_t i = 0; i < 4; i++) {
		json_t *v = json_object_get(summary, counts[i]);
		if (!count_ok(v)) {
			json_decref(out_summary);
			*why = "test summary has a bad count";
			return NULL;
		}
		json_object_set(out_summary, counts[i], v);
	}
	json_t *out_tests = json_array();
	size_t i;
	json_t *r;
	json_array_foreach (tests, i, r) {
		json_t *name = json_object_get(r, "name");
		json_t *passed = json_object_get(r, "passed");
		json_t *err = json_object_get(r, "error");
		json_t *ms = json_object_get(r, "duration_ms");
		if (!json_is_string(name) || !json_is_boolean(passed) ||
		    (err && !json_is_string(err)) || !count_ok(ms)) {
			json_decref(out_summary);
			json_decref(out_tests);
			*why = "test report has a bad test entry";
			return NULL;
		}
		json_t *o = json_object();
		json_object_set_new(o, "name", bounded_string(name, CTL_TEST_NAME_BYTES));
		json_object_set(o, "passed", passed);
		if (json_is_true(json_object_get(r, "skipped")))
			json_object_set_new(o, "skipped", json_true());
		if (err)
			json_object_set_new(o, "error", bounded_string(err, CTL_MESSAGE_BYTES));
		json_object_set(o, "duration_ms", ms);
		json_array_append_new(out_tests, o);
	}
	return json_pack("{s:o, s:o}", "summary", out_summary, "tests", out_tests);
}

json_t *ctl_result_parse(const char *payload, size_t len, struct ctl_result *res, const char **why)
{
	return ctl_result_take(json_loadb(payload, len, JSON_REJECT_DUPLICATES, NULL), res, why);
}

json_t *ctl_result_take(json_t *root, struct ctl_result *res, const char **why)
{
	memset(res, 0, sizeof *res);
	res->heap_peak = -1;
	if (!json_is_object(root)) {
		*why = "result is not a JSON object";
		goto bad;
	}
	json_t *type = json_object_get(root, "type");
	if (!json_is_string(type) || strcmp(json_string_value(type), "result") != 0) {
		*why = "result frame has an unexpected type";
		goto bad;
	}
	json_t *ok = json_object_get(root, "ok");
	if (!json_is_boolean(ok)) {
		*why = "result has no ok flag";
		goto bad;
	}
	res->ok = json_is_true(ok);
	json_t *peak = json_object_get(root, "heap_peak_bytes");
	res->heap_peak = json_is_integer(peak) && json_integer_value(peak) >= 0
				 ? json_integer_value(peak)
				 : -1;
	if (res->ok) {
		res->value = json_object_get(root, "value");
		json_t *writes = json_object_get(root, "store_writes");
		if (writes) {
			json_t *set = json_object_get(writes, "set");
			json_t *del = json_object_get(writes, "delete");
			size_t i;
			json_t *k;
			bool ok_del = json_is_array(del);
			json_array_foreach (del, i, k)
				ok_del = ok_del && json_is_string(k);
			if (!json_is_object(set) || !ok_del) {
				*why = "result has malformed store writes";
				goto bad;
			}
			res->store_writes = json_pack("{s:O, s:O}", "set", set, "delete", del);
		}
		json_t *test = json_object_get(root, "test");
		if (test) {
			res->test = parse_test(test, why);
			if (!res->test)
				goto bad;
		}
		return root;
	}
	json_t *e = json_object_get(root, "error");
	if (!json_is_object(e)) {
		*why = "failed result has no error object";
		goto bad;
	}
	res->error = parse_error(e, why);
	if (!res->error)
		goto bad;
	return root;
bad:
	/* What was already taken from a frame that fails later is not the
	 * caller's to free: it would leak with every such frame. */
	json_decref(res->store_writes);
	json_decref(res->test);
	json_decref(res->error);
	res->store_writes = res->test = res->error = NULL;
	res->value = NULL;
	json_decref(root);
	return NULL;
}
