/**
 * Requests of the people staff write with (GDPR articles 15 and 17): what the CRM holds about an
 * address, as one zip, and its erasure from every email account. The CLI (`crm-admin privacy`) and the
 * admin API call the same two methods. The address is never written to the audit log or the logs in
 * clear: a keyed hash stands for it (address-hash.ts).
 */
import type { Writable } from 'node:stream';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import { ValidationError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
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
  emails: number;
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
   * Writes the zip to `target` (ended when done unless `end` is false, as for stdout and HTTP), then
   * its audit record. A failure after the first bytes, the record's included, cuts the output off and
   * rejects: the reader never gets a complete-looking zip, nor one nobody can see was taken.
   */
  async export(raw: string, target: Writable, meta: RequestMeta, { end = true }: { end?: boolean } = {}): Promise<ExportSummary> {
    const address = this.address(raw);
    const { exports, hasher } = this.deps;
    const counts: ExportCounts = { accounts: 0, contacts: 0, people: 0, emails: 0, contactSuppressions: 0, tasks: 0, auditRecords: 0 };
    const createdAt = new Date().toISOString();
    const addressHash = hasher.label(address);
    await exports.snapshot(async (tx) => {
      const zip = new ExportArchive(target, { end });
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
        'emails.jsonl',
        () => exports.emails(address, tx),
        (n) => (counts.emails = n),
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
      zip.addLate('summary.json', () => `${JSON.stringify({ address, createdAt, ...counts }, null, 2)}\n`);
      await zip.finish();
    });
    // In a transaction of its own, so that a failed write fails the export (a plain record() only logs
    // it): the HTTP route then cuts the response, and no export of personal data goes unaudited.
    await this.deps.transactions.run((tx) => this.deps.audit.record({ action: AuditActions.privacyExported, details: { addressHash, ...counts } }, meta, tx));
    this.deps.logger.info('privacy export written', { addressHash, ...counts });
    return { addressHash, createdAt, ...counts };
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
    const accounts: AccountErasureResult[] = [];
    let people = 0;
    try {
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
    const auditRecordsRedacted = await erasure.redactAuditRecords(address, addressHash);
    const result = { addressHash, erasedAt: erasedAt.toISOString(), accounts, ...totals(accounts), people, auditRecordsRedacted };
    await audit.record(
      { action: AuditActions.privacyErased, details: { addressHash, erasedAt: result.erasedAt, accounts: accounts.length, ...totals(accounts), people, auditRecordsRedacted } },
      meta,
    );
    this.deps.logger.info('privacy erasure done', { addressHash, accounts: accounts.length, ...totals(accounts) });
    return result;
  }
}

function totals(accounts: AccountErasureResult[]): { emails: number; contacts: number; contactSuppressions: number; tasks: number } {
  const sum = (key: 'emails' | 'contacts' | 'contactSuppressions' | 'tasks') => accounts.reduce((n, a) => n + a[key], 0);
  return { emails: sum('emails'), contacts: sum('contacts'), contactSuppressions: sum('contactSuppressions'), tasks: sum('tasks') };
}
