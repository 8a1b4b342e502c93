/* ctl.c - validate what a worker reports; see ctl.h. */
#include "ctl.h"

#include <string.h>

/* The kinds a worker may claim; the rest (timeout, output_limit, sandbox)
 * are the supervisor's verdicts and cannot be forged from inside. */
static const char *const worker_kinds[] = {"syntax", "script", "memory", NULL};

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
	    (stack && !json_is_string(stack))) {
		*why = "result error has a mistyped line or stack";
		return NULL;
	}
	json_t *out = json_object();
	json_object_set(out, "kind", kind);
	json_object_set_new(out, "message", bounded_string(msg, CTL_MESSAGE_BYTES));
	if (line)
		json_object_set(out, "line", line);
	if (stack)
		json_object_set_new(out, "stack", bounded_string(stack, CTL_STACK_BYTES));
	return out;
}

json_t *ctl_result_parse(const char *payload, size_t len, struct ctl_result *res, const char **why)
{
	memset(res, 0, sizeof *res);
	json_t *root = json_loadb(payload, len, JSON_REJECT_DUPLICATES, NULL);
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
	if (res->ok) {
		res->value = json_object_get(root, "value");
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
	json_decref(root);
	return NULL;
}
