import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const crmAdmin = path.join(repoRoot, 'bin/crm-admin');

/**
 * What a child the tests start inherits: nothing of the test process's environment (a child must
 * see only what the test gives it) but PATH, HOME and, under `npm run coverage`, NODE_V8_COVERAGE,
 * so that what the children run is counted too.
 */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
  if (process.env.NODE_V8_COVERAGE) env.NODE_V8_COVERAGE = process.env.NODE_V8_COVERAGE;
  return env;
}

export interface CliResult {
  status: number | null;
  /** The signal that ended it (e.g. SIGTERM from the 60 s timeout), when it did not exit by itself. */
  signal: NodeJS.Signals | null;
  /** Why spawning or waiting failed (ETIMEDOUT, ENOBUFS ...), when it did. */
  error?: string;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built crm-admin as a child process (what an admin on the server does). Asynchronously: the
 * test process is also the server, and a command that waits for a lock its transaction holds would
 * wait for a process whose event loop spawnSync had stopped (until the timeout killed the command).
 */
export function runCli(args: string[], env: Record<string, string>, input?: string, timeoutMs = 60_000): Promise<CliResult> {
  // The medium tier has no build and starts no process (CONTRIBUTING.md, "Tests"): a test that needs
  // the real crm-admin process belongs to the end-to-end tier.
  if (process.env.CRM_TEST_TIER === 'medium') throw new Error(`crm-admin ${args.join(' ')} would start a process: move this test to the end-to-end tier`);
  return new Promise((resolve) => {
    const child = spawn(crmAdmin, args, {
      env: { ...childEnv(), LOG_LEVEL: 'error', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let error: string | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {}); // a command that exits before reading its input
    child.stdin.end(input);
    const timer = setTimeout(() => {
      error = `timed out after ${timeoutMs} ms`;
      child.kill('SIGTERM');
    }, timeoutMs);
    child.once('error', (err) => (error = err.message));
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      // A child ended by a signal is rare: say so in whatever the test asserts next.
      if (status === null) stderr += `\n[cli] crm-admin ${args.join(' ')}: ended by ${signal ?? 'no signal'} (${error ?? 'no spawn error'})`;
      resolve({ status, signal, error, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `crm-admin serve` and resolves once its start line names the URL it listens on. */
export function startServe(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<ServeProcess> {
  const child = spawn(crmAdmin, ['serve', ...args], {
    env: { ...childEnv(), PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Nobody holds the handle of a server that never said where it listens: do not leave it running.
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in time:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => out, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before starting:\n${out}`));
    });
  });
}
