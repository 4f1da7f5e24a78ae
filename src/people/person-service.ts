import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { COMPANY_NOT_FOUND } from '../companies/company-visibility.js';
import type { Transactions } from '../db/transactions.js';
import { deniedMessage } from '../email-accounts/account-rights.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import { mergeFields } from './person-merge.js';
import type { PersonFilter } from './person-query.js';
import type { PersonRecord } from './person-records.js';
import type { PersonEdits, PersonRepository } from './person-repository.js';
import { PERSON_NOT_FOUND } from './person-visibility.js';

export type { PersonFilter } from './person-query.js';
export type PersonChanges = PersonEdits;

/**
 * People (issue 46, docs/adr/0135, 0136): one record per correspondent above the per-mailbox contacts.
 * A caller sees a person through a contact in a mailbox whose mail they may read, and only the
 * addresses and mailboxes they see; the shared fields only through mail (person-visibility.ts).
 * Changing them, and merging, needs "editPeople" through such mail: a viewer, or someone who only
 * typed an address, may not (403); someone who sees nothing of the person gets 404, admins too.
 */
export class PersonService {
  constructor(
    private readonly deps: {
      people: PersonRepository;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async list(userId: string, filter: PersonFilter, page: PageRequest): Promise<Page<PersonRecord>> {
    const { companyVisible, ...found } = await this.deps.people.listPage(userId, filter, page);
    // A company the caller does not see is a 404, as on GET /api/contacts?companyId= (company-visibility.ts).
    if (companyVisible === false) throw new NotFoundError(COMPANY_NOT_FOUND);
    return found;
  }

  async get(userId: string, personId: string): Promise<PersonRecord> {
    const person = await this.deps.people.find(userId, personId);
    if (!person) throw new NotFoundError(PERSON_NOT_FOUND);
    return person;
  }

  /** The change and its audit record (the fields' names, never their values) commit together. */
  async update(userId: string, personId: string, changes: PersonChanges, meta: RequestMeta): Promise<PersonRecord> {
    const { people, transactions, audit } = this.deps;
    await transactions.run(async (tx) => {
      const { access, companyVisible } = await people.update(userId, personId, changes, tx);
      if (access === null) throw new NotFoundError(PERSON_NOT_FOUND);
      if (access === false) throw new ForbiddenError(deniedMessage('editPeople'), 'email_account_forbidden');
      if (!companyVisible) throw new NotFoundError(COMPANY_NOT_FOUND);
      const fields = Object.keys(changes).filter((k) => changes[k as keyof PersonChanges] !== undefined);
      await audit.record({ action: AuditActions.personUpdated, userId, details: { personId, fields } }, meta, tx);
    });
    return this.get(userId, personId);
  }

  /**
   * The sources' addresses and fields go to the target (person-merge.ts) and the sources are gone
   * (404 afterwards). The rows are locked first, in key order, and only then the caller's right on
   * each is checked (lock, then check): two merges at once wait for each other, and the second finds
   * a source the first removed missing (404, nothing changed) instead of losing its addresses.
   */
  async merge(userId: string, targetId: string, sourceIds: readonly string[], meta: RequestMeta): Promise<PersonRecord> {
    const { people, transactions, audit } = this.deps;
    if (sourceIds.includes(targetId)) throw new ValidationError(MERGE_ITSELF, [{ field: 'sourceIds', message: MERGE_ITSELF }]);
    await transactions.run(async (tx) => {
      const ids = [targetId, ...sourceIds];
      const locked = new Set(await people.lock(ids, tx));
      const access = await people.editAccess(userId, ids, tx);
      // Unknown, gone or unseen: one 404 whichever it is; then a person seen without the right: 403.
      if (ids.some((id) => !locked.has(id) || access.get(id) === null || access.get(id) === undefined)) throw new NotFoundError(PERSON_NOT_FOUND);
      if (ids.some((id) => access.get(id) === false)) throw new ForbiddenError(deniedMessage('editPeople'), 'email_account_forbidden');
      const rows = new Map((await people.fields(ids, tx)).map((r) => [r.id, r]));
      const merged = mergeFields(
        rows.get(targetId)!,
        sourceIds.map((id) => rows.get(id)!),
      );
      const addresses = await people.merge(targetId, sourceIds, merged, tx);
      await audit.record({ action: AuditActions.personMerged, userId, details: { personId: targetId, sourceIds: [...sourceIds], addresses } }, meta, tx);
    });
    return this.get(userId, targetId);
  }
}

const MERGE_ITSELF = 'Osobu nemožno zlúčiť samu so sebou';
