/**
 * Root hooks (loaded through .mocharc's `require`): a response that does not match the OpenAPI
 * document fails the test that made it. Each test's function is wrapped so that, once it has passed,
 * the problems the response check (openapi-contract.ts) recorded meanwhile fail it; responses given in
 * hooks are caught by the root afterEach. The run's coverage is handed to the summary reporter.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context, Func, Test } from 'mocha';
import { allContracts, responseCoverage, type Violation } from './openapi-contract.js';
import { HANDOVER } from './worker-environment.js';

const MAX_SHOWN = 5;

function takeViolations(): Violation[] {
  return allContracts().flatMap((c) => c.takeViolations());
}

export function assertNoViolations(): void {
  const violations = takeViolations();
  if (violations.length === 0) return;
  const shown = violations
    .slice(0, MAX_SHOWN)
    .map((v) => `  ${v.request}\n${v.problems.map((p) => `    - ${p}`).join('\n')}`)
    .join('\n');
  const more = violations.length > MAX_SHOWN ? `\n  ... and ${violations.length - MAX_SHOWN} more` : '';
  throw new Error(`${violations.length} response(s) do not match the OpenAPI document (src/openapi/*-doc.ts):\n${shown}${more}`);
}

/** A test that failed on its own keeps its error; mismatches it also caused are added to the message. */
function withViolations(err: unknown): unknown {
  try {
    assertNoViolations();
  } catch (mismatch) {
    if (err instanceof Error) err.message += `\n\n${(mismatch as Error).message}`;
  }
  return err;
}

function wrap(test: Test): void {
  const fn = test.fn;
  if (!fn || (fn as { contractChecked?: boolean }).contractChecked) return;
  const wrapped: Func = test.async
    ? function (this: Context, done) {
        fn.call(this, (err?: unknown) => {
          if (err) return done(withViolations(err));
          try {
            assertNoViolations();
            done();
          } catch (e) {
            done(e);
          }
        });
      }
    : async function (this: Context) {
        try {
          await (fn as (this: Context) => unknown).call(this);
        } catch (err) {
          throw withViolations(err);
        }
        assertNoViolations();
      };
  (wrapped as { contractChecked?: boolean }).contractChecked = true;
  test.fn = wrapped;
}

/** Where the workers of a parallel run leave the operations they saw, for the main process to add up. */
function coverageDir(): string | undefined {
  const root = process.env[HANDOVER.tmpRoot];
  return root ? path.join(root, 'openapi-coverage') : undefined;
}

/** In a worker, after each file: what this worker has seen so far (the file is rewritten, never appended). */
function leaveCoverage(): void {
  const dir = coverageDir();
  if (process.env.MOCHA_WORKER_ID === undefined || !dir) return;
  const { covered, answered } = responseCoverage();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ covered, answered }));
}

(globalThis as { __openApiCoverage?: () => { covered: number; answered: number; total: number } }).__openApiCoverage = () => {
  const own = responseCoverage();
  const covered = new Set(own.covered);
  const answered = new Set(own.answered);
  const dir = coverageDir();
  for (const file of dir && fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const seen = JSON.parse(fs.readFileSync(path.join(dir!, file), 'utf8')) as { covered: string[]; answered: string[] };
    seen.covered.forEach((id) => covered.add(id));
    seen.answered.forEach((id) => answered.add(id));
  }
  return { covered: covered.size, answered: answered.size, total: own.operations.length };
};

export const mochaHooks = {
  beforeEach(this: Context): void {
    if (this.currentTest) wrap(this.currentTest);
  },
  afterEach(): void {
    assertNoViolations();
  },
  afterAll(): void {
    leaveCoverage();
  },
};
