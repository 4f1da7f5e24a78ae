import { commandHost } from './command-host.js';
import { terminalSafeLines } from './format.js';
import { progressBar } from './progress.js';

interface PageEvent {
  email: string;
  pagesDone: number;
  emailsDone: number;
  total?: number;
}

/**
 * `sync resync`'s progress, per committed page: a bar for someone at a terminal, else one line per
 * page on stderr (journald, a log file, a script watching it; stdout stays clean for --json).
 */
export function pageReporter(interactive: boolean): { page: (event: PageEvent) => void; stop: () => void } {
  const bar = progressBar('Resyncing', interactive);
  const stderr = commandHost().stderr;
  const useBar = interactive && stderr.isTTY;
  let started = false;
  return {
    page(event) {
      const total = Math.max(event.total ?? 0, event.emailsDone, 1);
      if (!useBar) {
        stderr.write(
          terminalSafeLines(`resync ${event.email}: page ${event.pagesDone} done, ${event.emailsDone}${event.total === undefined ? '' : ` of ${event.total}`} emails\n`),
        );
        return;
      }
      if (!started) bar.start(total);
      started = true;
      bar.update(event.emailsDone, total);
    },
    stop: () => bar.stop(),
  };
}
