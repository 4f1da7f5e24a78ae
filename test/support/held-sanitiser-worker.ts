/**
 * The HTML render pool's task (src/emails/html-sanitiser-worker.ts) behind a latch, for tests that must
 * look at the process while a body is being cleaned: each task counts itself in `started`, waits (blocking
 * its own worker thread, as a long sanitize-html run does) until the test opens the latch, then runs the
 * real sanitiser. Load it with `heldRenders()`.
 */
import { workerData } from 'node:worker_threads';
import sanitise from '../../src/emails/html-sanitiser-worker.js';

const state = new Int32Array(workerData as SharedArrayBuffer);

export default function held(task: Parameters<typeof sanitise>[0]): ReturnType<typeof sanitise> {
  Atomics.add(state, 1, 1);
  Atomics.wait(state, 0, 0);
  return sanitise(task);
}
