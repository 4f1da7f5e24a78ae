import cliProgress from 'cli-progress';
import { commandHost } from './command-host.js';

export interface Progress {
  start(total: number): void;
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { start: () => undefined, update: () => undefined, stop: () => undefined };

/** A progress bar on stderr for people at a terminal; nothing at all for pipes, cron and --json. */
export function progressBar(label: string, enabled: boolean): Progress {
  const stderr = commandHost().stderr;
  if (!enabled || !stderr.isTTY) return silent;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total}`, stream: stderr, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start(total) {
      bar.start(total, 0);
      started = true;
    },
    update(done, total) {
      if (!started) return;
      if (total !== undefined) bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
