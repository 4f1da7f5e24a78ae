/**
 * How fast crm-admin starts: `--version`, `--help`, `users list --help` and `users list --json` against a
 * throwaway embedded PostgreSQL (bench/bench-database.ts), each run RUNS times as a child process (what an
 * admin on the server does). Prints the median wall time and the number of files each start loads (one
 * extra run with bench/cli-start-counter.mjs: ES modules through a load hook, CommonJS from require.cache),
 * of which compiled project files (dist/) and packages (node_modules/). The CPU time (user + system) of each
 * start is printed too: on a busy machine the wall time mostly measures the wait for a core.
 *
 *   npm run build && node --import=tsx/esm bench/cli-start-bench.ts     # CLI_START_RUNS=15 for steadier medians
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBenchDatabase } from './bench-database.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const crmAdmin = path.join(root, 'bin/crm-admin');
const counter = path.join(root, 'bench/cli-start-counter.mjs');
const RUNS = Number(process.env.CLI_START_RUNS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Case {
  label: string;
  args: string[];
}

const scratch = fs.mkdtempSync('/tmp/crm-cli-start-');

function spawnCli(args: string[], env: Record<string, string>, nodeOptions: string[]): void {
  const res = spawnSync(process.execPath, [...nodeOptions, crmAdmin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`crm-admin ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
}

/** One start: wall time and CPU time in ms. */
function run(args: string[], env: Record<string, string>): { wall: number; cpu: number } {
  const cpuFile = path.join(scratch, 'cpu.txt');
  const started = process.hrtime.bigint();
  spawnCli(args, { ...env, CLI_START_CPU_FILE: cpuFile }, ['--import', counter]);
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  return { wall, cpu: Number(fs.readFileSync(cpuFile, 'utf8')) };
}

function loadedFiles(args: string[], env: Record<string, string>): { total: number; dist: number; packages: number } {
  const out = path.join(scratch, 'loaded.txt');
  fs.rmSync(out, { force: true });
  spawnCli(args, { ...env, CLI_START_COUNT_FILE: out }, ['--import', counter]);
  const files = new Set(fs.readFileSync(out, 'utf8').split('\n').filter(Boolean));
  const inRepo = (dir: string) => [...files].filter((f) => f.startsWith(`file://${path.join(root, dir)}/`)).length;
  return { total: files.size, dist: inRepo('dist'), packages: inRepo('node_modules') };
}

if (!fs.existsSync(path.join(root, 'dist/commands'))) throw new Error('dist/ is missing: npm run build first');
const manifest = fs.existsSync(path.join(root, 'oclif.manifest.json'));
const db = await openBenchDatabase('cli-start');
try {
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    CRM_DATA_DIR: db.ctx.config.dataDir,
    JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
    JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
    CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
    LOG_LEVEL: 'error',
  };
  const cases: Case[] = [
    { label: '--version', args: ['--version'] },
    { label: '--help', args: ['--help'] },
    { label: 'users list --help', args: ['users', 'list', '--help'] },
    { label: 'users list --json', args: ['users', 'list', '--json'] },
  ];
  console.log(`crm-admin start, ${RUNS} runs each, oclif.manifest.json ${manifest ? 'present' : 'absent'}, node ${process.version}`);
  console.log('case                   wall median ms   CPU median ms   CPU min ms   files loaded (dist/ + node_modules/)');
  for (const c of cases) {
    run(c.args, env); // warm the file cache
    const times = Array.from({ length: RUNS }, () => run(c.args, env));
    const cpu = times.map((t) => t.cpu);
    const files = loadedFiles(c.args, env);
    console.log(
      `${c.label.padEnd(22)} ${median(times.map((t) => t.wall))
        .toFixed(0)
        .padStart(14)} ${median(cpu).toFixed(0).padStart(15)} ${Math.min(...cpu)
        .toFixed(0)
        .padStart(12)}   ${files.total} (${files.dist} + ${files.packages})`,
    );
  }
} finally {
  await db.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
