import { recomputeLastEmailAt } from '../contacts/contact-mail-links.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { lockAccountOwner } from '../email-accounts/account-owner-lock.js';

/** An email account that holds something of an address. */
export interface HoldingAccount {
  id: string;
  userId: string;
  email: string;
}

export interface AccountErasure {
  emails: number;
  contacts: number;
  contactSuppressions: number;
  /** Tasks about the person (linked to them, or to a company of theirs that went): what staff wrote about them. */
  tasks: number;
}

/**
 * The emails of one account that an address took part in: those that name it on any address header
 * (From, Sender, Reply-To, To, Cc, Bcc: the GIN index on participants), and those linked to its contact there (a contact added by hand links
 * them the same way; the union covers a row whose participants were never filled in).
 */
export const EMAILS_OF_ADDRESS = (account: string) => `
  SELECT e.id FROM emails e WHERE e.participants @> ARRAY[$address]::text[] ${account ? `AND e.email_account_id = ${account}` : ''}
  UNION
  SELECT l.email_id FROM email_accounts a
    JOIN contacts c ON c.user_id = a.user_id AND c.email_account_id = a.id AND c.email = $address
    JOIN email_contacts l ON l.contact_id = c.id
   ${account ? `WHERE a.id = ${account}` : ''}`;

/**
 * A send scheduled for later (alias) that writes to or about `$address`: its To, Cc or Bcc names it (the
 * request as the sender takes it: recipients `{ email, name }`), or it answers or forwards an email the
 * address took part in (a reply's recipients come from that email when it goes).
 */
export const SCHEDULED_NAMES_ADDRESS = (alias: string): string =>
  `(EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(${alias}.request->'to', '[]') || coalesce(${alias}.request->'cc', '[]') || coalesce(${alias}.request->'bcc', '[]')) r
           WHERE lower(r->>'email') = $address)
    OR ${alias}.email_id IN (${EMAILS_OF_ADDRESS('')}))`;

/** A draft (alias) whose To, Cc or Bcc names `$address` (stored as typed: compared in lower case). */
export const DRAFT_NAMES_ADDRESS = (alias: string): string =>
  `EXISTS (SELECT 1 FROM jsonb_array_elements(${alias}.to_recipients || ${alias}.cc_recipients || ${alias}.bcc_recipients) r WHERE lower(r->>'email') = $address)`;

/**
 * The erasure's deletes. Contacts are found through their unique key (user, account, address): one
 * probe per account, no index on the address alone needed.
 */
export class ErasureRepository {
  constructor(private readonly sql: Sql) {}

  /** Every account with a contact, an email or a contact suppression of the address. */
  accountsHolding(address: string, tx?: Tx): Promise<HoldingAccount[]> {
    return this.sql.select<HoldingAccount>(
      `SELECT a.id, a.user_id AS "userId", a.email FROM email_accounts a
        WHERE a.id IN (SELECT DISTINCT e.email_account_id FROM emails e WHERE e.id IN (${EMAILS_OF_ADDRESS('')}))
           OR EXISTS (SELECT 1 FROM contacts c WHERE c.user_id = a.user_id AND c.email_account_id = a.id AND c.email = $address)
           OR EXISTS (SELECT 1 FROM contact_suppressions s WHERE s.email_account_id = a.id AND s.email = $address)
        ORDER BY a.email, a.id`,
      { address },
      tx,
    );
  }

  /**
   * Deletes the address's emails, contact and contact suppression in one account, inside the
   * caller's transaction. The account's owner is read under the hand-over lock (a hand-over moves the
   * contacts' user_id with it), then the sync-state row is locked, in the order a sync batch takes
   * them: a batch in flight (it writes that row with its checkpoint) commits before the deletes, and
   * the next one waits for them. Other contacts that shared an erased email get their last_email_at
   * recomputed.
   */
  async eraseInAccount(account: HoldingAccount, address: string, tx: Tx): Promise<AccountErasure> {
    const userId = await lockAccountOwner(this.sql, account.id, tx);
    if (userId === undefined) return { emails: 0, contacts: 0, contactSuppressions: 0, tasks: 0 };
    await this.sql.execute('SELECT 1 FROM mail_sync_states WHERE email_account_id = $accountId FOR UPDATE', { accountId: account.id }, tx);
    const bind = { address, accountId: account.id, userId };
    const removed = await this.sql.one<{ emails: number; touched: string[] }>(
      `WITH doomed AS (${EMAILS_OF_ADDRESS('$accountId')}),
       touched AS (SELECT DISTINCT l.contact_id FROM email_contacts l JOIN doomed d ON d.id = l.email_id),
       gone AS (DELETE FROM emails e USING doomed d WHERE e.id = d.id RETURNING e.id)
       SELECT (SELECT count(*) FROM gone)::int AS emails, ARRAY(SELECT contact_id FROM touched) AS touched`,
      bind,
      tx,
    );
    // The person's tasks go while the address still names its person (its last contact takes the person along, docs/adr/0140).
    const personTasks = await this.sql.execute('DELETE FROM tasks t WHERE t.person_id IN (SELECT pe.person_id FROM person_emails pe WHERE pe.email = $address)', bind, tx);
    // So do the tasks about the company of a personal domain (jana@novak-rodina.sk) that no other address is
    // filed under: it goes with the address's last contact (the trigger of migration 0075) and would only unlink them.
    const companyTasks = await this.sql.execute(
      `DELETE FROM tasks t WHERE t.company_id IN (SELECT co.id FROM companies co WHERE co.domain = lower(split_part($address, '@', 2))
          AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.company_id = co.id AND c.email <> $address))`,
      bind,
      tx,
    );
    const contacts = await this.sql.execute('DELETE FROM contacts WHERE user_id = $userId AND email_account_id = $accountId AND email = $address', bind, tx);
    const contactSuppressions = await this.sql.execute('DELETE FROM contact_suppressions WHERE email_account_id = $accountId AND email = $address', bind, tx);
    // A company of a personal domain (jana@novak-rodina.sk) goes with its last contact: the trigger of
    // migration 0075 deletes it in this transaction once no contact of any account is filed under it.
    await recomputeLastEmailAt(this.sql, removed?.touched ?? [], tx);
    return { emails: removed?.emails ?? 0, contacts, contactSuppressions, tasks: personTasks + companyTasks };
  }

  /** The person record of the address (src/people), read before its contacts go; at most one. */
  async peopleOf(address: string, tx?: Tx): Promise<string[]> {
    const rows = await this.sql.select<{ id: string }>('SELECT person_id::text AS id FROM person_emails WHERE email = $address', { address }, tx);
    return rows.map((r) => r.id);
  }

  /**
   * After the address's contacts went: its person lost the address with the last of them (the triggers
   * of migration 0050), and was removed if it had no other. One that lives on through another address
   * (a merge) keeps nothing staff wrote about the erased person: its name, phone, title, tags, notes and
   * company are cleared. Answers how many person records the address had (0 or 1).
   */
  async erasePeople(personIds: readonly string[], address: string, tx: Tx): Promise<number> {
    if (personIds.length === 0) return 0;
    // An address a contact added meanwhile (a sync of mail after the erasure) is a new relationship: left alone.
    await this.sql.execute(
      `UPDATE people p SET name = NULL, phone = NULL, title = NULL, tags = '{}', notes = NULL, company_id = NULL, updated_at = now()
        WHERE p.id = ANY($personIds::uuid[]) AND NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.person_id = p.id AND pe.email = $address)`,
      { personIds, address },
      tx,
    );
    return personIds.length;
  }

  /**
   * Drafts addressed to the address (To, Cc or Bcc, any case), in every account: what staff began to
   * write to the person, unsent. Drafts are few per user: a scan, no index needed.
   */
  deleteDrafts(address: string, tx?: Tx): Promise<number> {
    return this.sql.execute(`DELETE FROM email_drafts d WHERE ${DRAFT_NAMES_ADDRESS('d')}`, { address }, tx);
  }

  /**
   * Sends scheduled for later that write to or about the address, in every account, whatever their
   * state (scheduled, failed, cancelled, sent: each keeps its text and recipients), except one on its way
   * (`sending`: leased by a job that may be submitting it this moment; deleting it would not stop the
   * mail server). Run before the address's emails go: a reply is found through its original. Their kept
   * files lose their owner and the attachment-cleanup job removes them.
   */
  deleteScheduled(address: string, tx?: Tx): Promise<number> {
    return this.sql.execute(`DELETE FROM scheduled_emails s WHERE s.status <> 'sending' AND ${SCHEDULED_NAMES_ADDRESS('s')}`, { address }, tx);
  }

  /** The company of a domain (the address's), if there is one. */
  companyOfDomain(domain: string, tx?: Tx): Promise<{ id: string; domain: string } | undefined> {
    return this.sql.one<{ id: string; domain: string }>('SELECT id, domain FROM companies WHERE domain = $domain', { domain }, tx);
  }

  /**
   * Audit records that name the address in clear (a contact added or deleted by hand) keep what they
   * say but name it by its hash instead.
   */
  redactAuditRecords(address: string, hashHex: string, tx?: Tx): Promise<number> {
    return this.sql.execute(
      `UPDATE audit_logs SET details = (details - 'email') || jsonb_build_object('emailHash', $hashHex::text)
        WHERE action IN ('contact.created', 'contact.deleted') AND lower(details->>'email') = $address`,
      { address, hashHex },
      tx,
    );
  }

  /**
   * The changes of a company of the erased address's domain (company.updated) name that domain: once
   * no company of it is left (a personal domain, gone with its last contact), they name its hash
   * instead (issue 52, finding 11). A domain others are still filed under is no one person's data.
   */
  redactCompanyRecords(domain: string, hashHex: string, tx?: Tx): Promise<number> {
    return this.sql.execute(
      `UPDATE audit_logs SET details = (details - 'domain') || jsonb_build_object('domainHash', $hashHex::text)
        WHERE action = 'company.updated' AND details->>'domain' = $domain
          AND NOT EXISTS (SELECT 1 FROM companies WHERE domain = $domain)`,
      { domain, hashHex },
      tx,
    );
  }
}
