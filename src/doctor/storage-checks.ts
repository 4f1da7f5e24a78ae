import type { AppConfig } from '../config/config.js';
import type { BucketProbe } from '../storage/s3-probe.js';
import { fail, ok, type CheckResult } from './doctor-types.js';

const FIXES: Record<Exclude<BucketProbe, { ok: true }>['problem'], string> = {
  unreachable: 'check CRM_S3_ENDPOINT (scheme, host, port) and that the object store runs and is reachable from this host',
  'no-bucket': 'create the bucket, or correct CRM_S3_BUCKET (and CRM_S3_REGION for AWS)',
  credentials: 'correct CRM_S3_ACCESS_KEY_ID and CRM_S3_SECRET_ACCESS_KEY (or their _FILE / credential)',
  denied: 'grant the key list, read, write and delete on the bucket (or correct CRM_S3_ACCESS_KEY_ID / CRM_S3_SECRET_ACCESS_KEY)',
  other: 'see the error code in the object store documentation; run doctor again',
};

const STEPS = { read: 'listing the bucket', write: 'writing a probe object', delete: 'deleting the probe object' };

/** CRM_STORAGE: the directory is checked with the data directory; a bucket is asked whether it can be reached, read and written. */
export async function checkStorage(config: AppConfig): Promise<CheckResult> {
  const { storage } = config;
  if (storage.kind === 'local' || !storage.s3) return ok('storage', `local: files under ${config.dataDir} (CRM_STORAGE=local; one host, or a shared volume)`);
  const where = `bucket "${storage.s3.bucket}" at ${endpointShown(storage.s3.endpoint)}`;
  // The S3 SDK is loaded only when a bucket is configured (ADR 0113).
  const { probeBucket } = await import('../storage/s3-probe.js');
  const probe = await probeBucket(storage.s3);
  if (probe.ok) return ok('storage', `s3: ${where} reachable, keys accepted, writable (a probe object written and deleted)`);
  const status = probe.status === undefined ? '' : `, HTTP ${probe.status}`;
  return fail('storage', `s3: ${where}: ${STEPS[probe.step]} failed (${probe.problem}: ${probe.code}${status})`, FIXES[probe.problem]);
}

/** The endpoint as an operator recognises it, without anything that could carry a secret (user info, query). */
function endpointShown(endpoint: string | undefined): string {
  if (!endpoint) return 'AWS S3';
  try {
    return new URL(endpoint).origin;
  } catch {
    return '(CRM_S3_ENDPOINT)';
  }
}
