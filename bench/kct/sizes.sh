#!/usr/bin/env bash
# Sizes of compressed and OTF2 traces of the same runs (--trace-format=both) of the
# wavefront (tests/apps/ws-sweep.c, 1 round, 2 ms steps), the 1-D ring and the all-to-all
# code (10 steps each) at 4, 8, 16 and 64 ranks: the table of docs/benchmarks.md.  Every run
# also goes through the checks of tests/kct (lossless expansion, run length).
#   bench/kct/sizes.sh [BUILDDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
. "$here/scripts/env.sh"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
cd "$build"
for app in sweep ring alltoall; do
  if [ "$app" = sweep ]; then args=(-- /dev/null 1 2); else args=(-- 10); fi
  KCT_TABLE=$table python3 "$here/tests/kct/kct-test.py" scale --app "tests/kct/kct-$app" \
    --run src/collect/kubus-run --trace src/core/kubus-trace --seq tests/kct/kct-seq \
    --replay tests/kct/kct-replay-check --analyze src/core/kubus-analyze --sim src/core/kubus-sim \
    --ranks 4,8,16,64 "${args[@]}"
done
echo
echo "| code | 4 ranks | 8 | 16 | 64 | compressed 16→64 | OTF2 16→64 |"
echo "|---|---|---|---|---|---|---|"
cat "$table"
