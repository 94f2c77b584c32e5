#!/bin/sh
# exchange-modes.sh BUILD_DIR [RUNS]: runs bench/sim/exchange RUNS times (default 10), plainly and
# at real-time priority as the replay runs, and prints each run's mean exchange time. Where the
# means fall into groups far apart, a real-time re-enactment of a bandwidth-bound phase can land
# in another group than the original run did (docs/benchmarks.md, "large messages").
set -eu
build=${1:?usage: exchange-modes.sh BUILD_DIR [RUNS]}
runs=${2:-10}
. "$(dirname "$0")/../../scripts/env.sh"
for how in plain rt; do
  printf '%s:' "$how"
  i=0
  while [ "$i" -lt "$runs" ]; do
    if [ "$how" = rt ]; then
      out=$(mpirun -n 2 chrt -r 10 "$build/bench/sim/exchange" 300)
    else
      out=$(mpirun -n 2 "$build/bench/sim/exchange" 300)
    fi
    printf ' %s' "$(echo "$out" | awk '{print $2}')"
    i=$((i + 1))
  done
  echo
done
