/** A latch for the HTML render pool's worker threads (test/support/held-sanitiser-worker.ts). */
export interface HeldRenders {
  /** For HtmlRenderPool's `worker` option. */
  worker: { filename: string; workerData: SharedArrayBuffer };
  /** Renders that have started (each is waiting for the latch until release()). */
  started(): number;
  /** Opens the latch: every waiting render, and every later one, runs at once. */
  release(): void;
}

export function heldRenders(): HeldRenders {
  const buffer = new SharedArrayBuffer(8);
  const state = new Int32Array(buffer);
  return {
    worker: { filename: new URL('./held-sanitiser-worker.ts', import.meta.url).href, workerData: buffer },
    started: () => Atomics.load(state, 1),
    release: () => {
      Atomics.store(state, 0, 1);
      Atomics.notify(state, 0);
    },
  };
}
