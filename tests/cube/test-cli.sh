#!/bin/sh
# kubus-cube on small hand-written reports: exact info and dump output, --metric, CSV quoting,
# unsupported dtypes, CUBE_CT_AGGR, convert (plain and .gz) round trip.
# Usage: test-cli.sh KUBUS_CUBE TEST_DIR
kc=$1
dir=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # name expected-file actual-file
  if ! cmp -s "$2" "$3"; then
    echo "FAIL $1:"; diff "$2" "$3"; fail=1
  else
    echo "ok $1"
  fi
}

cat >"$tmp/info.exp" <<'EOT'
format: CUBE 3 XML
version: 3.0
metrics: 3
regions: 1
call paths: 1
system tree nodes: 5
locations: 2
topologies: 0
call tree aggregation: MAX
unsupported: metric hist has data type HISTOGRAM(4); its values are not read
total time: 3.5 sec
EOT
"$kc" info "$dir/good-cli.cube" | sed 1d >"$tmp/info.out"
check info "$tmp/info.exp" "$tmp/info.out"

# time (1.5 + 2; inclusive of its child), wait (0.25), the histogram skipped
cat >"$tmp/dump.exp" <<'EOT'
metric,cnode,location,value
time,0,0,1.5
time,0,1,2
"wait,""late""",0,1,0.25
EOT
"$kc" dump --csv "$dir/good-cli.cube" >"$tmp/dump.out" 2>"$tmp/dump.err"
check dump "$tmp/dump.exp" "$tmp/dump.out"
# metrics left out of the dump are named on stderr
echo "kubus-cube: $dir/good-cli.cube: note: metric “hist” has the unsupported data type HISTOGRAM(4); its values are not dumped" >"$tmp/dump.err.exp"
check dump-note "$tmp/dump.err.exp" "$tmp/dump.err"
"$kc" dump --csv --metric time "$dir/good-cli.cube" 2>"$tmp/dump.err" >/dev/null
[ -s "$tmp/dump.err" ] && { echo "FAIL note for a metric that was not asked for"; fail=1; }

printf 'metric,cnode,location,value\n"wait,""late""",0,1,0.25\n' >"$tmp/one.exp"
"$kc" dump --csv --metric 'wait,"late"' "$dir/good-cli.cube" >"$tmp/one.out"
check dump-metric "$tmp/one.exp" "$tmp/one.out"

"$kc" dump --metric nope "$dir/good-cli.cube" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 1 ] || ! grep -q 'good-cli.cube: there is no metric with the unique name “nope”' "$tmp/err"; then
  echo "FAIL unknown metric: exit $rc: $(cat "$tmp/err")"; fail=1
fi

# many topologies, few different (CP2K defines 103, 6 different): each different one listed once,
# with how many are the same and which (ranges, at most 8 listed); one differs from the 2x1
# ones only by its coordinates
{
  sed -n '1,/<\/system>/p' "$dir/good-cli.cube" | sed '$d'
  echo '    <topologies>'
  for i in $(seq 0 11); do
    echo '      <cart name="MPI_Cart_create" ndims="2"><dim size="2" periodic="true"/><dim size="1" periodic="true"/>'
    echo '        <coord thrdId="0">0 0</coord><coord thrdId="1">1 0</coord></cart>'
    [ "$i" -lt 2 ] && echo '      <cart name="MPI_Cart_sub" ndims="1"><dim size="1" periodic="false"/><coord thrdId="1">0</coord></cart>'
  done
  echo '      <cart name="MPI_Cart_create" ndims="2"><dim size="2" periodic="true"/><dim size="1" periodic="true"/>'
  echo '        <coord thrdId="1">0 0</coord><coord thrdId="0">1 0</coord></cart>'
  echo '    </topologies>'
  echo '  </system>'
  sed -n '/<severity>/,$p' "$dir/good-cli.cube"
} >"$tmp/topo.cube"
cat >"$tmp/topo.exp" <<'EOT'
topologies: 15 (3 different)
topology 0: name "MPI_Cart_create", 2 dimensions, 2(periodic) x 1(periodic), 2 coordinates; 11 the same: 2, 4-13
topology 1: name "MPI_Cart_sub", 1 dimensions, 1, 1 coordinates; 1 the same: 3
topology 14: name "MPI_Cart_create", 2 dimensions, 2(periodic) x 1(periodic), 2 coordinates
EOT
"$kc" info "$tmp/topo.cube" | grep '^topolog' >"$tmp/topo.out"
check topologies "$tmp/topo.exp" "$tmp/topo.out"

for out in "$tmp/c.cube" "$tmp/c.cube.gz"; do
  "$kc" convert "$dir/good-cli.cube" -o "$out" || { echo "FAIL convert $out"; fail=1; }
  "$kc" dump --csv "$out" >"$tmp/rt.out"
  check "roundtrip $(basename "$out")" "$tmp/dump.exp" "$tmp/rt.out"
  "$kc" info "$out" | sed -e 1,2d >"$tmp/rtinfo.out"
  sed 1d "$tmp/info.exp" >"$tmp/rtinfo.exp"
  check "roundtrip info $(basename "$out")" "$tmp/rtinfo.exp" "$tmp/rtinfo.out"
done
case $(head -c 2 "$tmp/c.cube.gz" | od -An -tx1 | tr -d ' ') in
  1f8b) echo "ok gzip output" ;;
  *) echo "FAIL .gz output is not gzip"; fail=1 ;;
esac

# converting onto an existing file replaces it; a folder that does not exist is an error (3)
"$kc" convert "$dir/good-small.cube" -o "$tmp/c.cube" && "$kc" dump "$tmp/c.cube" | grep -q '^time,0,1,2$' \
  || { echo "FAIL overwrite"; fail=1; }
"$kc" convert "$dir/good-small.cube" -o "$tmp/none/x.cube" 2>"$tmp/err"
rc=$?
[ $rc = 3 ] && grep -q 'none/x.cube' "$tmp/err" || { echo "FAIL unwritable output: $rc $(cat "$tmp/err")"; fail=1; }
ls "$tmp" | grep -q 'tmp-' && { echo "FAIL temporary file left"; fail=1; }

# an empty output name (an unset shell variable): a usage error (1), nothing written
for o in "-o " "--output="; do
  if [ "$o" = "-o " ]; then "$kc" convert "$dir/good-small.cube" -o '' 2>"$tmp/err"; else
    "$kc" convert "$dir/good-small.cube" --output= 2>"$tmp/err"; fi
  rc=$?
  [ $rc = 1 ] && grep -q 'kubus-cube: -o needs a file name' "$tmp/err" || { echo "FAIL empty output ($o): $rc $(cat "$tmp/err")"; fail=1; }
done

"$kc" --help | grep -q '^Usage:' || { echo "FAIL --help"; fail=1; }
exit $fail
