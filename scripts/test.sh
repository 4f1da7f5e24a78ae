#!/usr/bin/env bash
# The one test command (npm test): builds the program (CLI tests run bin/crm-admin from dist/), then
# runs every test against real services. The mocha global setup starts a throwaway PostgreSQL and the
# Cyrus JMAP server (scripts/jmap/start.sh, which installs Debian's packages on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
# With no arguments, every suite; with arguments (files or globs), just those.
if [ "$#" -eq 0 ]; then set -- 'test/**/*.test.ts'; fi
exec npx mocha "$@"
