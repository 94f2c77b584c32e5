#!/usr/bin/env bash
# What the collector's clock costs (issue 17), as ratios to baselines measured in the same run.
#   bench/collect/clock.sh [BUILDDIR] [ROUNDTRIPS]
# 1. one timestamp: the TSC scaled as kubus_now () does / clock_gettime(CLOCK_MONOTONIC)
# 2. the 0-byte ping-pong of run.sh traced with the TSC (default) and with
#    KUBUS_CLOCK=monotonic, against the same program untraced: overhead per MPI call
#    (4 calls per round trip), best of 3 alternating runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
n=${2:-1000000}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
pp=$build/bench/collect/collect-bench-pingpong
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/bench/collect/collect-bench-clockread"
best() { sort -g | head -1; }
field() { awk -v k="$1" '$1 == k {print $2}'; }
plain=() tsc=() mono=()
for i in 1 2 3; do
  plain+=("$(mpirun -n 2 "$pp" "$n" | field pingpong_ns_per_roundtrip)")
  tsc+=("$("$run" -o "$tmp/t$i" --buffer 512M -- mpirun -n 2 "$pp" "$n" | field pingpong_ns_per_roundtrip)")
  mono+=("$(KUBUS_CLOCK=monotonic "$run" -o "$tmp/m$i" --buffer 512M -- mpirun -n 2 "$pp" "$n" \
            | field pingpong_ns_per_roundtrip)")
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clock']; assert c['source']==sys.argv[2], c" \
    "$tmp/m$i/kubus.json" CLOCK_MONOTONIC
  rm -rf "$tmp/t$i" "$tmp/m$i"
done
p=$(printf '%s\n' "${plain[@]}" | best)
t=$(printf '%s\n' "${tsc[@]}" | best)
m=$(printf '%s\n' "${mono[@]}" | best)
awk -v n="$n" -v p="$p" -v t="$t" -v m="$m" 'BEGIN {
  printf "ping-pong, %d round trips, best of 3: plain %.0f ns, traced TSC %.0f ns (ratio %.3f), traced CLOCK_MONOTONIC %.0f ns (ratio %.3f)\n", n, p, t, t / p, m, m / p
  printf "overhead per MPI call: TSC %.1f ns, CLOCK_MONOTONIC %.1f ns (ratio %.2f)\n", (t - p) / 4, (m - p) / 4, (m - p) / (t - p)
}'
