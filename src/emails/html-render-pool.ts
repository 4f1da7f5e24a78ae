/**
 * Cleaning HTML bodies off the main thread (issue 52, finding 5; docs/adr/0162-html-cleaned-in-worker-threads.md).
 *
 * sanitize-html parses every inline style with postcss: a thread of twelve 500 kB newsletters took the
 * event loop for over a second per page view, and every other request of every user waited. Here each
 * body is cleaned by a piscina worker thread at a lower CPU priority, with a time budget: a body not
 * cleaned in time (queue included) is given up (a running thread is terminated and replaced), and the
 * email is answered with its text. A full queue answers at once instead of piling up.
 */
import type * as PiscinaExports from 'piscina';
import type { Piscina } from 'piscina';
import type { Logger } from '../logging/logger.js';
import { lazyRequire } from '../shared/lazy-require.js';
import type { SanitisedHtml, SanitiseOptions } from './html-sanitiser.js';

/** Loaded on first use (ADR 0113): commands that never render HTML do not load it. */
const piscina = lazyRequire<typeof PiscinaExports>('piscina');

/** Why a body was not cleaned: over its time budget, or the queue was full. */
export type RenderRefusal = 'time_budget' | 'busy';

/** Added niceness of the render threads: request handling keeps the CPU it needs. */
const RENDER_NICE = 5;
/** Bodies waiting per thread (beside the one it cleans) before a new one is refused ('busy'). */
const QUEUE_PER_THREAD = 16;

export interface HtmlRenderPoolOptions {
  threads: number;
  timeoutMs: number;
  logger: Logger;
  /**
   * Another task file with the worker's contract (html-sanitiser-worker.ts) and its workerData: tests run
   * the real sanitiser behind a latch, to hold a render while they look at the rest of the process.
   */
  worker?: { filename: string; workerData?: unknown };
}

export class HtmlRenderPool {
  private pool?: Piscina;
  /** Bodies given to the pool and not answered yet (running or waiting). */
  private inFlight = 0;

  constructor(private readonly options: HtmlRenderPoolOptions) {}

  /** The cleaned body, or why not. Never throws for a body that could not be cleaned. */
  async sanitise(dirty: string, options: SanitiseOptions): Promise<SanitisedHtml | RenderRefusal> {
    // Counted here rather than with piscina's maxQueue, which let a held thread's queue grow past it.
    if (this.inFlight >= this.options.threads * (1 + QUEUE_PER_THREAD)) {
      this.options.logger.warn('email HTML body not cleaned', { reason: 'busy', bytes: dirty.length });
      return 'busy';
    }
    this.inFlight += 1;
    try {
      return (await this.started().run({ dirty, options }, { signal: AbortSignal.timeout(this.options.timeoutMs) })) as SanitisedHtml;
    } catch (err) {
      const refusal: RenderRefusal = (err as Error).name === 'AbortError' ? 'time_budget' : 'busy';
      this.options.logger.warn('email HTML body not cleaned', { reason: refusal, bytes: dirty.length, err: (err as Error).message });
      return refusal;
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Stops the threads (the service's shutdown); a later sanitise starts them again. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  private started(): Piscina {
    if (!this.pool) {
      const { threads, worker } = this.options;
      // The worker's own source file: .ts under tsx (tests, which pass their loader on to workers), .js from dist.
      const filename = worker?.filename ?? new URL(`./html-sanitiser-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
      this.pool = new (piscina().Piscina)({
        filename,
        workerData: worker?.workerData,
        minThreads: 0,
        maxThreads: threads,
        idleTimeout: 30_000,
        niceIncrement: RENDER_NICE,
      });
    }
    return this.pool;
  }
}
