#!/bin/sh
# Runs the MCP interop suite: bin/sandboxd-mcp against the real daemon through
# the official TypeScript SDK and the MCP Inspector CLI (tests/mcp/*.test.mjs).
# Installs the pinned packages with `npm ci` first when node_modules is
# missing or older than package-lock.json. Fails, saying why, when node or npm
# is missing. Arguments, if any, are the test files to run (default: all).
set -u
cd "$(dirname "$0")"
start=$(date +%s)

fail() {
	echo "mcp interop: FAILED: $*" >&2
	exit 1
}

command -v node >/dev/null 2>&1 ||
	fail "node is not installed: the interop suite runs on Node.js (make deps installs Debian's nodejs)"
command -v npm >/dev/null 2>&1 ||
	fail "npm is not installed: the interop suite installs its packages with npm ci (make deps installs Debian's npm)"
command -v socat >/dev/null 2>&1 ||
	fail "socat is not installed: the suite receives the daemon's READY=1 with it (make deps installs it)"
root=$(cd ../.. && pwd)
bridge=${SANDBOXD_MCP_BIN:-$root/bin/sandboxd-mcp}
daemon=${SANDBOXD_BIN:-$root/bin/sandboxd}
[ -x "$daemon" ] || fail "$daemon is missing (make bin/sandboxd)"
[ -x "$bridge" ] || fail "$bridge is missing (make bin/sandboxd-mcp)"

echo "node $(node --version), npm $(npm --version)"
# npm ci writes node_modules/.package-lock.json: older than the lockfile
# means the lockfile changed since.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "npm ci (tests/mcp/package-lock.json)"
	npm ci --no-audit --no-fund --loglevel=error || fail "npm ci failed (see above)"
fi

if [ $# -eq 0 ]; then
	set -- wire.test.mjs sdk.test.mjs codemode.test.mjs inspector.test.mjs
fi
SANDBOXD_BIN=$daemon SANDBOXD_MCP_BIN=$bridge node --test \
	--test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter=./summary.mjs --test-reporter-destination=stdout \
	"$@"
rc=$?
echo "mcp interop: $(($(date +%s) - start)) s"
exit $rc
