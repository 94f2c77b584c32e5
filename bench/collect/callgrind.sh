#!/usr/bin/env bash
# Instructions per MPI call that the collector adds (valgrind callgrind: deterministic, unlike
# time on a shared machine), per wrapped function of bench/collect/calls.c.
#   bench/collect/callgrind.sh [BUILDDIR] [N] [MODES]
# Runs collect-bench-calls N under callgrind once per mode (plain, profile = --no-trace,
# both = the default, trace = KUBUS_PROFILE=0, flat = the default with --call-paths=flat) and
# prints the inclusive instructions of MPI_Iprobe, MPI_Send and MPI_Recv per call, and their
# excess over plain.  KUBUS_COLLECT_LIB selects another collector library (main's, to compare).
# KEEP=DIR keeps the callgrind files there (for callgrind_annotate).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
n=${2:-200000}
modes=${3:-plain profile both trace}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
app=$build/bench/collect/collect-bench-calls
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${KEEP:-$tmp}
mkdir -p "$out"
vg=(valgrind --tool=callgrind --callgrind-out-file="$out/cg.%q{KUBUS_CG_MODE}")
declare -A ir
for mode in $modes; do
  export KUBUS_CG_MODE=$mode
  case $mode in
    plain) mpirun -n 1 "${vg[@]}" "$app" "$n" >/dev/null 2>&1 ;;
    profile) "$run" -o "$tmp/e" --force --no-trace -- mpirun -n 1 "${vg[@]}" "$app" "$n" >/dev/null 2>&1 ;;
    both) "$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "${vg[@]}" "$app" "$n" >/dev/null 2>&1 ;;
    trace) KUBUS_PROFILE=0 "$run" -o "$tmp/e" --force --buffer 512M -- mpirun -n 1 "${vg[@]}" "$app" "$n" >/dev/null 2>&1 ;;
    flat) "$run" -o "$tmp/e" --force --buffer 512M --call-paths=flat -- mpirun -n 1 "${vg[@]}" "$app" "$n" >/dev/null 2>&1 ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  # the C entry points: the wrappers, or (plain) MPI's own, which Open MPI names PMPI_*
  ir[$mode]=$(callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$out/cg.$mode" \
      2>/dev/null | awk '
    { c = $1; gsub(",", "", c) }
    c ~ /^[0-9]+$/ && match($0, /:P?MPI_(Iprobe|Send|Recv) /) {
      f = substr($0, RSTART + 1, RLENGTH - 2); v[f] = c }
    function get(f) { return (f in v) ? v[f] : v["P" f] + 0 }
    END { printf "%s %s %s", get("MPI_Iprobe"), get("MPI_Send"), get("MPI_Recv") }')
done
printf 'instructions per call (callgrind, N = %d), excess over plain in brackets\n' "$n"
read -r pi ps pr <<<"${ir[plain]:-0 0 0}"
for mode in $modes; do
  read -r i s r <<<"${ir[$mode]}"
  awk -v m="$mode" -v n="$n" -v i="$i" -v s="$s" -v r="$r" -v pi="$pi" -v ps="$ps" -v pr="$pr" 'BEGIN {
    printf "%-8s Iprobe %6.0f (+%4.0f)  Send %6.0f (+%4.0f)  Recv %6.0f (+%4.0f)\n",
      m, i / n, (i - pi) / n, s / n, (s - ps) / n, r / n, (r - pr) / n }'
done
