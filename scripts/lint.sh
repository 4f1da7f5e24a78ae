#!/usr/bin/env bash
# npm run lint: the type-aware ESLint (layers of promises, the preset) beside the other checks, so the
# whole takes about as long as ESLint alone on two cores. Every check runs; the first failure's
# output is not hidden by the others, and any failure fails the lint.
#   - dependency-cruiser: the layer rules (areas derived from the folders of src/)
#   - the generated client matches the OpenAPI document; knip: dead code and unused dependencies
#   - docs/configuration.md is what scripts/config-docs.ts writes from the env schema
#   - engines.node is accepted by every runtime dependency (scripts/check-engines.mjs)
#   - every relative link and #anchor of the Markdown resolves (scripts/check-doc-links.ts, offline)
#   - docs/contract-reference.md matches a fresh generation from the OpenAPI document, and docs/contract.md §4
#     lists every path and method of it and no other (scripts/contract-paths.ts)
#   - docs/schema.sql was generated from the migrations as they are (a digest, no database: scripts/schema-snapshot.ts)
#   - src/db/schema-rows.ts, the repositories' row types, is what docs/schema.sql gives (scripts/schema-rows.ts)
#   - the OpenAPI document: Redocly recommended-strict and Spectral (spectral:oas + .spectral.yaml), any finding fails;
#     a clean pass is remembered by the digest of its inputs (node_modules/.cache), as prettier's cache is
#   - every hand-written mutation of test/mutations/ still applies (scripts/check-mutation-patches.sh)
#   - prettier (its cache keys on each file's content and the config, so a cached pass is exact)
# ESLint keeps no cache: a type-aware rule (no-floating-promises) depends on other files' types, so
# a file unchanged since the last run can still have become wrong.
set -uo pipefail
cd "$(dirname "$0")/.."
npx eslint . &
eslint_pid=$!
# ESLint (single-threaded, ~40 s) is the critical path: the other checks, started after it, run at a
# lower priority and fill the other core instead of taking turns with it.
renice -n 10 -p $$ >/dev/null 2>&1 || true
rest=0
npx depcruise src commands --config .dependency-cruiser.cjs --output-type err || rest=1
npx tsx scripts/client-generate.ts --check || rest=1
npx knip || rest=1
npx tsx scripts/check-doc-links.ts || rest=1
npx tsx scripts/config-docs.ts --check || rest=1
node scripts/check-engines.mjs || rest=1
npx tsx scripts/openapi-lint.ts || rest=1
npx tsx scripts/contract-reference.ts --check || rest=1
npx tsx scripts/schema-snapshot.ts --check || rest=1
npx tsx scripts/schema-rows.ts --check || rest=1
bash scripts/check-mutation-patches.sh || rest=1
npx prettier --check --cache --cache-location node_modules/.cache/prettier/.prettier-cache . || rest=1
wait "$eslint_pid"
eslint=$?
if [ "$eslint" -ne 0 ] || [ "$rest" -ne 0 ]; then
  echo "lint failed (eslint exit $eslint, other checks $([ "$rest" -eq 0 ] && echo passed || echo failed))" >&2
  exit 1
fi
