#!/bin/sh
# run-bench.sh BUILD_DIR [WORK_DIR] — kubus-sim benchmarks (SIM_BENCH_SKIP_OFFLINE=1: only 2.) (docs/benchmarks.md, "Simulator").
#  1. offline engine speed: a synthetic 4-rank trace (sim-bench gen), the engine's events/s as
#     sim-bench offline prints it, and the whole process against a plain read of the same trace
#     (sim-bench read), wall time and peak memory by /usr/bin/time;
#  2. real-time replay overhead: identity simulations of recorded runs (tests/apps/ws-flood.c,
#     MPI only, and sim-lb-coll, computation between collectives): predicted / original run time
#     after MPI_Init, and the difference per event.
set -eu
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d /tmp/sim-bench-XXXXXX)}
. "$(dirname "$0")/../../scripts/env.sh"
bench="$build/bench/sim/sim-bench"
sim="$build/src/core/kubus-sim"

if [ -z "${SIM_BENCH_SKIP_OFFLINE:-}" ]; then
  echo "== offline engine (4 ranks, 100000 iterations, 12 events each)"
  "$bench" gen "$work/big" 4 100000 20
  for mode in read offline; do
    for i in 1 2 3; do
      /usr/bin/time -f "$mode: wall %e s, peak %M KiB" "$bench" $mode "$work/big"
    done
  done
fi

echo "== real-time replay overhead (identity simulations of recorded runs)"
: > "$work/empty.hyp"
# flood: MPI only (ring exchange + allreduce), ~12 events per iteration and rank, no computation;
# lb-coll: 8 iterations of tens of ms of computation between collectives
for spec in "flood 2 tests/core/ws-flood 20000" "flood 4 tests/core/ws-flood 10000" "lb-coll 4 tests/sim/sim-lb-coll"; do
  set -- $spec ""
  name=$1-$2
  rm -rf "$work/$name"
  "$build/src/collect/kubus-run" -o "$work/$name" -- mpirun -n "$2" "$build/$3" ${4:-} >/dev/null 2>&1
  for i in 1 2 3; do
    "$sim" "$work/$name" --hypothesis "$work/empty.hyp" -o "$work/$name/sim" -q
    python3 - "$work/$name/sim/summary.json" "$name" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
per_rank = s['events'] / int(sys.argv[3])
o, p = s['original_runtime_after_init_s'], s['predicted_runtime_after_init_s']
print('%-10s events/rank %7d  original %.6f s  predicted %.6f s  ratio %.4f  %+.1f ns/event  late waits %d'
      % (sys.argv[2], per_rank, o, p, p / o, 1e9 * (p - o) / per_rank, s['replay']['late_events']))
PY
  done
done
echo "== real-time replay cost per event (computation events only, 2 ranks)"
for spec in "20 1000000" "100 1000000" "1000 400000" "10000 40000"; do
  set -- $spec
  "$bench" gen-comp "$work/comp-$1" 2 "$2" "$1"
  for i in 1 2 3; do
    "$sim" "$work/comp-$1" --hypothesis "$work/empty.hyp" -o "$work/comp-$1/sim" -q
    python3 - "$work/comp-$1/sim/summary.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
per_rank = s['events'] / 2
o, p = s['original_runtime_after_init_s'], s['predicted_runtime_after_init_s']
print('gap %5s ns  events/rank %7d  original %.6f s  predicted %.6f s  ratio %.4f  %+.1f ns/event'
      % (sys.argv[2], per_rank, o, p, p / o, 1e9 * (p - o) / per_rank))
PY
  done
done
echo "work folder: $work"
