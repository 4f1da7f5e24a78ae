#!/usr/bin/env bash
# Start the test S3 server: OpenStack Swift 2.30 from Debian 12 with its s3api middleware, one node on
# loopback, for the test suite, the benchmarks and an outside acceptance run (ADR 0156). Idempotent:
# installs missing packages, (re)writes config and rings, starts the servers that do not run (restarts
# them when the config changed), creates the bucket, and prints the service's settings on stdout:
#
#   CRM_S3_ENDPOINT=http://127.0.0.1:17480
#   CRM_S3_BUCKET=crm-test
#   CRM_S3_REGION=us-east-1
#   CRM_S3_ACCESS_KEY_ID=crm:tester
#   CRM_S3_SECRET_ACCESS_KEY=crm-test-secret-key
#
# Progress goes to stderr. Needs root (apt-get; the servers drop to user "swift" themselves). No systemd,
# no kernel module, no block device: objects are files with extended attributes under $S3_BASE.
#
# Env (defaults): S3_BASE=/tmp/crm-test-s3  S3_PORT=17480 (the S3 API; 17481-17483 for the storage servers)
#   S3_BUCKET=crm-test  S3_REGION=us-east-1  S3_ACCESS_KEY_ID=crm:tester  S3_SECRET_ACCESS_KEY=crm-test-secret-key
#   S3_RESET=0      1 = stop and wipe every object first
#   S3_LEASE=<pid>  a test run using the server (lib.sh, "Leases"); released by stop.sh --release PID
#   S3_KEEP=1       with S3_LEASE: a server this call starts is kept, like one started by hand
set -euo pipefail
S3_SCRIPT=start
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
s3_require_root "$0" "$@"
s3_lock
was_running=0
[ -n "$(s3_server_pid proxy)" ] && was_running=1
if [ -n "${S3_LEASE:-}" ]; then s3_take_lease "$S3_LEASE"; fi
if [ "$was_running" = 0 ]; then
  if [ -n "${S3_LEASE:-}" ] && [ "${S3_KEEP:-0}" != 1 ]; then : > "$S3_STOP_MARKER"; else rm -f "$S3_STOP_MARKER"; fi
fi

# --- packages ------------------------------------------------------------------------------------------
PKGS="swift swift-proxy swift-object swift-container swift-account memcached curl"
missing=""
for p in $PKGS; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"; done
if [ -n "$missing" ]; then
  s3_log "installing:$missing"
  own_policy=0
  # Exit 101 = "action forbidden": the packages' services (and rsyslog they pull in) are not started.
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && own_policy=1; fi
  trap '[ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
  [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  trap - EXIT
fi
id swift >/dev/null 2>&1 || s3_die "user swift missing after install"

stop_servers() {
  local kind pid
  for kind in $S3_SERVERS; do
    pid=$(s3_server_pid "$kind")
    [ -n "$pid" ] || continue
    kill -TERM "$pid"
    for _ in $(seq 1 50); do s3_alive "$pid" || break; sleep 0.1; done
    s3_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
  done
}

if [ "${S3_RESET:-0}" = 1 ]; then
  stop_servers
  s3_log "S3_RESET=1: wiping every object in $S3_BASE"
  rm -rf "$S3_BASE/srv" "$S3_ETC"/*.ring.gz "$S3_ETC"/*.builder
fi

# --- directories ------------------------------------------------------------------------------------------
install -d -m 755 "$S3_ETC" "$S3_RUN" "$S3_LOG"
install -d -o swift -g swift -m 750 "$S3_BASE/srv" "$S3_BASE/srv/node" "$S3_BASE/srv/node/d1" "$S3_BASE/cache"

# --- config -------------------------------------------------------------------------------------------------
# Every server reads swift.conf from swift_dir, never /etc/swift: the machine's own Swift (if any) is untouched.
common() { # port
  cat <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
swift_dir = $S3_ETC
devices = $S3_BASE/srv/node
mount_check = false
user = swift
workers = 0
log_level = WARNING
# no syslog here: -v sends the log to stderr, kept in $S3_LOG
log_address = $S3_RUN/no-syslog
EOF
}
SWIFT_CONF=$(cat <<EOF
[swift-hash]
swift_hash_path_suffix = crm-test-s3
swift_hash_path_prefix = crm-test-s3
[storage-policy:0]
name = Policy-0
default = yes
[swift-constraints]
EOF
)
OBJECT_CONF=$(common "$S3_OBJECT_PORT"; cat <<EOF
[pipeline:main]
pipeline = object-server
[app:object-server]
use = egg:swift#object
EOF
)
CONTAINER_CONF=$(common "$S3_CONTAINER_PORT"; cat <<EOF
[pipeline:main]
pipeline = container-server
[app:container-server]
use = egg:swift#container
EOF
)
ACCOUNT_CONF=$(common "$S3_ACCOUNT_PORT"; cat <<EOF
[pipeline:main]
pipeline = account-server
[app:account-server]
use = egg:swift#account
EOF
)
# s3api before tempauth (it turns the S3 signature into what tempauth checks), slo for multipart uploads;
# tempauth needs the cache (memcached, loopback).
PROXY_CONF=$(common "$S3_PORT"; cat <<EOF
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$S3_MEMCACHED_PORT
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:s3api]
use = egg:swift#s3api
location = $S3_REGION
s3_acl = false
[filter:tempauth]
use = egg:swift#tempauth
user_${S3_ACCESS_KEY_ID%%:*}_${S3_ACCESS_KEY_ID#*:} = $S3_SECRET_ACCESS_KEY .admin
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
EOF
)
changed=0
write_conf() { # file content
  if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then printf '%s\n' "$2" > "$1"; changed=1; fi
}
write_conf "$S3_ETC/swift.conf" "$SWIFT_CONF"
write_conf "$S3_ETC/object-server.conf" "$OBJECT_CONF"
write_conf "$S3_ETC/container-server.conf" "$CONTAINER_CONF"
write_conf "$S3_ETC/account-server.conf" "$ACCOUNT_CONF"
write_conf "$S3_ETC/proxy-server.conf" "$PROXY_CONF"
# The credentials are in proxy-server.conf: readable by root and swift only.
chown root:swift "$S3_ETC"/*.conf && chmod 640 "$S3_ETC"/*.conf

# --- rings: one device, one replica; rebuilt when a port changed -------------------------------------------
ring_stamp="$S3_OBJECT_PORT $S3_CONTAINER_PORT $S3_ACCOUNT_PORT"
if [ "$(cat "$S3_ETC/rings.stamp" 2>/dev/null)" != "$ring_stamp" ] || [ ! -e "$S3_ETC/object.ring.gz" ]; then
  for ring in object:$S3_OBJECT_PORT container:$S3_CONTAINER_PORT account:$S3_ACCOUNT_PORT; do
    name=${ring%%:*} port=${ring#*:}
    rm -f "$S3_ETC/$name.builder" "$S3_ETC/$name.ring.gz"
    swift-ring-builder "$S3_ETC/$name.builder" create 6 1 1 >/dev/null
    swift-ring-builder "$S3_ETC/$name.builder" add --region 1 --zone 1 --ip 127.0.0.1 --port "$port" --device d1 --weight 100 >/dev/null
    swift-ring-builder "$S3_ETC/$name.builder" rebalance >/dev/null || true
    [ -e "$S3_ETC/$name.ring.gz" ] || s3_die "swift-ring-builder made no $name ring"
  done
  echo "$ring_stamp" > "$S3_ETC/rings.stamp"
  changed=1
fi

# --- start (or restart on a config change) ----------------------------------------------------------------
if [ "$changed" = 1 ] && [ -n "$(s3_server_pid proxy)$(s3_server_pid object)" ]; then s3_log "config changed, restarting"; stop_servers; fi
for kind in $S3_SERVERS; do
  [ -n "$(s3_server_pid "$kind")" ] && continue
  case $kind in memcached) port=$S3_MEMCACHED_PORT ;; object) port=$S3_OBJECT_PORT ;; container) port=$S3_CONTAINER_PORT ;; account) port=$S3_ACCOUNT_PORT ;; proxy) port=$S3_PORT ;; esac
  s3_port_busy "$port" && s3_die "port $port on 127.0.0.1 is already in use (set S3_PORT / S3_*_PORT)"
  # Detached stdio, and not the lock: a caller that captures our output must not wait for the daemons.
  if [ "$kind" = memcached ]; then
    setsid memcached -l 127.0.0.1 -p "$S3_MEMCACHED_PORT" -U 0 -m 32 -u memcache </dev/null >>"$S3_LOG/memcached.log" 2>&1 9>&- &
  else
    setsid "swift-$kind-server" "$S3_ETC/$kind-server.conf" -v </dev/null >>"$S3_LOG/$kind.log" 2>&1 9>&- &
  fi
  echo $! > "$S3_RUN/$kind.pid"
done

# Up = the proxy's healthcheck answers and the storage servers accept connections.
up=0
for _ in $(seq 1 300); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$S3_PORT/healthcheck" || true)" = 200 ] &&
    s3_port_busy "$S3_OBJECT_PORT" && s3_port_busy "$S3_CONTAINER_PORT" && s3_port_busy "$S3_ACCOUNT_PORT"; then
    up=1
    break
  fi
  sleep 0.1
done
if [ "$up" != 1 ]; then
  tail -n 20 "$S3_LOG"/*.log >&2 || true
  s3_die "the S3 server did not come up on 127.0.0.1:$S3_PORT"
fi

# --- the bucket, created through the S3 API itself (curl signs SigV4); an existing one of ours answers 409 ---
# The access key holds a colon, which --user would split: it goes percent-encoded in the URL's user part.
enc() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n' | sed 's/../%&/g'; }
EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
bucket_url="http://$(enc "$S3_ACCESS_KEY_ID"):$(enc "$S3_SECRET_ACCESS_KEY")@127.0.0.1:$S3_PORT/$S3_BUCKET"
code=000
for _ in $(seq 1 50); do
  code=$(curl -s -o "$S3_RUN/bucket.answer" -w '%{http_code}' --aws-sigv4 "aws:amz:$S3_REGION:s3" -H "x-amz-content-sha256: $EMPTY_SHA256" -X PUT "$bucket_url" || true)
  case "$code" in 200 | 409) break ;; esac
  sleep 0.2
done
case "$code" in
  200) ;;
  409) grep -q BucketAlreadyOwnedByYou "$S3_RUN/bucket.answer" || grep -q BucketAlreadyExists "$S3_RUN/bucket.answer" || s3_die "bucket $S3_BUCKET: $(cat "$S3_RUN/bucket.answer")" ;;
  *) s3_die "creating the bucket $S3_BUCKET answered HTTP $code: $(cat "$S3_RUN/bucket.answer" 2>/dev/null)" ;;
esac
rm -f "$S3_RUN/bucket.answer"
s3_log "S3 API on http://127.0.0.1:$S3_PORT, bucket $S3_BUCKET, data and logs in $S3_BASE"

echo "CRM_S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
echo "CRM_S3_BUCKET=$S3_BUCKET"
echo "CRM_S3_REGION=$S3_REGION"
echo "CRM_S3_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID"
echo "CRM_S3_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY"
