import crypto from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;

/** Counts newline bytes: in COPY text format a raw newline ends a row (newlines inside values are escaped). */
export function countRows(chunk: Buffer): number {
  let rows = 0;
  for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) rows++;
  return rows;
}

/** A running sha256, byte count and row count over everything that passes through. */
export class Digest {
  private readonly hash = crypto.createHash('sha256');
  private final?: string;
  bytes = 0;
  rows = 0;

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.rows += countRows(chunk);
  }

  hex(): string {
    return (this.final ??= this.hash.digest('hex'));
  }
}

/** A pass-through stream that feeds a Digest (or only counts bytes, for the archive's size). */
export class DigestStream extends Transform {
  readonly digest = new Digest();

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.digest.update(chunk);
    callback(null, chunk);
  }
}

/** The index just after the last newline in `buf`, or 0 when it holds no complete row. */
export function rowBoundary(buf: Buffer): number {
  return buf.lastIndexOf(NEWLINE) + 1;
}
