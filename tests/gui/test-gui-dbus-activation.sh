#!/bin/sh
# test-gui-dbus-activation.sh KUBUS SERVICE_IN REPORT — D-Bus activation of the installed kind
# (issue #12), on a private session bus whose only service is data/org.kubus.Kubus.service.in
# pointing at the build's kubus. Run on a display (xvfb-wrap.sh).
#  1. a call to org.kubus.Kubus starts `kubus --gapplication-service` through the service file,
#     which exports the Experiment actions (org.gtk.Actions.List);
#  2. org.freedesktop.Application.Open (what a file manager sends for a DBusActivatable
#     desktop file) opens a window in that instance (found by its title);
#  3. a second `kubus REPORT` forwards to it and ends, opening one more window;
#  4. app.quit ends the service: no kubus process is left.
# Exit 77 (skip) without dbus-run-session, gdbus or xdotool.
set -u
for tool in dbus-run-session gdbus xdotool; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool not installed: skipping"
    exit 77
  fi
done

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

if [ "${1:-}" != --inner ]; then
  kubus=$1 service_in=$2 report=$3
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubus-dbus-XXXXXX") || exit 1
  trap 'rm -rf "$tmp"' EXIT
  mkdir "$tmp/services"
  sed "s|@bindir@/kubus|$kubus|" "$service_in" > "$tmp/services/org.kubus.Kubus.service"
  cat > "$tmp/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=$tmp</listen>
  <servicedir>$tmp/services</servicedir>
  <!-- a GTK program under ASan on a busy machine may take longer to start than the default 25 s -->
  <limit name="service_start_timeout">90000</limit>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
  # the opened reports go to this test's recent files, not the user's
  export XDG_DATA_HOME="$tmp/data"
  # a name no shell would survive
  cp "$report" "$tmp/dbus open 'x' \$(y);&.cube" || exit 1
  dbus-run-session --config-file="$tmp/bus.conf" -- sh "$0" --inner "$kubus" "$tmp/dbus open 'x' \$(y);&.cube"
  exit $?
fi

kubus=$2 report=$3
export GTK_A11Y=none NO_AT_BRIDGE=1

# 1. activation through the service file
actions=$(gdbus call --session --timeout 90 --dest org.kubus.Kubus --object-path /org/kubus/Kubus \
  --method org.gtk.Actions.List 2>&1) || fail "org.gtk.Actions.List: $actions"
for a in measure analyze simulate compare quit; do
  echo "$actions" | grep -q "'$a'" || fail "action $a not exported: $actions"
done
pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID org.kubus.Kubus | sed 's/.*uint32 \([0-9]*\).*/\1/')
[ -n "$pid" ] || fail "no process owns org.kubus.Kubus"
tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "--gapplication-service" \
  || fail "org.kubus.Kubus is not the D-Bus activated service: $(tr '\0' ' ' < /proc/$pid/cmdline)"
echo "activated: pid $pid"

# 2. Open from a file manager
uri=$(python3 -c 'import sys, pathlib; print(pathlib.Path(sys.argv[1]).as_uri())' "$report")
out=$(gdbus call --session --dest org.kubus.Kubus --object-path /org/kubus/Kubus \
  --method org.freedesktop.Application.Open "['$(echo "$uri" | sed "s/'/\\\\'/g")']" "{}" 2>&1) \
  || fail "Open: $out"
n=0
until [ "$(xdotool search --name 'dbus open' 2>/dev/null | wc -l)" -ge 1 ]; do
  n=$((n + 1))
  [ $n -lt 300 ] || fail "no window for the opened report"
  sleep 0.1
done
echo "opened: $(xdotool search --name 'dbus open' getwindowname 2>/dev/null | head -n1)"

# 3. a second kubus forwards its command line and ends
timeout 60 "$kubus" "$report" || fail "the second kubus failed"
n=0
until [ "$(xdotool search --name 'dbus open' 2>/dev/null | wc -l)" -ge 2 ]; do
  n=$((n + 1))
  [ $n -lt 300 ] || fail "the second kubus opened no window in the first"
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null || fail "the service ended"

# 4. quit
gdbus call --session --dest org.kubus.Kubus --object-path /org/kubus/Kubus \
  --method org.freedesktop.Application.ActivateAction quit "[]" "{}" >/dev/null || fail "quit"
n=0
while kill -0 "$pid" 2>/dev/null; do
  n=$((n + 1))
  [ $n -lt 200 ] || fail "kubus did not end after quit"
  sleep 0.1
done
echo "dbus activation: ok"
