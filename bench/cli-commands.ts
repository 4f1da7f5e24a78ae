/**
 * Each admin command's own time, as a whole process (what an admin on the server waits for), against
 * the installation the environment points at (CRM_DATA_DIR of a running `crm-admin serve`, or
 * DATABASE_URL): median wall and CPU (user + system) time of RUNS runs after one warm-up. With
 * CLI_BASELINE=<another checkout, built>, the same commands of that checkout run in turn with these
 * (A B A B ...), so both sides see the same machine; the ratio is per pair.
 *
 *   npm run build && CRM_DATA_DIR=... JWT_ACCESS_SECRET=... node --import=tsx/esm bench/cli-commands.ts
 *   CLI_BASELINE=/path/to/main-checkout CLI_RUNS=7 node --import=tsx/esm bench/cli-commands.ts
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const counter = path.join(root, 'bench/cli-start-counter.mjs');
const RUNS = Number(process.env.CLI_RUNS ?? 5);
const baseline = process.env.CLI_BASELINE;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crm-cli-commands-')), 'cpu.txt');

const commands = [['--version'], ['--help'], ['users', 'list', '--json'], ['audit', 'list'], ['sync', 'status']];

/** One run of `checkout`'s crm-admin: wall and CPU ms. */
function run(checkout: string, args: string[]): { wall: number; cpu: number } {
  const started = process.hrtime.bigint();
  const res = spawnSync(process.execPath, ['--import', counter, path.join(checkout, 'bin/crm-admin'), ...args], {
    env: { ...process.env, CLI_START_CPU_FILE: cpuFile },
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 0) throw new Error(`${checkout}: crm-admin ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return { wall, cpu: Number(fs.readFileSync(cpuFile, 'utf8')) };
}

const sides = baseline ? [root, baseline] : [root];
console.log(`crm-admin commands, ${RUNS} runs each, node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
console.log(`A = ${root}${baseline ? `\nB = ${baseline}` : ''}`);
console.log(`command              A wall ms  A cpu ms${baseline ? '  B wall ms  B cpu ms  A/B cpu' : ''}`);
for (const args of commands) {
  for (const side of sides) run(side, args); // warm the file cache
  const times = sides.map(() => [] as Array<{ wall: number; cpu: number }>);
  for (let i = 0; i < RUNS; i++) sides.forEach((side, s) => times[s].push(run(side, args)));
  const cells = times.flatMap((t) => [median(t.map((x) => x.wall)), median(t.map((x) => x.cpu))].map((v) => v.toFixed(0).padStart(9)));
  const ratio = baseline
    ? median(times[0].map((a, i) => a.cpu / times[1][i].cpu))
        .toFixed(2)
        .padStart(8)
    : '';
  console.log(`${args.join(' ').padEnd(20)} ${cells.join(' ')} ${ratio}`);
}
