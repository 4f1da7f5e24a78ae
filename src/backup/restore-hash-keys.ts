import { ConflictError } from '../errors/app-errors.js';
import { unwrapHashKeys } from './hash-key-wrap.js';
import type { ArchiveHeader, ArchiveManifest } from './manifest.js';
import type { Authentication, BackupKeys } from './signing.js';

/**
 * The hash keys an archive carries for its erasures (docs/adr/0161-erasures-carry-their-hash-keys.md),
 * unwrapped under the signing key that authenticated it; read before anything changes.
 *
 * An archive made with another encryption key that holds erasures but carries no key for them (written
 * by 0.5.0 or before, or unsigned) is refused: restored, its erasures would stop holding, and the next
 * sync of a mailbox would store the erased people's mail again. Its source's CRM_ENCRYPTION_KEY, listed
 * in CRM_ENCRYPTION_OLD_KEYS, makes it restorable (the key is then not "different").
 */
export function carriedHashKeys(
  archive: { header: ArchiveHeader; manifest: ArchiveManifest; auth: Authentication; keyStatus: 'same' | 'retired' | 'different' },
  keys: BackupKeys,
): Buffer[] {
  const { header, manifest, auth } = archive;
  const signing = auth.status === 'signed' ? keys.verifying.find((k) => k.fingerprint === auth.fingerprint) : undefined;
  const carried = signing && header.privacyHashKeys ? unwrapHashKeys(header.privacyHashKeys, signing) : [];
  const erasures = manifest.tables.find((t) => t.name === 'privacy_suppressions')?.rows ?? 0;
  if (archive.keyStatus === 'different' && erasures > 0 && carried.length === 0) {
    throw new ConflictError(
      `Archív obsahuje ${erasures} vymazaní osobných údajov, ale nie kľúč, pod ktorým sú zaznamenané (archív z verzie 0.5.0 alebo staršej, alebo bez podpisu): ` +
        'po obnove s iným CRM_ENCRYPTION_KEY by ich synchronizácia nedodržala. Uveďte pôvodný CRM_ENCRYPTION_KEY v CRM_ENCRYPTION_OLD_KEYS a obnovte znova. Nič sa nezmenilo.',
    );
  }
  return carried;
}
