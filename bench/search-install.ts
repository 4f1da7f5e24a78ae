import { QueryTypes } from 'sequelize';
import os from 'node:os';
import type { AppContext } from '../src/app/context.js';
import { User } from '../src/models/index.js';
import { onboardedMember, seedMailbox, shareMailbox, type SeededMailbox } from './contacts-seed.js';
import { maintain } from './bench-database.js';

/** The users a search benchmark reads as: an owner of one busy account, and a member who sees it and an account of their own. */
export interface SearchInstall {
  owner: User;
  ownerAccountId: string;
  busiestContactId: string;
  member: User;
  memberAccountIds: string[];
}

/**
 * A large installation for the search benchmark, seeded once and found again: `accounts` mailboxes of
 * `emails` each (bench/contacts-seed.ts), the middle one shared with two members, the first of whom has
 * a mailbox of their own (so their search spans two accounts). Seeding 1,000,000 emails takes many
 * minutes; with BENCH_DATABASE_URL pointing at a database seeded before, the mailboxes already there
 * are reused (found by their users' names) and only the missing ones are added.
 */
export async function searchInstall(ctx: AppContext, sizes: { accounts: number; emails: number; contacts: number }): Promise<SearchInstall> {
  const started = Date.now();
  const have = await names(ctx, 'bench-large%');
  for (let i = 0; i < sizes.accounts; i++) {
    if (have.some((n) => n.startsWith(`bench-large${i}-`))) continue;
    await seedMailbox(ctx, `large${i}`, { contacts: sizes.contacts, emails: sizes.emails });
    if ((i + 1) % 5 === 0) {
      console.log(`  seeded ${i + 1}/${sizes.accounts} mailboxes in ${((Date.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg()[0].toFixed(2)}`);
    }
  }
  const ownerName = (await names(ctx, `bench-large${Math.floor(sizes.accounts / 2)}-%`))[0];
  const owner = (await User.findOne({ where: { username: ownerName } }))!;
  const [ownerAccount] = await rows<{ id: string }>(ctx, 'SELECT id FROM email_accounts WHERE user_id = $1', [owner.id]);
  if ((await names(ctx, 'bench-member-%')).length === 0) {
    await shareMailbox(ctx, { account: { id: ownerAccount.id } } as unknown as SeededMailbox, 2, { contacts: sizes.contacts, emails: sizes.emails });
    // What autovacuum does on a live system; on its own connection (the pool's statements time out after 30 s).
    await maintain(ctx, 'VACUUM ANALYZE');
  }
  const member = (await User.findOne({ where: { username: (await names(ctx, 'bench-member-%'))[0] } }))!;
  const memberAccounts = await rows<{ id: string }>(ctx, 'SELECT email_account_id AS id FROM email_account_members WHERE user_id = $1 AND can_read ORDER BY email_account_id', [
    member.id,
  ]);
  const [busiest] = await rows<{ id: string }>(
    ctx,
    `SELECT l.contact_id AS id FROM email_contacts l JOIN contacts c ON c.id = l.contact_id
      WHERE c.email_account_id = $1 GROUP BY l.contact_id ORDER BY count(*) DESC, l.contact_id LIMIT 1`,
    [ownerAccount.id],
  );
  return { owner, ownerAccountId: ownerAccount.id, busiestContactId: busiest.id, member, memberAccountIds: memberAccounts.map((a) => a.id) };
}

/**
 * The shape of issue 49's outside run: one user whose three mailboxes hold the million together
 * (`emails` each), with the Slovak variety of SeedOptions.variety; the first mailbox shared with a
 * member who also has a small mailbox of their own. Found again by the user's name like searchInstall.
 */
export async function oneUserInstall(ctx: AppContext, sizes: { mailboxes: number; emails: number; contacts: number }): Promise<SearchInstall> {
  const started = Date.now();
  let [ownerName] = await names(ctx, 'bench-solo-%');
  if (!ownerName) ownerName = (await onboardedMember(ctx, 'solo')).username;
  const owner = (await User.findOne({ where: { username: ownerName } }))!;
  const accounts = async () => rows<{ id: string }>(ctx, 'SELECT id FROM email_accounts WHERE user_id = $1 ORDER BY is_primary DESC, created_at', [owner.id]);
  for (let i = (await accounts()).length; i < sizes.mailboxes; i++) {
    await seedMailbox(ctx, `solo${i}`, { contacts: sizes.contacts, emails: sizes.emails }, { user: owner, variety: true, primary: i === 0 });
    console.log(`  seeded mailbox ${i + 1}/${sizes.mailboxes} in ${((Date.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg()[0].toFixed(2)}`);
  }
  const [ownerAccount] = await accounts();
  if ((await names(ctx, 'bench-member-%')).length === 0) {
    await shareMailbox(ctx, { account: { id: ownerAccount.id } } as unknown as SeededMailbox, 2, { contacts: sizes.contacts, emails: 20_000 });
    await maintain(ctx, 'VACUUM ANALYZE');
  }
  const member = (await User.findOne({ where: { username: (await names(ctx, 'bench-member-%'))[0] } }))!;
  const memberAccounts = await rows<{ id: string }>(ctx, 'SELECT email_account_id AS id FROM email_account_members WHERE user_id = $1 AND can_read ORDER BY email_account_id', [
    member.id,
  ]);
  const [busiest] = await rows<{ id: string }>(
    ctx,
    `SELECT l.contact_id AS id FROM email_contacts l JOIN contacts c ON c.id = l.contact_id
      WHERE c.email_account_id = $1 GROUP BY l.contact_id ORDER BY count(*) DESC, l.contact_id LIMIT 1`,
    [ownerAccount.id],
  );
  return { owner, ownerAccountId: ownerAccount.id, busiestContactId: busiest.id, member, memberAccountIds: memberAccounts.map((a) => a.id) };
}

async function names(ctx: AppContext, pattern: string): Promise<string[]> {
  return (await rows<{ username: string }>(ctx, 'SELECT username FROM users WHERE username LIKE $1 ORDER BY created_at', [pattern])).map((r) => r.username);
}

function rows<T extends object>(ctx: AppContext, sql: string, bind: unknown[]): Promise<T[]> {
  return ctx.db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
}
