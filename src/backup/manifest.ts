import crypto from 'node:crypto';
import { z } from 'zod';

/**
 * The archive format (a gzip'd tar, entries in this order):
 *
 *   header.json                          what is known before any data: format, schema version (the applied
 *                                        migrations), key fingerprints, the tables in restore order with their columns
 *   tables/NNN-<table>/part-NNNNNN.copy  each table's rows in PostgreSQL COPY text format, cut at row boundaries
 *                                        into parts of at most PART_BYTES (tar needs every entry's size up front)
 *   files/<key>                          each timesheet file referenced by the snapshot's timesheets rows
 *   files/<store>/<key>                  each file of another store (src/storage/stored-files.ts) its rows reference;
 *                                        the archive key of a timesheet is its bare store key, as in every archive before
 *   manifest.json                        last, because checksums are known only at the end: per table rows, bytes
 *                                        and sha256, per file size and sha256, and the sha256 of header.json
 *
 * Never in an archive: the encryption key or any other secret in clear (only an HMAC fingerprint of the
 * key); the erasures' hash keys travel wrapped under the signing key (hash-key-wrap.ts).
 */
export const ARCHIVE_FORMAT = 'staff-crm-backup';
export const FORMAT_VERSION = 1;
export const HEADER_ENTRY = 'header.json';
export const MANIFEST_ENTRY = 'manifest.json';
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Tables left out on purpose, with the reason (also written into the header):
 * rate_limits holds failed-login counters that expire within minutes; restoring them would only
 * re-apply stale lockouts on another server.
 */
export const EXCLUDED_TABLES: Readonly<Record<string, string>> = {
  schema_migrations: "the schema version is the header's migration list; restore re-creates it by running the migrations",
  rate_limits: 'transient failed-login counters that expire within minutes',
  events: 'the live-update outbox: minutes of change notices; clients of a restored server resync',
};

const tableSchema = z.object({ name: z.string().min(1), columns: z.array(z.string().min(1)).min(1) });

export const headerSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  formatVersion: z.number().int(),
  createdAt: z.string(),
  appVersion: z.string(),
  /** The applied migrations, in order: the schema version. */
  migrations: z.array(z.string()),
  key: z.object({ algorithm: z.string(), fingerprint: z.string(), oldFingerprints: z.array(z.string()) }),
  copyFormat: z.literal('text'),
  /** In restore order: parents before children. */
  tables: z.array(tableSchema),
  excludedTables: z.record(z.string(), z.string()),
  sourceServerVersion: z.string(),
  /**
   * The keys the source's erasures are hashed under, wrapped under the signing key (hash-key-wrap.ts,
   * ADR 0161). Absent in archives of 0.5.0 and before.
   */
  privacyHashKeys: z.array(z.object({ id: z.string(), wrapped: z.string() })).optional(),
});
export type ArchiveHeader = z.infer<typeof headerSchema>;

const tableSumSchema = z.object({ name: z.string(), rows: z.number().int().min(0), bytes: z.number().int().min(0), parts: z.number().int().min(0), sha256: z.string() });
const fileSumSchema = z.object({ key: z.string(), size: z.number().int().min(0), sha256: z.string() });

export const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  formatVersion: z.number().int(),
  createdAt: z.string(),
  completedAt: z.string(),
  appVersion: z.string(),
  migrations: z.array(z.string()),
  key: headerSchema.shape.key,
  headerSha256: z.string(),
  tables: z.array(tableSumSchema),
  files: z.array(fileSumSchema),
  /** Keys of timesheet rows whose file was gone when the backup read it (deleted meanwhile, or lost before). */
  missingFiles: z.array(z.string()),
  /** The fingerprint of the key the archive is signed with (signing.ts); archives of 0.1.0 name none. */
  signingKey: z.string().optional(),
  /**
   * HMAC-SHA256 of everything above (which holds the header's sha256 and every table's and file's),
   * under the signing key (signing.ts): recomputed checksums do not make an edited archive pass
   * (issue 26). Optional: archives written before signing existed have none, and are restored only
   * with --allow-unsigned.
   */
  hmac: z.string().optional(),
});
export type ArchiveManifest = z.infer<typeof manifestSchema>;
export type TableSum = z.infer<typeof tableSumSchema>;
export type FileSum = z.infer<typeof fileSumSchema>;

export function tableEntryPrefix(index: number, table: string): string {
  return `tables/${String(index).padStart(3, '0')}-${table}/`;
}

export function partEntryName(index: number, table: string, part: number): string {
  return `${tableEntryPrefix(index, table)}part-${String(part).padStart(6, '0')}.copy`;
}

export function fileEntryName(archiveKey: string): string {
  return `files/${archiveKey}`;
}

/** The store whose keys an archive names bare (every archive before other stores existed holds only these). */
const DEFAULT_STORE = 'timesheets';
const ARCHIVE_KEY = /^(?:([a-z][a-z0-9-]{0,62})\/)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** How a stored file is named in an archive: `<key>` for a timesheet, `<store>/<key>` for another store. */
export function archiveKeyOf(store: string, key: string): string {
  return store === DEFAULT_STORE ? key : `${store}/${key}`;
}

/** The store and key an archive key names; undefined for anything that is not one (it must not become a path). */
export function parseArchiveKey(archiveKey: string): { store: string; key: string } | undefined {
  const match = ARCHIVE_KEY.exec(archiveKey);
  if (!match || match[1] === DEFAULT_STORE) return undefined;
  return { store: match[1] ?? DEFAULT_STORE, key: match[2] };
}

/** Storage keys are generated UUIDs (with a store's name before them); anything else in an archive must not become a path. */
export function isSafeFileKey(archiveKey: string): boolean {
  return parseArchiveKey(archiveKey) !== undefined;
}

export const FINGERPRINT_ALGORITHM = 'hmac-sha256("staff-crm backup key fingerprint v1"), first 16 hex';

/** Identifies an encryption key without revealing it: the HMAC of a constant under the key. */
export function keyFingerprint(key: Buffer): string {
  return crypto.createHmac('sha256', key).update('staff-crm backup key fingerprint v1').digest('hex').slice(0, 16);
}

export interface EncryptionKeys {
  current: Buffer;
  old: Buffer[];
}

/**
 * Whether the configured keys can read what the archive's rows were sealed with: its current key must be
 * the configured key or one of the retired ones (rows sealed with the archive's own old keys need those too).
 */
export function keyStatus(header: Pick<ArchiveHeader, 'key'>, keys: EncryptionKeys): 'same' | 'retired' | 'different' {
  const configured = keyFingerprint(keys.current);
  if (header.key.fingerprint === configured) return 'same';
  return keys.old.map(keyFingerprint).includes(header.key.fingerprint) ? 'retired' : 'different';
}

export function parseJsonEntry<T>(schema: z.ZodType<T>, text: string, entry: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ArchiveFormatError(`${entry} is not valid JSON`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ArchiveFormatError(`${entry} is not a staff-crm backup ${entry.replace('.json', '')}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** The file is not a (complete, readable) staff-crm backup archive. */
export class ArchiveFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveFormatError';
  }
}
