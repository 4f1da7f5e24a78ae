/**
 * Where a crm-admin command's time goes: each command runs RUNS times under the V8 CPU profiler
 * (`node --cpu-prof`, 1 ms samples) against the installation the environment points at (as
 * bench/cli-commands.ts: CRM_DATA_DIR of a running `crm-admin serve`, or DATABASE_URL), and every
 * sample is put in one bucket: the library (or our own code) whose frame is innermost on its stack,
 * the module loader (compiling and linking modules), the garbage collector, or idle (waiting, nearly
 * always for PostgreSQL). Prints the median ms per bucket, the wall time and the process CPU time.
 * Profiling adds some overhead; the buckets are for comparing, bench/cli-commands.ts for the times.
 *
 *   npm run build && CRM_DATA_DIR=... JWT_ACCESS_SECRET=... node --import=tsx/esm bench/cli-breakdown.ts
 *   CLI_RUNS=7 CLI_CHECKOUT=/path/to/other/checkout node --import=tsx/esm bench/cli-breakdown.ts users list --json
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const root = process.env.CLI_CHECKOUT ?? fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.CLI_RUNS ?? 5);
const commands = process.argv.length > 2 ? [process.argv.slice(2)] : [['--help'], ['users', 'list', '--json'], ['audit', 'list'], ['sync', 'status']];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The bucket of one sample: innermost package or dist folder on the stack, else the V8/Node frame kind. */
function bucketOf(node: ProfileNode, parent: Map<number, number>, byId: Map<number, ProfileNode>): string {
  const self = node.callFrame.functionName;
  if (self === '(idle)' || self === '(garbage collector)' || self === '(program)') return self;
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const url = byId.get(id)!.callFrame.url;
    // Loading a module on first use (src/app/wiring/lazy-module.ts) is the module loader's time.
    if (url.endsWith('/lazy-module.js') || url.endsWith('/deferred-logger.js')) break;
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) return packageGroup(pkg[1]);
    const own = /\/dist\/(commands|src\/[^/]+)/.exec(url);
    if (own) return `ours: ${own[1]}`;
  }
  if (!/^node:|^$/.test(node.callFrame.url) && !/node_modules|\/dist\//.test(node.callFrame.url)) return '(node internals)';
  // Node's own frames: the ES module loader (read, resolve, compile, link) or other internals.
  return /compile|Module|resolve|load|link|read|stat|realpath|Package|parse|decode/i.test(self) ? '(module loader)' : '(node internals)';
}

/** Sequelize's dependencies count as Sequelize, oclif's as oclif: what a command pays for each choice. */
function packageGroup(name: string): string {
  if (
    ['sequelize', 'validator', 'lodash', 'moment', 'moment-timezone', 'wkx', 'uuid', 'inflection', 'dottie', 'toposort-class', 'retry-as-promised', 'sequelize-pool'].includes(name)
  )
    return 'sequelize';
  if (name === 'pg' || name.startsWith('pg-') || name.startsWith('postgres-')) return 'pg';
  if (
    name.startsWith('@oclif/') ||
    [
      'semver',
      'picomatch',
      'minimatch',
      'tinyglobby',
      'fdir',
      'debug',
      'ejs',
      'ansis',
      'string-width',
      'wrap-ansi',
      'widest-line',
      'wordwrap',
      'get-package-type',
      'lilconfig',
      'cli-spinners',
      'supports-color',
      'is-wsl',
      'wsl-utils',
      'indent-string',
      'clean-stack',
      'strip-ansi',
      'ansi-regex',
      'is-docker',
      'is-inside-container',
      'powershell-utils',
      'ansi-escapes',
      'slice-ansi',
      'cli-truncate',
    ].includes(name)
  )
    return 'oclif';
  return name;
}

function profileOnce(args: string[]): { wall: number; buckets: Map<string, number> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-cli-breakdown-'));
  const started = process.hrtime.bigint();
  const res = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '1000', path.join(root, 'bin/crm-admin'), ...args], { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 0) throw new Error(`crm-admin ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile;
  fs.rmSync(dir, { recursive: true, force: true });
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const buckets = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = bucketOf(byId.get(id)!, parent, byId);
    buckets.set(key, (buckets.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return { wall, buckets };
}

console.log(
  `crm-admin time by part (ms, median of ${RUNS} profiled runs), ${root}, node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`,
);
for (const args of commands) {
  profileOnce(args); // warm the file cache
  const runs = Array.from({ length: RUNS }, () => profileOnce(args));
  const keys = [...new Set(runs.flatMap((r) => [...r.buckets.keys()]))];
  const rows = keys.map((k) => [k, median(runs.map((r) => r.buckets.get(k) ?? 0))] as const).sort((a, b) => b[1] - a[1]);
  console.log(`\n${args.join(' ')}: wall ${median(runs.map((r) => r.wall)).toFixed(0)} ms (profiled)`);
  for (const [k, v] of rows) if (v >= 1) console.log(`  ${v.toFixed(0).padStart(6)}  ${k}`);
}
