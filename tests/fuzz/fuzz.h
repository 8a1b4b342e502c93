/*
 * fuzz.h - the entry point every fuzz target defines.
 *
 * Built with clang and -fsanitize=fuzzer, libFuzzer calls it with generated
 * inputs (`make fuzz`); built with the normal compiler and replay.c, `make
 * check` calls it once per file of the target's seed and crash corpora.
 * Each call must leave nothing behind: a leak is a finding.
 */
#ifndef SANDBOXD_FUZZ_H
#define SANDBOXD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
