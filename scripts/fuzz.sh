#!/bin/sh
# Runs fuzz targets for a time each and sums up what they did.
#   fuzz.sh SECONDS JOBS TARGET...
# Each target starts from its seed corpus (tests/fuzz/corpus/TARGET, read
# only) and keeps what it finds new in build/fuzz/work/TARGET; crashing
# inputs go to build/fuzz/artifacts/TARGET/. Once a crash is fixed, copy its
# input to tests/fuzz/crashes/TARGET/ so `make check` replays it for good.
# Fails when any target found a crash, a leak, a timeout or an OOM.
set -u
secs=$1
jobs=$2
shift 2

if [ "${FUZZ_ONE:-}" = 1 ]; then
	t=$1
	mkdir -p "build/fuzz/work/$t" "build/fuzz/artifacts/$t" build/fuzz/log
	dict=""
	[ -f "tests/fuzz/dict/$t.dict" ] && dict="-dict=tests/fuzz/dict/$t.dict"
	# A slow input (over 10 s) counts as a finding: nothing may hold the
	# daemon's loop that long.
	"build/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -artifact_prefix="build/fuzz/artifacts/$t/" \
		$dict "build/fuzz/work/$t" "tests/fuzz/corpus/$t" \
		>"build/fuzz/log/$t.log" 2>&1
	echo $? >"build/fuzz/log/$t.rc"
	exit 0
fi

echo "fuzzing $* for ${secs}s each, $jobs at a time (logs in build/fuzz/log/)"
for t in "$@"; do echo "$t"; done | FUZZ_ONE=1 xargs -P "$jobs" -I{} sh "$0" "$secs" 1 {}

failed=""
printf '%-8s %12s %9s %7s %7s %8s %6s %7s  %s\n' target execs exec/s cov ft corpus slow_s rss_mb \
	result
for t in "$@"; do
	log="build/fuzz/log/$t.log"
	rc=$(cat "build/fuzz/log/$t.rc" 2>/dev/null || echo 1)
	# The last status line: "#N DONE cov: C ft: F corp: U/S ..." (or the
	# last progress line when the run stopped on a finding).
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	execs=$(grep -o 'number_of_executed_units: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')
	rate=$(grep -o 'average_exec_per_sec: *[0-9]*' "$log" | tail -n 1 | awk '{print $2}')
	slow=$(grep -o 'slowest_unit_time_sec: *[0-9]*' "$log" | tail -n 1 | awk '{print $2}')
	rss=$(grep -o 'peak_rss_mb: *[0-9]*' "$log" | tail -n 1 | awk '{print $2}')
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	result=ok
	if [ "$rc" != 0 ]; then
		result="FOUND: $(ls "build/fuzz/artifacts/$t" | head -n 3 | tr '\n' ' ')"
		failed="$failed $t"
	fi
	printf '%-8s %12s %9s %7s %7s %8s %6s %7s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "${slow:-?}" "${rss:-?}" "$result"
done
if [ -n "$failed" ]; then
	echo "findings in:$failed (see build/fuzz/log/ and build/fuzz/artifacts/)" >&2
	exit 1
fi
