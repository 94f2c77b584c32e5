#!/bin/sh
# dbus-wrap.sh COMMAND [ARGS…] — runs COMMAND on a private D-Bus session bus (dbus-run-session);
# exit 77 (skip) without dbus-daemon. The bus ends with the command.
if ! command -v dbus-run-session >/dev/null 2>&1; then
  echo "dbus-wrap: dbus-run-session (package dbus-daemon) not installed, skipping" >&2
  exit 77
fi
exec dbus-run-session -- "$@"
