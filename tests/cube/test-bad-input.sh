#!/bin/sh
# Bad CUBE files: kubus-cube must exit 2 with a message naming the file and what is wrong,
# print nothing on stdout, never crash or hang, and never leave an output file behind.
# Usage: test-bad-input.sh KUBUS_CUBE BAD_DIR
kc=$1
bad=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # file  message-substring
  f=$bad/$1
  timeout 60 "$kc" dump --csv "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" != 2 ]; then
    echo "FAIL $1: exit $rc, expected 2 ($(cat "$tmp/err"))"; fail=1; return
  fi
  if ! grep -q -- "$1" "$tmp/err"; then
    echo "FAIL $1: message does not name the file: $(cat "$tmp/err")"; fail=1
  fi
  if ! grep -q -- "$2" "$tmp/err"; then
    echo "FAIL $1: message lacks \"$2\": $(cat "$tmp/err")"; fail=1
  fi
  if [ -s "$tmp/out" ]; then
    echo "FAIL $1: wrote to stdout"; fail=1
  fi
  timeout 60 "$kc" convert "$f" -o "$tmp/converted.cube" 2>/dev/null
  rc=$?
  if [ "$rc" != 2 ] || [ -e "$tmp/converted.cube" ] || ls "$tmp" | grep -q tmp-; then
    echo "FAIL $1: convert exit $rc or left a file"; fail=1
  fi
  echo "ok $1: $(cat "$tmp/err")"
}

expect bad-integer-id.cube ':4: <metric id="zero">: not an integer'
expect billion-laughs.cube 'DOCTYPE'
expect external-entity.cube 'DOCTYPE'
expect undefined-entity.cube ":15: malformed XML: Entity 'nope' not defined"
expect coord-outside.cube ':44: coordinate “5” lies outside the topology'
expect coord-unknown-thread.cube 'thrdId="9"> refers to an unknown'
expect cube4-version.cube ':2: CUBE version “4.0” is not supported'
expect wrong-version.cube ':2: CUBE version “2.0” is not supported'
expect no-version.cube 'no version'
expect dangling-callee.cube ':19: call path 0 has calleeId="7", which is no region'
expect duplicate-cnode-id.cube ':20: call path (cnode) id 0 is defined twice'
expect duplicate-metric-id.cube ':12: metric id 0 is defined twice'
expect duplicate-row.cube 'two rows for call path 0'
expect duplicate-thread-id.cube ':34: <thread Id="0"> is defined twice'
expect duplicate-uniq-name.cube 'unique name “time”'
expect empty.cube 'the file is empty'
expect garbage-value.cube ':47: row of call path 0: “2x” is not a finite number'
expect inf-value.cube '“-inf” is not a finite number'
expect nan-value.cube ':47: row of call path 0: “nan” is not a finite number'
expect not-cube-root.cube 'root element is <html>'
expect random-bytes.cube 'not a CUBE report'
expect row-too-long.cube ':48: row of call path 0 has more values than the 2 locations'
expect row-too-short.cube 'has 1 values, but there are 2 locations'
expect thread-id-gap.cube 'id 1 is missing'
expect truncated-gzip.cube 'truncated'
expect truncated.cube ':23: the file ends in the middle'
expect unknown-cnode-row.cube ':44: <row cnodeId="5"> refers to an unknown call path'
expect unknown-metric-matrix.cube ':43: <matrix metricId="3"> refers to an unknown metric'

# every file in the folder must be covered above
for f in "$bad"/*; do
  b=$(basename "$f")
  grep -q "^expect $b " "$0" || { echo "FAIL $b has no expectation"; fail=1; }
done

# missing input and usage errors
"$kc" dump --csv "$tmp/does-not-exist.cube" >/dev/null 2>"$tmp/err"
rc=$?; [ $rc = 2 ] && grep -q "does-not-exist.cube: cannot open" "$tmp/err" || { echo "FAIL missing file: $rc $(cat "$tmp/err")"; fail=1; }
"$kc" >/dev/null 2>&1; [ $? = 1 ] || { echo "FAIL no arguments"; fail=1; }
"$kc" frobnicate x >/dev/null 2>&1; [ $? = 1 ] || { echo "FAIL unknown command"; fail=1; }
"$kc" convert "$bad/empty.cube" >/dev/null 2>"$tmp/err"; [ $? = 1 ] && grep -q Usage "$tmp/err" || { echo "FAIL convert without -o"; fail=1; }
"$kc" diff a.cube >/dev/null 2>&1; [ $? = 1 ] || { echo "FAIL diff with one report"; fail=1; }
"$kc" dump --bogus x.cube >/dev/null 2>&1; [ $? = 1 ] || { echo "FAIL unknown option"; fail=1; }
exit $fail
