#!/usr/bin/env bash
# A minimal /dev/log listener for the test Cyrus server (containers usually run no syslog daemon,
# and Cyrus logs nothing anywhere else). Used by start.sh / stop.sh; rarely needed by hand.
#   usage: syslog-sink.sh start|stop|status
# "start" does nothing when something already listens on /dev/log (a real syslog, or a sink of
# another test server): /dev/log is machine-wide, so we only ever take it when it is free, and on
# stop remove it only if it is still the socket our sink created.
set -euo pipefail
JMAP_SCRIPT=syslog-sink
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
SINK="$JMAP_BASE/bin/syslog-sink.pl"
OUT="$JMAP_BASE/log/syslog.log"

sink_pid() {
  local pid; pid=$(cat "$JMAP_SINK_PIDFILE" 2>/dev/null) || return 0
  jmap_alive "$pid" && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$SINK" && echo "$pid"
  return 0
}
dev_log_listened() { [ -S /dev/log ] && logger --socket-errors=on -u /dev/log -t crm-test-jmap "probe" 2>/dev/null; }

case "${1:-}" in
  start)
    [ "${JMAP_SYSLOG:-1}" = 1 ] || exit 0
    [ -n "$(sink_pid)" ] && exit 0
    dev_log_listened && exit 0
    [ -w /dev ] || { jmap_log "/dev is not writable"; exit 1; }
    install -d -m 755 "$JMAP_BASE/bin" "$JMAP_BASE/log" "$JMAP_BASE/run"
    cat > "$SINK" <<'EOF'
use strict; use warnings; use IO::Socket::UNIX; use Socket;
my ($path, $out) = @ARGV;
unlink $path;    # a stale socket nobody listens on (checked by the caller)
my $s = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path) or die "bind $path: $!\n";
chmod 0666, $path;
my @mine = (stat $path)[0, 1];
open(my $fh, '>>', $out) or die "$out: $!\n"; $fh->autoflush(1);
$SIG{TERM} = $SIG{INT} = sub {
  my @now = (stat $path)[0, 1];
  unlink $path if @now && $now[0] == $mine[0] && $now[1] == $mine[1];
  exit 0 };
while (1) { my $m; defined($s->recv($m, 65536)) or next; $m =~ s/\0\z//; print $fh "$m\n" }
EOF
    setsid perl "$SINK" /dev/log "$OUT" </dev/null >/dev/null 2>>"$JMAP_BASE/log/syslog-sink.err" &
    echo $! > "$JMAP_SINK_PIDFILE"
    for _ in $(seq 1 30); do dev_log_listened && { jmap_log "listening on /dev/log -> $OUT"; exit 0; }; sleep 0.05; done
    jmap_log "sink did not come up: $(cat "$JMAP_BASE/log/syslog-sink.err" 2>/dev/null)"; exit 1
    ;;
  stop)
    pid=$(sink_pid)
    if [ -n "$pid" ]; then
      kill -TERM "$pid"
      for _ in $(seq 1 30); do jmap_alive "$pid" || break; sleep 0.05; done
      jmap_log "sink $pid stopped"
    fi
    rm -f "$JMAP_SINK_PIDFILE"
    ;;
  status)
    pid=$(sink_pid); [ -n "$pid" ] && echo "running (pid $pid)" || echo "not running"
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
