#!/usr/bin/env bash
# Lint: every hand-written mutation (test/mutations/*.patch, scripts/mutations.sh) still applies to src/ as
# it is, and names test files that exist. A patch that no longer applies checks nothing: refresh it
# (apply it by hand, redo the change, `git diff > test/mutations/<name>.patch` with its header) or
# remove it. StrykerJS covers the rest (npm run test:stryker); these patches are kept for races and
# absences, which an operator mutation cannot express (CONTRIBUTING.md, "Mutation testing").
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for patch in test/mutations/*.patch; do
  if ! out="$(git apply --check "$patch" 2>&1)"; then
    echo "$patch no longer applies: $out" >&2
    status=1
  fi
  while IFS='|' read -r file _; do
    file="$(echo "$file" | xargs)"
    [ -f "$file" ] || { echo "$patch names $file, which does not exist" >&2; status=1; }
  done < <(sed -n 's/^Check: //p' "$patch")
done
exit "$status"
