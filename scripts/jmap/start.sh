#!/usr/bin/env bash
# Start the test JMAP server: Debian 12's Cyrus IMAP 3.6 on loopback, for the test suite and benchmarks.
# Idempotent: installs missing packages, (re)writes config, starts cyrmaster unless it already runs
# (restarts it when the config changed), creates or updates the users, waits until each user's JMAP
# session answers 200. Needs root (apt-get; cyrmaster drops to user "cyrus" itself). No systemd.
#
# Env (defaults):
#   JMAP_BASE=/tmp/crm-test-jmap     all state: etc/ lib/ spool/ search/ run/ log/ bin/
#   JMAP_HTTP_PORT=18080  JMAP_IMAP_PORT=11143  JMAP_LMTP_PORT=12424   (127.0.0.1 only)
#   JMAP_SMTP_PORT=12525      the SMTP relay Cyrus submits to (scripts/jmap/smtp-relay.mjs, needs node_modules)
#   JMAP_USERS="alice@example.test:alicepw bob@example.test:bobpw carol@example.test:carolpw"
#   JMAP_ADMIN_PASS=adminpw   IMAP admin "admin" (not a mail user)
#   JMAP_SYSLOG=1             when nothing listens on /dev/log, run a sink -> $JMAP_BASE/log/syslog.log
#   JMAP_RESET=0              1 = stop and wipe all mail data first
#   JMAP_LEASE=<pid>          a test run using the server (lib.sh, "Leases"); released by stop.sh --release
#   JMAP_KEEP=1               with JMAP_LEASE: a server this call starts is kept, like one started by hand
set -euo pipefail
JMAP_SCRIPT=start
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
jmap_require_root "$0" "$@"
# Test runs started in parallel each call start.sh: one at a time, or two apt-gets collide, two
# cyrmasters race for the ports and the config gets rewritten under a running server.
jmap_lock_start_stop
# Decided under the lock: of two runs starting at once, only the first finds nothing running.
was_running=0
[ -n "$(jmap_master_pid)" ] && was_running=1
if [ -n "${JMAP_LEASE:-}" ]; then jmap_take_lease "$JMAP_LEASE"; fi
if [ "$was_running" = 0 ]; then
  # A cold start by a test run: the last run to release its lease stops the server again. Started by
  # hand (or by a run told to keep it): nobody's teardown stops it.
  if [ -n "${JMAP_LEASE:-}" ] && [ "${JMAP_KEEP:-0}" != 1 ]; then : > "$JMAP_STOP_MARKER"; else rm -f "$JMAP_STOP_MARKER"; fi
fi

USERS="${JMAP_USERS:-alice@example.test:alicepw bob@example.test:bobpw carol@example.test:carolpw}"
ADMIN_PASS="${JMAP_ADMIN_PASS:-adminpw}"
CYRBIN=/usr/lib/cyrus/bin
# ssmtp only satisfies cyrus-common's MTA dependency (otherwise apt pulls in exim4); it is never used.
PKGS="cyrus-common cyrus-imapd cyrus-caldav cyrus-admin cyrus-clients sasl2-bin ssmtp curl"

# --- packages ------------------------------------------------------------------------------------
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  jmap_log "installing:$missing"
  own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    # Exit 101 = "action forbidden": keeps the postinst from starting Debian's default instance,
    # which would grab the standard ports and its own /var/lib/cyrus.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && own_policy=1
  fi
  trap '[ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
  [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  trap - EXIT
fi
id cyrus >/dev/null 2>&1 || jmap_die "user cyrus missing after install"

stop_master() {
  local pid; pid=$(jmap_master_pid)
  [ -n "$pid" ] || return 0
  jmap_log "stopping cyrmaster (pid $pid)"
  kill -TERM "$pid"
  for _ in $(seq 1 100); do [ -z "$(jmap_master_pid)" ] && return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true; sleep 0.3
}

if [ "${JMAP_RESET:-0}" = 1 ]; then
  stop_master
  jmap_log "JMAP_RESET=1: wiping mail data in $JMAP_BASE"
  rm -rf "$JMAP_BASE/lib" "$JMAP_BASE/spool" "$JMAP_BASE/search" "$JMAP_SASLDB"
fi

# --- directories (cyrmaster does not create configdirectory's subfolders itself) ------------------
install -d -m 755 "$JMAP_BASE"
for d in etc bin log spool search run run/proc run/lock run/socket \
         lib lib/db lib/socket lib/log lib/msg lib/proc lib/quota lib/user lib/sieve lib/ptclient lib/sync; do
  install -d -o cyrus -g mail -m 750 "$JMAP_BASE/$d"
done
chmod 755 "$JMAP_BASE/log" "$JMAP_BASE/run"

# --- syslog -----------------------------------------------------------------------------------------
# Cyrus logs only through syslog(3), i.e. /dev/log. If something already listens there (a system
# syslog, or another test server's sink), use it. Otherwise run a tiny sink so failures can be
# debugged from $JMAP_BASE/log/syslog.log; without one Cyrus still works, its logs are just lost.
bash "$HERE/syslog-sink.sh" start 8>&- || jmap_log "warning: no syslog sink; Cyrus logs are discarded"

# --- config -------------------------------------------------------------------------------------------
IMAPD_CONF=$(cat <<EOF
# Written by scripts/jmap/start.sh: a throwaway Cyrus for tests, on loopback only.
configdirectory: $JMAP_BASE/lib
defaultpartition: default
partition-default: $JMAP_BASE/spool
proc_path: $JMAP_BASE/run/proc
mboxname_lockpath: $JMAP_BASE/run/lock
lmtpsocket: $JMAP_BASE/run/socket/lmtp
idlesocket: $JMAP_BASE/run/socket/idle
notifysocket: $JMAP_BASE/run/socket/notify
servername: localhost
syslog_prefix: crm-test-jmap
admins: admin
# accounts are full addresses (alice@example.test); the JMAP accountId is that address
virtdomains: userid
defaultdomain: internal
unixhierarchysep: yes
altnamespace: yes
hashimapspool: yes
umask: 077
# Basic auth over plain HTTP/IMAP (loopback only), passwords in our own sasldb; no delay after a
# failed login so the wrong-password tests stay fast
allowplaintext: yes
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: $JMAP_SASLDB
sasl_mech_list: PLAIN LOGIN
failedloginpause: 0
# JMAP lives in httpd; conversations (threads) must be on before the first mailbox exists
httpmodules: jmap
httpallowcompress: no
conversations: yes
conversations_db: twoskip
# INBOX and the special-use folders appear on a user's first IMAP login (or LMTP delivery)
autocreate_quota: 0
autocreate_post: yes
autocreate_inbox_folders: Drafts | Sent | Trash | Junk | Archive
autocreate_subscribe_folders: Drafts | Sent | Trash | Junk | Archive
xlist-drafts: Drafts
xlist-sent: Sent
xlist-trash: Trash
xlist-junk: Junk
xlist-archive: Archive
lmtp_downcase_rcpt: yes
# Email/query text filters (from, subject, text...) answer serverFail without a Xapian index;
# squatter in rolling mode keeps it current
search_engine: xapian
search_index_headers: no
search_batchsize: 1000
defaultsearchtier: t1
t1searchpartition-default: $JMAP_BASE/search
sync_log: yes
sync_log_channels: squatter
# EmailSubmission speaks SMTP to our relay (smtp-relay.mjs), which delivers into this server over
# LMTP: mail sent from one test user really arrives in another's mailbox, and nothing leaves the machine
smtp_backend: host
smtp_host: 127.0.0.1:$JMAP_SMTP_PORT
EOF
)
# cyrmaster does not pass -C on to its children, so every command names the config itself.
C="-C $JMAP_CONF"
CYRUS_CONF=$(cat <<EOF
# Written by scripts/jmap/start.sh
START {
  recover    cmd="$CYRBIN/ctl_cyrusdb $C -r"
}
SERVICES {
  imap       cmd="$CYRBIN/imapd $C" listen="127.0.0.1:$JMAP_IMAP_PORT" prefork=0 maxchild=50
  http       cmd="$CYRBIN/httpd $C" listen="127.0.0.1:$JMAP_HTTP_PORT" prefork=0 maxchild=50
  lmtp       cmd="$CYRBIN/lmtpd $C -a" listen="127.0.0.1:$JMAP_LMTP_PORT" prefork=0 maxchild=20
  lmtpunix   cmd="$CYRBIN/lmtpd $C" listen="$JMAP_BASE/run/socket/lmtp" prefork=0 maxchild=20
}
EVENTS {
  checkpoint cmd="$CYRBIN/ctl_cyrusdb $C -c" period=30
}
DAEMON {
  squatter   cmd="$CYRBIN/squatter $C -R -d -n squatter"
}
EOF
)
changed=0
if [ "$(cat "$JMAP_CONF" 2>/dev/null)" != "$IMAPD_CONF" ]; then printf '%s\n' "$IMAPD_CONF" > "$JMAP_CONF"; changed=1; fi
if [ "$(cat "$JMAP_CYRUS_CONF" 2>/dev/null)" != "$CYRUS_CONF" ]; then printf '%s\n' "$CYRUS_CONF" > "$JMAP_CYRUS_CONF"; changed=1; fi
chown -R cyrus:mail "$JMAP_BASE/etc" "$JMAP_BASE/bin"

# --- the SMTP relay (before Cyrus, so the first submission finds it) -----------------------------------
# Runs as the unprivileged cyrus user when that user can read the project (setpriv execs, so $! is the
# relay itself), else as root; loopback only either way. Restarted when its script changed. Without it
# (node_modules missing: npm install not run yet) Cyrus still starts, but JMAP submissions fail.
RELAY="$HERE/smtp-relay.mjs"
relay_sum=$(sha256sum "$RELAY" | cut -c1-16)
if [ -n "$(jmap_relay_pid)" ] && [ "$(cat "$JMAP_BASE/run/smtp-relay.sum" 2>/dev/null)" != "$relay_sum" ]; then
  kill -TERM "$(jmap_relay_pid)"; sleep 0.3
fi
if [ -z "$(jmap_relay_pid)" ]; then
  NODE_BIN=$(command -v node || true)
  MODULES="$HERE/../../node_modules"
  if [ -d "$MODULES/smtp-server" ] && [ -d "$MODULES/nodemailer" ] && [ -n "$NODE_BIN" ]; then
    jmap_port_busy "$JMAP_SMTP_PORT" && jmap_die "port $JMAP_SMTP_PORT on 127.0.0.1 is already in use (set JMAP_SMTP_PORT)"
    AS_CYRUS="setpriv --reuid=cyrus --regid=mail --init-groups"
    if ! $AS_CYRUS test -r "$RELAY" -a -r "$MODULES/smtp-server/package.json" -a -r "$MODULES/nodemailer/package.json" 2>/dev/null; then
      jmap_log "user cyrus cannot read $HERE or its node_modules: the SMTP relay runs as $(id -un)"
      AS_CYRUS=""
    fi
    touch "$JMAP_BASE/log/smtp-relay.log" && chmod 666 "$JMAP_BASE/log/smtp-relay.log"
    # shellcheck disable=SC2086
    setsid $AS_CYRUS "$NODE_BIN" "$RELAY" --port "$JMAP_SMTP_PORT" --lmtp-port "$JMAP_LMTP_PORT" --host 127.0.0.1 \
      </dev/null >>"$JMAP_BASE/log/smtp-relay.log" 2>&1 8>&- &
    echo $! > "$JMAP_RELAY_PIDFILE"
    echo "$relay_sum" > "$JMAP_BASE/run/smtp-relay.sum"
    for _ in $(seq 1 100); do jmap_port_busy "$JMAP_SMTP_PORT" && break; sleep 0.05; done
    if jmap_port_busy "$JMAP_SMTP_PORT"; then
      jmap_log "SMTP relay on 127.0.0.1:$JMAP_SMTP_PORT -> LMTP 127.0.0.1:$JMAP_LMTP_PORT"
    else
      jmap_log "warning: the SMTP relay did not come up, JMAP submissions will fail: $(tail -n 5 "$JMAP_BASE/log/smtp-relay.log")"
    fi
  else
    jmap_log "warning: node_modules/smtp-server or nodemailer missing (run npm install): no SMTP relay, JMAP submissions will fail"
  fi
fi

# --- start (or restart on a config change) ------------------------------------------------------------
jmap_set_password admin "$ADMIN_PASS"
if [ -n "$(jmap_master_pid)" ] && [ "$changed" = 1 ]; then jmap_log "config changed, restarting"; stop_master; fi
if [ -z "$(jmap_master_pid)" ]; then
  for p in "$JMAP_HTTP_PORT" "$JMAP_IMAP_PORT" "$JMAP_LMTP_PORT"; do
    jmap_port_busy "$p" && jmap_die "port $p on 127.0.0.1 is already in use (set JMAP_*_PORT)"
  done
  rm -f "$JMAP_PIDFILE"
  # Detached stdio: a caller that captures our output (a pipe) must not wait for the daemon's EOF.
  /usr/sbin/cyrmaster -C "$JMAP_CONF" -M "$JMAP_CYRUS_CONF" -p "$JMAP_PIDFILE" -d -L "$JMAP_BASE/log/master.log" \
    </dev/null >/dev/null 2>>"$JMAP_BASE/log/master.log" 8>&-
  jmap_log "cyrmaster started"
else
  jmap_log "cyrmaster already running (pid $(jmap_master_pid))"
fi

# Up = httpd asks for credentials (401) and imapd accepts connections.
up=0
for _ in $(seq 1 150); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$JMAP_HTTP_PORT/jmap/" || true)
  if [ "$code" = 401 ] && jmap_port_busy "$JMAP_IMAP_PORT"; then up=1; break; fi
  sleep 0.1
done
if [ "$up" != 1 ]; then
  tail -n 20 "$JMAP_BASE/log/master.log" "$JMAP_BASE/log/syslog.log" 2>/dev/null >&2 || true
  jmap_die "server did not come up on 127.0.0.1:$JMAP_HTTP_PORT / :$JMAP_IMAP_PORT"
fi

for up in $USERS; do
  jmap_add_user "${up%%:*}" "${up#*:}"
  jmap_log "user ${up%%:*} ready"
done
jmap_log "IMAP 127.0.0.1:$JMAP_IMAP_PORT  LMTP 127.0.0.1:$JMAP_LMTP_PORT  SMTP relay 127.0.0.1:$JMAP_SMTP_PORT  data $JMAP_BASE  logs $JMAP_BASE/log/"
echo "http://127.0.0.1:$JMAP_HTTP_PORT/.well-known/jmap"
