#!/bin/sh
# Installs the Debian packages sandboxd needs to build, test and run.
# A no-op when they are all there; as non-root it only says what is missing.
# `deps.sh fuzz` adds clang and its libFuzzer runtime, which only the fuzz
# targets need (`make check` replays their corpora with gcc).
set -eu

PKGS="gcc make pkg-config libc6-dev libseccomp-dev libjansson-dev libcap-dev duktape-dev nettle-dev node-acorn check socat systemd"
if [ "${1:-}" = fuzz ]; then
	PKGS="$PKGS clang-14 libclang-rt-14-dev"
fi

missing=""
# Node.js and npm run the MCP interop suite (tests/mcp). Any install that
# provides both commands will do (nodesource's nodejs includes npm), so
# Debian's packages are asked for only when a command is missing.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "sandboxd needs these Debian packages:$missing" >&2
	echo "install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
