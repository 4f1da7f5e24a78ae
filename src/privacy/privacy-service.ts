/**
 * Requests of the people staff write with (GDPR articles 15 and 17): what the CRM holds about an
 * address, as one zip, and its erasure from every email account. The CLI (`crm-admin privacy`) and the
 * admin API call the same two methods. The address is never written to the audit log or the logs in
 * clear: a keyed hash stands for it (address-hash.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ServiceUnavailableError, ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import { companyDomainOf } from '../companies/free-mail-domains.js';
import { normalizeAddress } from '../sync/address-rules.js';
import type { AddressHasher } from './address-hash.js';
import type { ErasureRepository } from './erasure-repository.js';
import { ExportArchive } from './export-archive.js';
import { exportReadme } from './export-readme.js';
import type { ExportRepository } from './export-repository.js';
import type { SuppressionRepository } from './suppression-repository.js';

export interface PrivacyDeps {
  erasure: ErasureRepository;
  exports: ExportRepository;
  suppressions: SuppressionRepository;
  hasher: AddressHasher;
  transactions: Transactions;
  audit: AuditService;
  logger: Logger;
}

export interface ExportCounts {
  accounts: number;
  contacts: number;
  people: number;
  companies: number;
  emails: number;
  drafts: number;
  scheduledEmails: number;
  conversationComments: number;
  contactSuppressions: number;
  tasks: number;
  auditRecords: number;
}

export interface ExportSummary extends ExportCounts {
  addressHash: string;
  createdAt: string;
}

export interface AccountErasureResult {
  emailAccountId: string;
  emailAccount: string;
  emails: number;
  contacts: number;
  contactSuppressions: number;
  tasks: number;
}

/** A company of the erased address's domain that others are still filed under. */
export interface CompanyRef {
  id: string;
  domain: string;
}

export interface ErasureResult {
  addressHash: string;
  /** From now on the sync stores no email of the address dated up to this time. */
  erasedAt: string;
  accounts: AccountErasureResult[];
  emails: number;
  contacts: number;
  contactSuppressions: number;
  tasks: number;
  /** Person records (src/people) of the address: removed with it, or, holding other addresses, emptied of every field staff kept. */
  people: number;
  /** Drafts addressed to it (To, Cc or Bcc), in any account. */
  drafts: number;
  /** Sends scheduled for later to or about it (not one on its way), in any account. */
  scheduledEmails: number;
  /** The company of the address's domain, deleted with its last contact (a personal domain): 0 or 1. */
  companiesDeleted: number;
  /** The company of the address's domain, kept because others are filed there: what staff wrote on it may name the person. */
  companiesKept: CompanyRef[];
  auditRecordsRedacted: number;
}

export class PrivacyService {
  constructor(private readonly deps: PrivacyDeps) {}

  /** The address as the sync stores it (lower case), or a 400. */
  address(raw: string): string {
    const address = normalizeAddress(raw);
    if (!address) throw new ValidationError('Neplatná emailová adresa', [{ field: 'email', message: 'Neplatná emailová adresa' }]);
    return address;
  }

  /**
   * Writes the zip to `target` (ended when done unless `end` is false, as for stdout and HTTP).
   * Before its first byte, the `privacy.exported` record is committed in a transaction of its own: an
   * export that cannot be recorded is refused (503) with nothing sent, so no data leaves unaudited
   * however the export ends (issue 52, finding 2). At the end, `privacy.export_ended` says whether it
   * completed or was cut off (a reader gone, a failed query), with the bytes handed out. A failure after
   * the first bytes cuts the output off and rejects: the reader never gets a complete-looking zip.
   */
  async export(raw: string, target: Writable, meta: RequestMeta, { end = true }: { end?: boolean } = {}): Promise<ExportSummary> {
    const address = this.address(raw);
    const { exports, hasher } = this.deps;
    const counts: ExportCounts = {
      accounts: 0,
      contacts: 0,
      people: 0,
      companies: 0,
      emails: 0,
      drafts: 0,
      scheduledEmails: 0,
      conversationComments: 0,
      contactSuppressions: 0,
      tasks: 0,
      auditRecords: 0,
    };
    const createdAt = new Date().toISOString();
    const addressHash = hasher.label(address);
    const exportId = randomUUID();
    await this.recordStart({ addressHash, exportId }, meta);
    let zip: ExportArchive | undefined;
    try {
      await exports.snapshot(async (tx) => {
        zip = new ExportArchive(target, { end });
        addEntries(zip, exports, { address, createdAt }, tx, counts);
        zip.addLate('summary.json', () => `${JSON.stringify({ address, createdAt, ...counts }, null, 2)}\n`);
        await zip.finish();
      });
    } catch (err) {
      const reason = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.name) : 'unknown';
      await this.recordEnd({ addressHash, exportId, outcome: 'aborted', bytes: zip?.bytes ?? 0, ...counts, reason }, meta);
      throw err;
    }
    await this.recordEnd({ addressHash, exportId, outcome: 'completed', bytes: zip?.bytes ?? 0, ...counts }, meta);
    this.deps.logger.info('privacy export written', { addressHash, exportId, ...counts });
    return { addressHash, createdAt, ...counts };
  }

  /** Committed before the first byte, or the export is refused; a failed write is logged at error. */
  private async recordStart(details: { addressHash: string; exportId: string }, meta: RequestMeta): Promise<void> {
    const { transactions, audit, logger } = this.deps;
    try {
      await transactions.run((tx) => audit.record({ action: AuditActions.privacyExported, details: { ...details, outcome: 'started' } }, meta, tx));
    } catch (err) {
      logger.error('audit write failed', { err, action: AuditActions.privacyExported, exportId: details.exportId });
      throw new ServiceUnavailableError('Export sa nedá zapísať do auditného záznamu, preto sa nezačal. Skúste to znova.');
    }
  }

  /** The end of an export already on record: a failed write is logged at error (AuditService.record) and changes nothing else. */
  private recordEnd(details: Record<string, unknown> & { outcome: 'completed' | 'aborted' }, meta: RequestMeta): Promise<void> {
    return this.deps.audit.record({ action: AuditActions.privacyExportEnded, success: details.outcome === 'completed', details }, meta);
  }

  /**
   * Records the suppression first (committed on its own: from then on no sync stores the address's
   * mail up to now), then deletes in every account that holds something, one transaction per account;
   * a failure part-way leaves the suppression and the accounts done, and running it again finishes.
   */
  async erase(raw: string, meta: RequestMeta): Promise<ErasureResult> {
    const address = this.address(raw);
    const { erasure, suppressions, hasher, transactions, audit } = this.deps;
    const addressHash = hasher.label(address);
    const erasedAt = await suppressions.suppress(hasher.hash(address));
    const domain = companyDomainOf(address);
    const companyBefore = domain ? await erasure.companyOfDomain(domain) : undefined;
    const accounts: AccountErasureResult[] = [];
    let people = 0;
    let scheduledEmails = 0;
    try {
      // Before the emails go: a scheduled reply is found through the email it answers.
      scheduledEmails = await erasure.deleteScheduled(address);
      // The person record is read before the contacts go (with the last of them, the address leaves it).
      const persons = await erasure.peopleOf(address);
      for (const account of await erasure.accountsHolding(address)) {
        const done = await transactions.run((tx) => erasure.eraseInAccount(account, address, tx));
        accounts.push({ emailAccountId: account.id, emailAccount: account.email, ...done });
      }
      people = await transactions.run((tx) => erasure.erasePeople(persons, address, tx));
    } catch (err) {
      await audit.record({ action: AuditActions.privacyErased, success: false, details: { addressHash, ...totals(accounts), accounts: accounts.length } }, meta);
      throw err;
    }
    const drafts = await erasure.deleteDrafts(address);
    const companies = await this.companiesAfter(address, companyBefore);
    const auditRecordsRedacted = (await erasure.redactAuditRecords(address, addressHash)) + companies.recordsRedacted;
    const result = {
      addressHash,
      erasedAt: erasedAt.toISOString(),
      accounts,
      ...totals(accounts),
      people,
      drafts,
      scheduledEmails,
      companiesDeleted: companies.deleted,
      companiesKept: companies.kept,
      auditRecordsRedacted,
    };
    const counts = { ...totals(accounts), people, drafts, scheduledEmails, companiesDeleted: companies.deleted, companiesKept: companies.kept.length, auditRecordsRedacted };
    await audit.record({ action: AuditActions.privacyErased, details: { addressHash, erasedAt: result.erasedAt, accounts: accounts.length, ...counts } }, meta);
    this.deps.logger.info('privacy erasure done', { addressHash, accounts: accounts.length, ...totals(accounts) });
    return result;
  }

  /**
   * The company of the address's domain after the deletes: gone with its last contact (a personal
   * domain: the trigger of migration 0075), then the records of its changes name the domain by its
   * hash; or kept, because others are filed there, and named so that an administrator can read what
   * staff wrote on it (issue 52, findings 4 and 11).
   */
  private async companiesAfter(address: string, before: { id: string } | undefined): Promise<{ deleted: number; kept: CompanyRef[]; recordsRedacted: number }> {
    const { erasure, hasher } = this.deps;
    const domain = companyDomainOf(address);
    if (!domain) return { deleted: 0, kept: [], recordsRedacted: 0 };
    const after = await erasure.companyOfDomain(domain);
    const recordsRedacted = after ? 0 : await erasure.redactCompanyRecords(domain, hasher.label(domain));
    return { deleted: before && before.id !== after?.id ? 1 : 0, kept: after ? [after] : [], recordsRedacted };
  }
}

/** The zip's files in their order; `counts` learns each file's rows as the zip gets through it. */
function addEntries(zip: ExportArchive, exports: ExportRepository, { address, createdAt }: { address: string; createdAt: string }, tx: Tx, counts: ExportCounts): void {
  zip.addText('README.txt', exportReadme(address, createdAt));
  zip.addLines(
    'accounts.jsonl',
    () => exports.accounts(address, tx),
    (n) => (counts.accounts = n),
  );
  zip.addLines(
    'contacts.jsonl',
    () => exports.contacts(address, tx),
    (n) => (counts.contacts = n),
  );
  zip.addLines(
    'people.jsonl',
    () => exports.people(address, tx),
    (n) => (counts.people = n),
  );
  zip.addLines(
    'companies.jsonl',
    () => exports.companies(address, companyDomainOf(address), tx),
    (n) => (counts.companies = n),
  );
  zip.addLines(
    'emails.jsonl',
    () => exports.emails(address, tx),
    (n) => (counts.emails = n),
  );
  zip.addLines(
    'drafts.jsonl',
    () => exports.drafts(address, tx),
    (n) => (counts.drafts = n),
  );
  zip.addLines(
    'scheduled-emails.jsonl',
    () => exports.scheduledEmails(address, tx),
    (n) => (counts.scheduledEmails = n),
  );
  zip.addLines(
    'conversation-comments.jsonl',
    () => exports.conversationComments(address, tx),
    (n) => (counts.conversationComments = n),
  );
  zip.addLines(
    'contact-suppressions.jsonl',
    () => exports.contactSuppressions(address, tx),
    (n) => (counts.contactSuppressions = n),
  );
  zip.addLines(
    'tasks.jsonl',
    () => exports.tasks(address, tx),
    (n) => (counts.tasks = n),
  );
  zip.addLines(
    'audit-records.jsonl',
    () => exports.auditRecords(address, tx),
    (n) => (counts.auditRecords = n),
  );
}

function totals(accounts: AccountErasureResult[]): { emails: number; contacts: number; contactSuppressions: number; tasks: number } {
  const sum = (key: 'emails' | 'contacts' | 'contactSuppressions' | 'tasks') => accounts.reduce((n, a) => n + a[key], 0);
  return { emails: sum('emails'), contacts: sum('contacts'), contactSuppressions: sum('contactSuppressions'), tasks: sum('tasks') };
}
