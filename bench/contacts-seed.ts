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
export function seedMailbox(ctx: AppContext, label: string, sizes: { contacts: number; emails: number }): Promise<SeededMailbox> {
  // Set-based statements over a whole mailbox may outlast the client-side query timeout too.
  return withoutQueryTimeout(() => seedMailboxUnbounded(ctx, label, sizes));
}

async function seedMailboxUnbounded(ctx: AppContext, label: string, sizes: { contacts: number; emails: number }): Promise<SeededMailbox> {
  const sequelize = ctx.db.sequelize;
  const user = await onboardedMember(ctx, label);
  const address = `${user.username}@bench.test`;
  const id = randomUUID();
  const account = await EmailAccount.create({
    id,
    userId: user.id,
    email: address,
    emailPassword: ctx.services.emailAccounts.sealPassword(id, 'bench-password'),
    jmapAccountId: address,
    isPrimary: true,
    isActive: true,
  });
  const bind = { userId: user.id, accountId: account.id, address, contacts: sizes.contacts, emails: sizes.emails };
  await sequelize.query(
    `INSERT INTO contacts (user_id, email_account_id, email, name)
     SELECT $userId::uuid, $accountId::uuid, format('kontakt%s@partner%s.sk', g, g % 97), format('Kontakt %s', g)
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
      `WITH c AS (SELECT id, email, (row_number() OVER (ORDER BY email) - 1)::int AS idx FROM contacts WHERE user_id = $userId)
     INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, outbound)
     SELECT $userId::uuid, $accountId::uuid, c.id, 'M' || s.g, format('<%s.%s>', s.g, $address::text), 'T' || (s.g / 4),
            CASE WHEN s.outbound THEN $address ELSE c.email END, CASE WHEN s.outbound THEN c.email ELSE $address END,
            format('Objednávka %s: faktúra a dodací list', s.g),
            repeat(format('Dobrý deň, posielam podklady k objednávke číslo %s a prosím o potvrdenie. ', s.g), 8),
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
      `WITH c AS (SELECT id, (row_number() OVER (ORDER BY email) - 1)::int AS idx FROM contacts WHERE user_id = $userId)
     INSERT INTO email_contacts (email_id, contact_id)
     SELECT id, contact_id FROM emails WHERE user_id = $userId
     UNION
     SELECT e.id, c.id FROM (SELECT id, contact_id, floor($contacts::int * random())::int AS idx FROM emails
                              WHERE user_id = $userId AND random() < 0.3 OFFSET 0) e
       JOIN c ON c.idx = e.idx AND c.id <> e.contact_id`,
      { bind, transaction },
    );
    await sequelize.query(
      `UPDATE contacts c SET last_email_at = m.latest
       FROM (SELECT l.contact_id, max(l.email_date) AS latest FROM email_contacts l JOIN contacts k ON k.id = l.contact_id
              WHERE k.user_id = $userId GROUP BY l.contact_id) m
      WHERE c.id = m.contact_id`,
      { bind, transaction },
    );
  });
  const [stats] = await select<{ contacts: number; emails: number; links: number }>(
    sequelize,
    `SELECT (SELECT count(*) FROM contacts WHERE user_id = $userId)::int AS contacts,
            (SELECT count(*) FROM emails WHERE user_id = $userId)::int AS emails,
            (SELECT count(*) FROM email_contacts l JOIN contacts c ON c.id = l.contact_id WHERE c.user_id = $userId)::int AS links`,
    bind,
  );
  const sizesByContact = await select<{ contact_id: string; n: number }>(
    sequelize,
    `SELECT c.id AS contact_id, count(l.email_id)::int AS n FROM contacts c JOIN email_contacts l ON l.contact_id = c.id
      WHERE c.user_id = $userId GROUP BY c.id ORDER BY n DESC, c.id`,
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
