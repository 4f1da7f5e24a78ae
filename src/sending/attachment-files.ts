/**
 * Files kept for later (docs/adr/0146-scheduled-send.md): the attachments of a draft and of a send
 * scheduled for later live in the file storage (the `attachments` store of src/storage, ADR 0155)
 * and in email_attachment_files (migration 0060), owned by a draft or a
 * scheduled email. A file is written, then its row inserted without an owner; the request that keeps
 * it links it in its own transaction. A row without an owner (never linked, or its owner sent,
 * cancelled or deleted) is removed with its file by the attachment-cleanup job.
 */
import { Readable } from 'node:stream';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import type { FileStore } from '../storage/file-storage.js';
import type { UploadTarget } from './attachment-intake.js';

export interface StoredFile {
  id: string;
  storageKey: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
}

export type FileOwner = { draftId: string } | { scheduledEmailId: string };

const COLUMNS = 'id, storage_key AS "storageKey", name, type, size::float8 AS size, sha256';

export class AttachmentFileRepository {
  constructor(private readonly sql: Sql) {}

  /** A file just written to the storage, not owned yet. */
  async insert(f: Omit<StoredFile, 'id'> & { position: number }): Promise<string> {
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO email_attachment_files (storage_key, name, type, size, sha256, position)
       VALUES ($storageKey, $name, $type, $size, $sha256, $position) RETURNING id`,
      { ...f },
    );
    return row!.id;
  }

  /**
   * Gives unowned files to an owner, in the owner's transaction, with what the intake found out about
   * each (its name, the type judged by its content, its digest); `position` continues the owner's list.
   */
  async link(files: Array<{ storageKey: string; name: string; type: string; sha256: string }>, owner: FileOwner, tx: Tx): Promise<number> {
    let linked = 0;
    for (const [i, f] of files.entries()) {
      linked += await this.sql.execute(
        `UPDATE email_attachment_files SET draft_id = $draftId, scheduled_email_id = $scheduledEmailId, name = $name, type = $type, sha256 = $sha256,
                position = $position + (SELECT count(*) FROM email_attachment_files o WHERE o.draft_id = $draftId OR o.scheduled_email_id = $scheduledEmailId)
          WHERE storage_key = $storageKey AND draft_id IS NULL AND scheduled_email_id IS NULL`,
        { ...f, position: i, ...ownerBinds(owner) },
        tx,
      );
    }
    return linked;
  }

  /** Moves every file of one owner to another (a draft scheduled, a cancelled send kept as a draft). */
  move(from: FileOwner, to: FileOwner, tx: Tx): Promise<number> {
    const target = ownerBinds(to);
    const where = 'draftId' in from ? 'draft_id = $fromId' : 'scheduled_email_id = $fromId';
    return this.sql.execute(
      `UPDATE email_attachment_files SET draft_id = $draftId, scheduled_email_id = $scheduledEmailId WHERE ${where}`,
      { ...target, fromId: 'draftId' in from ? from.draftId : from.scheduledEmailId },
      tx,
    );
  }

  /** Lets go of an owner's files: the cleanup job removes them. */
  release(owner: FileOwner, tx?: Tx): Promise<number> {
    const where = 'draftId' in owner ? 'draft_id = $id' : 'scheduled_email_id = $id';
    return this.sql.execute(`UPDATE email_attachment_files SET draft_id = NULL, scheduled_email_id = NULL WHERE ${where}`, { id: ownerId(owner) }, tx);
  }

  /** Lets go of one file of a draft; answers whether it was there. */
  async releaseOne(draftId: string, fileId: string, tx?: Tx): Promise<boolean> {
    return (await this.sql.execute('UPDATE email_attachment_files SET draft_id = NULL WHERE id = $fileId AND draft_id = $draftId', { draftId, fileId }, tx)) === 1;
  }

  /** How many files a draft has and their bytes together (its limits, checked in the transaction that links new ones). */
  async draftTotals(draftId: string, tx: Tx): Promise<{ files: number; bytes: number }> {
    const row = await this.sql.one<{ files: number; bytes: number }>(
      'SELECT count(*)::int AS files, coalesce(sum(size), 0)::float8 AS bytes FROM email_attachment_files WHERE draft_id = $draftId',
      { draftId },
      tx,
    );
    return row ?? { files: 0, bytes: 0 };
  }

  /** An owner's files in the order they were added. */
  of(owner: FileOwner, tx?: Tx): Promise<StoredFile[]> {
    const where = 'draftId' in owner ? 'draft_id = $id' : 'scheduled_email_id = $id';
    return this.sql.select<StoredFile>(`SELECT ${COLUMNS} FROM email_attachment_files WHERE ${where} ORDER BY position, created_at, id`, { id: ownerId(owner) }, tx);
  }

  /** The files of several owners at once (lists), keyed by owner id. */
  async ofMany(column: 'draft_id' | 'scheduled_email_id', ids: string[]): Promise<Map<string, StoredFile[]>> {
    const rows = await this.sql.select<StoredFile & { owner: string }>(
      `SELECT ${COLUMNS}, ${column} AS owner FROM email_attachment_files WHERE ${column} = ANY ($ids::uuid[]) ORDER BY position, created_at, id`,
      { ids },
    );
    const found = new Map<string, StoredFile[]>();
    for (const { owner, ...file } of rows) found.set(owner, [...(found.get(owner) ?? []), file]);
    return found;
  }

  /** Files nobody owns, older than `graceSeconds` (a request may still be linking younger ones). */
  orphans(graceSeconds: number, limit: number): Promise<Array<{ id: string; storageKey: string }>> {
    return this.sql.select(
      `SELECT id, storage_key AS "storageKey" FROM email_attachment_files
        WHERE draft_id IS NULL AND scheduled_email_id IS NULL AND created_at < now() - make_interval(secs => $graceSeconds)
        ORDER BY created_at LIMIT $limit`,
      { graceSeconds, limit },
    );
  }

  /** Deletes an orphan's row, only if it is still an orphan (a late link wins). */
  async deleteOrphan(id: string): Promise<boolean> {
    return (await this.sql.execute('DELETE FROM email_attachment_files WHERE id = $id AND draft_id IS NULL AND scheduled_email_id IS NULL', { id })) === 1;
  }

  async orphanBacklog(graceSeconds: number): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null }>(
      `SELECT count(*)::int AS due, extract(epoch FROM now() - min(created_at) - make_interval(secs => $graceSeconds))::float8 AS oldest
         FROM email_attachment_files WHERE draft_id IS NULL AND scheduled_email_id IS NULL AND created_at < now() - make_interval(secs => $graceSeconds)`,
      { graceSeconds },
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: 0 };
  }
}

function ownerId(owner: FileOwner): string {
  return 'draftId' in owner ? owner.draftId : owner.scheduledEmailId;
}

function ownerBinds(owner: FileOwner) {
  return 'draftId' in owner ? { draftId: owner.draftId, scheduledEmailId: null } : { draftId: null, scheduledEmailId: owner.scheduledEmailId };
}

/**
 * An upload target (AttachmentIntake) that writes each checked file to the storage and records it
 * at once, unowned: a request that fails later leaves an orphan the cleanup job removes, never a file
 * nobody knows of. The intake's answer carries the storage key as its blobId, for link().
 */
export function keptFiles(storage: FileStore, files: AttachmentFileRepository): UploadTarget {
  return {
    async upload(body, type) {
      const saved = await storage.put(Readable.from(body));
      await files.insert({ storageKey: saved.key, name: 'priloha', type, size: saved.size, sha256: '', position: 0 });
      return { blobId: saved.key, size: saved.size };
    },
  };
}
