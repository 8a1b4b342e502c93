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
# The MCP interop suite, a script rather than a binary (tests/mcp/run.sh):
# run when SANDBOXD_MCP_INTEROP names it.
if [ -n "${SANDBOXD_MCP_INTEROP:-}" ]; then
	echo "== mcp interop"
	if ! sh "$SANDBOXD_MCP_INTEROP"; then
		failed="$failed mcp-interop"
	fi
fi
if [ -n "$failed" ]; then
	echo "FAILED:$failed" >&2
	exit 1
fi
echo "all suites passed"
