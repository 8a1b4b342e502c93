/*
 * mcp_config.c - the bridge's --config file (see mcp_config.h).
 *
 * Fields the bridge does not know are tolerated where hosts keep their own:
 * at the top level, and in each mcpServers entry (Claude Desktop, Claude
 * Code, Cursor and VS Code add "type", "disabled", "timeout",
 * "autoApprove" and others there). The "sandboxd" section is ours alone,
 * and an unknown field in it is an error, so a typo does not silently
 * open a tool that was meant to be denied.
 */
#include "mcp_config.h"

#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/limits.h"

static void fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *env_lookup(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static bool var_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Appends n bytes to the growing string *s of length *len. */
static int append(char **s, size_t *len, const char *p, size_t n)
{
	char *t = realloc(*s, *len + n + 1);
	if (!t)
		return -1;
	memcpy(t + *len, p, n);
	*len += n;
	t[*len] = '\0';
	*s = t;
	return 0;
}

char *mcfg_expand(const char *s, const char *field, mcfg_lookup_fn *lookup, void *ctx, char *err,
		  size_t errlen)
{
	if (!lookup)
		lookup = env_lookup;
	char *out = NULL;
	size_t len = 0;
	if (append(&out, &len, "", 0) < 0)
		goto oom;
	for (const char *p = s; *p;) {
		if (p[0] != '$' || p[1] != '{') {
			const char *q = strstr(p + 1, "${");
			size_t n = q ? (size_t)(q - p) : strlen(p);
			if (append(&out, &len, p, n) < 0)
				goto oom;
			p += n;
			continue;
		}
		const char *name = p + 2, *q = name;
		while (var_char(*q))
			q++;
		size_t nlen = (size_t)(q - name);
		if (nlen == 0 || (*q != '}' && !(q[0] == ':' && q[1] == '-'))) {
			fail(err, errlen,
			     "%s: malformed variable reference at \"%.20s\" (expected ${NAME} or "
			     "${NAME:-default})",
			     field, p);
			goto fail;
		}
		const char *def = NULL, *end = q;
		if (*q == ':') {
			def = q + 2;
			end = strchr(def, '}');
			if (!end) {
				fail(err, errlen, "%s: unterminated ${%.*s:- (no closing })", field,
				     (int)nlen, name);
				goto fail;
			}
		}
		char *var = strndup(name, nlen);
		if (!var)
			goto oom;
		const char *val = lookup(var, ctx);
		if (def && (!val || !*val)) {
			if (append(&out, &len, def, (size_t)(end - def)) < 0) {
				free(var);
				goto oom;
			}
		} else if (!val) {
			fail(err, errlen,
			     "%s: environment variable %s is not set (give a default with "
			     "${%s:-default})",
			     field, var, var);
			free(var);
			goto fail;
		} else if (append(&out, &len, val, strlen(val)) < 0) {
			free(var);
			goto oom;
		}
		free(var);
		p = end + 1;
	}
	return out;
oom:
	fail(err, errlen, "%s: out of memory", field);
fail:
	free(out);
	return NULL;
}

static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void server_free(struct mcfg_server *s)
{
	free(s->name);
	free_strv(s->argv, s->argc);
	free_strv(s->env, s->envc);
	free(s->cwd);
	free_strv(s->allow, s->nallow);
	free_strv(s->deny, s->ndeny);
}

void mcfg_free(struct mcfg *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++)
		server_free(&c->servers[i]);
	free(c->servers);
	free(c);
}

struct parse {
	mcfg_lookup_fn *lookup;
	void *ctx;
	char *err;
	size_t errlen;
};

/* An expanded copy of a string member; field names it in errors. */
static char *expand_value(struct parse *ps, json_t *v, const char *field)
{
	if (!json_is_string(v)) {
		fail(ps->err, ps->errlen, "%s: expected a string", field);
		return NULL;
	}
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		fail(ps->err, ps->errlen, "%s: contains a NUL character", field);
		return NULL;
	}
	return mcfg_expand(json_string_value(v), field, ps->lookup, ps->ctx, ps->err, ps->errlen);
}

/* A string array (globs or args), each element expanded when expand. The
 * vector has room for a NULL after its *n entries. */
static int string_array(struct parse *ps, json_t *a, const char *field, bool expand, size_t reserve,
			char ***out, size_t *n)
{
	char name[512];
	if (!json_is_array(a)) {
		fail(ps->err, ps->errlen, "%s: expected an array of strings", field);
		return -1;
	}
	size_t count = json_array_size(a);
	char **v = calloc(count + reserve + 1, sizeof *v);
	if (!v) {
		fail(ps->err, ps->errlen, "%s: out of memory", field);
		return -1;
	}
	size_t i;
	json_t *e;
	json_array_foreach (a, i, e) {
		snprintf(name, sizeof name, "%s[%zu]", field, i);
		if (!expand && !json_is_string(e)) {
			fail(ps->err, ps->errlen, "%s: expected a string", name);
			goto fail;
		}
		v[reserve + i] = expand ? expand_value(ps, e, name) : strdup(json_string_value(e));
		if (!v[reserve + i]) {
			if (!expand)
				fail(ps->err, ps->errlen, "%s: out of memory", name);
			goto fail;
		}
	}
	*out = v;
	*n = count + reserve;
	return 0;
fail:
	free_strv(v, count + reserve);
	return -1;
}

static bool env_name_ok(const char *k)
{
	if (!*k || strchr(k, '='))
		return false;
	return true;
}

static int parse_server(struct parse *ps, const char *name, json_t *o, struct mcfg_server *s)
{
	char field[512];
	if (!json_is_object(o)) {
		fail(ps->err, ps->errlen, "mcpServers.%s: expected an object", name);
		return -1;
	}
	if (!(s->name = strdup(name)))
		goto oom;
	json_t *type = json_object_get(o, "type");
	if (type && !(json_is_string(type) && strcmp(json_string_value(type), "stdio") == 0)) {
		fail(ps->err, ps->errlen,
		     "mcpServers.%s.type: only \"stdio\" servers (a command the bridge starts) "
		     "are supported",
		     name);
		return -1;
	}
	json_t *cmd = json_object_get(o, "command");
	if (!cmd) {
		fail(ps->err, ps->errlen,
		     "mcpServers.%s.command: missing (only stdio servers, started by a command, "
		     "are supported)",
		     name);
		return -1;
	}
	snprintf(field, sizeof field, "mcpServers.%s.args", name);
	json_t *args = json_object_get(o, "args");
	if (args) {
		if (string_array(ps, args, field, true, 1, &s->argv, &s->argc) < 0)
			return -1;
	} else {
		if (!(s->argv = calloc(2, sizeof *s->argv)))
			goto oom;
		s->argc = 1;
	}
	snprintf(field, sizeof field, "mcpServers.%s.command", name);
	if (!(s->argv[0] = expand_value(ps, cmd, field)))
		return -1;
	if (!*s->argv[0]) {
		fail(ps->err, ps->errlen, "%s: is empty", field);
		return -1;
	}
	json_t *env = json_object_get(o, "env");
	if (env && !json_is_null(env)) {
		if (!json_is_object(env)) {
			fail(ps->err, ps->errlen,
			     "mcpServers.%s.env: expected an object of strings", name);
			return -1;
		}
		if (!(s->env = calloc(json_object_size(env) + 1, sizeof *s->env)))
			goto oom;
		const char *k;
		json_t *v;
		json_object_foreach (env, k, v) {
			snprintf(field, sizeof field, "mcpServers.%s.env.%s", name, k);
			if (!env_name_ok(k)) {
				fail(ps->err, ps->errlen,
				     "%s: not a variable name (empty, or holds \"=\")", field);
				return -1;
			}
			char *val = expand_value(ps, v, field);
			if (!val)
				return -1;
			char *kv = NULL;
			if (asprintf(&kv, "%s=%s", k, val) < 0)
				kv = NULL;
			free(val);
			if (!kv)
				goto oom;
			s->env[s->envc++] = kv;
		}
	}
	json_t *cwd = json_object_get(o, "cwd");
	if (cwd && !json_is_null(cwd)) {
		snprintf(field, sizeof field, "mcpServers.%s.cwd", name);
		if (!(s->cwd = expand_value(ps, cwd, field)))
			return -1;
	}
	return 0;
oom:
	fail(ps->err, ps->errlen, "mcpServers.%s: out of memory", name);
	return -1;
}

static int parse_filter(struct parse *ps, struct mcfg *c, json_t *section)
{
	if (!json_is_object(section)) {
		fail(ps->err, ps->errlen, "sandboxd: expected an object");
		return -1;
	}
	const char *k;
	json_t *v;
	json_object_foreach (section, k, v) {
		if (strcmp(k, "servers") != 0) {
			fail(ps->err, ps->errlen, "sandboxd.%s: unknown field (known: servers)", k);
			return -1;
		}
	}
	json_t *servers = json_object_get(section, "servers");
	if (!servers)
		return 0;
	if (!json_is_object(servers)) {
		fail(ps->err, ps->errlen, "sandboxd.servers: expected an object");
		return -1;
	}
	const char *name;
	json_t *o;
	json_object_foreach (servers, name, o) {
		char field[512];
		struct mcfg_server *s = (struct mcfg_server *)mcfg_find(c, name);
		if (!s) {
			fail(ps->err, ps->errlen,
			     "sandboxd.servers.%s: no such server in mcpServers (or it is "
			     "disabled)",
			     name);
			return -1;
		}
		if (!json_is_object(o)) {
			fail(ps->err, ps->errlen, "sandboxd.servers.%s: expected an object", name);
			return -1;
		}
		json_object_foreach (o, k, v) {
			snprintf(field, sizeof field, "sandboxd.servers.%s.%s", name, k);
			if (strcmp(k, "allow") == 0) {
				if (string_array(ps, v, field, false, 0, &s->allow, &s->nallow) < 0)
					return -1;
			} else if (strcmp(k, "deny") == 0) {
				if (string_array(ps, v, field, false, 0, &s->deny, &s->ndeny) < 0)
					return -1;
			} else {
				fail(ps->err, ps->errlen, "%s: unknown field (known: allow, deny)",
				     field);
				return -1;
			}
		}
	}
	return 0;
}

int mcfg_parse(const char *text, size_t len, mcfg_lookup_fn *lookup, void *ctx, struct mcfg **out,
	       char *err, size_t errlen)
{
	struct parse ps = {lookup, ctx, err, errlen};
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		fail(err, errlen, "line %d, column %d: %s", je.line, je.column, je.text);
		return -1;
	}
	struct mcfg *c = calloc(1, sizeof *c);
	if (!c) {
		fail(err, errlen, "out of memory");
		json_decref(root);
		return -1;
	}
	if (!json_is_object(root)) {
		fail(err, errlen, "expected an object with \"mcpServers\"");
		goto fail;
	}
	json_t *servers = json_object_get(root, "mcpServers");
	if (servers && !json_is_object(servers)) {
		fail(err, errlen, "mcpServers: expected an object");
		goto fail;
	}
	if (json_object_size(servers) > LIMIT_MCP_UPSTREAMS) {
		fail(err, errlen, "mcpServers: %zu servers, at most %u", json_object_size(servers),
		     LIMIT_MCP_UPSTREAMS);
		goto fail;
	}
	c->servers = calloc(json_object_size(servers) + 1, sizeof *c->servers);
	if (!c->servers) {
		fail(err, errlen, "out of memory");
		goto fail;
	}
	const char *name;
	json_t *o;
	json_object_foreach (servers, name, o) {
		if (!*name) {
			fail(err, errlen, "mcpServers: a server's name is empty");
			goto fail;
		}
		json_t *disabled = json_object_get(o, "disabled");
		if (json_is_object(o) && json_is_true(disabled))
			continue;
		if (parse_server(&ps, name, o, &c->servers[c->count++]) < 0)
			goto fail;
	}
	json_t *section = json_object_get(root, "sandboxd");
	if (section && parse_filter(&ps, c, section) < 0)
		goto fail;
	json_decref(root);
	*out = c;
	return 0;
fail:
	json_decref(root);
	mcfg_free(c);
	return -1;
}

int mcfg_load_file(const char *path, struct mcfg **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *text = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			if (cap >= LIMIT_MCP_CONFIG_BYTES) {
				fail(err, errlen, "%s: larger than %u bytes", path,
				     LIMIT_MCP_CONFIG_BYTES);
				goto fail;
			}
			cap = cap ? cap * 2 : 4096;
			char *t = realloc(text, cap + 1);
			if (!t) {
				fail(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				fail(err, errlen, "%s: %s", path, strerror(errno));
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	char inner[1024];
	int rc = mcfg_parse(text ? text : "", len, NULL, NULL, out, inner, sizeof inner);
	if (rc < 0)
		fail(err, errlen, "%s: %s", path, inner);
	free(text);
	return rc;
fail:
	fclose(f);
	free(text);
	return -1;
}

bool mcfg_tool_allowed(const struct mcfg_server *s, const char *tool)
{
	for (size_t i = 0; i < s->ndeny; i++)
		if (fnmatch(s->deny[i], tool, 0) == 0)
			return false;
	if (!s->nallow)
		return true;
	for (size_t i = 0; i < s->nallow; i++)
		if (fnmatch(s->allow[i], tool, 0) == 0)
			return true;
	return false;
}

const struct mcfg_server *mcfg_find(const struct mcfg *c, const char *name)
{
	for (size_t i = 0; i < c->count; i++)
		if (strcmp(c->servers[i].name, name) == 0)
			return &c->servers[i];
	return NULL;
}
