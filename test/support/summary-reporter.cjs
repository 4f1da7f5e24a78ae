// Mocha's spec output, the OpenAPI response coverage, and the plain closing line CI reads:
// "N passed, N failed, N skipped".
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(EVENT_TEST_PASS, () => passed++);
    runner.on(EVENT_TEST_FAIL, () => failed++);
    runner.on(EVENT_TEST_PENDING, () => skipped++);
    runner.once(EVENT_RUN_END, () => {
      // Set by test/support/openapi-hooks.ts: how many operations' success responses the run checked
      // against the OpenAPI document. Before the closing line, which stays last.
      const coverage = globalThis.__openApiCoverage?.();
      if (coverage) {
        process.stdout.write(
          `\nOpenAPI response coverage: ${coverage.covered}/${coverage.total} operations ` +
            `(success response checked; ${coverage.answered}/${coverage.total} answered at all)\n`,
        );
      }
      // Set by test/support/prerequisite.ts: why a test was skipped (never in CI, where it fails instead).
      const reasons = globalThis.__skipReasons ?? [];
      if (reasons.length > 0) process.stdout.write(`\nSkipped for a missing prerequisite:\n${reasons.map((r) => `  - ${r}`).join('\n')}\n`);
      process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
