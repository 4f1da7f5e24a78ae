# Shared settings and helpers of the test S3 server scripts (sourced, not run): OpenStack Swift with its
# s3api middleware, from Debian's packages, on loopback (ADR 0156).

S3_BASE="${S3_BASE:-/tmp/crm-test-s3}"
S3_PORT="${S3_PORT:-17480}"
# The storage servers behind the proxy, loopback only.
S3_OBJECT_PORT="${S3_OBJECT_PORT:-17481}"
S3_CONTAINER_PORT="${S3_CONTAINER_PORT:-17482}"
S3_ACCOUNT_PORT="${S3_ACCOUNT_PORT:-17483}"
# tempauth keeps its tokens (and s3api its signature checks) in memcached.
S3_MEMCACHED_PORT="${S3_MEMCACHED_PORT:-17484}"
S3_BUCKET="${S3_BUCKET:-crm-test}"
S3_REGION="${S3_REGION:-us-east-1}"
# tempauth's account:user is the S3 access key, its password the secret key.
S3_ACCESS_KEY_ID="${S3_ACCESS_KEY_ID:-crm:tester}"
S3_SECRET_ACCESS_KEY="${S3_SECRET_ACCESS_KEY:-crm-test-secret-key}"
S3_ETC="$S3_BASE/etc"
S3_RUN="$S3_BASE/run"
S3_LOG="$S3_BASE/log"
S3_SERVERS="memcached object container account proxy"
S3_LEASE_DIR="$S3_RUN/leases"
S3_STOP_MARKER="$S3_RUN/started-by-test-run"

s3_log() { echo "[s3:${S3_SCRIPT:-?}] $*" >&2; }
s3_die() { echo "[s3:${S3_SCRIPT:-?}] ERROR: $*" >&2; exit 1; }

s3_require_root() {
  [ "$(id -u)" = 0 ] && return 0
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then exec sudo -n -E bash "$@"; fi
  s3_die "must run as root (or with password-less sudo): apt-get, and the servers drop to user swift"
}

# Alive and not a zombie (containers without a reaping init keep stopped daemons as Z).
s3_alive() {
  local pid="$1"
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

# Pid of OUR server of that kind: its command line names our config file (memcached: our port).
s3_server_pid() { # memcached|object|container|account|proxy
  local pid mark="$S3_ETC/$1-server.conf"
  [ "$1" = memcached ] && mark="-p $S3_MEMCACHED_PORT "
  pid=$(cat "$S3_RUN/$1.pid" 2>/dev/null) || return 0
  s3_alive "$pid" || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$mark" && echo "$pid"
  return 0
}

s3_port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A directory (or symlink) someone else planted at the fixed name must stop us, not be written through.
s3_check_base() {
  if [ -L "$S3_BASE" ]; then s3_die "$S3_BASE is a symlink; refusing to use it (set S3_BASE elsewhere)"; fi
  if [ -e "$S3_BASE" ] && [ "$(stat -c %u "$S3_BASE")" != "$(id -u)" ]; then s3_die "$S3_BASE is not owned by $(id -un); refusing to use it"; fi
}

# start.sh and stop.sh one at a time (fd 9); daemons get 9>&- so they do not inherit the lock.
s3_lock() {
  s3_check_base
  install -d -m 755 "$S3_BASE"
  s3_check_base
  exec 9>"$S3_BASE/.start-stop.lock"
  flock -w 300 9 || s3_die "another start/stop has held $S3_BASE/.start-stop.lock for 5 minutes"
}

# --- Leases (like scripts/jmap/lib.sh): test runs using the server --------------------------------------
s3_proc_start() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }
s3_take_lease() { install -d -m 755 "$S3_LEASE_DIR"; s3_proc_start "$1" > "$S3_LEASE_DIR/$1"; }
s3_live_leases() {
  local f pid n=0
  for f in "$S3_LEASE_DIR"/*; do
    [ -e "$f" ] || continue
    pid=$(basename "$f")
    if s3_alive "$pid" && [ "$(s3_proc_start "$pid")" = "$(cat "$f" 2>/dev/null)" ]; then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo "$n"
}
