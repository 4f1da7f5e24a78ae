import readline from 'node:readline/promises';
import { Writable } from 'node:stream';

/**
 * Reads a secret from stdin so it stays out of shell history and `ps`: piped input is read whole
 * (one trailing newline dropped); at a terminal it is asked for without echo.
 */
export async function readSecretFromStdin(prompt: string): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write(prompt);
    const silent = new Writable({ write: (_chunk, _enc, done) => done() });
    const rl = readline.createInterface({ input: process.stdin, output: silent, terminal: true });
    try {
      return await rl.question('');
    } finally {
      rl.close();
      process.stderr.write('\n');
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
