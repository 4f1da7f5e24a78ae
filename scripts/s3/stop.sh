#!/usr/bin/env bash
# Stop the test S3 server started by start.sh (Swift's proxy, object, container and account servers, memcached).
#   usage: stop.sh [--purge]      --purge also deletes $S3_BASE (every object, the config and the rings)
#          stop.sh --release PID  a test run is done with the server (lib.sh, "Leases"): stops it only
#                                 when a test run started it and no other run still uses it
# Only processes that belong to OUR config are touched; another Swift or memcached keeps running.
set -euo pipefail
S3_SCRIPT=stop
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
case "${1:-}" in
  "" | --purge) ;;
  --release) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: $0 --release PID" >&2; exit 2; } ;;
  *) echo "usage: $0 [--purge | --release PID]" >&2; exit 2 ;;
esac
# Nothing was ever started here: nothing to release or stop.
if [ ! -d "$S3_BASE" ]; then exit 0; fi
s3_require_root "$0" "$@"
s3_lock

if [ "${1:-}" = --release ]; then
  rm -f "$S3_LEASE_DIR/$2"
  others=$(s3_live_leases)
  if [ ! -e "$S3_STOP_MARKER" ]; then s3_log "released; the server was not started by a test run, it keeps running"; exit 0; fi
  if [ "$others" != 0 ]; then s3_log "released; $others other test run(s) still use the server"; exit 0; fi
fi
rm -f "$S3_STOP_MARKER"

for kind in proxy object container account memcached; do
  pid=$(s3_server_pid "$kind")
  if [ -z "$pid" ]; then continue; fi
  kill -TERM "$pid"
  for _ in $(seq 1 100); do s3_alive "$pid" || break; sleep 0.1; done
  if s3_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  s3_log "$kind ($pid) stopped"
  rm -f "$S3_RUN/$kind.pid"
done

if [ "${1:-}" = --purge ]; then
  case "$S3_BASE" in / | "") s3_die "refusing to purge '$S3_BASE'" ;; esac
  rm -rf "$S3_BASE"
  s3_log "purged $S3_BASE"
fi
