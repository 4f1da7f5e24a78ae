import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type TarStream from 'tar-stream';
import { lazyRequire } from '../shared/lazy-require.js';
import { Digest, DigestStream, rowBoundary } from './digest.js';
import { PART_BYTES, partEntryName, type FileSum, type TableSum } from './manifest.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const tar = lazyRequire<typeof TarStream>('tar-stream');

/** Where an archive goes: a file written under a temporary name and renamed when complete (mode 0600), or stdout. */
export interface ArchiveTarget {
  stream: Writable;
  /** False for stdout, which must stay open for whoever else writes there. */
  end: boolean;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export async function openArchiveTarget(file: string): Promise<ArchiveTarget> {
  if (file === '-') return { stream: process.stdout, end: false, commit: async () => undefined, abort: async () => undefined };
  const target = path.resolve(file);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.partial`);
  const stream = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 });
  await once(stream, 'open');
  const closed = once(stream, 'close');
  closed.catch(() => undefined);
  return {
    stream,
    end: true,
    async commit() {
      await closed;
      // Durable before it takes the final name: a crash must never leave a short archive under it.
      const handle = await fs.promises.open(temp, 'r');
      await handle.sync().finally(() => handle.close());
      await fs.promises.chmod(temp, 0o600);
      await fs.promises.rename(temp, target);
    },
    async abort() {
      stream.destroy();
      await fs.promises.rm(temp, { force: true });
    },
  };
}

/**
 * Streams entries into a gzip'd tar. Every entry's size must be known before its bytes (tar headers come
 * first), so table data is cut into parts at row boundaries; memory stays at about one part whatever the
 * table's size. Entry writes wait for the output (backpressure), and fail at once if the output fails.
 */
export class ArchiveWriter {
  private readonly pack = tar().pack();
  private readonly counter = new DigestStream();
  private readonly done: Promise<void>;
  private readonly failed: Promise<never>;

  constructor(
    target: ArchiveTarget,
    private readonly mtime: Date,
    private readonly partBytes = PART_BYTES,
  ) {
    this.done = pipeline(this.pack, zlib.createGzip(), this.counter, target.stream, { end: target.end });
    this.failed = this.done.then(() => new Promise<never>(() => undefined));
    this.failed.catch(() => undefined);
  }

  /** Compressed bytes written so far. */
  get bytes(): number {
    return this.counter.digest.bytes;
  }

  async addBuffer(name: string, data: Buffer): Promise<void> {
    await this.addStream(name, data.length, Readable.from([data]));
  }

  async addStream(name: string, size: number, source: Readable): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      const entry = this.pack.entry({ name, size, mode: 0o600, mtime: this.mtime }, (err) => (err ? reject(err) : resolve()));
      pipeline(source, entry).catch(reject);
    });
    await Promise.race([written, this.failed]);
  }

  /** One table's COPY output as parts of about partBytes (PART_BYTES; more only for a single larger row). */
  async addTable(index: number, table: string, copy: Readable): Promise<TableSum> {
    const digest = new Digest();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let parts = 0;
    const emit = async (data: Buffer) => {
      digest.update(data);
      await this.addBuffer(partEntryName(index, table, ++parts), data);
    };
    for await (const chunk of copy as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < this.partBytes) continue;
      const joined = Buffer.concat(pending);
      const cut = rowBoundary(joined);
      pending = cut < joined.length ? [joined.subarray(cut)] : [];
      pendingBytes = joined.length - cut;
      if (cut > 0) await emit(joined.subarray(0, cut));
    }
    if (pendingBytes > 0) await emit(Buffer.concat(pending));
    return { name: table, rows: digest.rows, bytes: digest.bytes, parts, sha256: digest.hex() };
  }

  async addFile(name: string, key: string, size: number, source: Readable): Promise<FileSum> {
    const tap = new DigestStream();
    source.once('error', (err) => tap.destroy(err));
    await this.addStream(name, size, source.pipe(tap));
    return { key, size: tap.digest.bytes, sha256: tap.digest.hex() };
  }

  async finish(): Promise<void> {
    this.pack.finalize();
    await this.done;
  }

  destroy(err: Error): void {
    this.pack.destroy(err);
  }
}
