/*
 * replay.c - runs a fuzz target's entry point on saved inputs, built with
 * the normal compiler (no libFuzzer needed): `make check` replays every
 * seed and crash input this way.
 *
 * Arguments are files or directories (their regular files, not recursed);
 * with none, the target's own corpora under $SANDBOXD_FUZZ_DIR (FUZZ_NAME
 * is the target's name, given when building). An input that crashes
 * aborts the run; a sanitizer report (SANITIZE builds) stops it too.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME names the target"
#endif

/* Under SANITIZE, an undefined-behaviour report is a failure, not a note. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0;
	unsigned char *data = malloc(cap);
	size_t n;
	while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			unsigned char *d = realloc(data, cap *= 2);
			if (!d)
				free(data);
			data = d;
		}
	}
	fclose(f);
	if (!data) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

/* Replays path (a file, or each file of a directory); counts into *count.
 * A directory that does not exist counts as empty when optional. */
static int replay(const char *path, unsigned *count, int optional)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		if (optional)
			return 0;
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	struct dirent **list;
	int n = scandir(path, &list, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char file[4096];
		snprintf(file, sizeof file, "%s/%s", path, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			(*count)++;
			if (replay_file(file) < 0)
				rc = -1;
		}
		free(list[i]);
	}
	free(list);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (replay(argv[i], &count, 0) < 0)
				rc = 1;
	} else {
		const char *dir = getenv("SANDBOXD_FUZZ_DIR");
		char path[4096];
		if (!dir)
			dir = "tests/fuzz";
		snprintf(path, sizeof path, "%s/corpus/%s", dir, FUZZ_NAME);
		if (replay(path, &count, 0) < 0)
			rc = 1;
		snprintf(path, sizeof path, "%s/crashes/%s", dir, FUZZ_NAME);
		if (replay(path, &count, 1) < 0)
			rc = 1;
		if (count == 0) {
			fprintf(stderr, "fuzz_%s: no inputs under %s\n", FUZZ_NAME, dir);
			rc = 1;
		}
	}
	printf("fuzz_%s: %u inputs replayed%s\n", FUZZ_NAME, count, rc ? ", some unreadable" : "");
	return rc;
}
