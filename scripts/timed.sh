#!/usr/bin/env bash
# timed.sh PHASE COMMAND...: runs COMMAND and prints how long the phase took on stderr, as
# "phase PHASE: 12.3s (CPU 20.1s)" (with "(failed)" when it failed): the wall clock and the CPU
# time (user + system) of COMMAND and every process it waited for (a runner in a container is
# the Docker daemon's, not counted). CPU near 2x the wall time on two cores means the phase is
# bound by the cores. make prints one line per phase of make compat and make test, so a slow
# first run shows where its time went.
set -uo pipefail
phase=$1
shift
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
status=""
[ "$rc" -ne 0 ] && status=" (failed)"
# bash's times prints the shell's and then its children's user and system time ("1m2.5s 0m3.1s").
tf=$(mktemp)
times > "$tf"
cpu=$(tail -1 "$tf" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2] } printf "%.1f", n }')
rm -f "$tf"
awk -v p="$phase" -v ns="$((end - start))" -v s="$status" -v cpu="$cpu" 'BEGIN { printf "phase %s: %.1fs (CPU %ss)%s\n", p, ns / 1e9, cpu, s }' >&2
exit "$rc"
