import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import { deniedMessage } from '../email-accounts/account-rights.js';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { CompanyFilter } from './company-query.js';
import type { CompanyRecord } from './company-records.js';
import type { CompanyEdits, CompanyRepository } from './company-repository.js';
import { COMPANY_NOT_FOUND } from './company-visibility.js';

export type { CompanyFilter } from './company-query.js';
export type CompanyChanges = CompanyEdits;

/**
 * Companies: the organisations behind the correspondents' mail domains (issue 38, docs/adr/0117).
 * A user sees a company when they see one of its contacts, and its figures count those contacts only;
 * a user who edits the contacts and reads the mail of an account that shows it may name it and keep
 * notes on it (shared by everyone who sees it, audited).
 * A company they do not see is not found (404), for admins too; the CLI lists all of them.
 */
export class CompanyService {
  constructor(
    private readonly deps: {
      companies: CompanyRepository;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async list(userId: string, filter: CompanyFilter, page: PageRequest): Promise<Page<CompanyRecord>> {
    return this.deps.companies.listPage({ userId }, filter, page);
  }

  /** Every company of the installation with its figures over all contacts (crm-admin companies list). */
  async listAll(filter: CompanyFilter, page: PageRequest): Promise<Page<CompanyRecord>> {
    return this.deps.companies.listPage({ everyone: true }, filter, page);
  }

  async get(userId: string, companyId: string): Promise<CompanyRecord> {
    const company = await this.deps.companies.find(userId, companyId);
    if (!company) throw new NotFoundError(COMPANY_NOT_FOUND);
    return company;
  }

  /**
   * The change and its audit record commit together; a company the caller does not see changes nothing
   * (404), nor does one they see only through viewer shares or accounts whose mail they may not read (403).
   */
  async update(userId: string, companyId: string, changes: CompanyChanges, meta: RequestMeta): Promise<CompanyRecord> {
    const { companies, transactions, audit } = this.deps;
    await transactions.run(async (tx) => {
      const { access, domain } = await companies.update(userId, companyId, changes, tx);
      if (access === false) throw new ForbiddenError(deniedMessage('editCompanies'), 'email_account_forbidden');
      if (access === null || domain === undefined) throw new NotFoundError(COMPANY_NOT_FOUND);
      const fields = Object.keys(changes).filter((k) => changes[k as keyof CompanyChanges] !== undefined);
      await audit.record({ action: AuditActions.companyUpdated, userId, details: { companyId, domain, fields } }, meta, tx);
    });
    return this.get(userId, companyId);
  }
}
