#!/usr/bin/env bash
# The one test command (npm test): lint (type-aware rules and layer boundaries), the unit tier, the
# medium tier (the run's PostgreSQL and the in-process JMAP fake, no build: scripts/test-medium.sh),
# then the build (CLI tests run bin/crm-admin from dist/) and the end-to-end tier against the real
# services. The mocha global setup starts a throwaway PostgreSQL, and the Cyrus JMAP server for the
# files that need it (scripts/jmap/start.sh, which installs Debian's packages on first use).
# CONTRIBUTING.md, "Tests", says which tier a test belongs to.
set -euo pipefail
cd "$(dirname "$0")/.."
# With no arguments, the lint and every tier; with arguments (files or globs, mocha options), just those
# files, each tier's on its own harness.
if [ "$#" -eq 0 ]; then
  # The lint runs beside the unit and medium tiers and the build (its ESLint holds one core for most of
  # a minute, the tiers leave the other idle half the time: docs/adr/0174-suite-in-three-workers.md);
  # its output is kept apart and printed whole when it ends, and a lint failure stops the run before
  # the end-to-end tier, as a lint run first did.
  lint_log="$(mktemp)"
  # A process group of its own (setsid), so that a tier that fails ends the lint beside it too.
  setsid npm run lint --silent >"$lint_log" 2>&1 &
  lint_pid=$!
  trap 'kill -- -"$lint_pid" 2>/dev/null; rm -f "$lint_log"' EXIT
  # CI has just run the unit tier alone, without a network (.ci/run): TEST_SKIP_UNIT=1 spares the repeat.
  [ "${TEST_SKIP_UNIT:-0}" = 1 ] || npm run test:unit --silent
  bash scripts/test-medium.sh
  npm run build --silent
  lint_status=0
  wait "$lint_pid" || lint_status=$?
  echo "--- npm run lint"
  cat "$lint_log"
  trap - EXIT
  rm -f "$lint_log"
  [ "$lint_status" -eq 0 ] || { echo "lint failed (exit $lint_status): the end-to-end tier did not run" >&2; exit 1; }
  built=1
  # Every end-to-end test file, the slowest first (test/slow-first.txt), then the rest in alphabetical order.
  slow=()
  while IFS= read -r file; do [ -f "$file" ] && slow+=("$file"); done < <(grep -v -e '^#' -e '^$' -e '^test/medium/' test/slow-first.txt)
  rest=()
  while IFS= read -r file; do
    printf '%s\n' "${slow[@]}" | grep -qxF -- "$file" || rest+=("$file")
  done < <(find test -name '*.test.ts' -not -path 'test/unit/*' -not -path 'test/medium/*' | LC_ALL=C sort)
  set -- "${slow[@]}" "${rest[@]}"
else
  # Files of the medium tier named among the arguments run on its own harness (no build), the others here.
  medium=()
  others=()
  options=()
  for arg in "$@"; do
    case "$arg" in
      -*) options+=("$arg") ;;
      test/medium/*) medium+=("$arg") ;;
      *) others+=("$arg") ;;
    esac
  done
  if [ "${#medium[@]}" -gt 0 ]; then
    if [ "${#others[@]}" -eq 0 ]; then exec bash scripts/test-medium.sh "$@"; fi
    bash scripts/test-medium.sh "${medium[@]}" "${options[@]}"
    set -- "${others[@]}" "${options[@]}"
  fi
fi
[ "${built:-0}" = 1 ] || npm run build --silent
exec npx mocha "$@"
