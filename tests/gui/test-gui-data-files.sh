#!/bin/sh
# test-gui-data-files.sh KIND FILE… — the browser's desktop integration files must pass the
# validators distributions run on them. Exit 77 (skip) when the validator is not installed.
#   desktop  DESKTOP MIME_XML   desktop-file-validate; every MimeType is declared in MIME_XML
#   metainfo METAINFO DESKTOP   appstreamcli validate --no-net; launchable names DESKTOP
#   schema   SCHEMA_XML         glib-compile-schemas --strict --dry-run (on a copy, alone)
#   mime     MIME_XML           xmllint; update-mime-database accepts it and learns the globs
#   dbus-service SERVICE DESKTOP  the D-Bus service file names the desktop file's application id
#                               and starts the installed kubus as a service; DBusActivatable=true
set -u
kind=$1
shift

need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "$1 not installed: skipping the $kind check"
    exit 77
  fi
}

fail() {
  echo "FAIL ($kind): $*" >&2
  exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubus-data-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

case $kind in
  desktop)
    need desktop-file-validate
    need xmllint
    out=$(desktop-file-validate "$1" 2>&1) || fail "desktop-file-validate $1: $out"
    # Hints are not failures for the tool, but a clean file has none.
    [ -z "$out" ] || fail "desktop-file-validate $1 says: $out"
    grep -q '^Exec=kubus %F$' "$1" || fail "$1: Exec is not 'kubus %F'"
    types=$(sed -n 's/^MimeType=//p' "$1" | tr ';' ' ')
    [ -n "$types" ] || fail "$1: no MimeType"
    declared=$(xmllint --xpath '//*[local-name()="mime-type"]/@type' "$2" | sed 's/ *type="\([^"]*\)"/\1\n/g')
    for t in $types; do
      echo "$declared" | grep -qx "$t" || fail "$1: MimeType $t is not declared in $2"
    done
    ;;
  metainfo)
    need appstreamcli
    out=$(appstreamcli validate --no-net --pedantic "$1" 2>&1) || fail "appstreamcli validate $1: $out"
    id=$(basename "$2")
    grep -q "<launchable type=\"desktop-id\">$id</launchable>" "$1" || fail "$1: no launchable $id"
    ;;
  schema)
    need glib-compile-schemas
    cp "$1" "$tmp/" || fail "cannot copy $1"
    out=$(glib-compile-schemas --strict --dry-run "$tmp" 2>&1) || fail "glib-compile-schemas: $out"
    [ -z "$out" ] || fail "glib-compile-schemas warns: $out"
    ;;
  mime)
    need xmllint
    need update-mime-database
    out=$(xmllint --noout "$1" 2>&1) || fail "xmllint $1: $out"
    ns=$(xmllint --xpath 'namespace-uri(/*)' "$1")
    [ "$ns" = "http://www.freedesktop.org/standards/shared-mime-info" ] || fail "$1: root namespace is '$ns'"
    mkdir -p "$tmp/mime/packages" && cp "$1" "$tmp/mime/packages/" || fail "cannot copy $1"
    # In the search path, so that the only output would be real complaints.
    out=$(XDG_DATA_DIRS="$tmp" XDG_DATA_HOME="$tmp" update-mime-database "$tmp/mime" 2>&1) || fail "update-mime-database: $out"
    [ -z "$out" ] || fail "update-mime-database warns: $out"
    for glob in 'application/x-cube:\*\.cube$' 'application/x-cube-compressed:\*\.cube\.gz$' \
                'application/x-cubex:\*\.cubex$'; do
      grep -q "$glob" "$tmp/mime/globs2" || fail "globs2 lacks $glob"
    done
    ;;
  dbus-service)
    id=$(basename "$2" .desktop)
    grep -qx 'DBusActivatable=true' "$2" || fail "$2: not DBusActivatable"
    [ "$(sed -n 1p "$1")" = "[D-BUS Service]" ] || fail "$1: no [D-BUS Service] group"
    grep -qx "Name=$id" "$1" || fail "$1: Name is not $id"
    grep -qx 'Exec=/.*/kubus --gapplication-service' "$1" || fail "$1: Exec is not '/PREFIX/bin/kubus --gapplication-service'"
    [ "$(grep -c . "$1")" = 3 ] || fail "$1: unexpected lines"
    ;;
  *)
    fail "unknown kind"
    ;;
esac
echo "$kind: ok"
