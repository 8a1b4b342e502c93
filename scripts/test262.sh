#!/bin/sh
# make test262: starts the daemon built here on a socket of its own, runs
# the chosen parts of the test262 checkout $TEST262 through it
# (build/tests/test262), and stops it. Operands: paths under test/
# (default: the areas of tests/test262/areas.txt). Results per run go to
# $TEST262_RESULTS (default build/test262-results.tsv).
set -eu
if [ -z "${TEST262:-}" ] || [ ! -f "$TEST262/harness/assert.js" ]; then
	echo "make test262: set TEST262 to a checkout of https://github.com/tc39/test262" \
		"(TEST262=${TEST262:-unset} has no harness/assert.js)" >&2
	exit 2
fi
results=${TEST262_RESULTS:-build/test262-results.tsv}
jobs=${TEST262_JOBS:-$(($(nproc) * 2))}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT INT TERM
bin/sandboxd --socket "$dir/sock" --cache-dir "$dir/cache" 2>"$dir/log" &
pid=$!
# Wait for the socket to answer (the daemon prepares its engine first).
n=0
until bin/sandboxctl --socket "$dir/sock" health >/dev/null 2>&1; do
	n=$((n + 1))
	if [ $n -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "make test262: the daemon did not start:" >&2
		cat "$dir/log" >&2
		exit 1
	fi
	sleep 0.1
done
commit=$(git -C "$TEST262" rev-parse --short=8 HEAD 2>/dev/null || echo "unknown")
echo "test262 $commit ($TEST262), $jobs runs at a time; results in $results"
build/tests/test262 --socket "$dir/sock" --suite "$TEST262" --areas tests/test262/areas.txt \
	--skip tests/test262/skip.txt --jobs "$jobs" --results "$results" "$@"
