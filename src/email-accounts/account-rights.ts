/**
 * Who may do what on a (possibly shared) email account: THE definition, as conditions on the caller's
 * row `m` of email_account_members. EmailAccountAccess asks them for one account (404 / 403), and the
 * contacts and emails queries scope their lists with them. Nothing else decides access, and nothing
 * about it is cached: a change of a share applies to the very next query, on every instance.
 *
 * docs/contract.md §4.3: owner (one per account) may do everything; editor edits contacts
 * and the read state; viewer only reads. can_read: false shows the account and its contacts but no
 * email; can_send allows sending from the account.
 */
export type AccountRole = 'owner' | 'editor' | 'viewer';

export type AccountRight =
  /** The account in my lists, its contacts, its member list. */
  | 'view'
  /** Email lists, bodies and threads. */
  | 'readEmails'
  /** Contacts: add, edit, delete. */
  | 'editContacts'
  /** The name and notes of a company one of the account's contacts belongs to (shared by everyone who sees it). */
  | 'editCompanies'
  /** A person's shared fields and merges (src/people), through a mailbox that holds mail with them. */
  | 'editPeople'
  /** Read / unread (written back to the mail server as $seen). */
  | 'markRead'
  /** "Sync now". */
  | 'sync'
  /** A conversation's assignee and status (the team inbox). */
  | 'triage'
  | 'send'
  /** Add, change and remove shares; transfer the ownership. */
  | 'share'
  /** Credentials, active and primary flags, deletion of the account. */
  | 'manage';

const WRITERS = `m.role IN ('owner', 'editor')`;

const RULES: Record<AccountRight, { sql: string; denied: string }> = {
  view: { sql: 'true', denied: 'Emailový účet nie je s vami zdieľaný' },
  readEmails: { sql: 'm.can_read', denied: 'Emaily tohto emailového účtu nemáte právo čítať' },
  editContacts: { sql: WRITERS, denied: 'Kontakty tohto emailového účtu môžete len prezerať' },
  // Company notes are written from the mail: an account that shows no email (can_read false) gives no say in them.
  editCompanies: { sql: `${WRITERS} AND m.can_read`, denied: 'Firmu môže upraviť len vlastník alebo editor emailového účtu, ktorý ju zobrazuje, s právom čítať emaily' },
  // A person's shared record is written from the mail, as a company's is (docs/adr/0136-shared-fields-through-mail.md).
  editPeople: { sql: `${WRITERS} AND m.can_read`, denied: 'Osobu môže upraviť len vlastník alebo editor emailového účtu s poštou tejto osoby, s právom čítať emaily' },
  markRead: { sql: `${WRITERS} AND m.can_read`, denied: 'Stav prečítania v tomto emailovom účte nemôžete meniť' },
  triage: { sql: `${WRITERS} AND m.can_read`, denied: 'Konverzácie tohto emailového účtu môže prideľovať a uzatvárať len vlastník alebo editor' },
  sync: { sql: WRITERS, denied: 'Synchronizáciu tohto emailového účtu môže spustiť len vlastník alebo editor' },
  send: { sql: 'm.can_send', denied: 'Z tohto emailového účtu nemáte právo odosielať' },
  share: { sql: `m.role = 'owner'`, denied: 'Zdieľanie tohto emailového účtu môže meniť len jeho vlastník' },
  manage: { sql: `m.role = 'owner'`, denied: 'Nastavenia tohto emailového účtu môže meniť len jeho vlastník' },
};

/** The right as a boolean SQL condition on the membership row `m`. */
export function rightCondition(right: AccountRight): string {
  return `(${RULES[right].sql})`;
}

/** The Slovak message of a 403 for a member without this right. */
export function deniedMessage(right: AccountRight): string {
  return RULES[right].denied;
}

/** Ids of the accounts on which the caller (bind `$userId`) has the right: one index range of email_account_members. */
export function accountsWith(right: AccountRight): string {
  return `SELECT m.email_account_id FROM email_account_members m WHERE m.user_id = $userId AND ${rightCondition(right)}`;
}

/**
 * The caller's right on the account `$accountId` (or the account of the contact `$contactId`) as one
 * SQL value: NULL = not a member (404: no existence leak), false = a member without the right (403).
 */
export function accessToAccount(right: AccountRight): string {
  return `(SELECT ${rightCondition(right)} FROM email_account_members m WHERE m.email_account_id = $accountId AND m.user_id = $userId)`;
}

export function accessToContact(right: AccountRight): string {
  return `(SELECT ${rightCondition(right)} FROM contacts k JOIN email_account_members m ON m.email_account_id = k.email_account_id AND m.user_id = $userId
            WHERE k.id = $contactId)`;
}
