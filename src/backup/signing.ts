import crypto from 'node:crypto';
import { deriveKey } from '../crypto/derive-key.js';
import { keyFingerprint, type ArchiveHeader, type ArchiveManifest, type EncryptionKeys } from './manifest.js';

/**
 * Signing archives (docs/adr/0108-backups-authenticated-before-restore.md). The manifest, which holds
 * the sha256 of header.json and of every table part and file, carries an HMAC-SHA256 under a MAC key
 * derived (HKDF-SHA256) from a configured secret: BACKUP_SIGNING_KEY when set, else CRM_ENCRYPTION_KEY
 * (what every archive before BACKUP_SIGNING_KEY existed was signed with, so those stay verifiable).
 * Verification accepts every configured secret, so that rotating a key leaves older archives checkable.
 */
const MAC_INFO = 'staff-crm backup manifest hmac v1';
const SIGNING_FINGERPRINT_INFO = 'staff-crm backup signing key fingerprint v1';

export type SigningKeySource = 'BACKUP_SIGNING_KEY' | 'BACKUP_SIGNING_KEYS_RETIRED' | 'CRM_ENCRYPTION_KEY' | 'CRM_ENCRYPTION_OLD_KEYS';

export interface SigningKey {
  macKey: Buffer;
  /** Names the key in the manifest without revealing it. */
  fingerprint: string;
  source: SigningKeySource;
  /** The encryption key's own fingerprint, for a key derived from one (archives before 0.2.0 name only that). */
  encryptionFingerprint?: string;
}

export interface BackupKeys {
  /** Whether the archive's mail passwords can be read here. */
  encryption: EncryptionKeys;
  /** What a new backup is signed with. */
  signing: SigningKey;
  /** Every key an archive may have been signed with, the signing key first. */
  verifying: SigningKey[];
}

export interface SigningSecrets {
  /** BACKUP_SIGNING_KEY (undefined: sign with a key derived from CRM_ENCRYPTION_KEY). */
  current?: string;
  /** BACKUP_SIGNING_KEYS_RETIRED. */
  retired: string[];
}

function signingKey(secret: Buffer, source: SigningKeySource, fromEncryptionKey: boolean): SigningKey {
  const macKey = deriveKey(secret, MAC_INFO);
  return {
    macKey,
    fingerprint: crypto.createHmac('sha256', macKey).update(SIGNING_FINGERPRINT_INFO).digest('hex').slice(0, 16),
    source,
    encryptionFingerprint: fromEncryptionKey ? keyFingerprint(secret) : undefined,
  };
}

export function backupKeys(encryption: EncryptionKeys, secrets: SigningSecrets): BackupKeys {
  const text = (value: string) => Buffer.from(value, 'utf8');
  const configured = secrets.current === undefined ? [] : [signingKey(text(secrets.current), 'BACKUP_SIGNING_KEY', false)];
  const verifying = [
    ...configured,
    ...secrets.retired.map((s) => signingKey(text(s), 'BACKUP_SIGNING_KEYS_RETIRED', false)),
    signingKey(encryption.current, 'CRM_ENCRYPTION_KEY', true),
    ...encryption.old.map((k) => signingKey(k, 'CRM_ENCRYPTION_OLD_KEYS', true)),
  ];
  return { encryption, signing: verifying[0], verifying };
}

/** The manifest's HMAC (everything in it but the HMAC itself, in a canonical JSON form). */
export function manifestHmac(manifest: ArchiveManifest, key: SigningKey): string {
  const { hmac: _ignored, ...signed } = manifest;
  return crypto.createHmac('sha256', key.macKey).update(canonicalJson(signed)).digest('hex');
}

export type Authentication =
  /** The HMAC checks out under a configured key: the header, every part and file are as the backup wrote them. */
  | { status: 'signed'; key: SigningKeySource; fingerprint: string }
  /** No HMAC: written before archives were signed (before 0.1.0), or edited. */
  | { status: 'unsigned' }
  /** Signed with a key that is not configured here: cannot be told from a forgery. */
  | { status: 'unknown-key'; fingerprint: string | null }
  /** The key the archive names is configured and the HMAC does not match: edited. */
  | { status: 'forged' };

export function authenticate(header: Pick<ArchiveHeader, 'key'>, manifest: ArchiveManifest, keys: BackupKeys): Authentication {
  if (manifest.hmac === undefined) return { status: 'unsigned' };
  const given = Buffer.from(manifest.hmac, 'hex');
  for (const key of keys.verifying) {
    const expected = Buffer.from(manifestHmac(manifest, key), 'hex');
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) return { status: 'signed', key: key.source, fingerprint: key.fingerprint };
  }
  // Archives of 0.1.0 name no signing key: theirs was derived from the encryption key the header names.
  const named = manifest.signingKey
    ? keys.verifying.some((k) => k.fingerprint === manifest.signingKey)
    : keys.verifying.some((k) => k.encryptionFingerprint === header.key.fingerprint);
  return named ? { status: 'forged' } : { status: 'unknown-key', fingerprint: manifest.signingKey ?? null };
}

/** One line for an archive that is not 'signed' (null for a signed one). */
export function authenticationProblem(auth: Authentication): string | null {
  switch (auth.status) {
    case 'signed':
      return null;
    case 'unsigned':
      return 'the manifest carries no signature (HMAC): the archive cannot be authenticated (written before backups were signed, or edited)';
    case 'unknown-key':
      return (
        `the archive is signed with a key that is not configured here${auth.fingerprint ? ` (signing key ${auth.fingerprint})` : ''}: it cannot be ` +
        'authenticated (configure that key in BACKUP_SIGNING_KEY or BACKUP_SIGNING_KEYS_RETIRED, or the CRM_ENCRYPTION_KEY it was made with)'
      );
    case 'forged':
      return 'the manifest HMAC does not match: the archive was edited (forged)';
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
