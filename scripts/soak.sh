#!/usr/bin/env bash
# soak.sh: a bounded soak of limend. It runs the load generator against a
# scratch limend for DURATION, with every ask answered by a person-like loop,
# and samples limend's memory (RSS, Go heap) and goroutines every INTERVAL
# from its loopback profiles. Flat columns mean nothing leaks.
#
#   scripts/soak.sh [DURATION] [INTERVAL]      (defaults: 5m 30s)
#
# Traffic stays on this machine: a Unix socket and 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-5m}
interval=${2:-30s}
work=$(mktemp -d)
trap 'kill "$limend" "$answerer" "$bench" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/limend" ./cmd/limend
go build -o "$work/limenctl" ./cmd/limenctl
export LIMEN_SOCKET=$work/limend.sock
debug=127.0.0.1:${SOAK_DEBUG_PORT:-6071}
"$work/limend" --socket "$LIMEN_SOCKET" --db "$work/limen.db" --http-socket "" \
	--rate 1000000 --max-pending 100000 --debug-addr "$debug" --log-level warn 2>"$work/limend.log" &
limend=$!
for _ in $(seq 50); do "$work/limenctl" status >/dev/null 2>&1 && break; sleep 0.1; done

# A person answering whatever is pending (exploration asks about 1% of
# would-be allows), approving three in four.
(
	n=0
	while kill -0 "$limend" 2>/dev/null; do
		for id in $("$work/limenctl" pending --json 2>/dev/null | grep -o '"ask_id": *"[0-9]*"' | grep -o '[0-9][0-9]*' || true); do
			n=$((n + 1))
			if ((n % 4)); then choice=--approve; else choice=--deny; fi
			"$work/limenctl" answer "$id" "$choice" >/dev/null 2>&1 || true
		done
		sleep 0.2
	done
) &
answerer=$!

"$work/limenctl" bench --seed-answers --rate "${SOAK_RATE:-1000}" -c 16 --duration "$duration" ${SOAK_ACTIONS:+--actions "$SOAK_ACTIONS"} >"$work/bench.txt" 2>&1 &
bench=$!

sample() {
	local rss heap goroutines
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$limend/status")
	goroutines=$(curl -s "http://$debug/debug/pprof/goroutine?debug=1" | sed -n '1s/.*total \([0-9]*\).*/\1/p' || true)
	heap=$(curl -s "http://$debug/debug/pprof/heap?debug=1" | sed -n 's/^# HeapInuse = \([0-9]*\).*/\1/p' || true)
	printf '%-8s %10s %12s %11s %8s\n' "$1" "$((rss / 1024)) MiB" "$((${heap:-0} / 1048576)) MiB" "$goroutines" \
		"$("$work/limenctl" status --json 2>/dev/null | grep -o '"pending": *[0-9]*' | grep -o '[0-9]*$')"
}
printf '%-8s %10s %12s %11s %8s\n' elapsed rss heap-inuse goroutines pending
start=$(date +%s)
while kill -0 "$bench" 2>/dev/null; do
	sample "$(( $(date +%s) - start ))s"
	sleep "$interval"
done
sample "end"
echo
cat "$work/bench.txt"
answered=$("$work/limenctl" history --asks --limit 1000 --json | grep -c '"state": *"ASK_STATE_ANSWERED"' || true)
echo "answered asks among the last 1000 asked: $answered"
