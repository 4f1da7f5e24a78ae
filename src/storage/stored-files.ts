/**
 * Which rows reference which store's keys: the orphan sweep, backup and restore, and migrate-storage
 * read this list, so a new kind of stored file is one line here (and a store name in its area).
 * Table and column are identifiers of our own schema, spliced into SQL: never anything a user sends.
 */
export interface StoredFileKind {
  /** The FileStore's name (FileStorage.store(name)). */
  store: string;
  table: string;
  /** The column holding the store key. */
  column: string;
}

export const TIMESHEET_FILES: StoredFileKind = { store: 'timesheets', table: 'timesheets', column: 'file_path' };

/** Attachments kept for drafts and scheduled sends (migration 0060, src/sending/attachment-files.ts). */
export const ATTACHMENT_FILES: StoredFileKind = { store: 'attachments', table: 'email_attachment_files', column: 'storage_key' };

export const STORED_FILE_KINDS: readonly StoredFileKind[] = [TIMESHEET_FILES, ATTACHMENT_FILES];
