/**
 * The real S3 server of the tests (scripts/s3/start.sh: OpenStack Swift with s3api, on loopback),
 * started by the first test that needs it and shared like Cyrus: the run takes a lease (its run id,
 * the main mocha process) and the global teardown gives it back (scripts/s3/stop.sh --release), so
 * the server stops with the last run that used it, and only if a test run started it. TEST_KEEP_S3=1
 * keeps it running; TEST_S3_ENV=<file of KEY=VALUE lines> points the suite at another server.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANDOVER } from './worker-environment.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface S3Env {
  CRM_S3_ENDPOINT: string;
  CRM_S3_BUCKET: string;
  CRM_S3_REGION: string;
  CRM_S3_ACCESS_KEY_ID: string;
  CRM_S3_SECRET_ACCESS_KEY: string;
}

let started: S3Env | undefined;

function parse(text: string): S3Env {
  const env = Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^(CRM_S3_[A-Z_]+)=(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  ) as Partial<S3Env>;
  for (const name of ['CRM_S3_ENDPOINT', 'CRM_S3_BUCKET', 'CRM_S3_REGION', 'CRM_S3_ACCESS_KEY_ID', 'CRM_S3_SECRET_ACCESS_KEY'] as const) {
    if (!env[name]) throw new Error(`scripts/s3/start.sh printed no ${name}`);
  }
  return env as S3Env;
}

/** The CRM_S3_* settings of the running test server (started on first use, idempotent). */
export function s3Server(): S3Env {
  if (started) return started;
  if (process.env.TEST_S3_ENV) return (started = parse(fs.readFileSync(process.env.TEST_S3_ENV, 'utf8')));
  const lease = process.env[HANDOVER.runId] ?? String(process.pid);
  const output = execFileSync('bash', [path.join(repoRoot, 'scripts/s3/start.sh')], {
    env: { ...process.env, S3_LEASE: lease, S3_KEEP: process.env.TEST_KEEP_S3 === '1' ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
    encoding: 'utf8',
  });
  return (started = parse(output));
}

/** The service's settings for the bucket, with CRM_STORAGE=s3. */
export function s3StorageEnv(): Record<string, string> {
  return { CRM_STORAGE: 's3', ...s3Server() };
}

/** A data directory of its own: an "instance" that never saw another's files. */
export function instanceDataDir(root: string, name: string): string {
  const dir = path.join(root, `${name}-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/** Called by the global teardown: gives this run's lease back (a no-op when the run never started the server). */
export function releaseS3(runId: string): void {
  if (process.env.TEST_KEEP_S3 === '1' || process.env.TEST_S3_ENV) return;
  try {
    execFileSync('bash', [path.join(repoRoot, 'scripts/s3/stop.sh'), '--release', runId], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 60_000 });
  } catch (err) {
    console.error(`[global teardown] releasing the S3 server failed: ${(err as Error).message}`);
  }
}

/**
 * A bucket of its own on the test server (the sweep and migrate-storage see every object of a bucket,
 * and other files of the run share the default one), with the settings that name it.
 */
export async function freshBucket(prefix = 'crm-t'): Promise<S3Env> {
  const env = s3Server();
  const bucket = `${prefix}-${crypto.randomBytes(5).toString('hex')}`;
  const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
  const { s3Client } = await import('../../src/storage/s3-storage.js');
  const client = s3Client({
    endpoint: env.CRM_S3_ENDPOINT,
    bucket,
    region: env.CRM_S3_REGION,
    accessKeyId: env.CRM_S3_ACCESS_KEY_ID,
    secretAccessKey: env.CRM_S3_SECRET_ACCESS_KEY,
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return { ...env, CRM_S3_BUCKET: bucket };
}

/** The storage backend of those settings, for a test to look into the bucket itself. */
export async function bucketStorage(env: S3Env) {
  const { S3FileStorage } = await import('../../src/storage/s3-storage.js');
  return new S3FileStorage({
    endpoint: env.CRM_S3_ENDPOINT,
    bucket: env.CRM_S3_BUCKET,
    region: env.CRM_S3_REGION,
    accessKeyId: env.CRM_S3_ACCESS_KEY_ID,
    secretAccessKey: env.CRM_S3_SECRET_ACCESS_KEY,
  });
}
