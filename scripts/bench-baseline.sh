#!/bin/sh
# Builds another revision of this repository beside the working tree, for
# `make bench BASELINE=REV`: its files (git archive, no checkout) in
# build/baseline/COMMIT/, built there by its own Makefile. Prints that
# directory on stdout; the build's output goes to build/baseline/COMMIT.log.
# A revision built before is only brought up to date.
# Exit status: 100 for a REV that is not a commit here, 111 when it does
# not build.
set -eu

rev=${1:?usage: bench-baseline.sh REV}
if ! commit=$(git rev-parse --verify --quiet "$rev^{commit}"); then
	echo "bench: $rev is not a commit of this repository" >&2
	exit 100
fi
dir=build/baseline/$commit
if [ ! -f "$dir/Makefile" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	git archive "$commit" | tar -x -C "$dir.tmp"
	mv "$dir.tmp" "$dir"
fi
echo "bench: building $rev ($commit) in $dir" >&2
if ! ${MAKE:-make} --no-print-directory -j"$(getconf _NPROCESSORS_ONLN)" -C "$dir" bin/sandboxd bin/sandboxd-mcp >"$dir.log" 2>&1; then
	tail -n 20 "$dir.log" >&2
	echo "bench: $rev did not build (the whole log: $dir.log)" >&2
	exit 111
fi
echo "$dir"
