import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable, Writable } from 'node:stream';
import type { Database } from '../db/database.js';

/** A stream as a command sees it: whether a person sits at it decides prompts and progress bars. */
export type HostReadable = Readable & { isTTY?: boolean };
export type HostWritable = Writable & { isTTY?: boolean };

/**
 * What a crm-admin command reads and writes that would otherwise come from `process`: its
 * environment, its arguments, its three streams, and (tests) an already open database to use instead
 * of opening its own. Commands and src/cli reach these only through `commandHost()`, never through
 * `process` directly, so that a command can run inside another process (the test suite runs most
 * commands in its own process, test/support/cli-in-process.ts; ADR 0127) while seeing nothing of that
 * process's environment or output. The default host is the real process: what `bin/crm-admin` runs.
 */
export interface CommandHost {
  env: NodeJS.ProcessEnv;
  /** The command line after the program (`users list --json`). */
  argv: readonly string[];
  stdin: HostReadable;
  stdout: HostWritable;
  stderr: HostWritable;
  /** An open database to share: the command neither opens nor closes one (createAppContext `db`). */
  db?: Database;
  /**
   * Whether this is the process itself. Its log lines then go through winston's console transport
   * and oclif's own warning output, exactly as before hosts existed; another host gets them on its
   * stderr stream.
   */
  isProcess: boolean;
}

/** The real process, read when asked (process.stdin opens a stream on first access). */
const processHost: CommandHost = {
  get env() {
    return process.env;
  },
  get argv() {
    return process.argv.slice(2);
  },
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  isProcess: true,
};

// One store per call chain: two commands running at once in one process (the tests race commands,
// while the same process serves HTTP) each see their own host, which patching `process` could not give.
const current = new AsyncLocalStorage<CommandHost>();

/** The host of the command running in this call chain; the real process when none was set. */
export function commandHost(): CommandHost {
  return current.getStore() ?? processHost;
}

/** Runs `work` (a whole command) with `host` as what it sees of its process. */
export function runWithHost<T>(host: CommandHost, work: () => Promise<T>): Promise<T> {
  return current.run(host, work);
}
