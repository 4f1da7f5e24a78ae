import fs from 'node:fs';
import os from 'node:os';
import { expect } from 'chai';
import bcrypt from 'bcrypt';
import { PasswordHasher } from '../../src/users/password-hasher.js';
import { HashWorkers } from '../../src/users/hash-workers.js';

/** Nice values of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('PasswordHasher', () => {
  it('produces standard bcrypt hashes at the configured cost that verify only the exact password', async () => {
    const hasher = new PasswordHasher(5);
    const hash = await hasher.hash('Správne-heslo-1');
    expect(hash).to.match(/^\$2[aby]\$05\$/);
    expect(await bcrypt.compare('Správne-heslo-1', hash)).to.equal(true);
    expect(await hasher.verify('Správne-heslo-1', hash)).to.equal(true);
    expect(await hasher.verify('Správne-heslo-2', hash)).to.equal(false);
    expect(await hasher.verify('Správne-heslo-1', null)).to.equal(false);
  });

  it('makes no hash until one is needed (a crm-admin command exiting mid-bcrypt aborted), then one unknown-user hash for good', async () => {
    const calls: string[] = [];
    const workers = {
      hash: (_plain: string, rounds: number) => (calls.push(`hash ${rounds}`), Promise.resolve(`$2b$0${rounds}$dummy`)),
      compare: (_plain: string, hash: string) => (calls.push(`compare ${hash}`), Promise.resolve(false)),
    } as unknown as HashWorkers;
    const hasher = new PasswordHasher(4, workers);
    expect(calls).to.deep.equal([]);
    expect(await hasher.verify('x', null)).to.equal(false);
    await hasher.burn('y');
    hasher.warmUp();
    expect(await hasher.unknownUserHash()).to.equal('$2b$04$dummy');
    expect(calls).to.deep.equal(['hash 4', 'compare $2b$04$dummy', 'compare $2b$04$dummy']);
    const warmed = new PasswordHasher(4, workers);
    calls.length = 0;
    warmed.warmUp();
    expect(calls).to.deep.equal(['hash 4']);
  });

  it('counts every byte beyond 72 (no silent truncation)', async () => {
    const hasher = new PasswordHasher(4);
    const prefix = 'ž'.repeat(40); // 80 bytes
    const hash = await hasher.hash(`${prefix}A`);
    expect(await hasher.verify(`${prefix}A`, hash)).to.equal(true);
    expect(await hasher.verify(`${prefix}B`, hash)).to.equal(false);
  });

  it('answers many parallel requests, each with its own result', async () => {
    const hasher = new PasswordHasher(4);
    const passwords = Array.from({ length: 12 }, (_, i) => `parallel-password-${i}`);
    const hashes = await Promise.all(passwords.map((p) => hasher.hash(p)));
    const checks = await Promise.all(passwords.map((p, i) => hasher.verify(p, hashes[(i + 1) % hashes.length])));
    expect(checks.every((c) => c === false)).to.equal(true);
    expect(await Promise.all(passwords.map((p, i) => hasher.verify(p, hashes[i])))).to.deep.equal(passwords.map(() => true));
  });

  it('answers false for a malformed stored hash, rejects a bcrypt error, and keeps working afterwards', async () => {
    const workers = new HashWorkers(1);
    expect(await workers.compare('x', 'not-a-bcrypt-hash')).to.equal(false);
    // An invalid salt makes bcrypt throw inside the worker: the caller gets the error, not a hang.
    const error = await (workers as unknown as { submit(op: string, p: string, a: unknown): Promise<unknown> }).submit('hash', 'x', 'bad-salt').then(
      () => undefined,
      (err: Error) => err,
    );
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/salt/i);
    expect(await workers.compare('x', await workers.hash('x', 4))).to.equal(true);
  });

  it('hashes on threads running at a lower CPU priority than the event loop', async function () {
    if (process.platform !== 'linux') this.skip();
    // The process may itself run niced (CI, systemd Nice=): the workers sit 10 below whatever it has.
    const base = os.getPriority(0);
    const lowered = Math.min(19, base + 10);
    const before = threadNiceValues().filter((n) => n === lowered).length;
    const workers = new HashWorkers(2);
    await Promise.all([workers.hash('a', 4), workers.hash('b', 4)]);
    expect(threadNiceValues().filter((n) => n === lowered).length - before).to.equal(2);
    expect(os.getPriority(0)).to.equal(base); // the main thread keeps its priority
  });
});
