#!/usr/bin/env bash
# Compressed traces (issue 15): collector overhead per MPI call with --trace-format=compressed
# against otf2 in the same run, and the merge at MPI_Finalize at 64 ranks.
#   bench/kct/run.sh [BUILDDIR] [ROUNDTRIPS] [RUNS]
# Alternates plain / otf2 / compressed runs of a one-rank loop (Irecv from itself, Send,
# Wait: 3 calls and a request per iteration; then MPI_Iprobe calls that find nothing), RUNS
# each, best kept: one rank waits for no other process, so a shared, loaded 2-core machine
# disturbs it least.  Then runs the ring test program at 64
# ranks with --trace-format=both RUNS times and reads rank 0's timing of the merge and of the
# OTF2 definitions written just before it in the same MPI_Finalize.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
n=${2:-1000000}
runs=${3:-3}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
pp=$build/bench/kct/kct-bench-selfloop
ring=$build/tests/kct/kct-ring
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { sort -g | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { awk -v k="$1" '$1 == k {print $2}'; }
plain=() otf2=() kct=() ip_plain=() ip_otf2=() ip_kct=()
for i in $(seq "$runs"); do
  out=$(mpirun -n 1 "$pp" "$n")
  plain+=("$(field selfloop_ns_per_iteration <<<"$out")")
  ip_plain+=("$(field iprobe_ns_per_call <<<"$out")")
  out=$("$run" -o "$tmp/o$i" --buffer 1G -- mpirun -n 1 "$pp" "$n")
  otf2+=("$(field selfloop_ns_per_iteration <<<"$out")")
  ip_otf2+=("$(field iprobe_ns_per_call <<<"$out")")
  out=$("$run" -o "$tmp/k$i" --trace-format compressed -- mpirun -n 1 "$pp" "$n")
  kct+=("$(field selfloop_ns_per_iteration <<<"$out")")
  ip_kct+=("$(field iprobe_ns_per_call <<<"$out")")
  [ "$i" -gt 1 ] && rm -rf "$tmp/o$i" "$tmp/k$i"
done
p=$(printf '%s\n' "${plain[@]}" | best)
o=$(printf '%s\n' "${otf2[@]}" | best)
k=$(printf '%s\n' "${kct[@]}" | best)
ip=$(printf '%s\n' "${ip_plain[@]}" | best)
io=$(printf '%s\n' "${ip_otf2[@]}" | best)
ik=$(printf '%s\n' "${ip_kct[@]}" | best)
ksize=$(stat -c %s "$tmp/k1/traces.kct")
osize=$(cat "$tmp/o1/traces.otf2" "$tmp/o1/traces.def" "$tmp"/o1/traces/* | wc -c)

merge=() defs=()
for i in $(seq "$runs"); do
  line=$(KUBUS_VERBOSE=1 "$run" -o "$tmp/r$i" --trace-format both -- mpirun -n 64 "$ring" 10 2>&1 |
         grep 'merge of 64 ranks' | tail -1)
  merge+=("$(sed -n 's/.*took \([0-9.]*\) ms.*/\1/p' <<<"$line")")
  defs+=("$(sed -n 's/.*before it: \([0-9.]*\) ms.*/\1/p' <<<"$line")")
  rm -rf "$tmp/r$i"
done
m=$(printf '%s\n' "${merge[@]}" | median)
d=$(printf '%s\n' "${defs[@]}" | median)

awk -v n="$n" -v p="$p" -v o="$o" -v k="$k" -v ip="$ip" -v io="$io" -v ik="$ik" \
    -v ks="$ksize" -v os="$osize" -v m="$m" -v d="$d" -v runs="$runs" \
    -v ms="${merge[*]}" -v ds="${defs[*]}" 'BEGIN {
  printf "one rank, %d iterations of Irecv+Send+Wait to itself (twice, the second timed), best of %d alternating runs\n", n, runs
  printf "  iteration: %.0f ns plain, %.0f ns otf2, %.0f ns compressed\n", p, o, k
  printf "  overhead per MPI call (3 per iteration): otf2 %.1f ns, compressed %.1f ns, ratio compressed/otf2 %.2f\n", (o - p) / 3, (k - p) / 3, (k - p) / (o - p)
  printf "  trace of the run: otf2 %d bytes, compressed %d bytes (ratio %.0f)\n", os, ks, os / ks
  printf "merge at MPI_Finalize, 64 ranks (ring, 10 steps, both formats), median of %d: %.2f ms; OTF2 definitions in the same finalize %.2f ms; ratio %.2f\n", runs, m, d, m / d
  printf "  runs: merge %s ms; definitions %s ms\n", ms, ds
}'
