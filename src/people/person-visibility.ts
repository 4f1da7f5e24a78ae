/**
 * Which people a caller sees, and what of them, as SQL: THE definition for the people area and for
 * every other that reads a person (GET /api/emails?personId=, templates). Nothing is cached: a share
 * removed or a mailbox added applies to the very next query (docs/adr/0136-shared-fields-through-mail.md).
 *
 * - A caller sees a person when one of the person's addresses is a contact of an email account whose
 *   mail they may read (account-rights.ts, "readEmails": owner, editor or viewer with can_read); they
 *   see those addresses only, and those accounts. Anyone else: 404, no existence leak.
 * - The shared fields (the name staff gave, phone, job title, tags, notes, the company) are seen only
 *   through mail the caller may read: one of those contacts has mail (last_email_at set: it is linked
 *   to an email of its account, contact-mail-links.ts), which is exactly "the caller's lastEmailAt of
 *   the person is not null". An address typed by hand or imported, with no mail, shows the person as
 *   the caller's own contacts make it (their name, the address) and nothing colleagues wrote (issue 52,
 *   finding 1). A person's id is random and no age is shown, so it tells nothing either.
 * - Changing them (PATCH, merge) needs the right "editPeople" (owner, or editor with can_read) on an
 *   account through which the caller meets the person in mail.
 */
import { accountsWith } from '../email-accounts/account-rights.js';

export const PERSON_NOT_FOUND = 'Osoba neexistuje';

/**
 * The contacts `c` of the person `personIdSql` in the accounts whose mail the caller (bind `$userId`)
 * may read: FROM and WHERE of a query over them, one range of contacts_person_idx (each contact
 * carries its person, migration 0083). The accounts are an array computed once per statement: as an
 * `IN (subquery)` the planner may join from the caller's accounts' contacts instead (right after a
 * bulk insert, before autovacuum's ANALYZE, it did: 11 ms per person for 2,200 contacts, ADR 0172).
 */
export const visibleContactsOf = (personIdSql: string): string =>
  `contacts c WHERE c.person_id = ${personIdSql} AND c.email_account_id = ANY (ARRAY(${accountsWith('readEmails')}))`;

/**
 * The caller's right on the person `personIdSql` as one SQL value: NULL when they do not see them
 * (404), false when they see them without the right "editPeople" through mail (403), true when they may.
 */
export const editAccessToPerson = (personIdSql: string): string =>
  `(SELECT bool_or(c.last_email_at IS NOT NULL AND c.email_account_id IN (${accountsWith('editPeople')})) FROM ${visibleContactsOf(personIdSql)})`;

/** Whether the caller sees the person `personIdSql` at all (a contact of one of their readable mailboxes). */
export const seesPerson = (personIdSql: string): string => `EXISTS (SELECT 1 FROM ${visibleContactsOf(personIdSql)})`;
