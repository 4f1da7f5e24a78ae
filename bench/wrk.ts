/**
 * wrk (Debian package `wrk`, C, one event loop per thread) as the load generator of a throughput
 * comparison, run as its own process, with the proof that it is not what limits the figure: the CPU
 * it used and the CPU the server process used over the same run. A Node load generator (autocannon)
 * needs about as much CPU per request as a bare express handler, so on two cores it capped both
 * sides of a comparison alike and pulled their ratio towards 1 (issue 51).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface WrkRun {
  requestsPerSecond: number;
  /** Answers other than 2xx/3xx, and socket errors (connect, read, write, timeout). */
  non2xx: number;
  errors: number;
  /** CPU time over the run, in cores (1.0 = one core busy the whole time). */
  serverCores: number;
  wrkCores: number;
  /** The server process's CPU per answered request, in µs: unlike req/s, barely moved by other load. */
  serverMicrosPerRequest: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process (every thread), in seconds; undefined once it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export function wrkAvailable(): boolean {
  return ['/usr/bin/wrk', '/usr/local/bin/wrk'].some((file) => fs.existsSync(file));
}

const ms = (text: string, unit: string) => Number(text) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN);

/** Parses wrk's report (with --latency). */
export function parseWrk(out: string): Omit<WrkRun, 'serverCores' | 'wrkCores' | 'serverMicrosPerRequest'> {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(out);
  if (!rps) throw new Error(`wrk printed no Requests/sec:\n${out}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    return m ? ms(m[1], m[2]) : NaN;
  };
  return {
    requestsPerSecond: Number(rps[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    p50: pct('50'),
    p99: pct('99'),
  };
}

/**
 * One wrk run against `url` (one thread, `connections` connections, `seconds` long), with the CPU that
 * wrk and the server process `serverPid` used meanwhile. wrk's own CPU is sampled from /proc while it
 * runs (every 50 ms, the last sample a moment before it exits).
 */
export async function runWrk(url: string, options: { seconds: number; connections: number; serverPid: number; headers?: Record<string, string> }): Promise<WrkRun> {
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const server0 = processCpuSeconds(options.serverPid) ?? 0;
  const started = process.hrtime.bigint();
  const child = spawn('wrk', ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', ...headerArgs, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let wrkCpu = 0;
  const sampler = setInterval(() => {
    wrkCpu = processCpuSeconds(child.pid!) ?? wrkCpu;
  }, 50);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${out}`);
  const serverCpu = (processCpuSeconds(options.serverPid) ?? server0) - server0;
  const parsed = parseWrk(out);
  return { ...parsed, serverCores: serverCpu / wall, wrkCores: wrkCpu / wall, serverMicrosPerRequest: (serverCpu * 1e6) / (parsed.requestsPerSecond * wall) };
}
