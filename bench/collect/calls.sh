#!/usr/bin/env bash
# Collector cost per MPI call in CPU time (bench/collect/calls.c: one rank, so no waiting and
# no other rank to be scheduled), as ratios to plain mpirun measured in the same run.
#   bench/collect/calls.sh [BUILDDIR] [N] [ROUNDS] [STENCIL_SWEEPS]
# Alternates plain, --no-trace (profile only), trace and profile (the default, 512M buffer) and
# KUBUS_PROFILE=0 (trace only, 512M) ROUNDS times (default 5) and keeps each mode's median.
# BEFORE_LIB=PATH (another libkubus-collect.so, e.g. main's) adds the modes once more with that
# library (through KUBUS_COLLECT_LIB) right after each of them, and prints after/before ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
n=${2:-2000000}
rounds=${3:-5}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
app=$build/bench/collect/collect-bench-calls
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { awk -v k="$1" '$1 == k {print $2}'; }
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
st=$build/bench/collect/collect-bench-stencil
iters=${4:-2000}
declare -A sr ip sc su ss sf
modes="plain profile both trace"
[ -n "${BEFORE_LIB:-}" ] && modes="plain profile profile@before both both@before trace trace@before"
for i in $(seq 1 "$rounds"); do
  for key in $modes; do
    mode=${key%@before}
    if [ "$key" != "$mode" ]; then export KUBUS_COLLECT_LIB=$BEFORE_LIB; else unset KUBUS_COLLECT_LIB; fi
    case $mode in
      plain) out=$(mpirun -n 1 "$app" "$n") ;;
      profile) out=$("$run" -o "$tmp/e" --force --no-trace -- mpirun -n 1 "$app" "$n") ;;
      both) out=$("$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "$app" "$n") ;;
      trace) out=$(KUBUS_PROFILE=0 "$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "$app" "$n") ;;
    esac
    sr[$key]+="$(field sendrecv_cpu_ns_per_call <<<"$out") "
    ip[$key]+="$(field iprobe_cpu_ns <<<"$out") "
    su[$key]+="$(field sendrecv_user_ns_per_call <<<"$out") "
    ss[$key]+="$(field sendrecv_sys_ns_per_call <<<"$out") "
    sf[$key]+="$(field sendrecv_faults_per_1000_calls <<<"$out") "
    # the stencil on one rank: 2 MPI_Sendrecv (with MPI_PROC_NULL) per sweep, Allreduce every 10
    case $mode in
      plain) out=$(mpirun -n 1 "$st" 512 512 "$iters") ;;
      profile) out=$("$run" -o "$tmp/e" --force --no-trace -- mpirun -n 1 "$st" 512 512 "$iters") ;;
      both) out=$("$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "$st" 512 512 "$iters") ;;
      trace) out=$(KUBUS_PROFILE=0 "$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "$st" 512 512 "$iters") ;;
    esac
    sc[$key]+="$(field stencil_cpu_seconds <<<"$out") "
  done
done
unset KUBUS_COLLECT_LIB
printf 'CPU time per MPI call, median of %d alternating rounds, %d calls of each kind\n' "$rounds" "$n"
base=$(tr ' ' '\n' <<<"${sr[plain]}" | median)
for mode in $modes; do
  m=$(tr ' ' '\n' <<<"${sr[$mode]}" | median)
  p=$(tr ' ' '\n' <<<"${ip[$mode]}" | median)
  awk -v mode="$mode" -v m="$m" -v b="$base" -v p="$p" 'BEGIN {
    printf "%-15s Send/Recv to self: %7.1f ns per call, ratio %.3f, overhead %6.1f ns   (Iprobe %.1f ns)\n", mode, m, m / b, m - b, p }'
done
# the same calls in user and system CPU apart, and minor page faults: the collector's own code is
# the user part; the system part is mostly the kernel handing out fresh memory for the trace
ubase=$(tr ' ' '\n' <<<"${su[plain]}" | median)
sysbase=$(tr ' ' '\n' <<<"${ss[plain]}" | median)
for mode in $modes; do
  u=$(tr ' ' '\n' <<<"${su[$mode]}" | median)
  s=$(tr ' ' '\n' <<<"${ss[$mode]}" | median)
  f=$(tr ' ' '\n' <<<"${sf[$mode]}" | median)
  awk -v mode="$mode" -v u="$u" -v s="$s" -v f="$f" -v ub="$ubase" -v sb="$sysbase" 'BEGIN {
    printf "%-15s Send/Recv, user %6.1f ns (overhead %6.1f), system %6.1f ns (overhead %6.1f), %.2f faults per 1000 calls\n", mode, u, u - ub, s, s - sb, f }'
done
sbase=$(tr ' ' '\n' <<<"${sc[plain]}" | median)
for mode in $modes; do
  m=$(tr ' ' '\n' <<<"${sc[$mode]}" | median)
  awk -v mode="$mode" -v m="$m" -v b="$sbase" -v it="$iters" 'BEGIN {
    printf "%-15s stencil, 1 rank, 512x512, %d sweeps: %.4f s CPU, ratio %.4f (dilation %.2f %%)\n", mode, it, m, m / b, (m / b - 1) * 100 }'
done
if [ -n "${BEFORE_LIB:-}" ]; then
  echo "after / before ($BEFORE_LIB), overhead per Send/Recv over plain, medians:"
  for mode in profile both trace; do
    a=$(tr ' ' '\n' <<<"${sr[$mode]}" | median)
    b=$(tr ' ' '\n' <<<"${sr[$mode@before]}" | median)
    awk -v mode="$mode" -v a="$a" -v b="$b" -v p="$base" 'BEGIN {
      printf "%-8s %6.1f ns / %6.1f ns = %.3f\n", mode, a - p, b - p, (a - p) / (b - p) }'
  done
fi
