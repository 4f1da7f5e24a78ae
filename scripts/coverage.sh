#!/usr/bin/env bash
# npm run coverage [test files or globs]: the suite (or those files) under V8 coverage, counting the
# test process and every crm-admin child it starts (the test helpers pass NODE_V8_COVERAGE on; the
# children run dist/, mapped back to src/ by its source maps), then lines and branches of src/ per
# folder. The HTML report is in coverage/index.html; the raw data in coverage/tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf coverage
export NODE_V8_COVERAGE="$PWD/coverage/tmp"
mkdir -p "$NODE_V8_COVERAGE"
if [ "$#" -eq 0 ]; then set -- 'test/**/*.test.ts'; fi
npm run build --silent
status=0
# Serial (.mocharc.json runs files in two workers): every process of the run ends by itself and writes
# its coverage; a worker the pool ends could take its figures with it.
npx mocha --no-parallel "$@" || status=$?
# Filtered after the source maps are applied (-a): dist/src/x.js counts as src/x.ts. --all lists the
# files no test loaded, at 0 %.
npx c8 report --temp-directory coverage/tmp --reports-dir coverage --all --src src --include 'src/**' -a \
  --reporter json-summary --reporter html --reporter text-summary
node scripts/coverage-folders.mjs coverage/coverage-summary.json
exit "$status"
