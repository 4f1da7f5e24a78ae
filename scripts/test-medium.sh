#!/usr/bin/env bash
# The medium tier (npm run test:medium): services, repositories, the sync and sending against the run's
# throwaway PostgreSQL and the in-process JMAP fake; no build, no Cyrus, no spawned process
# (.mocharc.medium.json, CONTRIBUTING.md "Tests"). With no file arguments every file of test/medium/;
# with files (or globs) just those, in seconds:
#   npm run test:medium -- test/medium/sync/mail-sync.test.ts --grep 'Sent'
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  case "$arg" in -*) ;; *) exec npx mocha --config .mocharc.medium.json "$@" ;; esac
done
# Every file of the tier, the slowest first (test/slow-first.txt, as the end-to-end tier does), then the rest.
slow=()
while IFS= read -r file; do [ -f "$file" ] && slow+=("$file"); done < <(grep '^test/medium/' test/slow-first.txt)
rest=()
while IFS= read -r file; do
  printf '%s\n' "${slow[@]}" | grep -qxF -- "$file" || rest+=("$file")
done < <(find test/medium -name '*.test.ts' | LC_ALL=C sort)
exec npx mocha --config .mocharc.medium.json "${slow[@]}" "${rest[@]}" "$@"
