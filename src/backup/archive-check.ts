import { Digest } from './digest.js';
import { ArchiveFormatError, isSafeFileKey, type ArchiveHeader, type ArchiveManifest, type FileSum, type TableSum } from './manifest.js';

/**
 * Recomputes what the manifest claims while the entries stream past, and enforces their order
 * (tables in the header's order, parts numbered from 1, files after the tables), so that a
 * restore can load each part the moment it arrives. `compare()` then lists every disagreement.
 */
export class ArchiveChecker {
  private readonly tables = new Map<string, { digest: Digest; parts: number }>();
  private readonly files = new Map<string, FileSum>();
  private currentIndex = -1;
  private filesStarted = false;

  constructor(
    private readonly header: ArchiveHeader,
    private readonly headerSha256: string,
  ) {}

  /** Checks a part's place; answers the digest to feed with its bytes. */
  part(tableIndex: number, table: string, part: number): Digest {
    const spec = this.header.tables[tableIndex];
    if (!spec || spec.name !== table) throw new ArchiveFormatError(`table entry ${tableIndex}-${table} is not in the header`);
    if (this.filesStarted || tableIndex < this.currentIndex) throw new ArchiveFormatError(`table ${table} is out of order in the archive`);
    this.currentIndex = tableIndex;
    let state = this.tables.get(table);
    if (!state) this.tables.set(table, (state = { digest: new Digest(), parts: 0 }));
    if (part !== state.parts + 1) throw new ArchiveFormatError(`table ${table}: part ${part} follows part ${state.parts}`);
    state.parts = part;
    return state.digest;
  }

  file(key: string): void {
    if (!isSafeFileKey(key)) throw new ArchiveFormatError(`file entry "${key}" is not a storage key`);
    if (this.files.has(key)) throw new ArchiveFormatError(`file ${key} appears twice`);
    this.filesStarted = true;
  }

  fileDone(key: string, digest: Digest): void {
    this.files.set(key, { key, size: digest.bytes, sha256: digest.hex() });
  }

  /** Every disagreement between what was read and the manifest (empty: the archive is intact). */
  compare(manifest: ArchiveManifest): string[] {
    const problems: string[] = [];
    if (manifest.headerSha256 !== this.headerSha256) problems.push('header.json was changed after the backup (checksum differs)');
    if (JSON.stringify(manifest.migrations) !== JSON.stringify(this.header.migrations)) problems.push('header and manifest disagree on the schema version');
    if (manifest.key.fingerprint !== this.header.key.fingerprint) problems.push('header and manifest disagree on the key fingerprint');
    return [...problems, ...this.compareTables(manifest), ...this.compareFiles(manifest)];
  }

  /** Each table of the header against its line in the manifest; a manifest line no header table has. */
  private compareTables(manifest: ArchiveManifest): string[] {
    const problems: string[] = [];
    const claimed = new Map(manifest.tables.map((t) => [t.name, t]));
    for (const spec of this.header.tables) {
      const sum = claimed.get(spec.name);
      const read = this.tableSum(spec.name);
      if (!sum) problems.push(`table ${spec.name}: missing from the manifest`);
      else if (sum.rows !== read.rows) problems.push(`table ${spec.name}: ${read.rows} rows read, manifest says ${sum.rows}`);
      else if (sum.parts !== read.parts) problems.push(`table ${spec.name}: ${read.parts} parts read, manifest says ${sum.parts}`);
      else if (sum.bytes !== read.bytes || sum.sha256 !== read.sha256) problems.push(`table ${spec.name}: checksum differs from the manifest`);
      claimed.delete(spec.name);
    }
    for (const name of claimed.keys()) problems.push(`table ${name}: in the manifest but not in the header`);
    return problems;
  }

  /** Each file read against the manifest; a file the manifest lists that the archive lacks. */
  private compareFiles(manifest: ArchiveManifest): string[] {
    const problems: string[] = [];
    const files = new Map(manifest.files.map((f) => [f.key, f]));
    for (const [key, read] of this.files) {
      const sum = files.get(key);
      if (!sum) problems.push(`file ${key}: not in the manifest`);
      else if (sum.size !== read.size || sum.sha256 !== read.sha256) problems.push(`file ${key}: checksum differs from the manifest`);
      files.delete(key);
    }
    for (const key of files.keys()) problems.push(`file ${key}: in the manifest but missing from the archive`);
    return problems;
  }

  tableSum(name: string): TableSum {
    const state = this.tables.get(name);
    if (!state) return { name, rows: 0, bytes: 0, parts: 0, sha256: new Digest().hex() };
    return { name, rows: state.digest.rows, bytes: state.digest.bytes, parts: state.parts, sha256: state.digest.hex() };
  }
}
