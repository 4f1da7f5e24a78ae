#!/usr/bin/env bash
# Runs test files one at a time, each alone in its own mocha run (its own throwaway PostgreSQL, its own
# worker): "each test file passes when run alone" (issue 39), checked rather than hoped for. One build,
# then one run per file, never two at once. Prints a line per file (ok/FAILED, seconds, load average),
# the end of a failed file's output, and fails if any file failed.
#   bash scripts/test-each.sh test/ops/backup.test.ts test/admin/users-cli.test.ts
#   bash scripts/test-each.sh --since de2ee88      # every test file changed (and still there) since a ref
# Run it with TEST_KEEP_JMAP=1 when Cyrus is already running (as with scripts/test.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--since" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --since <git ref> | <test files...>" >&2; exit 2; }
  mapfile -t files < <(git diff --name-only "$2" -- test | grep '\.test\.ts$' | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
else
  files=("$@")
fi
[ "${#files[@]}" -gt 0 ] || { echo "no test files given" >&2; exit 2; }
npm run build --silent || exit 1
logs=$(mktemp -d /tmp/test-each.XXXXXX)
failed=()
for file in "${files[@]}"; do
  start=$(date +%s)
  log="$logs/$(echo "$file" | tr '/' '_').log"
  # Each tier on its own harness (CONTRIBUTING.md, "Tests").
  config=()
  case "$file" in test/unit/*) config=(--config .mocharc.unit.json) ;; test/medium/*) config=(--config .mocharc.medium.json) ;; esac
  if npx mocha "${config[@]}" "$file" >"$log" 2>&1; then outcome=ok; else outcome=FAILED; failed+=("$file"); fi
  printf '%-7s %5ss  load %s  %s\n' "$outcome" "$(($(date +%s) - start))" "$(cut -d' ' -f1 /proc/loadavg)" "$file"
  if [ "$outcome" = FAILED ]; then tail -n 40 "$log" | sed 's/^/    | /'; fi
done
echo "${#files[@]} files run alone, ${#failed[@]} failed (logs in $logs)"
if [ "${#failed[@]}" -gt 0 ]; then
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
rm -rf "$logs"
