import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { up as backfillParticipants } from '../../migrations/0026-participants-every-address-header.js';
import { testApp, testContext } from '../support/harness.js';
import { createUser } from '../support/factories.js';
import { sessionFor } from '../support/auth.js';
import { cliJson } from '../admin/cli-helpers.js';
import { crmUser, freshMailUser, linkViaApi, put, storedEmails, type MailUser } from '../sync/helpers.js';
import { binaryParser } from '../timesheets/helpers.js';
import { lines, unzip } from './helpers.js';

const day = (n: number) => new Date(Date.UTC(2025, 4, n, 9, 0, 0));

/**
 * A person can be on an email without being on From, To or Cc: as its Reply-To, its Sender (mail sent
 * on their behalf) or a Bcc of mail the account sent. Export, erasure and the sync's suppression filter
 * count every address header, so such mail is shown, erased and kept out like any other.
 */
describe('privacy: Reply-To, Sender and Bcc count for export and erasure', function () {
  this.timeout(90_000);
  const run = randomBytes(4).toString('hex');
  const JANA = `jana-${run}@clients.example`;
  const MAREK = `marek-${run}@clients.example`;
  const PETER = `peter-${run}@clients.example`;
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let account: string;
  let admin: string;

  const subjects = async () => (await storedEmails(ctx, account)).map((e) => e.subject).sort();
  const exportEmails = async (email: string) => {
    const res = await request(app).post('/api/admin/privacy/export').set('Authorization', admin).send({ email }).buffer(true).parse(binaryParser);
    expect(res.status, String(res.body)).to.equal(200);
    return lines((await unzip(res.body as Buffer)).get('emails.jsonl'));
  };
  /** Stored rows that still name the address anywhere (columns and the address lists). */
  const rowsNaming = async (address: string) => {
    const [row] = await ctx.db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM emails WHERE email_account_id = $account
          AND (participants @> ARRAY[$address]::text[] OR lower(coalesce(addresses::text, '') || coalesce("from", '') || coalesce("to", '')) LIKE '%' || $address || '%')`,
      { bind: { account, address }, type: QueryTypes.SELECT },
    );
    return row.n;
  };

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    mail = await freshMailUser('privacy-headers');
    await put(mail, 'INBOX', {
      from: PETER,
      to: mail.user,
      subject: 'Answer Jana',
      body: 'Please reply to Jana.',
      date: day(1),
      headers: { 'Reply-To': `"Jana Secret" <${JANA}>` },
    });
    await put(mail, 'INBOX', {
      from: PETER,
      to: mail.user,
      subject: 'On behalf of Jana',
      body: 'Sent by Jana for Peter.',
      date: day(2),
      headers: { Sender: `"Jana Secret" <${JANA}>` },
    });
    await put(mail, 'Sent', { from: mail.user, to: PETER, subject: 'Jana in Bcc', body: 'Jana reads along.', date: day(3), headers: { Bcc: `"Jana Secret" <${JANA}>` } }, [
      '\\Seen',
    ]);
    await put(mail, 'INBOX', {
      from: PETER,
      to: mail.user,
      subject: 'Answer Marek',
      body: 'Please reply to Marek.',
      date: day(4),
      headers: { 'Reply-To': `"Marek Secret" <${MAREK}>` },
    });
    await put(mail, 'INBOX', { from: PETER, to: mail.user, subject: 'Only Peter', body: 'Nobody else.', date: day(5) });
    account = await linkViaApi(app, ctx, await crmUser(), mail);
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  it('the sync stored every email under Peter', async () => {
    expect(await subjects()).to.deep.equal(['Answer Jana', 'Answer Marek', 'Jana in Bcc', 'On behalf of Jana', 'Only Peter']);
  });

  it('the export over HTTP shows the emails where the address is only Reply-To, Sender or Bcc', async () => {
    const emails = await exportEmails(JANA);
    expect(emails.map((e) => e.subject).sort()).to.deep.equal(['Answer Jana', 'Jana in Bcc', 'On behalf of Jana']);
    const answer = emails.find((e) => e.subject === 'Answer Jana');
    expect(answer.participants).to.include(JANA);
    expect(answer.addresses.replyTo).to.deep.equal([{ name: 'Jana Secret', email: JANA }]);
  });

  it('crm-admin privacy export counts the same emails', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'privacy-headers-')), 'marek.zip');
    const summary = await cliJson(['privacy', 'export', '--email', MAREK, '--out', out]);
    expect(summary).to.include({ emails: 1 });
    const emails = lines((await unzip(fs.readFileSync(out))).get('emails.jsonl'));
    expect(emails.map((e) => e.subject)).to.deep.equal(['Answer Marek']);
  });

  it('stored rows from before the fix (participants without Reply-To) are found after migration 0026', async () => {
    await ctx.db.sequelize.query('UPDATE emails SET participants = ARRAY[$peter]::text[] WHERE email_account_id = $account', { bind: { peter: PETER, account } });
    expect(await exportEmails(MAREK)).to.deep.equal([]);
    await backfillParticipants(ctx.db.sequelize.getQueryInterface());
    expect((await exportEmails(MAREK)).map((e) => e.subject)).to.deep.equal(['Answer Marek']);
    expect((await exportEmails(JANA)).map((e) => e.subject)).to.deep.equal(['Answer Jana']);
  });

  it('erasure over HTTP removes every email naming the address on any header, and a full resync keeps them out', async () => {
    // The backfill above could only restore Reply-To (Sender and Bcc are not stored): a resync restores the rest.
    await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = NULL WHERE email_account_id = $account', { bind: { account } });
    expect((await ctx.services.mailSync.syncAccount(account)).outcome).to.equal('ok');
    expect((await exportEmails(JANA)).map((e) => e.subject).sort()).to.deep.equal(['Answer Jana', 'Jana in Bcc', 'On behalf of Jana']);

    const res = await request(app).post('/api/admin/privacy/erase').set('Authorization', admin).send({ email: JANA });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.erasure).to.include({ emails: 3 });
    expect(await subjects()).to.deep.equal(['Answer Marek', 'Only Peter']);
    expect(await rowsNaming(JANA)).to.equal(0);

    await ctx.db.sequelize.query('UPDATE mail_sync_states SET email_state = NULL WHERE email_account_id = $account', { bind: { account } });
    const full = await ctx.services.mailSync.syncAccount(account);
    expect(full.outcome).to.equal('ok');
    expect(full.mode).to.equal('full');
    expect(await subjects()).to.deep.equal(['Answer Marek', 'Only Peter']);
    expect(await rowsNaming(JANA)).to.equal(0);
  });

  it('crm-admin privacy erase removes the email where the address is only Reply-To', async () => {
    const erased = await cliJson(['privacy', 'erase', '--email', MAREK, '--yes']);
    expect(erased).to.include({ emails: 1 });
    expect(await subjects()).to.deep.equal(['Only Peter']);
    expect(await rowsNaming(MAREK)).to.equal(0);
  });
});
