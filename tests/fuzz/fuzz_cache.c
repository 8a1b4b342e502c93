/*
 * fuzz_cache.c - cached-name lookup (server/cache.c cache_lookup).
 *
 * The index is filled the way the daemon fills it at start-up: script files
 * in two owners' directories of a fresh cache directory, loaded by
 * cache_init (the files are removed right after; the index keeps its
 * copies in memory and lookups touch no disk). The input, cut at its first
 * NUL as a C string is, is the query, looked up in each owner's scope and
 * in an admin's (all). A hit is the exact name, else the only name
 * starting with the query, else the only one containing it
 * (case-insensitive), and never another owner's script; an ambiguous query
 * lists its matches. "OWNER/QUERY" looks in that owner's scripts only
 * (none, in another owner's scope), and a name both owners hold is
 * ambiguous for an admin rather than either one.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../server/cache.h"
#include "../../server/log.h"
#include "../../server/loop.h"
#include "fuzz.h"

/* Names as the daemon writes them, sharing prefixes and substrings, and
 * odder ones a directory may hold. */
static const char *const names[] = {
	"script-2026-01-02T03-04-05-0123456789ab.js",
	"script-2026-01-02T03-04-05-0123456789ac.js",
	"script-2026-01-02T03-04-06-fedcba987654.js",
	"script-2026-02-01T00-00-00-aaaaaaaaaaaa.js",
	"script-2025-12-31T23-59-59-000000000000.js",
	"script-A.js",
	"script-a.js.js",
	"script-\xc3\xa4\xc3\xb6.js",
	"script-%s%n.js",
	"script-XYZ-2026.js",
	"script-2026-03-03T03-03-03-5a5a5a5a5a5a.js", /* both owners hold this one */
	"script-2026-03-03T03-03-03-5a5a5a5a5a5a.js",
};
#define N_NAMES (sizeof names / sizeof names[0])

/* The owner of names[i]: every other one is the second owner's. */
static const char *const owners[] = {"uid-0", "uid-1000"};
static const char *owner_of(size_t i) { return owners[i % 2]; }

static void fill_index(void)
{
	char dir[] = "/tmp/sandboxd-fuzz-cache-XXXXXX";
	char path[512];
	if (!mkdtemp(dir))
		abort();
	for (size_t o = 0; o < 2; o++) {
		snprintf(path, sizeof path, "%s/%s", dir, owners[o]);
		if (mkdir(path, 0700) < 0)
			abort();
	}
	for (size_t i = 0; i < N_NAMES; i++) {
		snprintf(path, sizeof path, "%s/%s/%s", dir, owner_of(i), names[i]);
		FILE *f = fopen(path, "w");
		if (!f)
			abort();
		fprintf(f, "// script %zu of %s\nreturn %zu;\n", i, owner_of(i), i);
		fclose(f);
	}
	log_init(LOG_LEVEL_ERR);
	if (loop_init() < 0)
		abort();
	struct cache_settings s = {dir, 100, 1u << 20};
	cache_init(&s);
	for (size_t i = 0; i < N_NAMES; i++) {
		snprintf(path, sizeof path, "%s/%s/%s", dir, owner_of(i), names[i]);
		unlink(path);
	}
	for (size_t o = 0; o < 2; o++) {
		snprintf(path, sizeof path, "%s/%s", dir, owners[o]);
		rmdir(path);
	}
	rmdir(dir);
}

static bool icontains(const char *hay, const char *needle)
{
	for (size_t n = strlen(needle); *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return !*needle;
}

/* One lookup of query in scope (NULL: every owner's). */
static void lookup(const char *scope, const char *query)
{
	const char *code = NULL, *name = NULL;
	size_t len = 0;
	char *matches = NULL;
	enum cache_lookup_result r = cache_lookup(scope, query, &code, &len, &name, &matches);
	/* OWNER/REST: REST among that owner's, when scope allows it. */
	const char *want = scope, *rest = query, *slash = strchr(query, '/');
	bool none = false;
	if (slash) {
		size_t n = (size_t)(slash - query);
		want = NULL;
		for (size_t o = 0; o < 2; o++)
			if (strlen(owners[o]) == n && strncmp(owners[o], query, n) == 0)
				want = owners[o];
		none = !want || (scope && strcmp(scope, want) != 0);
		rest = slash + 1;
	}
	unsigned exact = 0;
	for (size_t i = 0; i < N_NAMES; i++)
		exact += (!want || strcmp(owner_of(i), want) == 0) && strcmp(names[i], rest) == 0;
	char mark[64];
	snprintf(mark, sizeof mark, " of %s\n", want ? want : "");
	switch (r) {
	case CACHE_FOUND:
		if (none || exact > 1 || !code || !name || strlen(code) != len ||
		    !icontains(name, rest) || (exact && strcmp(name, rest) != 0) ||
		    (want && !strstr(code, mark)))
			abort();
		break;
	case CACHE_AMBIGUOUS:
		if (none || exact == 1 || !matches || !strchr(matches, ','))
			abort();
		free(matches);
		break;
	case CACHE_NOT_FOUND:
		if (!none && exact)
			abort();
		break;
	default: abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		fill_index();
		ready = true;
	}
	char *query = malloc(size + 1);
	if (!query)
		return 0;
	memcpy(query, data, size);
	query[size] = '\0';

	for (int sc = -1; sc < 2; sc++)
		lookup(sc < 0 ? NULL : owners[sc], query);
	free(query);
	return 0;
}
