#!/usr/bin/env bash
# LAMMPS (Debian's lmp) under the collector: the melt example at 2 ranks, 1500 steps
# (bench/collect/melt-bench.in), plain mpirun against kubus-run with call paths from the stack
# (the default) and with --call-paths=flat, alternating in each round.  LAMMPS's own
# "Loop time" (the time steps, without start-up and the collector's finalize) is the figure.
#   bench/collect/lammps.sh [BUILDDIR] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
rounds=${2:-5}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/bench/collect/melt-bench.in" "$tmp/in.melt"
cd "$tmp"
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
loop() { awk '/^Loop time of/ {print $4}' "$1"; }
declare -A t
for i in $(seq 1 "$rounds"); do
  mpirun -n 2 --oversubscribe lmp -in in.melt -log plain.log -screen none >/dev/null
  t[plain]+="$(loop plain.log) "
  "$run" -o "$tmp/u" --force -- mpirun -n 2 --oversubscribe lmp -in in.melt -log unwind.log -screen none >/dev/null 2>&1
  t[unwind]+="$(loop unwind.log) "
  "$run" -o "$tmp/f" --force --call-paths=flat -- mpirun -n 2 --oversubscribe lmp -in in.melt -log flat.log -screen none >/dev/null 2>&1
  t[flat]+="$(loop flat.log) "
done
p=$(tr ' ' '\n' <<<"${t[plain]}" | grep . | median)
for mode in plain flat unwind; do
  m=$(tr ' ' '\n' <<<"${t[$mode]}" | grep . | median)
  awk -v mode="$mode" -v m="$m" -v p="$p" 'BEGIN { printf "%-7s loop time %.4f s (median of rounds), / plain %.4f\n", mode, m, m / p }'
done
echo "rounds: plain ${t[plain]}| flat ${t[flat]}| unwind ${t[unwind]}"
