#!/usr/bin/env bash
# Create a mail user on the running test server (or reset its password), autocreate its mailboxes
# and wait until its JMAP session answers 200. Lets each test file work in its own fresh account
# (e.g. u-<random>@example.test) instead of sharing alice's mailbox.
#   usage: add-user.sh USER@DOMAIN PASSWORD
#   env:   JMAP_BASE, JMAP_HTTP_PORT, JMAP_IMAP_PORT as for start.sh
set -euo pipefail
JMAP_SCRIPT=add-user
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
. "$HERE/lib.sh"
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then echo "usage: $0 USER@DOMAIN PASSWORD" >&2; exit 2; fi
jmap_require_root "$0" "$@"
[ -n "$(jmap_master_pid)" ] || jmap_die "test server not running (JMAP_BASE=$JMAP_BASE); run scripts/jmap/start.sh"
jmap_add_user "$1" "$2"
jmap_log "user $1 ready"
