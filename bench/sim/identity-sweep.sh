#!/bin/sh
# identity-sweep.sh BUILD_DIR RANKS [busy] [PATTERN...]: traces bench/sim/patterns-more with each
# pattern (all by default) at RANKS ranks under kubus-run, then prints the offline identity error
# after MPI_Init of each trace (kubus-sim --offline, the run as it was) and the real-time one.
# Traces stay in ${TMPDIR:-/tmp}/kubus-identity-sweep.
set -eu
build=${1:?usage: identity-sweep.sh BUILD_DIR RANKS [busy] [PATTERN...]}
ranks=${2:?usage: identity-sweep.sh BUILD_DIR RANKS [busy] [PATTERN...]}
shift 2
busy=
if [ "${1:-}" = busy ]; then busy=busy; shift; fi
patterns=${*:-sendrecv bsend rsend waitany bigcoll allgatherv neighbor testsome passive replace improbe vector dup ireduce cancel}
. "$(dirname "$0")/../../scripts/env.sh"
build=$(cd "$build" && pwd)
dir=${TMPDIR:-/tmp}/kubus-identity-sweep
mkdir -p "$dir"
printf '# the run as it was\n' > "$dir/identity.hyp"
error() {
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('%+.2f' % s['change_percent'])" "$1"
}
for p in $patterns; do
  exp="$dir/$p-$ranks${busy:+-busy}"
  rm -rf "$exp"
  "$build/src/collect/kubus-run" -o "$exp" -- mpirun --oversubscribe -np "$ranks" \
    "$build/bench/sim/patterns-more" "$p" 200 $busy > "$exp.log" 2>&1
  "$build/src/core/kubus-sim" "$exp" --hypothesis "$dir/identity.hyp" --offline --no-identity -q -o "$exp/offline"
  "$build/src/core/kubus-sim" "$exp" --hypothesis "$dir/identity.hyp" --no-identity -q -o "$exp/real-time"
  echo "$p $ranks${busy:+ busy}: offline $(error "$exp/offline/summary.json") %, real time $(error "$exp/real-time/summary.json") %"
done
