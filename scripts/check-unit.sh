#!/bin/sh
# check-unit.sh - checks sandboxd.service where systemd's tools exist: it
# parses (systemd-analyze verify), its exposure is at most 2.0
# (systemd-analyze security --offline), the default --uid-lock is in its
# ReadWritePaths=, and the daemon still starts and
# runs a script under the unit's SystemCallFilter=. That part does without
# systemd (which need not run where make check does): the allow list is
# rebuilt from systemd-analyze syscall-filter and applied by
# build/tests/syscall_allow, and as root the capability bounding set,
# UMask= and the /proc of ProtectProc=invisible + ProcSubset=pid are set up
# by hand. The other sandboxing settings are not reproduced.
#
# usage: check-unit.sh SERVICE SOCKET BINDIR ALLOW_HELPER [SUITE...]
# Each SUITE (an integration test binary) is run too, with the daemon it
# starts under the unit's system call list.
set -u
service=$1 socket=$2 bindir=$3 allow=$4
shift 4
max=2.0

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "check-unit: systemd-analyze is missing: the unit's exposure was NOT checked"
	exit 0
fi
tmp=$(mktemp -d /tmp/sandboxd-unit-XXXXXX) || exit 1
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
pid=
sed "s|@BINDIR@|$bindir|g; s|@DOCDIR@|/usr/share/doc/sandboxd|g" "$service" >"$tmp/sandboxd.service"
sed "s|@DOCDIR@|/usr/share/doc/sandboxd|g" "$socket" >"$tmp/sandboxd.socket"
fail=0

if ! out=$(cd "$tmp" && systemd-analyze verify --man=no ./sandboxd.service 2>&1) || [ -n "$out" ]; then
	echo "check-unit: FAIL: systemd-analyze verify: $out"
	fail=1
fi

score=$(cd "$tmp" && systemd-analyze security --offline=true ./sandboxd.service 2>&1 |
	sed -n 's/.*Overall exposure level for sandboxd.service: \([0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
	echo "check-unit: FAIL: systemd-analyze security gave no exposure level"
	fail=1
elif awk "BEGIN { exit !($score > $max) }"; then
	echo "check-unit: FAIL: exposure $score is above $max"
	fail=1
else
	echo "check-unit: exposure $score (at most $max)"
fi

# ProtectSystem=strict leaves the daemon no writable /run: the directory of
# its default --uid-lock must be among the unit's ReadWritePaths=.
lock=$("$bindir/sandboxd" --help |
	sed -n '/--uid-lock/,/(default/s/.*(default \(\/[^)]*\)).*/\1/p')
lockdir=$(dirname "${lock:-/nonexistent/x}")
if [ -z "$lock" ]; then
	echo "check-unit: FAIL: sandboxd --help names no default --uid-lock"
	fail=1
elif ! sed -n 's/^ReadWritePaths=//p' "$tmp/sandboxd.service" | tr ' ' '\n' |
	sed 's/^-//' | grep -qxF "$lockdir"; then
	echo "check-unit: FAIL: the default --uid-lock $lock is not writable under the unit" \
		"(ReadWritePaths= lacks $lockdir)"
	fail=1
else
	echo "check-unit: the default --uid-lock $lock is writable under the unit"
fi

# The allow list as systemd builds it: the first SystemCallFilter= line
# sets it, later lines add (NAME) or remove (~NAME) calls and @groups.
expand() { # a name or a @group -> its system calls, one a line
	case $1 in
	@*) systemd-analyze syscall-filter "$1" 2>/dev/null | sed 1d |
		sed 's/^[[:space:]]*//' | grep -v '^#' | grep -v '^$' |
		while read -r m; do expand "$m"; done ;;
	*) echo "$1" ;;
	esac
}
: >"$tmp/allow"
sed -n 's/^SystemCallFilter=//p' "$tmp/sandboxd.service" | while read -r line; do
	case $line in
	~*) for g in ${line#\~}; do expand "$g"; done | sort -u >"$tmp/drop"
	    grep -vxF -f "$tmp/drop" "$tmp/allow" >"$tmp/allow.new"; mv "$tmp/allow.new" "$tmp/allow" ;;
	*) { cat "$tmp/allow"; for g in $line; do expand "$g"; done; } | sort -u >"$tmp/allow.new"
	   mv "$tmp/allow.new" "$tmp/allow" ;;
	esac
done
n=$(wc -l <"$tmp/allow")
if [ "$n" -lt 100 ]; then
	echo "check-unit: FAIL: the unit's SystemCallFilter= came to only $n calls"
	exit 1
fi

# The daemon under that list, answering health and running a script. As
# root, with what else of the unit can be had without systemd: the
# capability bounding set, UMask=, and (in a mount namespace of its own) a
# /proc as ProtectProc=invisible and ProcSubset=pid mount it; workers then
# switch ids as under the unit.
run="$allow $tmp/allow $bindir/sandboxd --socket $tmp/s.sock --cache-dir $tmp/cache --max-workers 2 --uid-lock $tmp/uids.lock"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v setpriv >/dev/null; then
	how="as root, with the unit's capabilities, UMask and /proc"
	unshare --mount --fork sh -c "mount -t proc -o subset=pid,hidepid=invisible proc /proc &&
		umask 0077 && echo \$\$ >$tmp/pid &&
		exec setpriv --bounding-set -all,+setuid,+setgid,+setpcap,+kill $run" 2>"$tmp/log" &
	outer=$!
	i=0
	while [ ! -s "$tmp/pid" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
	pid=$(cat "$tmp/pid" 2>/dev/null)
else
	how="as $(id -un), with only the system call filter (the rest needs root)"
	$run 2>"$tmp/log" &
	pid=$!
	outer=$pid
fi
i=0
until "$bindir/sandboxctl" --socket "$tmp/s.sock" health >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ] || [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "check-unit: FAIL: the daemon did not start under the unit's system call filter:"
		cat "$tmp/log"
		exit 1
	fi
	sleep 0.1
done
got=$("$bindir/sandboxctl" --socket "$tmp/s.sock" exec -e 'console.log("hi"); return 6 * 7' 2>&1)
case $got in
*42*) echo "check-unit: the daemon runs a script under the unit's filter ($n calls allowed), $how" ;;
*) echo "check-unit: FAIL: a script under the unit's filter: $got"; cat "$tmp/log"; fail=1 ;;
esac
kill "$pid"
wait "$outer"
rc=$?
pid=
if [ $rc -ne 0 ]; then
	echo "check-unit: FAIL: the daemon exited with $rc on SIGTERM under the filter"
	cat "$tmp/log"
	fail=1
fi

# The integration suites given, each daemon they start under the list.
if [ $# -gt 0 ]; then
	printf '#!/bin/sh\nexec %s %s %s "$@"\n' "$allow" "$tmp/allow" "$bindir/sandboxd" >"$tmp/sandboxd"
	chmod +x "$tmp/sandboxd"
	for t in "$@"; do
		echo "check-unit: $(basename "$t") under the unit's system call filter"
		SANDBOXD_BIN=$tmp/sandboxd "$t" || fail=1
	done
fi
exit $fail
