#!/bin/sh
# check-po-runtime.sh KUBUS_CUBE [KUBUS_ANALYZE|- [KUBUS_RUN|- [KUBUS|-]]] — the programs
# as built (no install, no environment pointing at the catalogue) print German with
# LANGUAGE=de and English without it: each finds the build's catalogue from its own location
# (kubus-program.c). "-" skips a program that this build does not have.
set -u
exe=$1
analyze=${2:--}
run=${3:--}
gui=${4:--}
fail=0
missing=/nonexistent-kubus-l10n-check/report.cube

expect() {  # expect NAME WANTED-STATUS WANTED-TEXT OUTPUT STATUS
  if [ "$5" -ne "$2" ]; then
    echo "FAIL: $1: exit status $5, expected $2"
    fail=1
  fi
  case $4 in
    *"$3"*) echo "ok: $1" ;;
    *) echo "FAIL: $1: expected \"$3\" in:"; echo "$4"; fail=1 ;;
  esac
}
de() { env -u LC_ALL -u LC_MESSAGES -u LOCPATH LANG=C.UTF-8 LANGUAGE=de "$@" 2>&1; }
en() { env -u LANGUAGE -u LC_MESSAGES LC_ALL=C.UTF-8 "$@" 2>&1; }

# LANGUAGE is honoured with any locale but plain "C"; C.UTF-8 always exists on glibc.
out=$(de "$exe" info "$missing")
expect "German error" 2 "kubus-cube: $missing: kann nicht geöffnet werden: " "$out" $?
out=$(de "$exe" frob)
expect "German usage error" 1 "kubus-cube: unbekannter Befehl „frob“" "$out" $?
expect "German usage text" 1 "Aufruf:
  kubus-cube info DATEI" "$out" 1
out=$(en "$exe" info "$missing")
expect "English error" 2 "kubus-cube: $missing: cannot open: " "$out" $?

if [ "$analyze" != - ]; then
  out=$(de "$analyze" --help)
  expect "kubus-analyze German help" 0 "Wartezustände in einem MPI-Trace finden" "$out" $?
  out=$(de "$analyze" "$missing" --serial)
  expect "kubus-analyze German progress" 1 "kubus-analyze: [  0%] Lesen der Definitionen" "$out" $?
fi
if [ "$run" != - ]; then
  out=$(de "$run" --bogus)
  expect "kubus-run German usage error" 2 "kubus-run: unbekannte Option" "$out" $?
fi
if [ "$gui" != - ]; then
  out=$(de "$gui" --help)
  expect "kubus German help" 0 "CUBE-Leistungsberichte (.cube, .cube.gz, .cubex) betrachten." "$out" $?
  out=$(en "$gui" --help)
  expect "kubus English help" 0 "Browse CUBE performance reports" "$out" $?
fi
exit $fail
