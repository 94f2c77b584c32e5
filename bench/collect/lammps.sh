#!/usr/bin/env bash
# LAMMPS (Debian's lmp) under the collector: the melt example at 2 ranks (INPUT, default
# bench/collect/melt-bench.in: 1500 steps), plain mpirun against kubus-run with call paths from
# the stack (the default) and with --call-paths=flat, alternating in each round.  The figures
# are LAMMPS's own "Loop time" (the time steps, without start-up and the collector's finalize)
# and the CPU seconds of the loop (loop time x LAMMPS's "% CPU use"), which hold better on a
# machine that other work keeps busy.
#   bench/collect/lammps.sh [BUILDDIR] [ROUNDS] [INPUT]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
rounds=${2:-5}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
input=$(realpath "${3:-$here/bench/collect/melt-bench.in}")
cp "$input" "$tmp/in.melt"
cd "$tmp"
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
loop() { awk '/^Loop time of/ {print $4}' "$1"; }
cpu() { awk '/^Loop time of/ {l = $4} /% CPU use/ {sub("%", "", $1); c = $1} END {print l * c / 100}' "$1"; }
declare -A t c
for i in $(seq 1 "$rounds"); do
  mpirun -n 2 --oversubscribe lmp -in in.melt -log plain.log -screen none >/dev/null
  t[plain]+="$(loop plain.log) "
  c[plain]+="$(cpu plain.log) "
  "$run" -o "$tmp/u" --force -- mpirun -n 2 --oversubscribe lmp -in in.melt -log unwind.log -screen none >/dev/null 2>&1
  t[unwind]+="$(loop unwind.log) "
  c[unwind]+="$(cpu unwind.log) "
  "$run" -o "$tmp/f" --force --call-paths=flat -- mpirun -n 2 --oversubscribe lmp -in in.melt -log flat.log -screen none >/dev/null 2>&1
  t[flat]+="$(loop flat.log) "
  c[flat]+="$(cpu flat.log) "
done
p=$(tr ' ' '\n' <<<"${t[plain]}" | grep . | median)
pc=$(tr ' ' '\n' <<<"${c[plain]}" | grep . | median)
for mode in plain flat unwind; do
  m=$(tr ' ' '\n' <<<"${t[$mode]}" | grep . | median)
  mc=$(tr ' ' '\n' <<<"${c[$mode]}" | grep . | median)
  awk -v mode="$mode" -v m="$m" -v p="$p" -v mc="$mc" -v pc="$pc" 'BEGIN {
    printf "%-7s loop %.4f s wall, / plain %.4f;  loop CPU %.4f s, / plain %.4f\n", mode, m, m / p, mc, mc / pc }'
done
echo "wall: plain ${t[plain]}| flat ${t[flat]}| unwind ${t[unwind]}"
echo "cpu:  plain ${c[plain]}| flat ${c[flat]}| unwind ${c[unwind]}"
