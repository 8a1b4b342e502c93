/*
 * check_ctl.c - the control channel between the supervisor and a worker
 * (protocol/ctl.h), both ways.
 *
 * Worker to supervisor: every message a worker may send (a tool call, a
 * result with its value, error, store writes, test report, heap peak, CPU
 * time and lowered code)
 * as ctl_parse checks it: each field's type and bound, unknown and
 * repeated fields, frames over the limit or cut short, numbers out of
 * range, invalid UTF-8, deep nesting. A worker is hostile: whatever these
 * frames claim must either be refused with a reason or come out within
 * the bounds ctl.h promises.
 *
 * Supervisor to worker: the job and a tool call's answer, encoded as the
 * supervisor encodes them (msg_stream for the job, msg_encode_raw for an
 * answer), read back as the worker reads them (its frame decoder and
 * engine_json_load), byte for byte.
 */
#include <check.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/ctl.h"
#include "../protocol/frame.h"
#include "../protocol/jstr.h"
#include "../protocol/limits.h"
#include "../protocol/msg.h"
#include "../worker/engine.h"

/* ---- helpers */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = NULL;
	ck_assert_int_ge(vasprintf(&s, f, ap), 0);
	va_end(ap);
	return s;
}

/* tmpl with its one "%s" replaced by x (malloc'd). */
static char *wrap(const char *tmpl, const char *x)
{
	const char *at = strstr(tmpl, "%s");
	ck_assert_ptr_nonnull(at);
	return fmt("%.*s%s%s", (int)(at - tmpl), tmpl, x, at + 2);
}

/* n bytes of c, NUL-terminated (malloc'd). */
static char *fill(size_t n, char c)
{
	char *s = malloc(n + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void ok_len(const char *frame, size_t len, struct ctl_msg *m)
{
	const char *why = NULL;
	int rc = ctl_parse(frame, len, m, &why);
	ck_assert_msg(rc == 0, "refused (%s): %.200s", why ? why : "?", frame);
}

static void ok(const char *frame, struct ctl_msg *m) { ok_len(frame, strlen(frame), m); }

/* frame[0..len) is refused, with a reason holding want (any when NULL). */
static void refused_len(const char *frame, size_t len, const char *want)
{
	struct ctl_msg m;
	const char *why = NULL;
	int rc = ctl_parse(frame, len, &m, &why);
	ck_assert_msg(rc == -1, "accepted: %.200s", frame);
	ck_assert_ptr_nonnull(why);
	if (want)
		ck_assert_msg(strstr(why, want), "refused as \"%s\", not \"%s\": %.200s", why, want,
			      frame);
	/* A refused message holds nothing. */
	ck_assert_ptr_null(m.value);
	ck_assert_ptr_null(m.error);
	ck_assert_ptr_null(m.name);
	ck_assert_ptr_null(m.args);
}

static void refused(const char *frame, const char *want)
{
	refused_len(frame, strlen(frame), want);
}

/* A failed result's error object with e as its members. */
static char *failed_with(const char *e)
{
	return fmt("{\"type\":\"result\",\"ok\":false,\"error\":{%s}}", e);
}

static const char *error_str(const struct ctl_msg *m, const char *key)
{
	return json_string_value(json_object_get(m->error, key));
}

/* ---- the frame as a whole */

/* Not an object, no type, a type that is not one a worker sends. */
START_TEST(frame_shape)
{
	static const char *const bad[] = {
		"[]",
		"1",
		"\"result\"",
		"null",
		"[{\"type\":\"result\",\"ok\":true}]",
		"{}",
		"{\"ok\":true}",
		"{\"type\":1,\"ok\":true}",
		"{\"type\":null,\"ok\":true}",
		"{\"type\":[\"result\"],\"ok\":true}",
		"{\"type\":\"Result\",\"ok\":true}",
		"{\"type\":\"result \",\"ok\":true}",
		/* what is checked and what run.c's framing reads must agree */
		"{\"type\":\"result\\u0000x\",\"ok\":true}",
		"{\"type\":\"tool_call\\u0000\",\"call_id\":1,\"name\":\"t\",\"args\":{}}",
		/* the supervisor's own types, sent back */
		"{\"type\":\"tool_result\",\"call_id\":1,\"value\":1}",
		"{\"type\":\"job\",\"code\":\"1\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused(bad[i], NULL);
	refused_len("", 0, NULL);
	refused("{\"type\":\"nope\",\"ok\":true}", "unexpected type");
	refused("[]", NULL);
}
END_TEST

/* Only the fields a type may have, and none twice; more members than the
 * validator records is refused too. */
START_TEST(unknown_and_repeated_fields)
{
	refused("{\"type\":\"result\",\"ok\":true,\"extra\":1}", "unknown fields");
	refused("{\"type\":\"result\",\"ok\":true,\"Value\":1}", "unknown fields");
	refused("{\"type\":\"result\",\"ok\":true,\"name\":\"t\"}", "unknown fields");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\",\"args\":{},\"ok\":true}",
		"unknown fields");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\",\"args\":{},\"value\":1}",
		"unknown fields");
	refused("{\"type\":\"result\",\"ok\":true,\"ok\":true}", "repeats a field");
	refused("{\"type\":\"result\",\"type\":\"result\",\"ok\":true}", "repeats a field");
	refused("{\"type\":\"result\",\"ok\":true,\"value\":1,\"value\":2}", "repeats a field");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"call_id\":2,\"name\":\"t\",\"args\":{}}",
		"repeats a field");
	/* A key spelled with an escape is not the field. */
	refused("{\"type\":\"result\",\"ok\":true,\"v\\u0061lue\":1}", "unknown fields");
	/* 17 members: past what the validator records. */
	struct buf b = BUF_INIT;
	buf_append(&b, "{\"type\":\"result\",\"ok\":true", 26);
	for (int i = 0; i < 15; i++) {
		char k[32];
		int n = snprintf(k, sizeof k, ",\"k%d\":1", i);
		buf_append(&b, k, (size_t)n);
	}
	buf_append(&b, "}", 1);
	refused_len(buf_peek(&b), buf_len(&b), "unknown fields");
	buf_free(&b);
}
END_TEST

/* The result's ok flag: a boolean, nothing else. */
START_TEST(result_ok_flag)
{
	static const char *const bad[] = {"1", "0", "\"true\"", "null", "[true]", "{}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":%s}", bad[i]);
		refused(f, "no ok flag");
		free(f);
	}
	refused("{\"type\":\"result\"}", "no ok flag");
	struct ctl_msg m;
	ok("{\"type\":\"result\",\"ok\":true}", &m);
	ck_assert_int_eq(m.type, CTL_RESULT);
	ck_assert(m.ok);
	ck_assert_ptr_null(m.value); /* undefined */
	ck_assert_int_eq(m.heap_peak, -1);
	ctl_msg_clear(&m);
}
END_TEST

/* The heap peak is diagnostics only: a number that is not a count is
 * not believed (-1, not reported), and does not fail the result. */
START_TEST(heap_peak_bounds)
{
	static const struct {
		const char *v;
		long long want;
	} cases[] = {
		{"0", 0},
		{"123", 123},
		{"9223372036854775807", 9223372036854775807LL},
		{"-1", -1},
		{"-9223372036854775808", -1},
		{"9223372036854775808", -1}, /* over int64 */
		{"1e400", -1},
		{"1.5", -1},
		{"1e3", -1}, /* a real, not a count */
		{"\"1\"", -1},
		{"null", -1},
		{"true", -1},
		{"[1]", -1},
		{"{\"a\":1}", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *f =
			fmt("{\"type\":\"result\",\"ok\":true,\"heap_peak_bytes\":%s}", cases[i].v);
		struct ctl_msg m;
		ok(f, &m);
		ck_assert_msg(m.heap_peak == cases[i].want, "%s gave %lld", cases[i].v,
			      (long long)m.heap_peak);
		ctl_msg_clear(&m);
		free(f);
	}
}
END_TEST

/* The worker's own CPU time (cpu_ms): a diagnostic, but a claim that is
 * not a count within LIMIT_RESULT_CPU_MS_MAX breaks the protocol; absent
 * is not reported (-1). */
START_TEST(result_cpu_ms)
{
	struct ctl_msg m;
	ok("{\"type\":\"result\",\"ok\":true}", &m);
	ck_assert_int_eq(m.cpu_ms, -1);
	ctl_msg_clear(&m);
	const long long max = LIMIT_RESULT_CPU_MS_MAX;
	const long long good[] = {0, 7, max};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":false,\"cpu_ms\":%lld,\"error\":{"
			      "\"kind\":\"timeout\",\"message\":\"m\"}}",
			      good[i]);
		ok(f, &m);
		ck_assert_int_eq(m.cpu_ms, good[i]);
		ctl_msg_clear(&m);
		free(f);
	}
	char *over = fmt("%lld", max + 1);
	const char *bad[] = {over,
			     "-1",
			     "1.5",
			     "1e3",
			     "\"1\"",
			     "null",
			     "true",
			     "[1]",
			     "{}",
			     "1e400",
			     "9223372036854775808",
			     "-9223372036854775808"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"cpu_ms\":%s}", bad[i]);
		refused(f, "cpu_ms");
		free(f);
	}
	free(over);
	refused("{\"type\":\"result\",\"ok\":true,\"cpu_ms\":1,\"cpu_ms\":2}", "repeats");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\",\"args\":{},\"cpu_ms\":1}",
		"unknown fields");
}
END_TEST

/* ---- results: the value */

/* The value stays compact text, whatever it is; absent is undefined. */
START_TEST(result_value_text)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"null", "null"},
		{"0", "0"},
		{"-0", "-0"},
		{"1e400", "1e400"},
		{"12345678901234567890123", "12345678901234567890123"},
		{"\"a\\u0000b\"", "\"a\\u0000b\""},
		{"\"\\ud83d\\ude00\"", "\"\\ud83d\\ude00\""},
		{" [ 1 , { \"a\" : [ ] } , \"x\" ] ", "[1,{\"a\":[]},\"x\"]"},
		{"{\"\":{\"\":{}}}", "{\"\":{\"\":{}}}"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"value\":%s}", cases[i].in);
		struct ctl_msg m;
		ok(f, &m);
		ck_assert_str_eq(m.value, cases[i].out);
		ck_assert_uint_eq(m.value_len, strlen(cases[i].out));
		ck_assert(!m.value_borrowed);
		ctl_msg_clear(&m);
		free(f);
	}
	/* Numbers JSON does not have. */
	static const char *const bad[] = {"01",	  "1.", ".5",  "+1",  "NaN",  "Infinity", "-",
					  "0x10", "1e", "--1", "1e+", "[1,]", "{\"a\"}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"value\":%s}", bad[i]);
		refused(f, NULL);
		free(f);
	}
}
END_TEST

/* With CTL_BORROW_VALUE the value is not copied: it points into the
 * text, and value_member is where ,"value":V lies (its first byte the one
 * before the key), so that the caller can splice it as it is. */
START_TEST(result_value_borrowed)
{
	static const char *const frames[] = {
		"{\"type\":\"result\",\"ok\":true,\"value\":[1,2]}",
		"{\"value\":[1,2],\"type\":\"result\",\"ok\":true}",
		"{ \"type\" : \"result\" , \"value\" : [ 1 , 2 ] , \"ok\" : true }",
	};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		struct jsonv_limits lim;
		ctl_frame_limits(&lim);
		struct jsonv *v = malloc(sizeof *v);
		struct buf text = BUF_INIT;
		jsonv_init(v, &lim, &text);
		ck_assert_int_eq(jsonv_feed(v, frames[i], strlen(frames[i])), 0);
		ck_assert_int_eq(jsonv_finish(v), 0);
		struct ctl_msg m;
		const char *why;
		ck_assert_int_eq(ctl_parse_compact(v, buf_peek(&text), buf_len(&text),
						   CTL_BORROW_VALUE, &m, &why),
				 0);
		const char *t = buf_peek(&text);
		ck_assert(m.value_borrowed);
		ck_assert(m.value >= t && m.value + m.value_len <= t + buf_len(&text));
		ck_assert_uint_eq(m.value_len, 5);
		ck_assert_int_eq(memcmp(m.value, "[1,2]", 5), 0);
		char member[64];
		ck_assert_uint_lt(m.value_member.len, sizeof member);
		memcpy(member, t + m.value_member.off, m.value_member.len);
		member[m.value_member.len] = '\0';
		member[0] = ',';
		ck_assert_str_eq(member, ",\"value\":[1,2]");
		/* Clearing frees nothing of the text (the caller keeps it). */
		char *copy = strndup(t, buf_len(&text));
		ctl_msg_clear(&m);
		ck_assert_int_eq(memcmp(copy, buf_peek(&text), buf_len(&text)), 0);
		free(copy);
		buf_free(&text);
		free(v);
	}
}
END_TEST

/* The value's own bounds: CTL_VALUE_BYTES of JSON, CTL_VALUE_NODES
 * values, CTL_VALUE_DEPTH levels; one more of any is refused, though the
 * frame as a whole is allowed a little more for its other members. */
START_TEST(result_value_bounds)
{
	const char *head = "{\"type\":\"result\",\"ok\":true,\"value\":\"";
	size_t hl = strlen(head);
	/* Bytes: a string whose JSON is exactly CTL_VALUE_BYTES, then one
	 * more, both inside CTL_RESULT_BYTES. */
	for (size_t extra = 0; extra <= 1; extra++) {
		size_t n = CTL_VALUE_BYTES - 2 + extra;
		char *f = malloc(hl + n + 4);
		memcpy(f, head, hl);
		memset(f + hl, 's', n);
		memcpy(f + hl + n, "\"}", 3);
		size_t len = hl + n + 2;
		ck_assert_uint_le(len, CTL_RESULT_BYTES);
		if (!extra) {
			struct ctl_msg m;
			ok_len(f, len, &m);
			ck_assert_uint_eq(m.value_len, CTL_VALUE_BYTES);
			ctl_msg_clear(&m);
		} else {
			refused_len(f, len, "value");
		}
		free(f);
	}
	/* Values: [0,0,...] of CTL_VALUE_NODES values in all, then one more. */
	for (unsigned extra = 0; extra <= 1; extra++) {
		unsigned zeros = CTL_VALUE_NODES - 1 + extra;
		struct buf b = BUF_INIT;
		buf_append(&b, "{\"type\":\"result\",\"ok\":true,\"value\":[0", 37);
		for (unsigned i = 1; i < zeros; i++)
			buf_append(&b, ",0", 2);
		buf_append(&b, "]}", 2);
		if (!extra) {
			struct ctl_msg m;
			ok_len(buf_peek(&b), buf_len(&b), &m);
			ctl_msg_clear(&m);
		} else {
			refused_len(buf_peek(&b), buf_len(&b), "too many JSON values");
		}
		buf_free(&b);
	}
	/* Depth: CTL_VALUE_DEPTH nested arrays, then one more. */
	for (unsigned extra = 0; extra <= 1; extra++) {
		unsigned d = CTL_VALUE_DEPTH + extra;
		struct buf b = BUF_INIT;
		buf_append(&b, "{\"type\":\"result\",\"ok\":true,\"value\":", 35);
		for (unsigned i = 0; i < d; i++)
			buf_append(&b, "[", 1);
		for (unsigned i = 0; i < d; i++)
			buf_append(&b, "]", 1);
		buf_append(&b, "}", 1);
		if (!extra) {
			struct ctl_msg m;
			ok_len(buf_peek(&b), buf_len(&b), &m);
			ctl_msg_clear(&m);
		} else {
			refused_len(buf_peek(&b), buf_len(&b), NULL);
		}
		buf_free(&b);
	}
}
END_TEST

/* The lowered text a result may carry for the cache of lowered code: a
 * JSON string kept as the text it is (quotes, escapes and all, never
 * parsed), at most CTL_LOWERED_BYTES; anything else breaks the protocol. */
START_TEST(result_lowered)
{
	struct ctl_msg m;
	ok("{\"type\":\"result\",\"ok\":true}", &m);
	ck_assert_ptr_null(m.lowered);
	ctl_msg_clear(&m);
	ok("{\"type\":\"result\",\"ok\":true,\"lowered\": \"var a = \\\"\\u0000\\\";\\n\\u2028\"}",
	   &m);
	ck_assert_str_eq(m.lowered, "\"var a = \\\"\\u0000\\\";\\n\\u2028\"");
	ck_assert_uint_eq(m.lowered_len, strlen(m.lowered));
	ctl_msg_clear(&m);
	/* A failed result may carry it too (a script that throws at run time
	 * was lowered all the same). */
	ok("{\"type\":\"result\",\"ok\":false,\"lowered\":\"x\",\"error\":{\"kind\":\"script\","
	   "\"message\":\"m\"}}",
	   &m);
	ck_assert_str_eq(m.lowered, "\"x\"");
	ctl_msg_clear(&m);
	static const char *const bad[] = {"1", "null", "true", "[\"x\"]", "{\"code\":\"x\"}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"lowered\":%s}", bad[i]);
		refused(f, "lowered");
		free(f);
	}
	refused("{\"type\":\"result\",\"ok\":true,\"lowered\":\"a\",\"lowered\":\"b\"}", "repeats");
	refused("{\"type\":\"result\",\"ok\":true,\"lowered\":\"\xc0\x80\"}", NULL);
	refused("{\"type\":\"result\",\"ok\":true,\"lowered\":\"\\ud800\"}", NULL);
	/* CTL_LOWERED_BYTES of JSON string (quotes counted), then one more,
	 * beside a value at its own limit: the frame holds both. */
	for (size_t extra = 0; extra <= 1; extra++) {
		char *low = fill(CTL_LOWERED_BYTES - 2 + extra, 'l');
		char *val = fill(CTL_VALUE_BYTES - 2, 'v');
		char *f =
			fmt("{\"type\":\"result\",\"ok\":true,\"value\":\"%s\",\"lowered\":\"%s\"}",
			    val, low);
		ck_assert_uint_le(strlen(f), CTL_RESULT_BYTES);
		if (!extra) {
			ok(f, &m);
			ck_assert_uint_eq(m.lowered_len, CTL_LOWERED_BYTES);
			ck_assert_uint_eq(m.value_len, CTL_VALUE_BYTES);
			ctl_msg_clear(&m);
		} else {
			refused(f, "lowered");
		}
		free(f);
		free(val);
		free(low);
	}
}
END_TEST

/* ---- results: the error */

/* The kinds a worker may claim; the supervisor's own verdicts cannot be
 * forged, nor can a kind be smuggled past the check with a NUL. */
START_TEST(error_kind)
{
	static const char *const mine[] = {"syntax", "script", "memory", "timeout"};
	for (size_t i = 0; i < 4; i++) {
		char *e = fmt("\"kind\":\"%s\",\"message\":\"m\"", mine[i]);
		char *f = failed_with(e);
		struct ctl_msg m;
		ok(f, &m);
		ck_assert(!m.ok);
		ck_assert_str_eq(error_str(&m, "kind"), mine[i]);
		ck_assert_uint_eq(json_string_length(json_object_get(m.error, "kind")),
				  strlen(mine[i]));
		ctl_msg_clear(&m);
		free(f);
		free(e);
	}
	static const char *const forged[] = {
		"\"output_limit\"",
		"\"cancelled\"",
		"\"sandbox\"",
		"\"SCRIPT\"",
		"\"\"",
		"\"script \"",
		"1",
		"null",
		"[\"script\"]",
		/* the check and the client must read the same string */
		"\"script\\u0000\"",
		"\"timeout\\u0000sandbox\"",
	};
	for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
		char *e = fmt("\"kind\":%s,\"message\":\"m\"", forged[i]);
		char *f = failed_with(e);
		refused(f, "kind");
		free(f);
		free(e);
	}
	char *f = failed_with("\"message\":\"m\"");
	refused(f, "kind");
	free(f);
}
END_TEST

/* The error's other fields: their types, their bounds, and what of them
 * is kept (nothing the supervisor does not know). */
START_TEST(error_fields)
{
	static const char *const bad[] = {
		"\"kind\":\"script\"",
		"\"kind\":\"script\",\"message\":1",
		"\"kind\":\"script\",\"message\":null",
		"\"kind\":\"script\",\"message\":\"m\",\"line\":-1",
		"\"kind\":\"script\",\"message\":\"m\",\"line\":1.5",
		"\"kind\":\"script\",\"message\":\"m\",\"line\":\"3\"",
		"\"kind\":\"script\",\"message\":\"m\",\"line\":null",
		"\"kind\":\"script\",\"message\":\"m\",\"column\":0",
		"\"kind\":\"script\",\"message\":\"m\",\"column\":-5",
		"\"kind\":\"script\",\"message\":\"m\",\"stack\":[\"a\"]",
		"\"kind\":\"script\",\"message\":\"m\",\"stack\":1",
		"\"kind\":\"script\",\"message\":\"m\",\"data\":\"d\"",
		"\"kind\":\"script\",\"message\":\"m\",\"data\":1",
		"\"kind\":\"script\",\"message\":\"m\",\"data\":null",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = failed_with(bad[i]);
		refused(f, "result error");
		free(f);
	}
	/* A number jansson cannot hold fails the error as a whole. */
	char *huge = failed_with("\"kind\":\"script\",\"message\":\"m\",\"line\":1e400");
	refused(huge, NULL);
	free(huge);
	/* The error itself must be an object. */
	refused("{\"type\":\"result\",\"ok\":false}", "no error object");
	refused("{\"type\":\"result\",\"ok\":false,\"error\":\"boom\"}", "no error object");
	refused("{\"type\":\"result\",\"ok\":false,\"error\":[]}", "no error object");
	refused("{\"type\":\"result\",\"ok\":false,\"error\":null}", "no error object");

	struct ctl_msg m;
	char *f = failed_with("\"kind\":\"script\",\"message\":\"m\",\"line\":0,\"column\":1,"
			      "\"stack\":\"s\",\"source\":\"tests\",\"data\":{\"code\":\"E\"},"
			      "\"verdict\":\"sandbox\",\"exit\":9");
	ok(f, &m);
	free(f);
	ck_assert_int_eq(json_integer_value(json_object_get(m.error, "line")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(m.error, "column")), 1);
	ck_assert_str_eq(error_str(&m, "stack"), "s");
	ck_assert_str_eq(error_str(&m, "source"), "tests");
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(m.error, "data"), "code")), "E");
	/* Fields the supervisor does not know are not passed on. */
	ck_assert_ptr_null(json_object_get(m.error, "verdict"));
	ck_assert_ptr_null(json_object_get(m.error, "exit"));
	ck_assert_uint_eq(json_object_size(m.error), 7);
	ctl_msg_clear(&m);

	/* A source other than code or tests is dropped, not passed on. */
	static const char *const sources[] = {"\"worker\"", "1", "null", "\"code\\u0000x\""};
	for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
		char *e = fmt("\"kind\":\"script\",\"message\":\"m\",\"source\":%s", sources[i]);
		f = failed_with(e);
		ok(f, &m);
		ck_assert_msg(json_object_get(m.error, "source") == NULL, "source %s kept",
			      sources[i]);
		ctl_msg_clear(&m);
		free(f);
		free(e);
	}
	/* An array as data is fine; a failed result's value, store writes
	 * and report are not taken. */
	f = fmt("{\"type\":\"result\",\"ok\":false,\"value\":1,\"store_writes\":{\"set\":{},"
		"\"delete\":[]},\"error\":{\"kind\":\"memory\",\"message\":\"m\",\"data\":[1]}}");
	ok(f, &m);
	ck_assert_ptr_null(m.value);
	ck_assert_ptr_null(m.store_writes);
	ck_assert(!m.has_test);
	ck_assert(json_is_array(json_object_get(m.error, "data")));
	ctl_msg_clear(&m);
	free(f);
	/* A successful result's error is not taken either. */
	ok("{\"type\":\"result\",\"ok\":true,\"error\":{\"kind\":\"script\",\"message\":\"m\"}}",
	   &m);
	ck_assert_ptr_null(m.error);
	ctl_msg_clear(&m);
}
END_TEST

/* The message and the stack are cut to their bounds on a character
 * boundary (three-byte characters, so a cut in the middle would show). */
START_TEST(error_strings_cut)
{
	struct buf b = BUF_INIT;
	const char *head = "{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\","
			   "\"message\":\"";
	buf_append(&b, head, strlen(head));
	for (unsigned i = 0; i < CTL_MESSAGE_BYTES; i++)
		buf_append(&b, "\xe2\x82\xac", 3); /* U+20AC */
	buf_append(&b, "\",\"stack\":\"", 11);
	for (unsigned i = 0; i < CTL_STACK_BYTES; i++)
		buf_append(&b, "\xe2\x82\xac", 3);
	buf_append(&b, "\"}}", 3);
	struct ctl_msg m;
	ok_len(buf_peek(&b), buf_len(&b), &m);
	buf_free(&b);
	static const char *const keys[] = {"message", "stack"};
	const size_t max[] = {CTL_MESSAGE_BYTES, CTL_STACK_BYTES};
	for (int k = 0; k < 2; k++) {
		json_t *s = json_object_get(m.error, keys[k]);
		size_t n = json_string_length(s);
		ck_assert_uint_le(n, max[k]);
		ck_assert_uint_gt(n, max[k] - 3);
		ck_assert_uint_eq(n % 3, 0); /* whole characters */
	}
	ctl_msg_clear(&m);
}
END_TEST

/* error.data: an object or array of at most LIMIT_ERROR_DATA_BYTES of
 * JSON, and the error at most LIMIT_ERROR_DATA_NODES values more than a
 * small member's. */
START_TEST(error_data_bounds)
{
	/* {"s":"xxx..."} a byte over. */
	size_t n = LIMIT_ERROR_DATA_BYTES - strlen("{\"s\":\"\"}") + 1;
	char *x = fill(n, 'x');
	char *e = fmt("\"kind\":\"script\",\"message\":\"m\",\"data\":{\"s\":\"%s\"}", x);
	char *f = failed_with(e);
	refused(f, "data");
	free(f);
	free(e);
	/* a byte shorter: at the limit */
	x[n - 1] = '\0';
	e = fmt("\"kind\":\"script\",\"message\":\"m\",\"data\":{\"s\":\"%s\"}", x);
	f = failed_with(e);
	struct ctl_msg m;
	ok(f, &m);
	ctl_msg_clear(&m);
	free(f);
	free(e);
	free(x);
	/* Too many values: [0,0,...] past the error's node bound. */
	struct buf b = BUF_INIT;
	const char *head = "{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\","
			   "\"message\":\"m\",\"data\":[0";
	buf_append(&b, head, strlen(head));
	for (unsigned i = 0; i < CTL_SMALL_NODES + LIMIT_ERROR_DATA_NODES; i++)
		buf_append(&b, ",0", 2);
	buf_append(&b, "]}}", 3);
	refused_len(buf_peek(&b), buf_len(&b), "no error object");
	buf_free(&b);
}
END_TEST

/* ---- tool calls */

START_TEST(tool_call_fields)
{
	struct ctl_msg m;
	ok("{\"type\":\"tool_call\",\"call_id\":9223372036854775807,\"name\":\"a.b\","
	   "\"args\":[ 1, {\"k\": null} ]}",
	   &m);
	ck_assert_int_eq(m.type, CTL_TOOL_CALL);
	ck_assert_int_eq(m.call_id, INT64_MAX);
	ck_assert_str_eq(m.name, "a.b");
	ck_assert_str_eq(m.args, "[1,{\"k\":null}]");
	ck_assert_uint_eq(m.args_len, strlen(m.args));
	ctl_msg_clear(&m);
	static const char *const args[] = {"null", "1", "\"s\"", "{}", "[]", "true"};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *f = fmt("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\",\"args\":%s}",
			      args[i]);
		ok(f, &m);
		ck_assert_str_eq(m.args, args[i]);
		ctl_msg_clear(&m);
		free(f);
	}
	static const char *const ids[] = {
		"0",  "-1",   "1.0", "1e0", "\"1\"", "null", "true", "[1]", "9223372036854775808",
		"-0", "1e400"};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		char *f = fmt("{\"type\":\"tool_call\",\"call_id\":%s,\"name\":\"t\",\"args\":{}}",
			      ids[i]);
		refused(f, "call_id, name or args");
		free(f);
	}
	char *at = fill(LIMIT_TOOL_NAME, 'n');
	char *over = fill(LIMIT_TOOL_NAME + 1, 'n');
	char *f = fmt("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"%s\",\"args\":{}}", at);
	ok(f, &m);
	ck_assert_uint_eq(strlen(m.name), LIMIT_TOOL_NAME);
	ctl_msg_clear(&m);
	free(f);
	static const char *names[] = {NULL, "1", "null", "[\"t\"]", "\"a\\u0000b\""};
	char *over_q = fmt("\"%s\"", over);
	names[0] = over_q;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		f = fmt("{\"type\":\"tool_call\",\"call_id\":1,\"name\":%s,\"args\":{}}", names[i]);
		refused(f, "call_id, name or args");
		free(f);
	}
	refused("{\"type\":\"tool_call\",\"name\":\"t\",\"args\":{}}", "call_id, name or args");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"args\":{}}", "call_id, name or args");
	refused("{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\"}", "call_id, name or args");
	free(over_q);
	free(at);
	free(over);
}
END_TEST

/* ---- store writes and the test report */

START_TEST(store_writes_shape)
{
	static const char *const bad[] = {
		"[]",
		"{}",
		"{\"set\":{}}",
		"{\"delete\":[]}",
		"{\"set\":[],\"delete\":[]}",
		"{\"set\":{},\"delete\":{}}",
		"{\"set\":{},\"set\":{},\"delete\":[]}",
		"{\"set\":{},\"delete\":[],\"delete\":[]}",
		"{\"set\":{},\"delete\":[],\"clear\":true}",
		"{\"set\":{},\"delete\":[1]}",
		"{\"set\":{},\"delete\":[null]}",
		"{\"set\":{},\"delete\":[[\"k\"]]}",
		"\"set\"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"store_writes\":%s}", bad[i]);
		refused(f, "store writes");
		free(f);
	}
	/* A value of exactly LIMIT_STORE_VALUE_BYTES of JSON, then a byte
	 * more. */
	for (size_t extra = 0; extra <= 1; extra++) {
		char *x = fill(LIMIT_STORE_VALUE_BYTES - 2 + extra, 'v');
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{\"k\":"
			      "\"%s\"},\"delete\":[\"d\"]}}",
			      x);
		if (!extra) {
			struct ctl_msg m;
			ok(f, &m);
			ck_assert_uint_eq(m.store_writes_len, strlen(m.store_writes));
			ctl_msg_clear(&m);
		} else {
			refused(f, "per-value");
		}
		free(f);
		free(x);
	}
	/* Over CTL_STORE_WRITES_BYTES in all (keys and deletions count). */
	size_t n = CTL_STORE_WRITES_BYTES;
	char *x = fill(n, 'k');
	char *f = fmt("{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{},\"delete\":["
		      "\"%s\"]}}",
		      x);
	refused(f, "store");
	free(f);
	free(x);
}
END_TEST

START_TEST(test_report_shape)
{
	static const char *const bad_entries[] = {
		"1",
		"[]",
		"{\"passed\":true,\"duration_ms\":1}",
		"{\"name\":\"a\",\"duration_ms\":1}",
		"{\"name\":\"a\",\"passed\":1,\"duration_ms\":1}",
		"{\"name\":\"a\",\"passed\":true}",
		"{\"name\":\"a\",\"passed\":true,\"duration_ms\":-1}",
		"{\"name\":\"a\",\"passed\":true,\"duration_ms\":1.5}",
		"{\"name\":\"a\",\"passed\":true,\"duration_ms\":1,\"skipped\":1}",
		"{\"name\":\"a\",\"passed\":true,\"duration_ms\":1,\"cut\":\"yes\"}",
		"{\"name\":\"a\",\"passed\":false,\"duration_ms\":1,\"error\":{}}",
		"{\"name\":[[[[\"a\"]]]],\"passed\":true,\"duration_ms\":1}",
	};
	for (size_t i = 0; i < sizeof bad_entries / sizeof bad_entries[0]; i++) {
		char *f = fmt("{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":[%s]}}",
			      bad_entries[i]);
		refused(f, "test");
		free(f);
	}
	refused("{\"type\":\"result\",\"ok\":true,\"test\":[]}", "test report");
	refused("{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":{}}}", "test report");
	refused("{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":[],\"tests\":[]}}",
		"test report");
	/* CTL_TESTS_MAX entries, then one more. */
	for (unsigned extra = 0; extra <= 1; extra++) {
		struct buf b = BUF_INIT;
		const char *head = "{\"type\":\"result\",\"ok\":true,\"test\":{\"tests\":[";
		buf_append(&b, head, strlen(head));
		for (unsigned i = 0; i < CTL_TESTS_MAX + extra; i++) {
			const char *t = "{\"name\":\"t\",\"passed\":true,\"duration_ms\":0},";
			buf_append(&b, t, strlen(t) - (i + 1 == CTL_TESTS_MAX + extra));
		}
		buf_append(&b, "]}}", 3);
		if (!extra) {
			struct ctl_msg m;
			ok_len(buf_peek(&b), buf_len(&b), &m);
			ck_assert_uint_eq(m.summary.total, CTL_TESTS_MAX);
			ck_assert_uint_eq(m.summary.passed, CTL_TESTS_MAX);
			ctl_msg_clear(&m);
		} else {
			refused_len(buf_peek(&b), buf_len(&b), "too many entries");
		}
		buf_free(&b);
	}
}
END_TEST

/* ---- bytes: UTF-8, truncation, size, nesting */

/* Invalid UTF-8 anywhere in a frame (a value, a key, an error's message, a
 * tool's name) is refused; valid characters of every length pass. */
START_TEST(invalid_utf8)
{
	static const char *const bad[] = {
		"\xc0\x80",	    /* overlong NUL */
		"\xe0\x80\xaf",	    /* overlong '/' */
		"\xed\xa0\x80",	    /* a surrogate, raw */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
		"\x80",		    /* a lone continuation */
		"\xe2\x82",	    /* cut short at the quote */
		"\xff",
		"\\ud800",	  /* an unpaired high surrogate */
		"\\udc00",	  /* a lone low one */
		"\\ud800\\u0041", /* high, then not low */
		"\\ud800x",
		"\\u12",
		"\\x41",
		"\x01", /* a raw control character */
	};
	static const char *const wraps[] = {
		"{\"type\":\"result\",\"ok\":true,\"value\":\"a%sb\"}",
		"{\"type\":\"result\",\"ok\":true,\"value\":{\"a%sb\":1}}",
		"{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\",\"message\":"
		"\"a%sb\"}}",
		"{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"a%sb\",\"args\":{}}",
		"{\"type\":\"result\",\"ok\":true,\"v%salue\":1}",
	};
	for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			char *f = wrap(wraps[w], bad[i]);
			refused(f, NULL);
			free(f);
		}
	}
	static const char *const good[] = {"\xc2\xa9",	       "\xe2\x82\xac",	 "\xf0\x9f\x98\x80",
					   "\xf4\x8f\xbf\xbf", "\\ud83d\\ude00", "\\u00e9",
					   "\xe2\x80\xa8"};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char *f = wrap(wraps[0], good[i]);
		struct ctl_msg m;
		ok(f, &m);
		ctl_msg_clear(&m);
		free(f);
	}
}
END_TEST

/* Every strict prefix of a valid frame (a worker killed mid-write, or
 * lying about its length) is refused with a reason. */
START_TEST(truncated_frames)
{
	static const char *const frames[] = {
		"{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\",\"message\":"
		"\"\xe2\x82\xac \\u00e9\",\"line\":12,\"stack\":\"at x\",\"data\":{\"a\":[1.5e3,"
		"true,null]}},\"heap_peak_bytes\":77}",
		"{\"type\":\"result\",\"ok\":true,\"value\":{\"k\":[\"\\ud83d\\ude00\",-0.5]},"
		"\"store_writes\":{\"set\":{\"a\":1},\"delete\":[\"b\"]},\"test\":{\"tests\":[{"
		"\"name\":\"t\",\"passed\":true,\"duration_ms\":3}]}}",
		"{\"type\":\"tool_call\",\"call_id\":12,\"name\":\"gh.search\",\"args\":{\"q\":"
		"\"x\"}}",
	};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		size_t len = strlen(frames[i]);
		struct ctl_msg m;
		ok(frames[i], &m);
		ctl_msg_clear(&m);
		for (size_t k = 0; k < len; k++)
			refused_len(frames[i], k, NULL);
	}
	/* The framing: a header or a payload cut short is not yet a frame;
	 * once whole, it is. */
	const char *payload = frames[2];
	struct buf b = BUF_INIT;
	ck_assert_int_eq(frame_append(&b, FRAME_MODE_BINARY, payload, strlen(payload)), 0);
	for (size_t k = 0; k <= buf_len(&b); k++) {
		struct frame_decoder d;
		frame_decoder_init(&d, FRAME_MODE_BINARY, CTL_RESULT_BYTES);
		const char *p;
		size_t plen, used;
		enum frame_status st = frame_next(&d, buf_peek(&b), k, &p, &plen, &used);
		if (k < buf_len(&b)) {
			ck_assert_int_eq(st, FRAME_MORE);
		} else {
			ck_assert_int_eq(st, FRAME_OK);
			ck_assert_uint_eq(plen, strlen(payload));
			ck_assert_uint_eq(used, buf_len(&b));
		}
	}
	buf_free(&b);
}
END_TEST

/* A frame's size: a header saying more than CTL_RESULT_BYTES (or 0) is
 * refused before any payload is read; a payload over it is refused by the
 * validator. */
START_TEST(oversized_frames)
{
	static const struct {
		uint32_t len;
		enum frame_status st;
	} hdrs[] = {
		{0, FRAME_ERR_EMPTY},
		{CTL_RESULT_BYTES + 1, FRAME_ERR_TOO_BIG},
		{UINT32_MAX, FRAME_ERR_TOO_BIG},
		{CTL_RESULT_BYTES, FRAME_MORE},
	};
	for (size_t i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
		unsigned char h[4];
		frame_put_header(h, hdrs[i].len);
		struct frame_decoder d;
		frame_decoder_init(&d, FRAME_MODE_BINARY, CTL_RESULT_BYTES);
		const char *p;
		size_t plen = 0, used;
		ck_assert_int_eq(frame_next(&d, (const char *)h, 4, &p, &plen, &used), hdrs[i].st);
	}
	/* A payload of CTL_RESULT_BYTES + 1: a value and store writes (a
	 * long key deleted) each within their bounds, together over the
	 * frame's. */
	size_t vlen = CTL_VALUE_BYTES - 2;
	char *v = fill(vlen, 'v');
	const char *head = "{\"type\":\"result\",\"ok\":true,\"value\":\"";
	const char *mid = "\",\"store_writes\":{\"set\":{},\"delete\":[\"";
	const char *tail = "\"]}}";
	size_t fixed = strlen(head) + vlen + strlen(mid) + strlen(tail);
	size_t slen = CTL_RESULT_BYTES + 1 - fixed;
	ck_assert_uint_lt(slen + 64, CTL_STORE_WRITES_BYTES);
	char *sv = fill(slen, 's');
	char *f = fmt("%s%s%s%s%s", head, v, mid, sv, tail);
	ck_assert_uint_eq(strlen(f), CTL_RESULT_BYTES + 1);
	refused(f, NULL);
	/* A byte less is a frame at the limit, and accepted. */
	memmove(f + strlen(f) - strlen(tail) - 1, f + strlen(f) - strlen(tail), strlen(tail) + 1);
	struct ctl_msg m;
	ok(f, &m);
	ctl_msg_clear(&m);
	free(f);
	free(sv);
	free(v);
}
END_TEST

/* Nesting: the frame's depth bound holds in every member, not only the
 * value (a tool call's arguments, error.data, a store value). */
START_TEST(deep_nesting)
{
	unsigned d = CTL_VALUE_DEPTH + 8;
	struct buf deep = BUF_INIT;
	for (unsigned i = 0; i < d; i++)
		buf_append(&deep, "[", 1);
	for (unsigned i = 0; i < d; i++)
		buf_append(&deep, "]", 1);
	buf_append(&deep, "", 1);
	static const char *const wraps[] = {
		"{\"type\":\"tool_call\",\"call_id\":1,\"name\":\"t\",\"args\":%s}",
		"{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"script\",\"message\":"
		"\"m\",\"data\":%s}}",
		"{\"type\":\"result\",\"ok\":true,\"store_writes\":{\"set\":{\"k\":%s},\"delete\":"
		"[]}}",
		"{\"type\":\"result\",\"ok\":true,\"value\":%s}",
	};
	for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
		char *f = wrap(wraps[w], buf_peek(&deep));
		refused(f, NULL);
		free(f);
	}
	buf_free(&deep);
	/* JSONV_DEPTH_MAX and far past it: refused, never a crash. */
	size_t n = 100000;
	char *f = malloc(n + 64);
	size_t k = (size_t)sprintf(f, "{\"type\":\"result\",\"ok\":true,\"value\":");
	memset(f + k, '[', n);
	refused_len(f, k + n, "nested too deeply");
	memset(f + k, '{', n);
	refused_len(f, k + n, NULL);
	free(f);
}
END_TEST

/* The supervisor validates frames as they arrive, in any split: fed a
 * byte at a time, a frame gives what it gives in one go. */
START_TEST(split_feeding)
{
	const char *frame = "{\"type\":\"result\",\"ok\":false,\"error\":{\"kind\":\"timeout\","
			    "\"message\":\"\xe2\x82\xac\",\"line\":4},\"heap_peak_bytes\":8}";
	struct jsonv_limits lim;
	ctl_frame_limits(&lim);
	struct jsonv *v = malloc(sizeof *v);
	struct buf text = BUF_INIT;
	jsonv_init(v, &lim, &text);
	for (size_t i = 0; frame[i]; i++)
		ck_assert_int_eq(jsonv_feed(v, frame + i, 1), 0);
	ck_assert_int_eq(jsonv_finish(v), 0);
	struct ctl_msg a, b;
	const char *why;
	ck_assert_int_eq(ctl_parse_compact(v, buf_peek(&text), buf_len(&text), 0, &a, &why), 0);
	ok(frame, &b);
	ck_assert(json_equal(a.error, b.error));
	ck_assert_int_eq(a.heap_peak, 8);
	ck_assert_int_eq(b.heap_peak, 8);
	ctl_msg_clear(&a);
	ctl_msg_clear(&b);
	buf_free(&text);
	free(v);
}
END_TEST

/* ---- supervisor to worker */

/* a and b hold the same JSON (json_equal misses keys holding a NUL). */
static bool same_json(const json_t *a, const json_t *b)
{
	if (!a || !b)
		return a == b;
	size_t flags = JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY;
	char *x = json_dumps(a, flags), *y = json_dumps(b, flags);
	bool same = x && y && strcmp(x, y) == 0;
	free(x);
	free(y);
	return same;
}

/* The worker's reader: its frame decoder, then engine_json_load. */
static json_t *worker_reads(const struct buf *b, size_t max_frame)
{
	struct frame_decoder d;
	frame_decoder_init(&d, FRAME_MODE_BINARY, max_frame);
	const char *p;
	size_t plen, used;
	enum frame_status st = frame_next(&d, buf_peek(b), buf_len(b), &p, &plen, &used);
	if (st != FRAME_OK)
		return NULL;
	ck_assert_uint_eq(used, buf_len(b)); /* one frame, nothing after */
	return engine_json_load(p, plen);
}

/* A tool call's answer as the supervisor sends it: {"type", "call_id"}
 * encoded, then the value spliced in as the client's compact text (or an
 * error string). The worker reads the same value back. */
START_TEST(tool_result_as_worker_reads_it)
{
	static const char *const values[] = {
		"null",
		"0",
		"-0",
		"3.5e-7",
		"12345678901234567890",
		"\"a\\u0000b\"",
		"\"\\u2028\\u2029 \xf0\x9f\x98\x80 \\\" \\\\ \\n\"",
		"{\"k\":[1,{\"x\":\"y\"}],\"e\":{}}",
		"{\"a\\u0000b\":1}",
		"[]",
	};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		json_int_t id = (json_int_t)(i + 1) * 1000000007;
		json_t *m = json_pack("{s:s, s:I}", "type", "tool_result", "call_id", id);
		char *members = fmt(",\"value\":%s", values[i]);
		struct buf out = BUF_INIT;
		ck_assert_int_eq(
			msg_encode_raw(&out, FRAME_MODE_BINARY, m, members, strlen(members)), 0);
		json_t *got = worker_reads(&out, CTL_RESULT_BYTES);
		ck_assert_msg(got != NULL, "unreadable: %s", values[i]);
		ck_assert_str_eq(json_string_value(json_object_get(got, "type")), "tool_result");
		ck_assert_int_eq(json_integer_value(json_object_get(got, "call_id")), id);
		json_t *want = engine_json_load(values[i], strlen(values[i]));
		ck_assert_ptr_nonnull(want);
		ck_assert_msg(same_json(json_object_get(got, "value"), want), "value %s changed",
			      values[i]);
		json_decref(want);
		json_decref(got);
		buf_free(&out);
		free(members);
		/* The same value as a tree (not rendered text yet). */
		json_t *tree = engine_json_load(values[i], strlen(values[i]));
		json_object_set_new(m, "value", tree);
		ck_assert_int_eq(msg_encode(&out, FRAME_MODE_BINARY, m), 0);
		got = worker_reads(&out, CTL_RESULT_BYTES);
		ck_assert_ptr_nonnull(got);
		ck_assert(same_json(json_object_get(got, "value"), tree));
		json_decref(got);
		buf_free(&out);
		json_decref(m);
	}
	/* An error answer: the string as it was. */
	const char *err = "too many tool calls: \xe2\x82\xac \"quoted\" \\ \x01";
	json_t *m = json_pack("{s:s, s:I, s:s}", "type", "tool_result", "call_id", (json_int_t)3,
			      "error", err);
	struct buf out = BUF_INIT;
	ck_assert_int_eq(msg_encode(&out, FRAME_MODE_BINARY, m), 0);
	json_t *got = worker_reads(&out, CTL_RESULT_BYTES);
	ck_assert_str_eq(json_string_value(json_object_get(got, "error")), err);
	ck_assert_ptr_null(json_object_get(got, "value"));
	json_decref(got);
	json_decref(m);
	buf_free(&out);
}
END_TEST

/* Source text with every kind of byte a script may hold. */
#define BIT(s)                  \
	{                       \
		s, sizeof s - 1 \
	}
static void tricky_source(struct buf *b, size_t size)
{
	static const struct {
		const char *s;
		size_t len;
	} bits[] = {
		BIT("const s = \"quote\\\" backslash\\\\\";\n"),
		BIT("\t// tab, CR\r\n"),
		BIT("x = '\x01\x02\x1f\x7f';\n"),
		BIT("/* NUL: */ '\0';\n"),
		BIT("let e = '\xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8 \xe2\x80\xa9';\n"),
		BIT("</script><!-- -->\n"),
		BIT("\\u0041 \\ud800 literally\n"),
	};
	for (size_t i = 0; buf_len(b) < size; i = (i + 1) % (sizeof bits / sizeof bits[0]))
		buf_append(b, bits[i].s, bits[i].len);
}

/* s (a JSON string) holds exactly want's bytes. */
static void same_bytes(const json_t *s, const struct buf *want)
{
	ck_assert(json_is_string(s));
	ck_assert_uint_eq(json_string_length(s), buf_len(want));
	if (buf_len(want))
		ck_assert_int_eq(memcmp(json_string_value(s), buf_peek(want), buf_len(want)), 0);
}

/* The job as the supervisor streams it (msg_stream: small members
 * encoded, the code and tests escaped piece by piece, the store copied as
 * compact text), produced in chunks of any size, read back by the worker
 * byte for byte; and its length known before the first byte. */
START_TEST(job_as_worker_reads_it)
{
	static const size_t sizes[] = {0, 1, 200, 70000, 3 * LIMIT_STREAM_CHUNK_BYTES + 17};
	static const size_t chunks[] = {1, 7, 4096, LIMIT_STREAM_CHUNK_BYTES};
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		struct buf code = BUF_INIT, tests = BUF_INIT, store = BUF_INIT;
		tricky_source(&code, sizes[si]);
		tricky_source(&tests, sizes[si] / 2);
		const char *st = "{\"k\":[1,\"\\u0000\",{\"n\":-0.5}],\"\xe2\x82\xac\":null}";
		buf_append(&store, st, strlen(st));
		/* The code as one JSON string, as a worker's result gives it. */
		struct buf lowered = BUF_INIT;
		json_t *ls = json_stringn(buf_peek(&code) ? buf_peek(&code) : "", buf_len(&code));
		char *lt = json_dumps(ls, JSON_ENCODE_ANY | JSON_COMPACT);
		buf_append(&lowered, lt, strlen(lt));
		free(lt);
		json_decref(ls);
		for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
			if (sizes[si] > 100000 && chunks[ci] < 4096)
				continue; /* the byte-by-byte cases cover small jobs */
			json_t *small =
				json_pack("{s:I, s:I, s:s, s:[s]}", "memory_bytes",
					  (json_int_t)67108864, "max_cpu_ms", (json_int_t)5000,
					  "language", "typescript", "tools", "gh.search");
			struct msg_stream m;
			msg_stream_init(&m);
			msg_stream_object(&m, small);
			json_decref(small);
			msg_stream_string(&m, "code", &code, 0, buf_len(&code),
					  jstr_escaped_len(buf_peek(&code), buf_len(&code)));
			msg_stream_string(&m, "tests", &tests, 0, buf_len(&tests),
					  jstr_escaped_len(buf_peek(&tests), buf_len(&tests)));
			msg_stream_json(&m, "store", &store, 0, buf_len(&store));
			/* Text kept as a JSON string already (lowered code the
			 * supervisor holds and never parses): copied as it is. */
			msg_stream_json(&m, "lowered", &lowered, 0, buf_len(&lowered));
			ck_assert_int_eq(msg_stream_end(&m), 0);
			struct buf out = BUF_INIT;
			unsigned char hdr[4];
			frame_put_header(hdr, (uint32_t)m.total);
			buf_append(&out, hdr, 4);
			long k;
			/* At least 8 bytes a fill: room for any one escape. */
			long most = chunks[ci] < 8 ? 8 : (long)chunks[ci];
			while ((k = msg_stream_fill(&m, &out, chunks[ci])) > 0)
				ck_assert_int_le(k, most);
			ck_assert_int_eq(k, 0);
			ck_assert(msg_stream_finished(&m));
			msg_stream_free(&m);
			ck_assert_uint_eq(buf_len(&out), m.total + 4);
			json_t *job = worker_reads(&out, m.total);
			ck_assert_ptr_nonnull(job);
			same_bytes(json_object_get(job, "code"), &code);
			same_bytes(json_object_get(job, "tests"), &tests);
			same_bytes(json_object_get(job, "lowered"), &code);
			json_t *want_store = engine_json_load(st, strlen(st));
			ck_assert(same_json(json_object_get(job, "store"), want_store));
			json_decref(want_store);
			ck_assert_int_eq(json_integer_value(json_object_get(job, "memory_bytes")),
					 67108864);
			ck_assert_str_eq(
				json_string_value(json_array_get(json_object_get(job, "tools"), 0)),
				"gh.search");
			json_decref(job);
			/* The worker's decoder refuses a job over its bound. */
			if (m.total > 1)
				ck_assert_ptr_null(worker_reads(&out, m.total - 1));
			buf_free(&out);
		}
		buf_free(&code);
		buf_free(&tests);
		buf_free(&store);
		buf_free(&lowered);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("worker to supervisor");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, frame_shape);
	tcase_add_test(tc, unknown_and_repeated_fields);
	tcase_add_test(tc, result_ok_flag);
	tcase_add_test(tc, heap_peak_bounds);
	tcase_add_test(tc, result_cpu_ms);
	tcase_add_test(tc, result_value_text);
	tcase_add_test(tc, result_value_borrowed);
	tcase_add_test(tc, result_value_bounds);
	tcase_add_test(tc, result_lowered);
	tcase_add_test(tc, error_kind);
	tcase_add_test(tc, error_fields);
	tcase_add_test(tc, error_strings_cut);
	tcase_add_test(tc, error_data_bounds);
	tcase_add_test(tc, tool_call_fields);
	tcase_add_test(tc, store_writes_shape);
	tcase_add_test(tc, test_report_shape);
	tcase_add_test(tc, invalid_utf8);
	tcase_add_test(tc, truncated_frames);
	tcase_add_test(tc, oversized_frames);
	tcase_add_test(tc, deep_nesting);
	tcase_add_test(tc, split_feeding);
	suite_add_tcase(s, tc);
	tc = tcase_create("supervisor to worker");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tool_result_as_worker_reads_it);
	tcase_add_test(tc, job_as_worker_reads_it);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
