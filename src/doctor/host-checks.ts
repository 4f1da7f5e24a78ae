/** Checks of this host, not of the database: data directory, secrets files, proxy settings, mail server. */
import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/config.js';
import { SECRET_VARIABLES } from '../config/secret-sources.js';
import { fail, ok, warn, type CheckResult } from './doctor-types.js';

const MB = 1024 * 1024;

/** Files of the data directory that hold secrets (src/config/secrets.ts, src/db/embedded-postgres.ts). */
const DATA_DIR_SECRETS = ['secrets.json', 'postgres.password', 'postgres.app-password', 'postgres.owner-password'];

/**
 * The data directory exists and the service's user may write in it (checked with access(2): doctor
 * writes nothing, not even a probe), and its disk's free space against STORAGE_RESERVE_MB.
 */
export async function checkDataDir(config: AppConfig): Promise<CheckResult[]> {
  const dir = config.dataDir;
  try {
    if (!(await fs.promises.stat(dir)).isDirectory()) return [fail('data-dir', `${dir} is not a directory`, `point CRM_DATA_DIR at the installation's data directory`)];
    await fs.promises.access(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return [fail('data-dir', `${dir} does not exist`, `point CRM_DATA_DIR at the installation's data directory, or create it for the service's user (doctor creates nothing)`)];
    }
    return [fail('data-dir', `${dir} is not writable (${code})`, `give ${dir} to the service's user (chown), or point CRM_DATA_DIR elsewhere`)];
  }
  const stats = await fs.promises.statfs(dir);
  const free = stats.bavail * stats.bsize;
  const reserve = config.uploadLimits.reserveBytes;
  const line = `${dir} writable; ${Math.floor(free / MB)} MB free, STORAGE_RESERVE_MB=${Math.floor(reserve / MB)}`;
  const writable = ok('data-dir', `${dir} writable`);
  if (free < reserve) return [writable, fail('disk-space', line, 'free disk space (old backups, logs) or lower STORAGE_RESERVE_MB: uploads are refused below the reserve')];
  if (free < reserve * 2) return [writable, warn('disk-space', line, 'free disk space soon: less than twice the reserve is left')];
  return [writable, ok('disk-space', line)];
}

/**
 * Secrets readable by the group or the world are secrets no more: the files the service's own *_FILE
 * variables name (SECRET_VARIABLES; SSL_CERT_FILE and the like are someone else's and public), and
 * the secrets the data directory holds (dev secrets, the embedded PostgreSQL's passwords).
 */
export function checkSecretFiles(config: AppConfig, env: NodeJS.ProcessEnv): CheckResult {
  const files: string[] = [];
  for (const name of DATA_DIR_SECRETS) {
    const file = path.join(config.dataDir, name);
    if (fs.existsSync(file)) files.push(file);
  }
  for (const name of SECRET_VARIABLES) {
    const value = env[`${name}_FILE`];
    if (value) files.push(value);
  }
  if (files.length === 0) return ok('secrets', 'secrets come from the environment (no secrets file)');
  const open: string[] = [];
  const missing: string[] = [];
  for (const file of files) {
    try {
      if ((fs.statSync(file).mode & 0o077) !== 0) open.push(`${file} (${(fs.statSync(file).mode & 0o777).toString(8)})`);
    } catch {
      missing.push(file);
    }
  }
  if (missing.length > 0) return fail('secrets', `missing: ${missing.join(', ')}`, 'create the file or unset the *_FILE variable that names it');
  if (open.length > 0) return fail('secrets', `readable by group or others: ${open.join(', ')}`, `chmod 600 ${open.map((f) => f.split(' ')[0]).join(' ')}`);
  return ok('secrets', `${files.length} secrets file(s), readable by their owner only`);
}

/** The proxy-related settings as configured, with the combinations that defeat them. */
export function checkProxy(config: AppConfig): CheckResult {
  const origins = config.corsOrigins.length > 0 ? config.corsOrigins.join(' ') : '(none)';
  const summary = `TRUST_PROXY=${config.trustProxy}, HOST=${config.host}, CORS_ORIGIN=${origins}, METRICS_ALLOW=${config.metricsAllow.join(',') || 'none'}`;
  const loopback = config.host === '127.0.0.1' || config.host === '::1' || config.host === 'localhost';
  if (config.trustProxy > 0 && !loopback) {
    return warn('proxy', summary, 'with TRUST_PROXY set, bind HOST=127.0.0.1 behind the proxy: a client reaching the service directly could forge X-Forwarded-For');
  }
  if (config.isProduction && config.corsOrigins.some((o) => o.startsWith('http://'))) {
    return warn('proxy', summary, 'serve the web app over https: session cookies are Secure in production');
  }
  return ok('proxy', summary);
}

/**
 * The JMAP session URL answers (401 without credentials is an answer: the server is there). No
 * account's password is used.
 */
export async function checkMailServer(config: AppConfig): Promise<CheckResult> {
  const url = config.jmapSessionUrl;
  if (!url) return fail('mail-server', 'JMAP_SESSION_URL is not set', "set JMAP_SESSION_URL to the mail server's JMAP session URL (…/.well-known/jmap)");
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(config.jmapTimeoutMs), redirect: 'manual' });
    await res.body?.cancel();
    if (res.status === 200 || res.status === 401 || (res.status >= 300 && res.status < 400)) return ok('mail-server', `${url} answers (HTTP ${res.status})`);
    return warn('mail-server', `${url} answers HTTP ${res.status}`, 'check JMAP_SESSION_URL: a JMAP session URL answers 200 or 401');
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return fail('mail-server', `${url} does not answer (${cause})`, 'start the mail server or correct JMAP_SESSION_URL (and any firewall between)');
  }
}
