import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { ACCOUNT_NOT_FOUND, type EmailAccountAccess } from '../email-accounts/account-access.js';
import type { ContactRepository } from './contact-repository.js';
import { readImportFile } from './import-file.js';
import { planImport, type ImportPlan } from './import-plan.js';
import type { ImportFormat, ImportResult, ImportRow, RowProblem } from './import-records.js';
import type { ContactTransferRepository } from './transfer-repository.js';
import { validateRecords } from './import-rows.js';

export interface ImportRequest {
  emailAccountId: string;
  /** The whole file (at most IMPORT_MAX_BYTES: the route and the command read no more). */
  file: Buffer;
  dryRun: boolean;
}

const CHANGED_MEANWHILE = 'Kontakty tohto emailového účtu sa počas importu zmenili; spustite import znova';

/**
 * Address book import into one mailbox (issue 46, docs/adr/0131-contact-import-export.md): the
 * caller must own or edit the mailbox (404 for a mailbox not shared with them, 403 for a viewer).
 * The file is read and validated before any transaction opens; invalid rows are reported and left
 * out. A real run is all or nothing: every write, and the audit record, in one transaction that
 * first takes the mailbox's turn (as a contact delete does: a sync batch of the mailbox waits), so
 * no half-imported file is ever seen and nothing else writes these contacts meanwhile. A dry run
 * reads the same state and answers the same counts, writing nothing (not even an audit record).
 */
export class ContactImportService {
  constructor(
    private readonly deps: {
      imports: ContactTransferRepository;
      contacts: ContactRepository;
      accounts: EmailAccountAccess;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async import(userId: string, request: ImportRequest, meta: RequestMeta): Promise<ImportResult> {
    const { accounts, imports, transactions } = this.deps;
    // The right first: an outsider learns nothing about the file's content (not even that it is invalid).
    const { emailAccountId: accountId } = await accounts.requireAccount(userId, request.emailAccountId, 'editContacts');
    const file = readImportFile(request.file);
    const { rows, invalid } = validateRecords(file.records);
    const emails = rows.map((r) => r.email);
    if (request.dryRun) {
      const plan = planImport(rows, await imports.existing(userId, accountId, emails, false));
      return result(true, file.format, plan, invalid);
    }
    try {
      return await transactions.run(async (tx) => {
        const plan = await this.apply(userId, accountId, rows, tx);
        const answer = result(false, file.format, plan, invalid);
        await this.audit({ userId, accountId }, answer, plan, meta, tx);
        return answer;
      });
    } catch (err) {
      // A contact of one of the addresses was added by hand meanwhile (POST /api/contacts takes no turn).
      if (isUniqueViolation(err)) throw new ConflictError(CHANGED_MEANWHILE);
      throw err;
    }
  }

  private async apply(userId: string, accountId: string, rows: ImportRow[], tx: Tx): Promise<ImportPlan> {
    const { accounts, contacts, imports } = this.deps;
    // Checked again inside: a share removed since the first check lets nothing through.
    await accounts.requireAccount(userId, accountId, 'editContacts', tx);
    await contacts.serialiseAccountChanges(accountId, tx);
    // New rows carry the account's owner, as the sync's and POST /api/contacts' rows do (locked against a hand-over).
    const ownerId = await contacts.lockAccountOwner(accountId, tx);
    if (!ownerId) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    const existing = await imports.existing(
      userId,
      accountId,
      rows.map((r) => r.email),
      true,
      tx,
    );
    await imports.ensureCompanies(
      rows.filter((r) => !existing.has(r.email)).map((r) => r.email),
      tx,
    );
    const plan = planImport(rows, existing);
    await imports.liftSuppressions(
      accountId,
      plan.creates.map((c) => c.email),
      tx,
    );
    const created = await imports.insert(ownerId, accountId, plan.creates, tx);
    await imports.update(plan.updates, tx);
    await imports.linkEarlierEmails(created, tx);
    return plan;
  }

  /** Counts only: no address, name or value of the file goes into the audit log. */
  private async audit({ userId, accountId }: { userId: string; accountId: string }, answer: ImportResult, plan: ImportPlan, meta: RequestMeta, tx: Tx): Promise<void> {
    const { created, updated, unchanged, format } = answer;
    await this.deps.audit.record(
      {
        action: AuditActions.contactsImported,
        userId,
        details: {
          emailAccountId: accountId,
          format,
          created,
          updated,
          unchanged,
          invalid: answer.invalid.length,
          warnings: answer.warnings.length,
        },
      },
      meta,
      tx,
    );
  }
}

function result(dryRun: boolean, format: ImportFormat, plan: ImportPlan, invalid: RowProblem[]): ImportResult {
  const byRow = (a: RowProblem, b: RowProblem) => a.row - b.row;
  return {
    dryRun,
    format,
    created: plan.creates.length,
    updated: plan.updates.length,
    unchanged: plan.unchanged,
    invalid: [...invalid].sort(byRow),
    warnings: [...plan.warnings].sort(byRow),
  };
}
