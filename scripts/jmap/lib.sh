# Shared settings and helpers for the test Cyrus JMAP server scripts (sourced, not run).
# Defaults differ from the shared reference recipe (8080/1143/2424, /tmp/crm-jmap-server) on purpose,
# so a developer's reference instance and the project's test instance can run side by side.

JMAP_BASE="${JMAP_BASE:-/tmp/crm-test-jmap}"
JMAP_HTTP_PORT="${JMAP_HTTP_PORT:-18080}"
JMAP_IMAP_PORT="${JMAP_IMAP_PORT:-11143}"
JMAP_LMTP_PORT="${JMAP_LMTP_PORT:-12424}"
JMAP_SMTP_PORT="${JMAP_SMTP_PORT:-12525}"
JMAP_CONF="$JMAP_BASE/etc/imapd.conf"
JMAP_CYRUS_CONF="$JMAP_BASE/etc/cyrus.conf"
JMAP_SASLDB="$JMAP_BASE/etc/sasldb2"
JMAP_PIDFILE="$JMAP_BASE/run/master.pid"
JMAP_SINK_PIDFILE="$JMAP_BASE/run/syslog-sink.pid"
JMAP_RELAY_PIDFILE="$JMAP_BASE/run/smtp-relay.pid"

jmap_log() { echo "[jmap:${JMAP_SCRIPT:-?}] $*"; }
jmap_die() { echo "[jmap:${JMAP_SCRIPT:-?}] ERROR: $*" >&2; exit 1; }

# Several steps need root: apt-get, cyrmaster (it drops to "cyrus" itself), and the sasldb, which
# belongs to cyrus:mail. Re-exec under sudo when that is possible without a prompt.
jmap_require_root() {
  [ "$(id -u)" = 0 ] && return 0
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n -E bash "$@"
  fi
  jmap_die "must run as root (or with password-less sudo)"
}

# A process counts as alive only if it is not a zombie: in containers without a reaping init a
# stopped daemon can linger as Z, and `kill -0` would still succeed on it.
jmap_alive() {
  local pid="$1"
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

# Pid of OUR cyrmaster (its command line names our config), so another Cyrus on the machine,
# e.g. the reference instance, is never mistaken for ours or stopped by us.
jmap_master_pid() {
  local pid
  pid=$(cat "$JMAP_PIDFILE" 2>/dev/null) || return 0
  jmap_alive "$pid" || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-C $JMAP_CONF " && echo "$pid"
  return 0
}

# Serialises start.sh/stop.sh on fd 8. Daemons started while holding it must get `8>&-`, or they
# would inherit the lock and keep it for their whole life.
# JMAP_BASE defaults to a fixed name in /tmp and the scripts write and chown -R below it as root: a
# directory (or symlink) someone else planted there first must stop us, not be written through.
jmap_check_base() {
  if [ -L "$JMAP_BASE" ]; then jmap_die "$JMAP_BASE is a symlink; refusing to use it (set JMAP_BASE elsewhere)"; fi
  if [ -e "$JMAP_BASE" ] && [ "$(stat -c %u "$JMAP_BASE")" != "$(id -u)" ]; then
    jmap_die "$JMAP_BASE exists but is not owned by $(id -un); refusing to use it (set JMAP_BASE elsewhere)"
  fi
}

jmap_lock_start_stop() {
  jmap_check_base
  install -d -m 755 "$JMAP_BASE"
  jmap_check_base
  exec 8>"$JMAP_BASE/.start-stop.lock"
  flock -w 300 8 || jmap_die "another start/stop has held $JMAP_BASE/.start-stop.lock for 5 minutes"
}

jmap_port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# saslpasswd2 -c creates the user or, when it exists, just sets the new password. flock: test files
# may add users concurrently and the sasldb is a single-writer file.
jmap_set_password() { # user@domain password
  local user="$1" pass="$2" local_part realm=localhost
  local_part="${user%@*}"
  case "$user" in *@*) realm="${user##*@}" ;; esac
  (
    flock -w 30 9 || jmap_die "timed out waiting for the sasldb lock"
    printf '%s' "$pass" | saslpasswd2 -p -c -f "$JMAP_SASLDB" -u "$realm" "$local_part"
    chown cyrus:mail "$JMAP_SASLDB" && chmod 640 "$JMAP_SASLDB"
  ) 9>"$JMAP_BASE/run/sasldb.lock"
}

# IMAP string quoting (RFC 3501 quoted): only " and \ need escaping.
jmap_imap_quote() { local s="${1//\\/\\\\}"; printf '"%s"' "${s//\"/\\\"}"; }

# One IMAP LOGIN makes Cyrus autocreate INBOX and the special-use folders (autocreate_quota);
# a JMAP/HTTP login does not, and the JMAP session then answers 500 for that user.
jmap_imap_login() { # user password
  local line ok=1
  exec 7<>"/dev/tcp/127.0.0.1/$JMAP_IMAP_PORT" || jmap_die "cannot connect to IMAP port $JMAP_IMAP_PORT"
  IFS= read -r -t 10 line <&7 || { exec 7>&-; jmap_die "no IMAP greeting"; }
  printf 'a LOGIN %s %s\r\nb LOGOUT\r\n' "$(jmap_imap_quote "$1")" "$(jmap_imap_quote "$2")" >&7
  while IFS= read -r -t 10 line <&7; do
    case "$line" in
      "a OK"*) ok=0; break ;;
      "a "*) break ;;
    esac
  done
  exec 7>&-
  [ "$ok" = 0 ] || jmap_die "IMAP login failed for $1: ${line%$'\r'}"
}

# The first authenticated request after mailbox creation can lag a moment behind: retry briefly.
jmap_wait_session() { # user password
  local code=000
  for _ in $(seq 1 50); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -u "$1:$2" "http://127.0.0.1:$JMAP_HTTP_PORT/jmap/" || true)
    [ "$code" = 200 ] && return 0
    sleep 0.1
  done
  jmap_die "JMAP session for $1 answered HTTP $code"
}

jmap_add_user() { # user password
  case "$1" in *@*) ;; *) jmap_die "user must be a full address (user@domain): $1" ;; esac
  jmap_set_password "$1" "$2"
  jmap_imap_login "$1" "$2"
  jmap_wait_session "$1" "$2"
}

# Pid of OUR SMTP relay (its command line names our relay script and port), like jmap_master_pid.
jmap_relay_pid() {
  local pid
  pid=$(cat "$JMAP_RELAY_PIDFILE" 2>/dev/null) || return 0
  jmap_alive "$pid" || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "smtp-relay.mjs --port $JMAP_SMTP_PORT " && echo "$pid"
  return 0
}

# --- Leases: test runs using the server (test/support/global-setup.ts) -----------------------------------
# A run registers a lease (its pid and that process's start time, so a reused pid is not mistaken for it)
# when it calls start.sh with JMAP_LEASE=<pid>, and releases it with `stop.sh --release <pid>`. The server
# is stopped by the release that leaves no live lease, and only when a test run started it (the marker
# below): a server someone started by hand, or one another run still uses, keeps running.
JMAP_LEASE_DIR="$JMAP_BASE/run/leases"
JMAP_STOP_MARKER="$JMAP_BASE/run/started-by-test-run"

jmap_proc_start() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }

jmap_take_lease() { # pid
  install -d -m 755 "$JMAP_LEASE_DIR"
  jmap_proc_start "$1" > "$JMAP_LEASE_DIR/$1"
}

# Removes leases whose process is gone (a run killed before its teardown), then prints how many remain.
jmap_live_leases() {
  local f pid n=0
  for f in "$JMAP_LEASE_DIR"/*; do
    [ -e "$f" ] || continue
    pid=$(basename "$f")
    if jmap_alive "$pid" && [ "$(jmap_proc_start "$pid")" = "$(cat "$f" 2>/dev/null)" ]; then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo "$n"
}
