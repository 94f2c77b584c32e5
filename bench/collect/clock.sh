#!/usr/bin/env bash
# What the collector's clock costs (issue 17), as ratios to baselines measured in the same run.
#   bench/collect/clock.sh [BUILDDIR] [CALLS]
# 1. one timestamp: the TSC scaled as kubus_now () does / clock_gettime(CLOCK_MONOTONIC)
# 2. one rank calling MPI_Iprobe N times (probeloop.c) traced with the TSC (default) and with
#    KUBUS_CLOCK=monotonic, against the same program untraced: the collector's cost per MPI
#    call (Enter + Leave, two timestamps), best of 5 alternating runs. One rank, so that no
#    partner's scheduling on the shared machine gets into it.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
n=${2:-2000000}
. "$here/scripts/env.sh"
# one rank never waits for a partner: without yielding, an idle MPI_Iprobe is a few ns of MPI
export OMPI_MCA_mpi_yield_when_idle=0
run=$build/src/collect/kubus-run
pp=$build/bench/collect/collect-bench-probeloop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/bench/collect/collect-bench-clockread"
best() { sort -g | head -1; }
field() { awk -v k="$1" '$1 == k {print $2}'; }
plain=() tsc=() mono=()
for i in 1 2 3 4 5; do
  plain+=("$(mpirun -n 1 "$pp" "$n" | field iprobe_ns_per_call)")
  tsc+=("$("$run" -o "$tmp/t$i" --buffer 512M -- mpirun -n 1 "$pp" "$n" | field iprobe_ns_per_call)")
  mono+=("$(KUBUS_CLOCK=monotonic "$run" -o "$tmp/m$i" --buffer 512M -- mpirun -n 1 "$pp" "$n" \
            | field iprobe_ns_per_call)")
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clock']; assert c['source']==sys.argv[2], c" \
    "$tmp/m$i/kubus.json" CLOCK_MONOTONIC
  rm -rf "$tmp/t$i" "$tmp/m$i"
done
p=$(printf '%s\n' "${plain[@]}" | best)
t=$(printf '%s\n' "${tsc[@]}" | best)
m=$(printf '%s\n' "${mono[@]}" | best)
awk -v n="$n" -v p="$p" -v t="$t" -v m="$m" 'BEGIN {
  printf "MPI_Iprobe, %d calls on one rank, best of 5: plain %.1f ns, traced TSC %.1f ns (ratio %.3f), traced CLOCK_MONOTONIC %.1f ns (ratio %.3f)\n", n, p, t, t / p, m, m / p
  printf "collector cost per MPI call: TSC %.1f ns, CLOCK_MONOTONIC %.1f ns (ratio %.2f)\n", t - p, m - p, (m - p) / (t - p)
}'
