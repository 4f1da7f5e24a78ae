import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const crmAdmin = path.join(repoRoot, 'bin/crm-admin');

export interface CliResult {
  status: number | null;
  /** The signal that ended it (e.g. SIGTERM from the 60 s timeout), when it did not exit by itself. */
  signal: NodeJS.Signals | null;
  /** Why spawning or waiting failed (ETIMEDOUT, ENOBUFS ...), when it did. */
  error?: string;
  stdout: string;
  stderr: string;
}

/** Runs the built crm-admin as a child process (what an admin on the server does). */
export function runCli(args: string[], env: Record<string, string>, input?: string): CliResult {
  const res = spawnSync(crmAdmin, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'error', ...env },
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  // A child ended by a signal is rare and worth seeing whatever the test asserts next.
  if (res.status === null) console.error(`      [cli] crm-admin ${args.join(' ')}: ended by ${res.signal ?? 'no signal'} (${res.error?.message ?? 'no spawn error'})`);
  return { status: res.status, signal: res.signal, error: res.error?.message, stdout: res.stdout, stderr: res.stderr };
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
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', PORT: '0', ...env },
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
