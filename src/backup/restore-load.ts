import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ArchiveChecker } from './archive-check.js';
import type { ArchiveReader } from './archive-reader.js';
import type { DbSession } from './backup-repository.js';
import type { StagedFiles } from './file-restorer.js';
import { ArchiveFormatError, type ArchiveManifest } from './manifest.js';

/** One table's COPY FROM STDIN, fed part by part as the parts stream out of the archive. */
class CopyIn {
  private readonly done: Promise<void>;

  constructor(
    readonly table: string,
    private readonly stream: Writable & { rowCount: number },
  ) {
    this.done = finished(stream);
    this.done.catch(() => undefined);
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.stream.write(chunk)) return;
    await Promise.race([once(this.stream, 'drain'), this.done.then(() => undefined)]);
  }

  /** Ends the COPY; rejects with the server's refusal (a constraint, a bad value) if it had one. */
  async end(): Promise<number> {
    this.stream.end();
    await this.done;
    return this.stream.rowCount;
  }
}

export interface LoadResult {
  manifest: ArchiveManifest;
  rows: number;
  files: number;
  fileBytes: number;
}

/**
 * Reads the rest of the archive into the open transaction: each table's parts through one COPY (in
 * the archive's order, parents before children), each file to a temporary name, every count and
 * checksum recomputed on the way and compared with `checked`, the manifest the first read of the
 * archive authenticated. A disagreement at the end throws, so the caller rolls back and discards the
 * staged files: nothing that differs from what was checked is ever committed.
 */
export async function loadArchive(reader: ArchiveReader, session: DbSession, staged: StagedFiles, checked: ArchiveManifest): Promise<LoadResult> {
  const { header } = reader;
  const checker = new ArchiveChecker(header, reader.headerSha256);
  let copy: CopyIn | undefined;
  let rows = 0;
  let manifest: ArchiveManifest | undefined;
  const endCopy = async () => {
    if (copy) rows += await copy.end();
    copy = undefined;
  };
  for await (const entry of reader.entries()) {
    if (entry.kind === 'part') {
      const digest = checker.part(entry.tableIndex, entry.table, entry.part);
      if (copy?.table !== entry.table) {
        await endCopy();
        copy = new CopyIn(entry.table, session.copyIn(entry.table, header.tables[entry.tableIndex].columns));
      }
      for await (const chunk of entry.stream) {
        digest.update(chunk);
        await copy.write(chunk);
      }
    } else if (entry.kind === 'file') {
      await endCopy();
      checker.file(entry.key);
      checker.fileDone(entry.key, await staged.stage(entry.key, entry.stream));
    } else {
      await endCopy();
      const problems = checker.compare(checked);
      if (JSON.stringify(entry.manifest) !== JSON.stringify(checked)) problems.push('manifest.json differs from the one checked before the restore began');
      if (problems.length > 0) throw new ArchiveFormatError(`the archive changed since it was checked (nothing was restored):\n  - ${problems.join('\n  - ')}`);
      manifest = checked;
    }
  }
  if (!manifest) throw new ArchiveFormatError('the archive has no manifest');
  return { manifest, rows, files: manifest.files.length, fileBytes: manifest.files.reduce((n, f) => n + f.size, 0) };
}
