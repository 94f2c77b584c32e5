#!/usr/bin/env bash
# Cost of call paths from the stack per MPI call (bench/collect/unwind.c: one rank, CPU time)
# at call depths 5, 20 and 50, against --call-paths=flat measured in the same run.
#   bench/collect/unwind.sh [BUILDDIR] [N] [ROUNDS]
# Alternates flat and unwind ROUNDS times (default 5) per depth, keeps the medians, and prints
# the added nanoseconds per MPI call and the ratio unwind / flat.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
n=${2:-500000}
rounds=${3:-5}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
app=$build/bench/collect/collect-bench-unwind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
field() { awk -v k="$1" '$1 == k {print $2}'; }
printf 'CPU time per MPI call (0-byte Send + Recv to self), median of %d alternating rounds, %d calls of each\n' "$rounds" "$n"
for depth in 5 20 50; do
  f=""; u=""
  for i in $(seq 1 "$rounds"); do
    f+="$("$run" -o "$tmp/f" --force --buffer 512M --call-paths=flat -- mpirun -n 1 "$app" "$depth" "$n" | field unwind_cpu_ns_per_call) "
    u+="$("$run" -o "$tmp/u" --force --buffer 512M --call-paths=unwind -- mpirun -n 1 "$app" "$depth" "$n" | field unwind_cpu_ns_per_call) "
  done
  mf=$(tr ' ' '\n' <<<"$f" | grep . | median)
  mu=$(tr ' ' '\n' <<<"$u" | grep . | median)
  awk -v d="$depth" -v f="$mf" -v u="$mu" 'BEGIN {
    printf "depth %2d: flat %7.1f ns, unwind %7.1f ns per call: added %6.1f ns, ratio %.3f\n", d, f, u, u - f, u / f }'
done
