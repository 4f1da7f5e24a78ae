import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config/config.js';
import { assertNoOpenTransaction } from '../db/transaction-scope.js';
import {
  assertStoreName,
  isStorageKey,
  StorageWriteError,
  StoredObjectNotFoundError,
  type FileStorage,
  type KeyedFileStore,
  type ListedObject,
  type StoredObject,
  type StoredObjectReader,
} from './file-storage.js';
import { isNotFound } from './s3-errors.js';

/** Parts of a multipart upload: the smallest S3 allows, two in flight, so one upload holds at most ~10 MiB. */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export function s3Client(settings: S3Settings, options: { maxAttempts?: number } = {}): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Path-style (endpoint/bucket/key): what every S3-compatible server answers, with no wildcard DNS.
    forcePathStyle: true,
    // SDKs since early 2025 add CRC checksums to every request by default; servers that predate them
    // (Ceph, Swift's s3api, older MinIO) refuse those requests. Checksums only where S3 requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: options.maxAttempts ?? 3,
    // A store that stops answering must fail the request, not hang it (the same reasoning as the database's query timeout).
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
  });
}

/** CRM_STORAGE=s3: one bucket, each store a key prefix (`timesheets/<key>`), shared by every instance. */
export class S3FileStorage implements FileStorage {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly stores = new Map<string, S3Store>();

  constructor(readonly settings: S3Settings) {
    this.client = s3Client(settings);
  }

  store(name: string): S3Store {
    let store = this.stores.get(name);
    if (!store) this.stores.set(name, (store = new S3Store(assertStoreName(name), this.client, this.settings.bucket)));
    return store;
  }

  freeBytes(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}

export class S3Store implements KeyedFileStore {
  constructor(
    readonly name: string,
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  put(source: Readable): Promise<StoredObject> {
    return this.upload(crypto.randomUUID(), source);
  }

  /** S3 makes an object visible only when its upload completes: atomic, and a rerun overwrites it. */
  putAt(key: string, source: Readable): Promise<StoredObject> {
    if (!isStorageKey(key)) return Promise.reject(new StoredObjectNotFoundError(key));
    return this.upload(key, source);
  }

  async get(key: string): Promise<StoredObjectReader> {
    const found = await this.send(key, () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
    const body = found.Body as (Readable & GetObjectCommandOutput['Body']) | undefined;
    if (!body) throw new StoredObjectNotFoundError(key);
    return { stream: body, size: found.ContentLength ?? 0 };
  }

  async size(key: string): Promise<number> {
    const head = await this.send(key, () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
    return head.ContentLength ?? 0;
  }

  async delete(key: string): Promise<void> {
    if (!isStorageKey(key)) return;
    assertNoOpenTransaction('a request to the object store');
    // S3 answers 204 for a key that is already gone: repeatable, as the interface promises.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async *list(): AsyncIterable<ListedObject> {
    const prefix = `${this.name}/`;
    let token: string | undefined;
    do {
      assertNoOpenTransaction('a request to the object store');
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(prefix.length) ?? '';
        if (isStorageKey(key)) yield { key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private objectKey(key: string): string {
    if (!isStorageKey(key)) throw new StoredObjectNotFoundError(key);
    return `${this.name}/${key}`;
  }

  /** A read of one object: 404 is StoredObjectNotFoundError, anything else the SDK's error. */
  private async send<T>(key: string, request: () => Promise<T>): Promise<T> {
    this.objectKey(key);
    assertNoOpenTransaction('a request to the object store');
    try {
      return await request();
    } catch (err) {
      throw isNotFound(err) ? new StoredObjectNotFoundError(key) : err;
    }
  }

  /**
   * Streams through lib-storage: one PUT for a small body, a multipart upload in parts of 5 MiB for a
   * larger one (aborted on failure, so no parts are left behind). Memory stays at two parts whatever
   * the size. The bytes are counted on the way: the size is what was stored, not what was announced.
   */
  private async upload(key: string, source: Readable): Promise<StoredObject> {
    assertNoOpenTransaction('a request to the object store');
    let size = 0;
    let sourceFailure: Error | undefined;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    source.once('error', (err) => {
      sourceFailure ??= err;
      counted.destroy(err);
    });
    source.pipe(counted);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.objectKey(key), Body: counted },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      return { key, size };
    } catch (err) {
      source.unpipe(counted);
      // The upload's own failure; a failed source is the caller's (a client that went away, a size limit).
      if (sourceFailure !== undefined) throw sourceFailure;
      if (!source.readableEnded) source.destroy();
      throw new StorageWriteError(err);
    }
  }
}
