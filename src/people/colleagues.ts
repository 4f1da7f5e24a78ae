/**
 * Colleagues (issue 46): the addresses of this installation's own mail accounts are staff, not
 * customers. A person is a colleague when any of their addresses is one (a colleague's private
 * address merged into their record counts too). Decided at read time, as the staff's own domains are
 * for companies (company-visibility.ts): a mailbox linked or removed changes the answer at once.
 * Left out of GET /api/people (unless includeColleagues=true) and of awaiting-reply
 * (src/emails/awaiting-query.ts, src/emails/email-query.ts, src/conversations/conversation-query.ts).
 */

/** The ids of the people who are colleagues: a handful of rows (one per mail account). */
export const COLLEAGUE_PEOPLE = 'SELECT x.person_id FROM email_accounts a JOIN person_emails x ON x.email = lower(a.email)';

/**
 * Whether the person `personIdSql` (an SQL expression) is a colleague, and its negation. As an array
 * computed once per statement (an InitPlan), not `IN (subquery)`: the planner estimates `<> ALL` of a
 * short array as passing nearly every row, where it took a hashed NOT IN to halve them and chose a
 * sort of a whole mailbox's contacts over an index range for the people list (bench/people-bench.ts).
 */
export const isColleague = (personIdSql: string): string => `${personIdSql} = ANY (ARRAY(${COLLEAGUE_PEOPLE}))`;
export const notColleague = (personIdSql: string): string => `${personIdSql} <> ALL (ARRAY(${COLLEAGUE_PEOPLE}))`;

/**
 * Whether the address `addressSql` (lower case, as contacts hold it) is a colleague's: one of the
 * installation's mail accounts, or another address of the same person. Two probes of person_emails
 * and one of email_accounts_address_idx per address.
 */
export const isColleagueAddress = (addressSql: string): string =>
  `(EXISTS (SELECT 1 FROM email_accounts a WHERE lower(a.email) = ${addressSql})
    OR EXISTS (SELECT 1 FROM person_emails pe JOIN person_emails y ON y.person_id = pe.person_id JOIN email_accounts a ON lower(a.email) = y.email
                WHERE pe.email = ${addressSql}))`;

/**
 * The email `emailIdSql` (an inbound one: its main correspondent is its sender, src/sync/email-mapper.ts)
 * came from a colleague: a message between staff awaits no reply from the customer side (issue 46).
 * Probes by key only: the email, its contact, then isColleagueAddress.
 */
export const isFromColleague = (emailIdSql: string): string =>
  `EXISTS (SELECT 1 FROM emails x JOIN contacts k ON k.id = x.contact_id WHERE x.id = ${emailIdSql} AND ${isColleagueAddress('k.email')})`;
