// Mocha's spec output, the OpenAPI response coverage, the slowest test files, and the plain closing
// line CI reads: "N passed, N failed, N skipped". TEST_FILE_TIMES=all lists every file's time (or
// TEST_FILE_TIMES=N the N slowest), to see the whole distribution when the suite gets slow.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;
/** How many of the slowest files the summary names: 8, or what TEST_FILE_TIMES says ("all" or a number). */
function slowestShown() {
  const wanted = process.env.TEST_FILE_TIMES;
  if (wanted === 'all') return Infinity;
  const n = Number(wanted);
  return Number.isInteger(n) && n > 0 ? n : 8;
}

/** The walls the workers of a parallel run left (test/support/file-times.ts), file -> ms. */
function workerWalls() {
  const root = process.env.CRM_TEST_TMP_ROOT;
  const dir = root ? path.join(root, 'file-times') : undefined;
  const walls = new Map();
  for (const name of dir && fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean)) {
      const { file, ms } = JSON.parse(line);
      walls.set(file, ms);
    }
  }
  return walls;
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    // Under mocha --parallel the suites the workers report carry no file: the tests do, and their own
    // durations (hooks not counted) are what is left to add up per file.
    const testTimes = new Map();
    const countTest = (test) => {
      if (test.file) testTimes.set(test.file, (testTimes.get(test.file) ?? 0) + (test.duration ?? 0));
    };
    runner.on(EVENT_TEST_PASS, (test) => {
      passed++;
      countTest(test);
    });
    runner.on(EVENT_TEST_FAIL, (test) => {
      failed++;
      countTest(test);
    });
    runner.on(EVENT_TEST_PENDING, () => skipped++);
    // Wall time per file, hooks included (a before() that starts a server counts): from its first
    // top-level suite starting to its last one ending. Where to look first when the suite gets slow.
    const fileTimes = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) fileTimes.set(suite.file, { ...fileTimes.get(suite.file), start: fileTimes.get(suite.file)?.start ?? Date.now() });
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const entry = suite.file && suite.parent?.root ? fileTimes.get(suite.file) : undefined;
      if (entry) entry.end = Date.now();
    });
    runner.once(EVENT_RUN_END, () => {
      // Set by test/support/openapi-hooks.ts: how many operations' success responses the run checked
      // against the OpenAPI document. Before the closing line, which stays last.
      const coverage = globalThis.__openApiCoverage?.();
      if (coverage) {
        process.stdout.write(
          `\nOpenAPI response coverage: ${coverage.covered}/${coverage.total} operations ` + `(success response checked; ${coverage.answered}/${coverage.total} answered at all)\n`,
        );
      }
      const fromWorkers = [...workerWalls()];
      const walls = fromWorkers.length > 0 ? fromWorkers : [...fileTimes].filter(([, t]) => t.end).map(([file, t]) => [file, t.end - t.start]);
      const slowest = (walls.length > 0 ? walls : [...testTimes]).map(([file, ms]) => [path.relative(process.cwd(), file), ms]);
      slowest.sort((a, b) => b[1] - a[1]);
      if (slowest.length > 1) {
        const shown = slowestShown();
        const rows = slowest.slice(0, shown).map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
        const what = walls.length > 0 ? 'wall time, hooks included' : "the tests' own time, hooks not counted (parallel run)";
        const total = slowest.reduce((sum, [, ms]) => sum + ms, 0);
        const title = shown >= slowest.length ? `Every file's time (${what}; ${slowest.length} files, ${(total / 1000).toFixed(0)} s in all)` : `Slowest files (${what})`;
        process.stdout.write(`\n${title}:\n${rows.join('\n')}\n`);
      }
      // Set by test/support/prerequisite.ts: why a test was skipped (never in CI, where it fails instead).
      const reasons = globalThis.__skipReasons ?? [];
      if (reasons.length > 0) process.stdout.write(`\nSkipped for a missing prerequisite:\n${reasons.map((r) => `  - ${r}`).join('\n')}\n`);
      process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
