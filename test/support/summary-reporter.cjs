// Mocha's spec output plus the plain closing line CI reads: "N passed, N failed, N skipped".
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
      process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
