// StrykerJS (npm run test:stryker): mutation testing of the unit tier; with STRYKER_TIER=medium (npm run
// test:stryker:medium, scripts/stryker-medium.ts, which starts the tier's PostgreSQL) the medium tier's.
// Not part of npm test or CI: a run takes minutes per area on two cores. Pick an area with --mutate, e.g.
//   npm run test:stryker -- --mutate src/emails/search-terms.ts
// The areas whose scores the closing notes quote are the default `mutate` below (CONTRIBUTING.md,
// "Mutation testing").
const medium = process.env.STRYKER_TIER === 'medium';

export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  // tsx compiles the TypeScript sources (and the sandbox's mutated copies) as the tiers do.
  testRunnerNodeArgs: ['--import', 'tsx/esm'],
  mochaOptions: medium
    ? // The tier's root hooks set each test-runner process up once (mocha's global setup does not run here).
      { spec: ['test/medium/**/*.test.ts'], require: ['test/support/stryker-medium-hooks.ts'], 'no-config': true }
    : { spec: ['test/unit/**/*.test.ts'], 'no-config': true },
  // No TypeScript checker (@stryker-mutator/typescript-checker, tried: it type-checks the project per
  // mutant, which put a run of these areas at ~5 hours on the shared two-core machine). tsx strips
  // types without checking them, so a mutant TypeScript would refuse still runs and is killed or
  // survives by its behaviour: the score is, if anything, lower than with the checker (ADR 0166).
  mutate: medium
    ? // The sync's turns and leases, which the medium tier drives against PostgreSQL and the JMAP fake.
      ['src/sync/account-lease.ts', 'src/sync/run-state.ts', 'src/sync/leased-run.ts', 'src/sync/sync-errors.ts']
    : [
        'src/emails/search-terms.ts',
        'src/auth/password-policy.ts',
        'src/auth/login-throttle.ts',
        'src/api-tokens/api-token-scopes.ts',
        'src/sync/email-mapper.ts',
        'src/sync/address-rules.ts',
        'src/sync/email-body.ts',
        'src/sending/compose.ts',
      ],
  // Stryker's default puts `// @ts-nocheck` on top of every source file of its sandbox, for a TypeScript
  // checker to skip its mutants' type errors; there is none here (tsx checks nothing), and the unit
  // tier compares the generated src/db/schema-rows.ts with the committed file byte for byte (ADR 0170),
  // which the added line broke: the initial test run failed and no mutant ran.
  disableTypeChecks: false,
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: medium ? 'reports/mutation/medium.json' : 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'coverage', 'reports', 'data', '.stryker-tmp'],
  cleanTempDir: 'always',
};
