/* ctl.c - validate what a worker reports; see ctl.h. */
#include "ctl.h"

#include <stdlib.h>
#include <string.h>

#include "jnum.h"
#include "limits.h"

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

/* A string member that is exactly name: a NUL inside ("script\u0000...")
 * would pass strcmp and reach the client as another string. */
static bool string_is(json_t *v, const char *name)
{
	const char *s = json_string_value(v);
	return s && json_string_length(v) == strlen(name) && strcmp(s, name) == 0;
}

/* A string member with no NUL inside, which C string checks see whole. */
static bool plain_string(json_t *v)
{
	const char *s = json_string_value(v);
	return s && strlen(s) == json_string_length(v);
}

void ctl_frame_limits(struct jsonv_limits *lim)
{
	/* The frame's object and, inside it, a value's CTL_VALUE_DEPTH
	 * levels: one more and the value is too deep, as PROTOCOL.md says. */
	lim->max_depth = CTL_VALUE_DEPTH + 1;
	lim->max_nodes = CTL_VALUE_NODES + CTL_OTHER_NODES;
	lim->max_bytes = CTL_RESULT_BYTES;
}

void ctl_msg_clear(struct ctl_msg *m)
{
	free(m->name);
	free(m->args);
	if (!m->value_borrowed)
		free(m->value);
	json_decref(m->error);
	free(m->store_writes);
	free(m->tests);
	free(m->lowered);
	memset(m, 0, sizeof *m);
	m->heap_peak = -1;
	m->cpu_ms = -1;
}

static char *copy_span(const char *text, const struct jsonv_span *s)
{
	char *p = malloc(s->len + 1);
	if (p) {
		memcpy(p, text + s->off, s->len);
		p[s->len] = '\0';
	}
	return p;
}

/* A small member (at most CTL_SMALL_NODES values) as a tree, or NULL. */
static json_t *small(const char *text, const struct jsonv_member *mb)
{
	if (!mb || mb->nodes > CTL_SMALL_NODES)
		return NULL;
	return json_loadb(text + mb->value.off, mb->value.len,
			  JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, NULL);
}

/* A copy of a string cut to at most max bytes on a character boundary. */
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

/* The error member: small, but for its data (LIMIT_ERROR_DATA_NODES more
 * values), whose numbers are read as JavaScript reads them. */
static json_t *error_member(const char *text, const struct jsonv_member *mb)
{
	if (!mb || mb->nodes > CTL_SMALL_NODES + LIMIT_ERROR_DATA_NODES)
		return NULL;
	return jnum_loadb(text + mb->value.off, mb->value.len,
			  JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, NULL);
}

static json_t *parse_error(json_t *e, const char **why)
{
	json_t *kind = json_object_get(e, "kind");
	json_t *msg = json_object_get(e, "message");
	json_t *line = json_object_get(e, "line");
	json_t *column = json_object_get(e, "column");
	json_t *stack = json_object_get(e, "stack");
	if (!plain_string(kind) || !known_kind(json_string_value(kind))) {
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
	json_t *data = json_object_get(e, "data");
	if (data && ((!json_is_object(data) && !json_is_array(data)) ||
		     jnum_dumpb(data, NULL, 0, JSON_COMPACT) > LIMIT_ERROR_DATA_BYTES)) {
		*why = "result error has malformed or oversized data";
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
	if (string_is(source, "code") || string_is(source, "tests"))
		json_object_set(out, "source", source);
	if (data)
		json_object_set(out, "data", data);
	return out;
}

static bool count_ok(json_t *v) { return json_is_integer(v) && json_integer_value(v) >= 0; }

static int dump_to_buf(const char *p, size_t n, void *data) { return buf_append(data, p, n); }

/* One entry of the report, checked and bounded, appended to out as
 * compact JSON; the summary counts it. */
static const char *test_entry(const char *text, const struct jsonv_span *sp, struct buf *out,
			      struct ctl_summary *sum)
{
	uint64_t nodes;
	const char *jwhy;
	struct jsonv_limits lim = {4, CTL_SMALL_NODES, 0};
	if (text[sp->off] != '{' ||
	    jsonv_compact(text + sp->off, sp->len, &lim, NULL, &nodes, &jwhy) < 0)
		return "test report has a bad test entry";
	json_t *r =
		json_loadb(text + sp->off, sp->len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, NULL);
	json_t *name = json_object_get(r, "name");
	json_t *passed = json_object_get(r, "passed");
	json_t *err = json_object_get(r, "error");
	json_t *ms = json_object_get(r, "duration_ms");
	json_t *skipped = json_object_get(r, "skipped");
	json_t *cut = json_object_get(r, "cut");
	if (!json_is_string(name) || !json_is_boolean(passed) || (err && !json_is_string(err)) ||
	    !count_ok(ms) || (skipped && !json_is_boolean(skipped)) ||
	    (cut && !json_is_boolean(cut))) {
		json_decref(r);
		return "test report has a bad test entry";
	}
	bool skip = json_is_true(skipped);
	bool pass = !skip && json_is_true(passed) && !err;
	json_t *o = json_object();
	json_object_set_new(o, "name", bounded_string(name, CTL_TEST_NAME_BYTES));
	json_object_set_new(o, "passed", json_boolean(pass));
	if (skip)
		json_object_set_new(o, "skipped", json_true());
	if (err)
		json_object_set_new(o, "error", bounded_string(err, CTL_MESSAGE_BYTES));
	json_object_set(o, "duration_ms", ms);
	/* The worker cut the name or the error to fit its report. */
	if (json_is_true(cut) || json_string_length(name) > CTL_TEST_NAME_BYTES ||
	    (err && json_string_length(err) > CTL_MESSAGE_BYTES))
		json_object_set_new(o, "cut", json_true());
	int rc = buf_len(out) > 1 ? buf_append(out, ",", 1) : 0;
	if (rc == 0)
		rc = jnum_dump_callback(o, dump_to_buf, out, JSON_COMPACT);
	json_decref(o);
	json_decref(r);
	if (rc < 0)
		return "out of memory";
	sum->total++;
	if (skip)
		sum->skipped++;
	else if (pass)
		sum->passed++;
	else
		sum->failed++;
	return NULL;
}

/* Test mode's report: the entries, each checked; the summary recounted
 * from them (the worker's own summary is not believed). */
static const char *parse_test(const char *text, const struct jsonv_span *t, struct ctl_msg *m)
{
	const char *s = text + t->off;
	size_t pos = 0;
	struct jsonv_span k, val, tests = {0, 0};
	bool have_tests = false;
	if (s[0] != '{')
		return "test report has no summary or tests";
	while (jsonv_next(s, t->len, &pos, &k, &val)) {
		if (jsonv_key_is(s, &k, "tests")) {
			if (have_tests || s[val.off] != '[')
				return "test report has no summary or tests";
			tests = val;
			have_tests = true;
		}
	}
	if (!have_tests)
		return "test report has no summary or tests";
	struct buf out = BUF_INIT;
	if (buf_append(&out, "[", 1) < 0)
		return "out of memory";
	pos = 0;
	const char *entries = s + tests.off;
	while (jsonv_next(entries, tests.len, &pos, &k, &val)) {
		if (m->summary.total >= CTL_TESTS_MAX) {
			buf_free(&out);
			return "test report has too many entries";
		}
		const char *why = test_entry(entries, &val, &out, &m->summary);
		if (why) {
			buf_free(&out);
			return why;
		}
	}
	if (buf_append(&out, "]", 2) < 0) { /* with the NUL */
		buf_free(&out);
		return "out of memory";
	}
	m->has_test = true;
	m->tests = out.data;
	m->tests_len = buf_len(&out) - 1;
	return NULL;
}

/* store_writes: {"set": {key: value}, "delete": [key]}, within the store's
 * limits, which the JavaScript layer promises and this re-checks. */
static const char *parse_store_writes(const char *text, const struct jsonv_member *mb,
				      struct ctl_msg *m)
{
	const char *s = text + mb->value.off;
	size_t len = mb->value.len, pos = 0, total = 0;
	struct jsonv_span k, val, set = {0, 0}, del = {0, 0};
	int have_set = 0, have_del = 0;
	if (len > CTL_STORE_WRITES_BYTES)
		return "result has store writes over the store's limits";
	if (s[0] != '{')
		return "result has malformed store writes";
	while (jsonv_next(s, len, &pos, &k, &val)) {
		if (jsonv_key_is(s, &k, "set") && s[val.off] == '{') {
			set = val;
			have_set++;
		} else if (jsonv_key_is(s, &k, "delete") && s[val.off] == '[') {
			del = val;
			have_del++;
		} else {
			return "result has malformed store writes";
		}
	}
	if (have_set != 1 || have_del != 1)
		return "result has malformed store writes";
	pos = 0;
	while (jsonv_next(s + set.off, set.len, &pos, &k, &val)) {
		if (val.len > LIMIT_STORE_VALUE_BYTES)
			return "result has a store value over the per-value limit";
		total += val.len;
	}
	if (total > LIMIT_STORE_TOTAL_BYTES)
		return "result has store writes over the store's total limit";
	pos = 0;
	while (jsonv_next(s + del.off, del.len, &pos, &k, &val))
		if (s[del.off + val.off] != '"')
			return "result has malformed store writes";
	m->store_writes = copy_span(text, &mb->value);
	m->store_writes_len = mb->value.len;
	return m->store_writes ? NULL : "out of memory";
}

/* Every member of the frame is one this type may have, and none twice. */
static const char *check_members(const struct jsonv *v, const char *text,
				 const char *const *allowed)
{
	if (v->members_overflow)
		return "a control frame has unknown fields";
	for (unsigned i = 0; i < v->n_members; i++) {
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = jsonv_key_is(text, &v->members[i].key, *a);
		if (!ok)
			return "a control frame has unknown fields";
		for (unsigned j = 0; j < i; j++)
			if (v->members[j].key.len == v->members[i].key.len &&
			    memcmp(text + v->members[j].key.off, text + v->members[i].key.off,
				   v->members[i].key.len) == 0)
				return "a control frame repeats a field";
	}
	return NULL;
}

static const char *const call_fields[] = {"type", "call_id", "name", "args", NULL};
static const char *const result_fields[] = {
	"type",	  "ok",	     "value", "error", "test", "store_writes", "heap_peak_bytes",
	"cpu_ms", "lowered", NULL};

static const char *tool_call(const struct jsonv *v, const char *text, struct ctl_msg *m)
{
	const char *why = check_members(v, text, call_fields);
	if (why)
		return why;
	const struct jsonv_member *args = jsonv_member(v, "args", NULL);
	json_t *id = small(text, jsonv_member(v, "call_id", NULL));
	json_t *name = small(text, jsonv_member(v, "name", NULL));
	if (!json_is_integer(id) || json_integer_value(id) < 1 || !json_is_string(name) ||
	    json_string_length(name) > LIMIT_TOOL_NAME ||
	    strlen(json_string_value(name)) != json_string_length(name) || !args) {
		json_decref(id);
		json_decref(name);
		return "a tool call without a call_id, name or args";
	}
	m->type = CTL_TOOL_CALL;
	m->call_id = json_integer_value(id);
	m->name = strdup(json_string_value(name));
	m->args = copy_span(text, &args->value);
	m->args_len = args->value.len;
	json_decref(id);
	json_decref(name);
	return m->name && m->args ? NULL : "out of memory";
}

static const char *result(const struct jsonv *v, const char *text, struct ctl_msg *m)
{
	const char *why = check_members(v, text, result_fields);
	if (why)
		return why;
	m->type = CTL_RESULT;
	json_t *ok = small(text, jsonv_member(v, "ok", NULL));
	if (!json_is_boolean(ok)) {
		json_decref(ok);
		return "result has no ok flag";
	}
	m->ok = json_is_true(ok);
	json_decref(ok);
	json_t *peak = small(text, jsonv_member(v, "heap_peak_bytes", NULL));
	m->heap_peak = json_is_integer(peak) && json_integer_value(peak) >= 0
			       ? json_integer_value(peak)
			       : -1;
	json_decref(peak);
	/* The worker's own CPU time: a diagnostic, but bounded all the same. */
	const struct jsonv_member *cpu_member = jsonv_member(v, "cpu_ms", NULL);
	if (cpu_member) {
		json_t *cpu = small(text, cpu_member);
		bool good = json_is_integer(cpu) && json_integer_value(cpu) >= 0 &&
			    json_integer_value(cpu) <= (json_int_t)LIMIT_RESULT_CPU_MS_MAX;
		m->cpu_ms = good ? json_integer_value(cpu) : -1;
		json_decref(cpu);
		if (!good)
			return "result has a malformed or out of range cpu_ms";
	}
	/* The lowered text: a string, kept as the text it is (the supervisor
	 * hands it on and never reads it), of bounded size. */
	const struct jsonv_member *lowered = jsonv_member(v, "lowered", NULL);
	if (lowered) {
		if (text[lowered->value.off] != '"')
			return "result has lowered code that is not a string";
		if (lowered->value.len > CTL_LOWERED_BYTES)
			return "result has lowered code over its limit";
		if (!(m->lowered = copy_span(text, &lowered->value)))
			return "out of memory";
		m->lowered_len = lowered->value.len;
	}
	if (!m->ok) {
		json_t *e = error_member(text, jsonv_member(v, "error", NULL));
		if (!json_is_object(e)) {
			json_decref(e);
			return "failed result has no error object";
		}
		m->error = parse_error(e, &why);
		json_decref(e);
		return m->error ? NULL : why;
	}
	const struct jsonv_member *value = jsonv_member(v, "value", NULL);
	if (value) {
		if (value->nodes > CTL_VALUE_NODES)
			return "result value has too many JSON values";
		/* The frame's bound leaves room for the other members: the
		 * value's own is what the worker promised to keep to. */
		if (value->value.len > CTL_VALUE_BYTES)
			return "result value is over its size limit";
		m->value_len = value->value.len;
		if (m->value_borrowed) {
			m->value = (char *)text + value->value.off;
			m->value_member.off = value->key.off - 1;
			m->value_member.len =
				value->value.off + value->value.len - (value->key.off - 1);
		} else if (!(m->value = copy_span(text, &value->value))) {
			return "out of memory";
		}
	}
	const struct jsonv_member *writes = jsonv_member(v, "store_writes", NULL);
	if (writes && (why = parse_store_writes(text, writes, m)) != NULL)
		return why;
	const struct jsonv_member *test = jsonv_member(v, "test", NULL);
	if (test && (why = parse_test(text, &test->value, m)) != NULL)
		return why;
	return NULL;
}

int ctl_parse_compact(const struct jsonv *v, const char *text, size_t len, unsigned flags,
		      struct ctl_msg *m, const char **why)
{
	memset(m, 0, sizeof *m);
	m->heap_peak = -1;
	m->cpu_ms = -1;
	m->value_borrowed = flags & CTL_BORROW_VALUE;
	*why = NULL;
	if (len == 0 || text[0] != '{') {
		*why = "a control frame is not a JSON object";
		return -1;
	}
	json_t *type = small(text, jsonv_member(v, "type", NULL));
	if (string_is(type, "tool_call"))
		*why = tool_call(v, text, m);
	else if (string_is(type, "result"))
		*why = result(v, text, m);
	else
		*why = "a control frame has an unexpected type";
	json_decref(type);
	if (*why) {
		ctl_msg_clear(m);
		return -1;
	}
	return 0;
}

int ctl_parse(const char *payload, size_t len, struct ctl_msg *m, const char **why)
{
	memset(m, 0, sizeof *m);
	m->heap_peak = -1;
	m->cpu_ms = -1;
	struct jsonv_limits lim;
	ctl_frame_limits(&lim);
	struct jsonv *v = malloc(sizeof *v);
	struct buf text = BUF_INIT;
	if (!v) {
		*why = "out of memory";
		return -1;
	}
	jsonv_init(v, &lim, &text);
	int rc = -1;
	if (jsonv_feed(v, payload, len) < 0 || jsonv_finish(v) < 0)
		*why = v->why;
	else
		rc = ctl_parse_compact(v, buf_peek(&text), buf_len(&text), 0, m, why);
	buf_free(&text);
	free(v);
	return rc;
}
