#!/bin/sh
# Brings up a headless desktop for tests: Xvfb + D-Bus session bus + AT-SPI bus + openbox
# (docs/platform-linux.md §2). Every pid lands in <run-dir>/<name>.pid so the caller
# (tests/helpers/desktop.ts) can tear down in order: openbox, atspi, dbus, xvfb.
# usage: desktop-up.sh <display-number> <run-dir>
# exit 0 = up; 3 = display :N is taken (pick another number); other = failure (reason on stderr).
#
# Three deliberate deviations from the spec's sketch (all found while writing the tests):
# - Xvfb runs with -noreset: by default it resets when its last client disconnects, so a client
#   connecting right after the xdpyinfo probe (openbox, in ~1 of 12 parallel starts) failed with
#   "Failed to open the display";
# - the environment is exported BEFORE dbus-daemon starts: the session bus passes its own
#   environment to services it activates, and org.a11y.Bus is activatable, so an activated
#   at-spi-bus-launcher would otherwise lack XDG_RUNTIME_DIR and put its socket in the shared
#   ~/.cache/at-spi/bus (parallel workers then steal each other's a11y bus);
# - readiness is polled with NameHasOwner, not GetAddress: calling GetAddress before our launcher
#   owns the name auto-starts a second launcher that wins the race, leaving <run-dir>/atspi.pid
#   pointing at a dead process and the real one orphaned.
set -eu
N=$1; D=$2
mkdir -p "$D/xdg"; chmod 700 "$D/xdg"
export DISPLAY=":$N" DBUS_SESSION_BUS_ADDRESS="unix:path=$D/bus" XDG_RUNTIME_DIR="$D/xdg"
if [ -e "/tmp/.X$N-lock" ] || [ -e "/tmp/.X11-unix/X$N" ]; then
  echo "display :$N is in use" >&2; exit 3; fi
Xvfb ":$N" -screen 0 1280x800x24 -nolisten tcp -noreset >"$D/xvfb.log" 2>&1 & echo $! >"$D/xvfb.pid"
XVFB_PID=$!
i=0; until xdpyinfo -display ":$N" >/dev/null 2>&1; do
  # Xvfb exits at once when another server holds the display: do not talk to that one
  kill -0 "$XVFB_PID" 2>/dev/null || { echo "display :$N is in use" >&2; exit 3; }
  i=$((i+1)); [ $i -gt 100 ] && { echo "Xvfb did not start" >&2; exit 1; }; sleep 0.05; done
kill -0 "$XVFB_PID" 2>/dev/null || { echo "display :$N is in use" >&2; exit 3; }
dbus-daemon --session --fork --address="unix:path=$D/bus" --print-pid=1 >"$D/dbus.pid"
/usr/libexec/at-spi-bus-launcher --launch-immediately >"$D/atspi.log" 2>&1 & echo $! >"$D/atspi.pid"
i=0; until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus 2>/dev/null | grep -q 'boolean true'; do
  i=$((i+1)); [ $i -gt 100 ] && { echo "a11y bus did not start" >&2; exit 1; }; sleep 0.05; done
# make Chromium/Electron expose their accessibility tree
dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus \
  org.freedesktop.DBus.Properties.Set string:org.a11y.Status string:IsEnabled variant:boolean:true >/dev/null
# a window manager, only needed for _NET_ACTIVE_WINDOW
openbox >"$D/openbox.log" 2>&1 & echo $! >"$D/openbox.pid"
