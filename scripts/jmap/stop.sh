#!/usr/bin/env bash
# Stop the test JMAP server started by start.sh (its SMTP relay, and its syslog sink if it started one).
#   usage: stop.sh [--purge]      --purge also deletes $JMAP_BASE (all mail data and config)
#          stop.sh --release PID  a test run is done with the server (lib.sh, "Leases"): stops it only
#                                 when a test run started it and no other run still uses it
# Only processes that belong to OUR config are touched; another Cyrus on the machine keeps running.
set -euo pipefail
JMAP_SCRIPT=stop
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
case "${1:-}" in
  ""|--purge) ;;
  --release) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 --release PID" >&2; exit 2; } ;;
  *) echo "usage: $0 [--purge | --release PID]" >&2; exit 2 ;;
esac
jmap_require_root "$0" "$@"
if [ -d "$JMAP_BASE" ]; then jmap_lock_start_stop; elif [ "${1:-}" = --release ]; then exit 0; fi

if [ "${1:-}" = --release ]; then
  rm -f "$JMAP_LEASE_DIR/$2"
  others=$(jmap_live_leases)
  if [ ! -e "$JMAP_STOP_MARKER" ]; then jmap_log "released; the server was not started by a test run, it keeps running"; exit 0; fi
  if [ "$others" != 0 ]; then jmap_log "released; $others other test run(s) still use the server"; exit 0; fi
fi
rm -f "$JMAP_STOP_MARKER"

pid=$(jmap_master_pid)
if [ -n "$pid" ]; then
  kill -TERM "$pid"    # cyrmaster ends its children (imapd, httpd, lmtpd, squatter) itself
  for _ in $(seq 1 100); do jmap_alive "$pid" || break; sleep 0.1; done
  if jmap_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  jmap_log "cyrmaster $pid stopped"
else
  jmap_log "cyrmaster not running"
fi
# Children that outlived the master (a KILL above, or a crash): matched by our exact config path.
for p in $(pgrep -f -- "-C $JMAP_CONF( |\$)" || true); do
  jmap_alive "$p" && kill -TERM "$p" 2>/dev/null || true
done
rm -f "$JMAP_PIDFILE"
relay=$(jmap_relay_pid)
if [ -n "$relay" ]; then
  kill -TERM "$relay"
  for _ in $(seq 1 50); do jmap_alive "$relay" || break; sleep 0.05; done
  jmap_log "SMTP relay $relay stopped"
fi
rm -f "$JMAP_RELAY_PIDFILE"
bash "$HERE/syslog-sink.sh" stop

if [ "${1:-}" = --purge ]; then
  case "$JMAP_BASE" in /|"") jmap_die "refusing to purge '$JMAP_BASE'" ;; esac
  rm -rf "$JMAP_BASE"
  jmap_log "purged $JMAP_BASE"
fi
