#!/bin/sh
# check-po-runtime.sh KUBUS_CUBE — the program prints German with LANGUAGE=de and
# English without it. KUBUS_CUBE looks for its catalogue in the build folder.
set -u
exe=$1
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

# LANGUAGE is honoured with any locale but plain "C"; C.UTF-8 always exists on glibc.
out=$(env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANGUAGE=de "$exe" info "$missing" 2>&1)
expect "German error" 2 "kubus-cube: $missing: kann nicht geöffnet werden: " "$out" $?
out=$(env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANGUAGE=de "$exe" frob 2>&1)
expect "German usage error" 1 "kubus-cube: unbekannter Befehl „frob“" "$out" $?
expect "German usage text" 1 "Aufruf:
  kubus-cube info DATEI" "$out" 1
out=$(env -u LANGUAGE -u LC_MESSAGES LC_ALL=C.UTF-8 "$exe" info "$missing" 2>&1)
expect "English error" 2 "kubus-cube: $missing: cannot open: " "$out" $?
exit $fail
