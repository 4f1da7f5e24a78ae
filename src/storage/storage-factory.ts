import { createRequire } from 'node:module';
import type { StorageSettings } from '../config/config.js';
import { ValidationError } from '../errors/app-errors.js';
import type { FileStorage, StorageKind } from './file-storage.js';
import { LocalFileStorage } from './local-storage.js';
import type * as S3StorageModule from './s3-storage.js';

const require = createRequire(import.meta.url);
/** The S3 SDK is loaded only when a bucket is used (ADR 0113): the single-host default never pays for it. */
let s3Module: typeof S3StorageModule | undefined;
const s3 = () => (s3Module ??= require('./s3-storage.js') as typeof S3StorageModule);

/**
 * A backend: `settings.kind` (CRM_STORAGE) for the service, or the other one for migrate-storage's
 * `--to`. The bucket needs its CRM_S3_* settings even while CRM_STORAGE=local, to be a target.
 */
export function createFileStorage(settings: StorageSettings, dataDir: string, kind: StorageKind = settings.kind): FileStorage {
  if (kind === 'local') return new LocalFileStorage(dataDir);
  if (!settings.s3) throw new S3NotConfiguredError();
  return new (s3().S3FileStorage)(settings.s3);
}

/** A command asked for the bucket (migrate-storage --to s3) without its settings: the operator's to fix. */
export class S3NotConfiguredError extends ValidationError {
  constructor() {
    const message = 'Úložisko S3 nie je nastavené: nastavte CRM_S3_BUCKET, CRM_S3_ACCESS_KEY_ID a CRM_S3_SECRET_ACCESS_KEY (a CRM_S3_ENDPOINT)';
    super(message, [{ field: 'CRM_S3_BUCKET', message }]);
  }
}
