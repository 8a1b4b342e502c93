#!/bin/sh
# Runs each test binary given; fails when any suite fails or is missing.
set -u
failed=""
for t in "$@"; do
	if [ ! -x "$t" ]; then
		echo "missing test binary: $t" >&2
		failed="$failed $(basename "$t")"
		continue
	fi
	echo "== $(basename "$t")"
	if ! "$t"; then
		failed="$failed $(basename "$t")"
	fi
done
if [ -n "$failed" ]; then
	echo "FAILED:$failed" >&2
	exit 1
fi
echo "all suites passed"
