/**
 * The zip of an access request, written as it is read: entries are added in order and yazl pulls each
 * one's bytes only when the previous entry is done and the output wants more (backpressure reaches the
 * database cursor), so memory stays at about one batch of rows whatever the size of the export.
 * JSON Lines files (one JSON object per line) can be read line by line by whoever answers the request.
 */
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Yazl from 'yazl';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const yazl = lazyRequire<typeof Yazl>('yazl');

export class ExportArchive {
  private readonly zip = new (yazl().ZipFile)();
  private readonly done: Promise<void>;
  private failure?: Error;
  private written = 0;

  constructor(target: Writable, { end = true }: { end?: boolean } = {}) {
    this.zip.on('error', (err: Error) => {
      this.failure ??= err;
      (this.zip.outputStream as Readable).destroy(err);
    });
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.written += chunk.length;
        callback(null, chunk);
      },
    });
    this.done = pipeline(this.zip.outputStream as Readable, counter, target, { end });
    // Awaited in finish(); an early failure must not surface as an unhandled rejection meanwhile.
    this.done.catch(() => undefined);
  }

  addText(name: string, text: string): void {
    this.zip.addBuffer(Buffer.from(text, 'utf8'), name, { mtime: new Date() });
  }

  /**
   * A JSON Lines entry whose rows are read only when the zip gets to it. `count` is told each row
   * written, so a later entry (the summary) can report how many there were.
   */
  addLines(name: string, rows: () => AsyncIterable<unknown>, count: (n: number) => void = () => undefined): void {
    this.zip.addReadStreamLazy(name, { mtime: new Date() }, (cb) => {
      const stream = Readable.from(jsonLines(rows(), count), { objectMode: false });
      // A failed query ends the whole archive (yazl leaves a source's errors to its owner).
      stream.on('error', (err) => this.abort(err));
      cb(null, stream);
    });
  }

  /** An entry made when the zip reaches it (after every entry before it is complete). */
  addLate(name: string, make: () => string): void {
    this.zip.addReadStreamLazy(name, { mtime: new Date() }, (cb) => cb(null, Readable.from([Buffer.from(make(), 'utf8')])));
  }

  /** Writes the central directory and resolves once the output has it all; rejects if anything failed. */
  async finish(): Promise<void> {
    this.zip.end();
    await this.done;
    if (this.failure) throw this.failure;
  }

  /** Bytes handed to the target so far (for HTTP: to the socket, not necessarily read by the client). */
  get bytes(): number {
    return this.written;
  }

  /** Stops writing (the reader went away, or a query failed): the output is cut off. */
  abort(err: Error): void {
    this.failure ??= err;
    (this.zip.outputStream as Readable).destroy(err);
  }
}

async function* jsonLines(rows: AsyncIterable<unknown>, count: (n: number) => void): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const row of rows) {
    n++;
    yield Buffer.from(`${JSON.stringify(row)}\n`, 'utf8');
  }
  count(n);
}
