import readline from 'node:readline/promises';
import { Writable } from 'node:stream';
import { commandHost } from './command-host.js';

/**
 * Reads a secret from stdin so it stays out of shell history and `ps`: piped input is read whole
 * (one trailing newline dropped); at a terminal it is asked for without echo.
 */
export async function readSecretFromStdin(prompt: string): Promise<string> {
  const { stdin, stderr } = commandHost();
  if (stdin.isTTY) {
    stderr.write(prompt);
    const silent = new Writable({ write: (_chunk, _enc, done) => done() });
    const rl = readline.createInterface({ input: stdin, output: silent, terminal: true });
    try {
      return await rl.question('');
    } finally {
      rl.close();
      stderr.write('\n');
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
