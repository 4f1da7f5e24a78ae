import { ArchiveChecker } from './archive-check.js';
import { ArchiveReader } from './archive-reader.js';
import { Digest } from './digest.js';
import { ArchiveFormatError, keyStatus, type ArchiveHeader, type ArchiveManifest, type TableSum } from './manifest.js';
import { authenticate, authenticationProblem, type Authentication, type BackupKeys } from './signing.js';

export type SchemaStatus = 'current' | 'older' | 'newer' | 'unrelated';

export interface VerifyReport {
  file: string;
  /** True when the archive is intact and authenticated: the one state a restore needs no opt-in for. */
  ok: boolean;
  /** True when every count and checksum matches the manifest (whoever wrote it). */
  intact: boolean;
  /** Damage, and a signature that does not match under the key the archive names (forged). */
  problems: string[];
  /** Whether the manifest's signature checks out under a configured key (null: the archive could not be read to its end). */
  authentication: Authentication | null;
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

/** True when a restore may go on: intact, and signed or (with the operator's --allow-unsigned) merely unauthenticated. */
export function acceptable(report: VerifyReport, allowUnsigned: boolean): boolean {
  if (!report.intact || !report.authentication) return false;
  if (report.authentication.status === 'signed') return true;
  return allowUnsigned && report.authentication.status !== 'forged';
}

/**
 * Reads the whole archive once, recomputing every count and checksum and checking the signature;
 * never throws for a bad archive. `file` is a path or `-` (standard input).
 */
export async function verifyArchive(file: string, keys: BackupKeys, known: string[]): Promise<VerifyReport> {
  return (await checkArchive(file, file, keys, known)).report;
}

/** A checked archive: the report, and what a restore compares its second read with. */
export interface CheckedArchive {
  report: VerifyReport;
  header?: ArchiveHeader;
  manifest?: ArchiveManifest;
  headerSha256?: string;
}

/** verifyArchive for a restore's first read: also answers the manifest it authenticated. */
export async function checkArchive(file: string, source: Parameters<typeof ArchiveReader.open>[0], keys: BackupKeys, known: string[]): Promise<CheckedArchive> {
  const checked: CheckedArchive = { report: {
    file,
    ok: false,
    intact: false,
    problems: [],
    authentication: null,
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
  } };
  const { report } = checked;
  let reader: ArchiveReader | undefined;
  try {
    reader = await ArchiveReader.open(source);
    const { header } = reader;
    Object.assign(report, {
      createdAt: header.createdAt,
      appVersion: header.appVersion,
      schemaVersion: header.migrations.at(-1) ?? null,
      schemaStatus: schemaStatus(header.migrations, known),
      keyStatus: keyStatus(header, keys.encryption),
    });
    checked.header = header;
    checked.headerSha256 = reader.headerSha256;
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
        report.authentication = authenticate(header, entry.manifest, keys);
        checked.manifest = entry.manifest;
        report.tables = header.tables.map((t) => checker.tableSum(t.name));
        report.rows = report.tables.reduce((n, t) => n + t.rows, 0);
        report.files = entry.manifest.files.length;
        report.fileBytes = entry.manifest.files.reduce((n, f) => n + f.size, 0);
        report.missingFiles = entry.manifest.missingFiles;
      }
    }
    report.intact = report.problems.length === 0;
  } catch (err) {
    if (!(err instanceof ArchiveFormatError) && !isFileError(err)) throw err;
    report.problems.push(err.message);
    report.intact = false;
  } finally {
    await reader?.close().catch(() => undefined);
  }
  if (report.authentication?.status === 'forged') report.problems.push(authenticationProblem(report.authentication)!);
  report.ok = report.intact && report.authentication?.status === 'signed';
  return checked;
}

function isFileError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}
