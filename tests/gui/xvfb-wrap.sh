#!/bin/sh
# xvfb-wrap.sh COMMAND [ARGS…] — runs COMMAND on a private Xvfb display; exit 77 (skip)
# without Xvfb. Xvfb picks a free display number itself (-displayfd), so tests running in
# parallel never race for one, unlike `xvfb-run -a`. Leaves no server behind.
if ! command -v Xvfb >/dev/null 2>&1; then
  echo "xvfb-wrap: Xvfb not installed, skipping" >&2
  exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/kubus-xvfb-XXXXXX") || exit 1
Xvfb -displayfd 3 -screen 0 1920x1200x24 -nolisten tcp -noreset \
  3>"$dir/display" 2>"$dir/log" &
xpid=$!
cleanup() {
  kill "$xpid" 2>/dev/null
  wait "$xpid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
i=0
while [ ! -s "$dir/display" ]; do
  if ! kill -0 "$xpid" 2>/dev/null || [ $i -ge 300 ]; then
    echo "xvfb-wrap: Xvfb did not start, skipping:" >&2
    cat "$dir/log" >&2
    exit 77
  fi
  sleep 0.1
  i=$((i + 1))
done
DISPLAY=":$(head -n1 "$dir/display")"
export DISPLAY
"$@"
rc=$?
exit $rc
