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
  # Every test file, the slowest first (test/slow-first.txt), then the rest in alphabetical order.
  slow=()
  while IFS= read -r file; do [ -f "$file" ] && slow+=("$file"); done < <(grep -v -e '^#' -e '^$' test/slow-first.txt)
  rest=()
  while IFS= read -r file; do
    printf '%s\n' "${slow[@]}" | grep -qxF -- "$file" || rest+=("$file")
  done < <(find test -name '*.test.ts' | LC_ALL=C sort)
  set -- "${slow[@]}" "${rest[@]}"
fi
npm run build --silent
exec npx mocha "$@"
