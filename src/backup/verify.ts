import { ArchiveChecker } from './archive-check.js';
import { ArchiveReader } from './archive-reader.js';
import { Digest } from './digest.js';
import { ArchiveFormatError, keyStatus, manifestAuthProblem, type EncryptionKeys, type TableSum } from './manifest.js';

export type SchemaStatus = 'current' | 'older' | 'newer' | 'unrelated';

export interface VerifyReport {
  file: string;
  /** True when every count and checksum matches the manifest (the key is reported separately). */
  ok: boolean;
  problems: string[];
  createdAt: string | null;
  appVersion: string | null;
  schemaVersion: string | null;
  /** The archive's schema against the migrations this program knows: 'newer' cannot be restored here. */
  schemaStatus: SchemaStatus | null;
  /** 'different': the configured CRM_ENCRYPTION_KEY cannot read the archive's mail passwords. */
  keyStatus: 'same' | 'retired' | 'different' | null;
  tables: TableSum[];
  rows: number;
  files: number;
  fileBytes: number;
  missingFiles: string[];
}

/** How the archive's migration list relates to this program's. */
export function schemaStatus(archive: string[], known: string[]): SchemaStatus {
  const isPrefix = (a: string[], b: string[]) => a.length <= b.length && a.every((name, i) => b[i] === name);
  if (isPrefix(archive, known)) return archive.length === known.length ? 'current' : 'older';
  return isPrefix(known, archive) ? 'newer' : 'unrelated';
}

/** Reads the whole archive once, recomputing every count and checksum; never throws for a bad archive. */
export async function verifyArchive(file: string, keys: EncryptionKeys, known: string[]): Promise<VerifyReport> {
  const report: VerifyReport = {
    file,
    ok: false,
    problems: [],
    createdAt: null,
    appVersion: null,
    schemaVersion: null,
    schemaStatus: null,
    keyStatus: null,
    tables: [],
    rows: 0,
    files: 0,
    fileBytes: 0,
    missingFiles: [],
  };
  let reader: ArchiveReader | undefined;
  try {
    reader = await ArchiveReader.open(file);
    const { header } = reader;
    Object.assign(report, {
      createdAt: header.createdAt,
      appVersion: header.appVersion,
      schemaVersion: header.migrations.at(-1) ?? null,
      schemaStatus: schemaStatus(header.migrations, known),
      keyStatus: keyStatus(header, keys),
    });
    const checker = new ArchiveChecker(header, reader.headerSha256);
    for await (const entry of reader.entries()) {
      if (entry.kind === 'part') {
        const digest = checker.part(entry.tableIndex, entry.table, entry.part);
        for await (const chunk of entry.stream) digest.update(chunk);
      } else if (entry.kind === 'file') {
        checker.file(entry.key);
        const digest = new Digest();
        for await (const chunk of entry.stream) digest.update(chunk);
        checker.fileDone(entry.key, digest);
      } else {
        report.problems.push(...checker.compare(entry.manifest));
        // With another key (reported as keyStatus 'different', which restore refuses) the HMAC cannot be checked.
        const forged = report.keyStatus === 'different' ? null : manifestAuthProblem(header, entry.manifest, keys);
        if (forged) report.problems.push(forged);
        report.tables = header.tables.map((t) => checker.tableSum(t.name));
        report.rows = report.tables.reduce((n, t) => n + t.rows, 0);
        report.files = entry.manifest.files.length;
        report.fileBytes = entry.manifest.files.reduce((n, f) => n + f.size, 0);
        report.missingFiles = entry.manifest.missingFiles;
      }
    }
  } catch (err) {
    if (!(err instanceof ArchiveFormatError) && !isFileError(err)) throw err;
    report.problems.push(err.message);
  } finally {
    await reader?.close().catch(() => undefined);
  }
  report.ok = report.problems.length === 0;
  return report;
}

function isFileError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}
