#!/bin/sh
# Bad CUBE files: kubus-cube must exit 2 with a message naming the file and what is wrong,
# print nothing on stdout, never crash or hang, and never leave an output file behind.
# Each file goes through dump, convert, and convert/diff/mean/merge onto an existing target.
# Under KUBUS_SANITIZED=1 (~0.2 s of CPU a start, 6 starts a file) each file goes through dump,
# convert and one of the four onto an existing target, in turn: every file's reader error path
# and every command's handling of a failed read still run in the sanitizers, the other
# pairings only in the normal pass.
# Usage: test-bad-input.sh KUBUS_CUBE BAD_DIR          (the CUBE 3 files in tests/cube/bad)
#        test-bad-input.sh KUBUS_CUBE BUILD_DIR cubex    (bad-*.cubex from make-cubex.py)
kc=$1
bad=$2
mode=${3:-cube}
fail=0
nth=0   # the number of the file, which picks the command onto an existing target when sanitized
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # file  message-substring
  f=$bad/$1
  timeout 60 "$kc" dump --csv "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" != 2 ]; then
    echo "FAIL $1: exit $rc, expected 2 ($(cat "$tmp/err"))"; fail=1; return
  fi
  if ! grep -qF -- "$1" "$tmp/err"; then
    echo "FAIL $1: message does not name the file: $(cat "$tmp/err")"; fail=1
  fi
  if ! grep -qF -- "$2" "$tmp/err"; then
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
  # an existing target stays as it was, also when the bad input is a later one of several
  echo keep >"$tmp/keep.cube"
  for k in 0 1 2 3; do
    if [ -n "${KUBUS_SANITIZED:-}" ] && [ "$k" != $((nth % 4)) ]; then continue; fi
    case $k in
      0) args="convert $f" ;;
      1) args="diff $good $f" ;;
      2) args="mean $good $good $f" ;;
      3) args="merge $f $good" ;;
    esac
    # shellcheck disable=SC2086
    timeout 60 "$kc" $args -o "$tmp/keep.cube" >/dev/null 2>&1
    rc=$?
    if [ "$rc" != 2 ] || [ "$(cat "$tmp/keep.cube")" != keep ] || ls "$tmp" | grep -q tmp-; then
      echo "FAIL $1: ${args%% *} exit $rc, target changed or a temporary file left"; fail=1
    fi
  done
  rm -f "$tmp/keep.cube"
  nth=$((nth + 1))
  echo "ok $1: $(cat "$tmp/err")"
}

if [ "$mode" = cubex ]; then
good=$bad/good.cubex
expect bad-anchor-dangling.cubex 'anchor.xml:47: call path 4 has calleeId="44", which is no region'
expect bad-anchor-doctype.cubex 'anchor.xml:2: document type declarations (DOCTYPE) are not allowed'
expect bad-anchor-dup-cnode.cubex 'anchor.xml:47: call path (cnode) id 3 is defined twice'
expect bad-anchor-version.cubex 'anchor.xml:2: Cube anchor version “5.0” is not supported'
expect bad-anchor-xml.cubex 'anchor.xml:46: malformed XML: Opening and ending tag mismatch'
expect bad-cut-between.cubex 'truncated archive: it ends after 3072 bytes without the end-of-archive marker'
expect bad-data-magic.cubex 'member 5.data: not a Cube 4 data member'
expect bad-dup-rowid.cubex 'member 7.index: row id 2 is listed twice'
expect bad-empty.cubex 'the file is empty'
expect bad-index-beyond-data.cubex 'member 2.data: the index lists 5 rows of 2 locations × 8 bytes (80 bytes) but the data holds only 64 bytes'
expect bad-index-format.cubex 'member 5.index: unknown index format 2'
expect bad-index-magic.cubex 'member 5.index: not a Cube 4 index'
expect bad-inf.cubex 'member 0.data: row 3, location 0: “-inf” is not a finite number'
expect bad-marker.cubex 'member 7.index: unknown byte-order marker 0x00000002'
expect bad-nan.cubex 'member 10.data: row 0, location 1: “nan” is not a finite number'
expect bad-noanchor.cubex 'not a Cube 4 archive: member anchor.xml is missing'
expect bad-notar.cubex 'not a CUBE report'
expect bad-rowid.cubex 'member 5.index: row id 7 is beyond the 5 call paths'
expect bad-truncated.cubex 'truncated archive: member “anchor.xml” needs 4050 bytes but only 3396 remain'
expect bad-zlib.cubex 'member 4.data: compressed row 4 is corrupt'
expect bad-ztable.cubex 'member 4.data: holds 1152921504606846976 compressed rows but the index lists 5'
else
good=$bad/../good-small.cube
expect bad-integer-id.cube ':4: <metric id="zero">: not an integer'
expect billion-laughs.cube ':2: document type declarations (DOCTYPE) are not allowed in CUBE files'
expect external-entity.cube ':2: document type declarations (DOCTYPE) are not allowed in CUBE files'
expect undefined-entity.cube ":15: malformed XML: Entity 'nope' not defined"
expect coord-outside.cube ':44: coordinate “5” lies outside the topology'
expect coord-unknown-thread.cube ':44: <coord thrdId="9"> refers to an unknown system tree node'
expect cube4-version.cube ':2: CUBE version “4.0” is not supported'
expect wrong-version.cube ':2: CUBE version “2.0” is not supported'
expect no-version.cube ':2: <cube> has no version attribute'
expect dangling-callee.cube ':19: call path 0 has calleeId="7", which is no region'
expect duplicate-cnode-id.cube ':20: call path (cnode) id 0 is defined twice'
expect duplicate-metric-id.cube ':12: metric id 0 is defined twice'
expect duplicate-row.cube ':48: metric “time” has two rows for call path 0'
expect duplicate-thread-id.cube ':34: <thread Id="0"> is defined twice'
expect duplicate-uniq-name.cube ':14: two metrics have the unique name “time”'
expect empty.cube 'empty.cube: the file is empty'
expect garbage-value.cube ':46: row of call path 0: “2x” is not a finite number'
# the message shows the first 40 bytes of the value, cut before the "é" that straddles byte 40
expect garbage-utf8-value.cube ':47: row of call path 0: “2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx” is not a finite number'
expect inf-value.cube ':46: row of call path 0: “-inf” is not a finite number'
expect long-value.cube ':45: a value in a row is longer than 128 characters'
expect nan-value.cube ':45: row of call path 0: “nan” is not a finite number'
expect not-cube-root.cube ':2: not a CUBE file: the root element is <html>, not <cube>'
expect random-bytes.cube 'random-bytes.cube: not a CUBE report: neither CUBE XML, gzip-compressed XML nor a .cubex tar archive'
expect row-too-long.cube ':47: row of call path 0 has more values than the 2 locations'
expect thread-id-gap.cube ':41: thread/location ids must be 0 … 1 without gaps, but id 1 is missing (the next id is 2)'
expect truncated-gzip.cube 'truncated-gzip.cube: the gzip data ends early or is corrupt (truncated file?)'
expect truncated.cube ':23: the file ends in the middle'
expect unknown-cnode-row.cube ':44: <row cnodeId="5"> refers to an unknown call path'
expect unknown-metric-matrix.cube ':43: <matrix metricId="3"> refers to an unknown metric'

fi

# every file in the folder must be covered above
if [ "$mode" = cubex ]; then files=$(ls "$bad"/bad-*.cubex); else files=$(ls "$bad"/*); fi
for f in $files; do
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
# a folder: without a report, the error names the reports it holds (here: none, then one that
# no experiment has); with an analysis.cube, that is read (a copy of a good report)
mkdir "$tmp/exp"
"$kc" info "$tmp/exp" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "kubus-cube: $tmp/exp: a folder, not a report, and no report (.cube, .cube.gz, .cubex) is in it" ] \
  || { echo "FAIL folder without a report: $rc $(cat "$tmp/err")"; fail=1; }
cp "$good" "$tmp/exp/other.cube"
"$kc" info "$tmp/exp" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "kubus-cube: $tmp/exp: a folder, not a report; the reports in it: other.cube" ] \
  || { echo "FAIL folder with another report: $rc $(cat "$tmp/err")"; fail=1; }
mv "$tmp/exp/other.cube" "$tmp/exp/analysis.cube"
"$kc" info "$tmp/exp" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] && [ "$(head -1 "$tmp/out")" = "file: $tmp/exp/analysis.cube" ] \
  || { echo "FAIL experiment folder: $rc $(head -1 "$tmp/out") $(cat "$tmp/err")"; fail=1; }
exit $fail
