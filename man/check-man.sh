#!/bin/sh
# check-man.sh groff PAGE…
#   every PAGE formats without a single groff warning (-ww: all warnings).
# check-man.sh options PAGE PROGRAM HELP-ARG
#   every long option that "PROGRAM HELP-ARG" prints is documented in PAGE.
# Exit 77 (skip) without groff.
set -u
mode=$1
shift
fail=0
case $mode in
groff)
  command -v groff >/dev/null 2>&1 || { echo "groff not installed"; exit 77; }
  for page in "$@"; do
    # groff exits 0 even when it warns: any output on stderr is a failure.
    out=$(LC_ALL=C.UTF-8 groff -ww -z -man -Tutf8 "$page" 2>&1)
    if [ -n "$out" ]; then
      echo "FAIL: $page:"
      echo "$out"
      fail=1
    else
      echo "ok: $page"
    fi
  done
  ;;
options)
  page=$1 prog=$2 arg=$3
  # English help text whatever the caller's locale.
  help=$(LC_ALL=C LANGUAGE= "$prog" "$arg" 2>&1) || { echo "FAIL: $prog $arg failed:"; echo "$help"; exit 1; }
  text=$(sed 's/\\-/-/g; s/\\%//g' "$page")
  for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    if printf '%s\n' "$text" | grep -q -F -e "$opt"; then
      echo "ok: $opt"
    else
      echo "FAIL: $(basename "$page") does not document $opt (from $prog $arg)"
      fail=1
    fi
  done
  ;;
*)
  echo "usage: $0 groff PAGE… | options PAGE PROGRAM HELP-ARG"
  exit 2
  ;;
esac
exit $fail
