import { expect } from 'chai';
import { setImmediate as turn } from 'node:timers/promises';
import { createLogger } from '../../src/logging/logger.js';
import { HtmlRenderPool } from '../../src/emails/html-render-pool.js';
import { sanitiseEmailHtml, type SanitiseOptions } from '../../src/emails/html-sanitiser.js';
import { EMAIL_HTML_FIXTURES } from '../fixtures/email-html.js';
import { heldRenders } from '../support/held-renders.js';

/** 300 kB of styled paragraphs: tens of milliseconds of sanitize-html at the least. */
const HEAVY = `<div>${'<p style="color:#333;font-family:Arial,sans-serif;font-size:14px;margin:0 0 8px 0">Dobrý deň <b>riadok</b></p>\n'.repeat(3000)}</div>`;
const options = (): SanitiseOptions => ({ inlineImages: new Map<string, string>(), remoteImages: false });
const logger = createLogger('error', { silent: true });

/**
 * The render pool (src/emails/html-render-pool.ts, issue 52 finding 5): bodies are cleaned in worker
 * threads, so the main thread keeps turning while one is cleaned; a body over the time budget is given
 * up, a full queue answers at once, and the pool goes on cleaning the next.
 */
describe('emails: the HTML render pool', function () {
  this.timeout(60_000);
  const pools: HtmlRenderPool[] = [];
  const pool = (o: Partial<ConstructorParameters<typeof HtmlRenderPool>[0]> = {}) => {
    const p = new HtmlRenderPool({ threads: 1, timeoutMs: 60_000, logger, ...o });
    pools.push(p);
    return p;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('gives for every HTML fixture, under every option, exactly what the sanitiser gives on the main thread', async () => {
    const under: Record<string, SanitiseOptions> = {
      'remote images held': options(),
      'remote images loaded': { ...options(), remoteImages: true },
      'inline images': { inlineImages: new Map([['logo@firma.sk', '/api/emails/e1/attachments/b1']]), remoteImages: false },
    };
    const p = pool({ threads: 2 });
    for (const [fixture, dirty] of Object.entries(EMAIL_HTML_FIXTURES)) {
      for (const [what, o] of Object.entries(under)) {
        const inWorker = await p.sanitise(dirty, o);
        const inProcess = sanitiseEmailHtml(dirty, o);
        expect(inWorker, `${fixture}, ${what}`).to.deep.equal(inProcess);
        // The Set of cids crossed the thread boundary as a Set (the caller iterates it).
        expect(inWorker).to.have.property('referencedCids').that.is.instanceOf(Set);
      }
    }
  });

  it('cleans off the main thread: timers and I/O of the main thread run while a render is held in its thread', async () => {
    const latch = heldRenders();
    const p = pool({ worker: latch.worker });
    let done = false;
    const cleaning = p.sanitise(HEAVY, options()).finally(() => (done = true));
    while (latch.started() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // A render on the main thread would have had to finish before this line could run.
    for (let i = 0; i < 3; i++) await turn();
    expect(done, 'the render ended although its thread is held').to.equal(false);
    latch.release();
    expect(await cleaning).to.deep.equal(sanitiseEmailHtml(HEAVY, options()));
  });

  it('answers busy at once when the queue is full (16 waiting per thread), and cleans the rest once the thread is free', async () => {
    const latch = heldRenders();
    const p = pool({ worker: latch.worker });
    const running = p.sanitise('<p>0</p>', options());
    while (latch.started() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const queued = Array.from({ length: 16 }, (_, i) => p.sanitise(`<p>${i + 1}</p>`, options()));
    // Answered while the only thread is still held: refused at once, not queued behind it.
    expect(await p.sanitise('<p>one too many</p>', options())).to.equal('busy');
    latch.release();
    const results = await Promise.all([running, ...queued]);
    expect(results.map((r) => (typeof r === 'string' ? r : r.html)).sort()).to.deep.equal(Array.from({ length: 17 }, (_, i) => `<p>${i}</p>`).sort());
    // The places are given back: the pool takes bodies again.
    expect(await p.sanitise('<p>znova</p>', options())).to.deep.include({ html: '<p>znova</p>' });
  });

  it('gives up a body over its time budget (the thread is terminated), and a pool cleans a small body in time', async () => {
    expect(await pool({ timeoutMs: 5 }).sanitise(HEAVY, options())).to.equal('time_budget');
    expect(await pool().sanitise('<p onclick="x()">Ahoj</p>', options())).to.deep.include({ html: '<p>Ahoj</p>', blockedImages: 0 });
  });
});
