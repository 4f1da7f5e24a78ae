/**
 * The files of server drafts (issue 47): kept in the file storage (the `attachments` store) and in
 * email_attachment_files with the draft as owner (src/sending/attachment-files.ts). A form's files
 * are checked and written while it arrives (unowned), then linked in the draft's transaction; a
 * refused request leaves only orphans, which the attachment-cleanup job removes. Deleting or sending
 * a draft lets go of its files (the foreign key sets draft_id null), and the job removes them too.
 */
import type { Tx } from '../db/transactions.js';
import { PayloadTooLargeError, ValidationError } from '../errors/app-errors.js';
import { keptFiles, type AttachmentFileRepository, type StoredFile } from '../sending/attachment-files.js';
import { MAX_FILES, type AttachmentIntake, type UploadTarget } from '../sending/attachment-intake.js';
import type { OutgoingAttachment } from '../sending/compose.js';
import type { FileStore } from '../storage/file-storage.js';

const TOO_MANY = `Koncept môže mať najviac ${MAX_FILES} príloh`;

export class DraftFiles {
  constructor(
    private readonly files: AttachmentFileRepository,
    private readonly storage: FileStore,
    /** SEND_MAX_TOTAL_BYTES: a draft's files together, as for one email. */
    private readonly maxTotalBytes: number,
  ) {}

  /** Where a form's checked files are written (AttachmentIntake's target). */
  target(): UploadTarget {
    return keptFiles(this.storage, this.files);
  }

  of(draftId: string, tx?: Tx): Promise<StoredFile[]> {
    return this.files.of({ draftId }, tx);
  }

  async ofMany(draftIds: string[]): Promise<Map<string, StoredFile[]>> {
    return draftIds.length === 0 ? new Map() : this.files.ofMany('draft_id', draftIds);
  }

  /**
   * Gives the files of a form to the draft, in its transaction (the draft's row is locked by it), and
   * refuses the lot when the draft would hold more than one email may carry: the transaction rolls back
   * and the files stay orphans.
   */
  async link(draftId: string, kept: OutgoingAttachment[], tx: Tx): Promise<void> {
    if (kept.length === 0) return;
    await this.files.link(
      kept.map((a) => ({ storageKey: a.blobId, name: a.name, type: a.type, sha256: a.sha256 ?? '' })),
      { draftId },
      tx,
    );
    const { files, bytes } = await this.files.draftTotals(draftId, tx);
    if (files > MAX_FILES) throw new ValidationError(TOO_MANY, [{ field: 'attachments', message: TOO_MANY }]);
    if (bytes > this.maxTotalBytes) {
      throw new PayloadTooLargeError(`Prílohy konceptu sú príliš veľké (najviac ${Math.floor(this.maxTotalBytes / (1024 * 1024))} MB spolu)`);
    }
  }

  /** Lets go of one file of a draft (the caller locked the draft); false when the draft has no such file. */
  releaseOne(draftId: string, fileId: string, tx: Tx): Promise<boolean> {
    return this.files.releaseOne(draftId, fileId, tx);
  }

  /** Puts the draft's files into a send's intake (uploaded to the mail server with its checks), in their order. */
  feeder(draftId: string): (intake: AttachmentIntake) => Promise<void> {
    return async (intake) => {
      for (const file of await this.files.of({ draftId })) {
        const opened = await this.storage.get(file.storageKey);
        await intake.add(opened.stream, file.name, file.type);
      }
    };
  }
}
