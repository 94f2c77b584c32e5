#!/bin/sh
# run-bench.sh BUILD_DIR [WORK_DIR] — kubus-sim benchmarks (docs/benchmarks.md, "Simulator").
#  1. offline engine speed: a synthetic 4-rank trace (sim-bench gen), the engine's events/s as
#     sim-bench offline prints it, and the whole process against a plain read of the same trace
#     (sim-bench read), wall time and peak memory by /usr/bin/time;
#  2. real-time replay overhead: identity simulations of 2-rank traces with 1 µs, 20 µs and 1 ms
#     of computation per iteration: predicted / original run time and the difference per event.
set -eu
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d /tmp/sim-bench-XXXXXX)}
. "$(dirname "$0")/../../scripts/env.sh"
bench="$build/bench/sim/sim-bench"
sim="$build/src/core/kubus-sim"

echo "== offline engine (4 ranks, 100000 iterations, 12 events each)"
"$bench" gen "$work/big" 4 100000 20
for mode in read offline; do
  for i in 1 2 3; do
    /usr/bin/time -f "$mode: wall %e s, peak %M KiB" "$bench" $mode "$work/big"
  done
done

echo "== real-time replay overhead (identity, 2 ranks)"
: > "$work/empty.hyp"
for spec in "dense 20000 1" "medium 20000 20" "sparse 500 1000"; do
  set -- $spec
  "$bench" gen "$work/$1" 2 "$2" "$3"
  for i in 1 2 3; do
    "$sim" "$work/$1" --hypothesis "$work/empty.hyp" -o "$work/$1/sim" -q
    python3 - "$work/$1/sim/summary.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
per_rank = s['events'] / 2
d = s['predicted_runtime_after_init_s'] - s['original_runtime_after_init_s']
print('%-6s events/rank %7d  original %.6f s  predicted %.6f s  ratio %.4f  %+.1f ns/event  late waits %d (%.6f s)'
      % (sys.argv[2], per_rank, s['original_runtime_after_init_s'], s['predicted_runtime_after_init_s'],
         s['predicted_runtime_after_init_s'] / s['original_runtime_after_init_s'], 1e9 * d / per_rank,
         s['replay']['late_events'], s['replay']['late_s']))
PY
  done
done
echo "work folder: $work"
