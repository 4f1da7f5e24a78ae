#!/usr/bin/env bash
# The one test command (npm test): lint (type-aware rules and layer boundaries), builds the program
# (CLI tests run bin/crm-admin from dist/), then runs every test against real services. The mocha
# global setup starts a throwaway PostgreSQL and the Cyrus JMAP server (scripts/jmap/start.sh, which
# installs Debian's packages on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
# With no arguments, the lint and every suite; with arguments (files or globs), just those suites.
if [ "$#" -eq 0 ]; then
  npm run lint --silent
  set -- 'test/**/*.test.ts'
fi
npm run build --silent
exec npx mocha "$@"
