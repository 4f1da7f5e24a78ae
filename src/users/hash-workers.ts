import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** Added niceness of the hashing threads: under contention they get ~1/10 of the CPU share of request handling. */
const HASHING_NICE = 10;

const require = createRequire(import.meta.url);

// Plain CommonJS evaluated in the worker, so it runs the same under tsx and from dist. bcrypt is loaded by
// absolute path: an eval'd worker resolves modules from the working directory, not from this package.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptPath);
try {
  // Linux: a thread's nice value is its own; /proc/thread-self names this thread's id.
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  // Relative to the process's own niceness (systemd Nice=, \`nice npm start\`): always below request handling.
  const os = require('node:os');
  os.setPriority(tid, Math.min(19, os.getPriority(tid) + workerData.nice));
} catch {}
parentPort.on('message', ({ id, op, plain, arg }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(plain, arg) : bcrypt.compareSync(plain, arg);
    parentPort.postMessage({ id, result });
  } catch (err) {
    parentPort.postMessage({ id, error: (err && err.message) || String(err) });
  }
});
`;

interface Job {
  id: number;
  op: 'hash' | 'compare';
  plain: string;
  arg: string | number;
  resolve: (value: string | boolean) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
}

/**
 * bcrypt on a few dedicated threads at a lower CPU priority, one per core. A flood of logins (or a
 * credential-stuffing attack) then uses the CPU that is left over instead of starving every other
 * request: bcrypt on libuv's pool runs at the same priority as the event loop and, with four pool
 * threads on two cores, takes most of the machine. Throughput when nothing else runs is unchanged.
 * Workers start on first use and never keep the process alive while idle.
 */
export class HashWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly size = Math.max(1, os.availableParallelism())) {}

  hash(plain: string, rounds: number): Promise<string> {
    return this.submit('hash', plain, rounds) as Promise<string>;
  }

  compare(plain: string, hash: string): Promise<boolean> {
    return this.submit('compare', plain, hash) as Promise<boolean>;
  }

  private submit(op: Job['op'], plain: string, arg: string | number): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, plain, arg, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.job) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, op: job.op, plain: job.plain, arg: job.arg });
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath: require.resolve('bcrypt'), nice: HASHING_NICE } });
    const slot: Slot = { worker };
    worker.unref();
    worker.on('message', (msg: { id: number; result?: string | boolean; error?: string }) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      slot.job = undefined;
      worker.unref();
      if (msg.error !== undefined) job.reject(new Error(msg.error));
      else job.resolve(msg.result!);
      this.dispatch();
    });
    // A crashed worker fails only its own job; the next job gets a fresh worker.
    const retire = (err: Error) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      slot.job?.reject(err);
      slot.job = undefined;
      this.dispatch();
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`hash worker exited with ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
