import crypto from 'node:crypto';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Settings } from '../config/config.js';
import { classifyS3Error, s3Code, s3Status, type S3Problem } from './s3-errors.js';
import { s3Client } from './s3-storage.js';

export type BucketProbe = { ok: true } | { ok: false; step: 'read' | 'write' | 'delete'; problem: S3Problem; code: string; status?: number };

/** Outside every store's prefix, so the sweep and migrate-storage never see it. */
const PROBE_PREFIX = '.crm-doctor/';

/**
 * What `crm-admin doctor` asks of the bucket: can it be reached, does it exist, are the keys accepted
 * (a listing), can we write (a small probe object) and delete (the same object, gone again). One
 * attempt each, no retries: a doctor that answers in seconds. The result names the S3 error code,
 * never a request, a signature or a key.
 */
export async function probeBucket(settings: S3Settings): Promise<BucketProbe> {
  const client = s3Client(settings, { maxAttempts: 1 });
  const key = `${PROBE_PREFIX}${crypto.randomUUID()}`;
  let step: 'read' | 'write' | 'delete' = 'read';
  try {
    await client.send(new ListObjectsV2Command({ Bucket: settings.bucket, MaxKeys: 1 }));
    step = 'write';
    await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: key, Body: 'crm-admin doctor probe' }));
    step = 'delete';
    await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: key }));
    return { ok: true };
  } catch (err) {
    return { ok: false, step, problem: classifyS3Error(err), code: s3Code(err), status: s3Status(err) };
  } finally {
    client.destroy();
  }
}
