import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { csvHeader, csvRows, vCards, type CsvDelimiter, type ExportFormat } from './export-format.js';
import type { ContactTransferRepository, ExportContact } from './transfer-repository.js';

/** Contacts read per statement: memory stays at one batch whatever the size of the mailbox. */
const EXPORT_BATCH = 500;

export interface ExportRequest {
  emailAccountId: string;
  format: ExportFormat;
  delimiter: CsvDelimiter;
}

/**
 * The contacts of one mailbox as a CSV or vCard file (issue 46, docs/adr/0131-contact-import-export.md).
 * Any member may export (the right to see the contacts: a viewer too); an account not shared with the
 * caller is a 404 before a byte is written. The file is written as it is read, a batch at a time with
 * backpressure (a slow reader holds no statement or transaction open), and ends only after its audit
 * record (contacts.exported, with the count) is written; a failure after the first byte cuts the
 * connection (the route), never a short file that looks whole.
 */
export class ContactExportService {
  constructor(
    private readonly deps: {
      transfers: ContactTransferRepository;
      accounts: EmailAccountAccess;
      audit: AuditService;
    },
  ) {}

  /** The right to export the account (404 / 403 as for every read), checked before the response starts. */
  async requireExport(userId: string, emailAccountId: string): Promise<string> {
    return (await this.deps.accounts.requireAccount(userId, emailAccountId, 'view')).emailAccountId;
  }

  /** Writes the file into `target` (left open: the caller ends it); answers how many contacts it holds. */
  async export(userId: string, request: ExportRequest, target: Writable, meta: RequestMeta): Promise<number> {
    const accountId = await this.requireExport(userId, request.emailAccountId);
    let count = 0;
    const chunks = async function* (this: ContactExportService): AsyncGenerator<string> {
      if (request.format === 'csv') yield csvHeader(request.delimiter);
      for await (const batch of this.batches(userId, accountId)) {
        count += batch.length;
        yield request.format === 'csv' ? csvRows(batch, request.delimiter) : vCards(batch);
      }
    }.call(this);
    await pipeline(Readable.from(chunks), target, { end: false });
    await this.deps.audit.record({ action: AuditActions.contactsExported, userId, details: { emailAccountId: accountId, format: request.format, count } }, meta);
    return count;
  }

  private async *batches(userId: string, accountId: string): AsyncGenerator<ExportContact[]> {
    let after: { key: string; id: string } | null = null;
    for (;;) {
      const batch = await this.deps.transfers.exportBatch(userId, accountId, after, EXPORT_BATCH);
      if (batch.length > 0) yield batch;
      if (batch.length < EXPORT_BATCH) return;
      const last = batch[batch.length - 1];
      after = { key: last.sort_key, id: last.id };
    }
  }
}
