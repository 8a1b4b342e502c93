#!/bin/sh
# Runs each test binary given; fails when any suite fails or is missing.
# A check a suite could not run (as a user other than root, say) is not
# counted as passed: the suite prints a line saying "not run:" and why,
# and the summary counts those lines.
set -u
failed=""
notrun=0
out=$(mktemp "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 1
trap 'rm -f "$out" "$out.rc"' EXIT
for t in "$@"; do
	if [ ! -x "$t" ]; then
		echo "missing test binary: $t" >&2
		failed="$failed $(basename "$t")"
		continue
	fi
	echo "== $(basename "$t")"
	{
		"$t" 2>&1
		echo $? >"$out.rc"
	} | tee "$out"
	rc=$(cat "$out.rc")
	n=$(grep -ci "not run:" "$out")
	notrun=$((notrun + n))
	if [ "$rc" -ne 0 ]; then
		failed="$failed $(basename "$t")"
	fi
done
# The MCP interop suite, a script rather than a binary (tests/mcp/run.sh):
# run when SANDBOXD_MCP_INTEROP names it. Its summary has one line
# "NOT RUN  FILE: CHECK (NOT RUN: why)" for each check it could not run.
if [ -n "${SANDBOXD_MCP_INTEROP:-}" ]; then
	echo "== mcp interop"
	{
		sh "$SANDBOXD_MCP_INTEROP" 2>&1
		echo $? >"$out.rc"
	} | tee "$out"
	n=$(grep -c "^NOT RUN  " "$out")
	notrun=$((notrun + n))
	if [ "$(cat "$out.rc")" -ne 0 ]; then
		failed="$failed mcp-interop"
	fi
fi
if [ "$notrun" -gt 0 ]; then
	echo "not run: $notrun checks, not counted as passed (the lines saying \"not run:\" above say why)"
fi
if [ -n "$failed" ]; then
	echo "FAILED:$failed" >&2
	exit 1
fi
echo "all suites passed"
