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
exec npx mocha --config .mocharc.medium.json 'test/medium/**/*.test.ts' "$@"
