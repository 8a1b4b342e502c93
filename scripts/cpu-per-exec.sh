#!/bin/bash
# cpu-per-exec.sh - the CPU one trivial execute costs across every sandboxd
# process, measured from /proc over N executions run back to back.
#
#   scripts/cpu-per-exec.sh [-n N] [-b SANDBOXD] [-- DAEMON_OPTIONS...]
#
# Starts its own daemon (bin/sandboxd unless -b names another, its socket,
# cache and uid lock in a temporary directory), runs 200 executions to warm
# it, then N more (default 10000) of `return 1+1` on one line-mode
# connection, each sent once the previous one's final reply is in. The
# figure is the delta over those N of
#   the supervisor's utime+stime+cutime+cstime (workers are its children:
#   the forkserver clones them with CLONE_PARENT, and the supervisor reaps
#   them, which adds their times to its cutime/cstime)
#   + utime+stime of every other live child of the supervisor (the
#   forkserver, and parked workers where there are any),
# divided by N. The client's own CPU is not counted. Also printed: the
# wall time per execution and how the CPU splits between the supervisor,
# its reaped children and the rest.
set -eu

n=10000
bin=
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-b) bin=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "cpu-per-exec.sh: unknown argument $1 (see --help)" >&2; exit 100 ;;
	esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${bin:-$here/bin/sandboxd}
[ -x "$bin" ] || { echo "cpu-per-exec.sh: $bin is not built (make bin/sandboxd)" >&2; exit 111; }
command -v socat >/dev/null || { echo "cpu-per-exec.sh: needs socat" >&2; exit 111; }

dir=$(mktemp -d /tmp/sandboxd-cpu-XXXXXX)
chmod 755 "$dir"
daemon=
client=
cleanup() {
	[ -n "$client" ] && kill "$client" 2>/dev/null || true
	if [ -n "$daemon" ]; then
		kill -TERM "$daemon" 2>/dev/null || true
		wait "$daemon" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT

"$bin" --socket "$dir/s.sock" --cache-dir "$dir/scripts" --uid-lock "$dir/uids.lock" \
	--log-level warn "$@" 2>"$dir/log" &
daemon=$!
for _ in $(seq 1 200); do
	[ -S "$dir/s.sock" ] && break
	kill -0 "$daemon" 2>/dev/null || { cat "$dir/log" >&2; exit 111; }
	sleep 0.05
done
[ -S "$dir/s.sock" ] || { echo "cpu-per-exec.sh: the daemon did not start" >&2; exit 111; }

# The supervisor's own and reaped children's clock ticks; then those of
# its live children (the forkserver, parked workers).
ticks_self() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$daemon/stat"; }
ticks_children() {
	local sum=0 p t
	for p in $(cat /proc/"$daemon"/task/*/children 2>/dev/null); do
		t=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null) || continue
		sum=$((sum + t))
	done
	echo "$sum"
}
ticks_reaped() { awk '{ print $16 + $17 }' "/proc/$daemon/stat"; }

coproc CLIENT { socat - "UNIX-CONNECT:$dir/s.sock"; }
client=$CLIENT_PID
# Runs k executions, each after the last one's final reply (the frame with "ok").
run() {
	local k=$1 i line
	for ((i = 0; i < k; i++)); do
		printf '{"op":"execute","id":%d,"code":"return 1+1"}\n' "$i" >&"${CLIENT[1]}"
		while IFS= read -r line <&"${CLIENT[0]}"; do
			case "$line" in
			*'"ok":true'*'"success":true'*) break ;;
			*'"ok":'*) echo "cpu-per-exec.sh: execution $i failed: $line" >&2; exit 1 ;;
			esac
		done
	done
}
run 200
hz=$(getconf CLK_TCK)
s0=$(ticks_self); c0=$(ticks_children); r0=$(ticks_reaped)
t0=$(date +%s%N)
run "$n"
t1=$(date +%s%N)
s1=$(ticks_self); c1=$(ticks_children); r1=$(ticks_reaped)
awk -v n="$n" -v hz="$hz" -v s="$((s1 - s0))" -v c="$((c1 - c0))" -v r="$((r1 - r0))" \
	-v wall="$((t1 - t0))" 'BEGIN {
	us = 1e6 / hz / n
	printf "executions: %d, wall %.1f us each\n", n, wall / 1e3 / n
	printf "cpu per execution: %.1f us (supervisor %.1f, workers reaped %.1f, forkserver and other live children %.1f)\n",
		(s + c) * us, (s - r) * us, r * us, c * us
}'
