#!/usr/bin/env bash
# timed.sh PHASE COMMAND...: runs COMMAND and prints how long the phase took (wall clock) on
# stderr, as "phase PHASE: 12.3s" (with "(failed)" when it failed). make prints one line per phase
# of make compat and make test, so a slow first run shows where its time went.
set -uo pipefail
phase=$1
shift
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
status=""
[ "$rc" -ne 0 ] && status=" (failed)"
awk -v p="$phase" -v ns="$((end - start))" -v s="$status" 'BEGIN { printf "phase %s: %.1fs%s\n", p, ns / 1e9, s }' >&2
exit "$rc"
