import { expect } from 'chai';
import type { BackgroundJob } from '../../src/jobs/background-job.js';
import { JobRunner, type JobObserver } from '../../src/jobs/job-runner.js';
import type { Logger } from '../../src/logging/logger.js';

/** The one runner of serve's background jobs (ADR 0145): skip and join, failures counted, stop waits. */
describe('unit: background job runner', () => {
  const logger = { info: () => undefined, error: () => undefined } as unknown as Logger;
  const job = (overlap: 'skip' | 'join', run: () => Promise<unknown>, stop?: () => Promise<void>): BackgroundJob => ({
    name: `test-${overlap}`,
    description: 'test',
    schedule: { everySeconds: 3600 },
    sharing: 'claimed-rows',
    retries: 'next tick',
    overlap,
    runsOn: 'every-instance',
    overdueAfterSeconds: 60,
    run,
    backlog: () => Promise.resolve({ due: 0, oldestDueSeconds: null, expiredLeases: 0 }),
    ...(stop ? { stop } : {}),
  });
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };

  it('join starts a run at every tick while earlier ones go; skip does not', async () => {
    for (const overlap of ['join', 'skip'] as const) {
      const g = gate();
      let runs = 0;
      const j = job(overlap, async () => {
        runs++;
        await g.opened;
      });
      const runner = new JobRunner([j], logger);
      const ticks = [runner.tick(j), runner.tick(j), runner.tick(j)];
      expect(runs, overlap).to.equal(overlap === 'join' ? 3 : 1);
      g.open();
      await Promise.all(ticks);
    }
  });

  it('counts each run with its result and items; a throw is an error, and the next tick runs', async () => {
    const seen: Array<{ result: string; round?: unknown }> = [];
    const observer: JobObserver = { ran: (_job, result, _s, round) => seen.push({ result, round }) };
    let fail = true;
    const j = job('skip', () => (fail ? Promise.reject(new Error('database gone')) : Promise.resolve({ done: 3, failed: 1 })));
    const runner = new JobRunner([j], logger, observer);
    await runner.tick(j);
    fail = false;
    await runner.tick(j);
    expect(seen).to.deep.equal([
      { result: 'error', round: undefined },
      { result: 'ok', round: { done: 3, failed: 1 } },
    ]);
  });

  it('stop calls the job’s stop and waits for the run in progress; no tick runs after it', async () => {
    const g = gate();
    let stopped = false;
    let finished = false;
    let runs = 0;
    const j = job(
      'join',
      async () => {
        runs++;
        await g.opened;
        finished = true;
      },
      () => {
        stopped = true;
        g.open();
        return Promise.resolve();
      },
    );
    const runner = new JobRunner([j], logger);
    void runner.tick(j);
    await runner.stop();
    expect(stopped).to.equal(true);
    expect(finished).to.equal(true);
    await runner.tick(j);
    expect(runs).to.equal(1);
  });
});
