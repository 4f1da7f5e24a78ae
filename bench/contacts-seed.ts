import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AppContext } from '../src/app/context.js';
import { withoutQueryTimeout } from '../src/db/connection-settings.js';
import { EmailAccount, type User } from '../src/models/index.js';

export interface SeededMailbox {
  user: User;
  account: EmailAccount;
  contacts: number;
  emails: number;
  links: number;
  /** The contact with the most emails (the worst case for its email page) and one of median size. */
  busiestContactId: string;
  busiestContactEmails: number;
  medianContactId: string;
  medianContactEmails: number;
}

/** A member past onboarding (a temporary password only reaches the auth endpoints): one who set their own. */
export async function onboardedMember(ctx: AppContext, label: string) {
  const { user } = await ctx.services.users.create({ username: `bench-${label}-${Date.now().toString(36)}`, role: 'member' }, { actor: 'bench' });
  user.password = await ctx.services.hasher.hash(`bench-${randomUUID()}`);
  user.changedPassword = true;
  user.tempPassword = null;
  user.tempPasswordExpiresAt = null;
  await user.save();
  return user;
}

/**
 * One user's mailbox generated inside PostgreSQL (generate_series, set-based INSERTs): a skewed
 * distribution like a real one (the busiest contact has ~8% of the mail, many contacts only a few
 * emails, some none), 15% unread, ~30% of emails with a second participant, ~600-character bodies.
 */
export function seedMailbox(ctx: AppContext, label: string, sizes: { contacts: number; emails: number }, options: SeedOptions = {}): Promise<SeededMailbox> {
  // Set-based statements over a whole mailbox may outlast the client-side query timeout too.
  return withoutQueryTimeout(() => seedMailboxUnbounded(ctx, label, sizes, options));
}

export interface SeedOptions {
  /** The mailbox's owner (default: a new member): one user with several mailboxes. */
  user?: User;
  /**
   * Slovak variety for the search benchmark (issue 49), beside the default text of every email: 1 % of
   * emails a complaint about an invoice ("Reklamácia faktúry", "30 paliet"), 1.5 % a contract in other
   * case forms ("k zmluve", "zmluvou", "zmlúv"), contacts of one domain in 97 at tatralogistika.sk, and
   * an attachment "faktúra-2026-<n>.pdf" on 5 % of emails.
   */
  variety?: boolean;
  /** Whether the account is the user's primary one (default true; a user's further mailboxes: false). */
  primary?: boolean;
}

async function seedMailboxUnbounded(ctx: AppContext, label: string, sizes: { contacts: number; emails: number }, options: SeedOptions): Promise<SeededMailbox> {
  const sequelize = ctx.db.sequelize;
  const user = options.user ?? (await onboardedMember(ctx, label));
  const address = `${user.username}${options.user ? `-${label}` : ''}@bench.test`;
  const id = randomUUID();
  const account = await EmailAccount.create({
    id,
    userId: user.id,
    email: address,
    emailPassword: ctx.services.emailAccounts.sealPassword(id, 'bench-password'),
    jmapAccountId: address,
    isPrimary: options.primary ?? true,
    isActive: true,
  });
  const bind = { userId: user.id, accountId: account.id, address, contacts: sizes.contacts, emails: sizes.emails };
  await sequelize.query(
    `INSERT INTO contacts (user_id, email_account_id, email, name)
     SELECT $userId::uuid, $accountId::uuid, ${options.variety ? "CASE WHEN g % 97 = 42 THEN format('kontakt%s@tatralogistika.sk', g) ELSE format('kontakt%s@partner%s.sk', g, g % 97) END" : "format('kontakt%s@partner%s.sk', g, g % 97)"}, format('Kontakt %s', g)
       FROM generate_series(0, $contacts::int - 1) g`,
    { bind },
  );
  // random() in a subquery with OFFSET 0 is drawn once per email, not once per join candidate.
  // Threads of four emails (g / 4; the smallest g is the newest): the second newest is always the
  // mailbox's own reply, the newest is one in 70% of threads, so about 30% of threads await a reply
  // (bench/awaiting-reply-bench.ts). Outbound mail is from the mailbox, to the contact it is filed under.
  // One statement for the whole mailbox: on a loaded machine it may outlast the pool's statement timeout.
  await sequelize.transaction(async (transaction) => {
    await sequelize.query("SET LOCAL statement_timeout = '15min'", { transaction });
    await sequelize.query(
      `WITH c AS (SELECT id, email, (row_number() OVER (ORDER BY email) - 1)::int AS idx FROM contacts WHERE email_account_id = $accountId)
     INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, outbound)
     SELECT $userId::uuid, $accountId::uuid, c.id, 'M' || s.g, format('<%s.%s>', s.g, $address::text), 'T' || (s.g / 4),
            CASE WHEN s.outbound THEN $address ELSE c.email END, CASE WHEN s.outbound THEN c.email ELSE $address END,
            ${options.variety ? VARIED_SUBJECT : "format('Objednávka %s: faktúra a dodací list', s.g)"},
            repeat(format('Dobrý deň, posielam podklady k objednávke číslo %s a prosím o potvrdenie. ', s.g), 8)${options.variety ? ` || ${VARIED_BODY}` : ''},
            s.r > 0.15 OR s.outbound, now() - s.g * interval '10 minutes', s.outbound
       FROM (SELECT g, least(floor($contacts::int * power(random(), 3))::int, $contacts::int - 1) AS idx, random() AS r,
                    (g % 4 = 1 OR (g % 4 = 0 AND random() < 0.7)) AS outbound
               FROM generate_series(0, $emails::int - 1) g OFFSET 0) s
       JOIN c ON c.idx = s.idx`,
      { bind, transaction },
    );
  });
  // As the emails' insert: a whole mailbox's links in one statement may outlast the pool's timeout.
  await sequelize.transaction(async (transaction) => {
    await sequelize.query("SET LOCAL statement_timeout = '15min'", { transaction });
    await sequelize.query(
      `WITH c AS (SELECT id, (row_number() OVER (ORDER BY email) - 1)::int AS idx FROM contacts WHERE email_account_id = $accountId)
     INSERT INTO email_contacts (email_id, contact_id)
     SELECT id, contact_id FROM emails WHERE email_account_id = $accountId
     UNION
     SELECT e.id, c.id FROM (SELECT id, contact_id, floor($contacts::int * random())::int AS idx FROM emails
                              WHERE email_account_id = $accountId AND random() < 0.3 OFFSET 0) e
       JOIN c ON c.idx = e.idx AND c.id <> e.contact_id`,
      { bind, transaction },
    );
    await sequelize.query(
      `UPDATE contacts c SET last_email_at = m.latest
       FROM (SELECT l.contact_id, max(l.email_date) AS latest FROM email_contacts l JOIN contacts k ON k.id = l.contact_id
              WHERE k.email_account_id = $accountId GROUP BY l.contact_id) m
      WHERE c.id = m.contact_id`,
      { bind, transaction },
    );
  });
  if (options.variety) {
    await sequelize.transaction(async (transaction) => {
      await sequelize.query("SET LOCAL statement_timeout = '15min'", { transaction });
      await sequelize.query(
        `INSERT INTO email_attachments (email_id, position, blob_id, name, type, size)
         SELECT id, 0, 'B' || jmap_id, format('faktúra-2026-%s.pdf', substr(jmap_id, 2)), 'application/pdf', 48213
           FROM emails WHERE email_account_id = $accountId AND substr(jmap_id, 2)::int % 20 = 18`,
        { bind, transaction },
      );
      await sequelize.query('UPDATE emails SET has_attachments = true WHERE email_account_id = $accountId AND substr(jmap_id, 2)::int % 20 = 18', { bind, transaction });
    });
  }
  const [stats] = await select<{ contacts: number; emails: number; links: number }>(
    sequelize,
    `SELECT (SELECT count(*) FROM contacts WHERE email_account_id = $accountId)::int AS contacts,
            (SELECT count(*) FROM emails WHERE email_account_id = $accountId)::int AS emails,
            (SELECT count(*) FROM email_contacts l JOIN contacts c ON c.id = l.contact_id WHERE c.email_account_id = $accountId)::int AS links`,
    bind,
  );
  const sizesByContact = await select<{ contact_id: string; n: number }>(
    sequelize,
    `SELECT c.id AS contact_id, count(l.email_id)::int AS n FROM contacts c JOIN email_contacts l ON l.contact_id = c.id
      WHERE c.email_account_id = $accountId GROUP BY c.id ORDER BY n DESC, c.id`,
    bind,
  );
  const busiest = sizesByContact[0];
  const median = sizesByContact[Math.floor(sizesByContact.length / 2)];
  return {
    user,
    account,
    ...stats,
    busiestContactId: busiest.contact_id,
    busiestContactEmails: busiest.n,
    medianContactId: median.contact_id,
    medianContactEmails: median.n,
  };
}

/** The subject of a varied email (s.g its number): see SeedOptions.variety. */
const VARIED_SUBJECT = `CASE WHEN s.g % 100 = 7 THEN format('Reklamácia faktúry %s', s.g)
                             WHEN s.g % 200 IN (8, 9, 108) THEN format('Dodatok k zmluve %s', s.g)
                             ELSE format('Objednávka %s: faktúra a dodací list', s.g) END`;
const VARIED_BODY = `CASE WHEN s.g % 100 = 7 THEN 'Reklamujeme dodávku: z 30 paliet prišlo poškodených päť, prosíme o dobropis.'
                          WHEN s.g % 200 IN (8, 9, 108) THEN 'Posielame návrh zmluvy; podpísanou zmluvou sa mení cena dodávok. Prehľad zmlúv v prílohe.'
                          ELSE '' END`;

function select<T extends object>(sequelize: Sequelize, sql: string, bind: Record<string, unknown>): Promise<T[]> {
  return sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
}

/**
 * Shares the mailbox's account with `count` further users (editors and viewers, every other one), as the
 * sharing endpoints would: the first of them also gets a mailbox of their own (`ownMailbox`), so their
 * lists span two accounts. Answers the users, the first one first.
 */
export async function shareMailbox(
  ctx: AppContext,
  mailbox: SeededMailbox,
  count: number,
  ownMailbox: { contacts: number; emails: number },
): Promise<{ members: User[]; own: SeededMailbox }> {
  const own = await seedMailbox(ctx, 'member', ownMailbox);
  const members = [own.user];
  for (let i = 1; i < count; i++) {
    const { user } = await ctx.services.users.create({ username: `bench-member${i}-${Date.now().toString(36)}`, role: 'member' }, { actor: 'bench' });
    members.push(user);
  }
  for (const [i, member] of members.entries()) {
    const role = i % 2 === 0 ? 'editor' : 'viewer';
    await ctx.services.emailAccountSharing.share({ kind: 'admin' }, mailbox.account.id, { userId: member.id, role, canRead: true, canSend: false }, { actor: 'bench' });
  }
  return { members, own };
}
