import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type TarStream from 'tar-stream';
import { lazyRequire } from '../shared/lazy-require.js';
import {
  ArchiveFormatError,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  headerSchema,
  manifestSchema,
  parseJsonEntry,
  type ArchiveHeader,
  type ArchiveManifest,
} from './manifest.js';

/** Loaded on first use (ADR 0113): a command that never needs it does not pay for loading it. */
const tar = lazyRequire<typeof TarStream>('tar-stream');

/** An entry's bytes; read them before asking for the next entry. */
export type EntryStream = AsyncIterable<Buffer>;

export type ArchiveEntry =
  | { kind: 'part'; tableIndex: number; table: string; part: number; stream: EntryStream }
  | { kind: 'file'; key: string; size: number; stream: EntryStream }
  | { kind: 'manifest'; manifest: ArchiveManifest };

type TarEntry = AsyncIterable<Buffer> & { header: TarStream.Header; resume(): unknown };

const PART_NAME = /^tables\/(\d{3})-([^/]+)\/part-(\d{6})\.copy$/;
const FILE_NAME = /^files\/((?:[a-z][a-z0-9-]*\/)?[^/]+)$/;
const JSON_LIMIT = 64 * 1024 * 1024;

/**
 * Reads an archive front to back in one pass (a pipe or stdin works as well as a file): the header
 * first, then every entry in order; memory stays constant because each entry is streamed to its
 * consumer before the next is read. Entries the consumer leaves unread are skipped.
 */
export class ArchiveReader {
  private constructor(
    readonly header: ArchiveHeader,
    readonly headerSha256: string,
    private readonly iterator: AsyncIterator<TarEntry>,
    private readonly input: Promise<void>,
  ) {}

  /** Opens a path, `-` (standard input), or a stream of the archive's bytes. */
  static async open(file: string | Readable): Promise<ArchiveReader> {
    if (typeof file === 'string' && file !== '-') {
      await fs.promises.access(file, fs.constants.R_OK).catch((err: NodeJS.ErrnoException) => {
        throw new ArchiveFormatError(`cannot read ${file}: ${err.code ?? err.message}`);
      });
    }
    const source = typeof file !== 'string' ? file : file === '-' ? process.stdin : fs.createReadStream(file);
    const extract = tar().extract();
    const input = pipeline(source, zlib.createGunzip(), extract);
    input.catch(() => undefined);
    const iterator = (extract as AsyncIterable<TarEntry>)[Symbol.asyncIterator]();
    const first = await nextEntry(iterator, input);
    if (!first || first.header.name !== HEADER_ENTRY) {
      throw new ArchiveFormatError(`not a staff-crm backup: the first entry is ${first ? `"${first.header.name}"` : 'missing'}, not ${HEADER_ENTRY}`);
    }
    const text = await readAll(first, JSON_LIMIT);
    const header = parseJsonEntry(headerSchema, text.toString('utf8'), HEADER_ENTRY);
    if (header.formatVersion > FORMAT_VERSION) {
      throw new ArchiveFormatError(`the archive has format version ${header.formatVersion}; this program reads up to ${FORMAT_VERSION}: restore it with a newer crm-admin`);
    }
    return new ArchiveReader(header, crypto.createHash('sha256').update(text).digest('hex'), iterator, input);
  }

  /** The entries after the header; ends after manifest.json (anything after it is an error). */
  async *entries(): AsyncGenerator<ArchiveEntry> {
    let manifestSeen = false;
    for (;;) {
      const entry = await nextEntry(this.iterator, this.input);
      if (!entry) break;
      const name = entry.header.name;
      if (manifestSeen) throw new ArchiveFormatError(`unexpected entry "${name}" after ${MANIFEST_ENTRY}`);
      let part: RegExpExecArray | null;
      let file: RegExpExecArray | null;
      if (name === MANIFEST_ENTRY) {
        manifestSeen = true;
        const text = (await readAll(entry, JSON_LIMIT)).toString('utf8');
        yield { kind: 'manifest', manifest: parseJsonEntry(manifestSchema, text, MANIFEST_ENTRY) };
      } else if ((part = PART_NAME.exec(name))) {
        yield { kind: 'part', tableIndex: Number(part[1]), table: part[2], part: Number(part[3]), stream: entry };
      } else if ((file = FILE_NAME.exec(name))) {
        yield { kind: 'file', key: file[1], size: entry.header.size ?? 0, stream: entry };
      } else {
        throw new ArchiveFormatError(`unexpected entry "${name}" in the archive`);
      }
      entry.resume();
    }
    await this.input.catch((err: unknown) => {
      throw new ArchiveFormatError(`the archive is damaged or truncated: ${err instanceof Error ? err.message : String(err)}`);
    });
    if (!manifestSeen) throw new ArchiveFormatError(`the archive ends without ${MANIFEST_ENTRY}: it is truncated (an interrupted backup?)`);
  }

  /** Stops reading (the consumer gave up); releases the input. */
  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

async function nextEntry(iterator: AsyncIterator<TarEntry>, input: Promise<void>): Promise<TarEntry | undefined> {
  const inputFailed = input.then(() => new Promise<never>(() => undefined));
  try {
    const next = await Promise.race([iterator.next(), inputFailed]);
    return next.done ? undefined : next.value;
  } catch (err) {
    throw new ArchiveFormatError(`the archive is damaged or truncated: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function readAll(stream: EntryStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) throw new ArchiveFormatError('a JSON entry of the archive is implausibly large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
