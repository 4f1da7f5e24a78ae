import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { childEnv, crmAdmin, runCli, type CliResult } from '../support/cli.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, linkViaApi, put, storedContacts, syncState, type CrmUser, type MailUser } from './helpers.js';

const day = (n: number) => new Date(Date.UTC(2024, 5, n, 9, 0, 0));
const ALICE = { name: 'Alice Resync', email: 'alice@resync-clients.example' };
const BOB = { name: 'Bob Copied', email: 'bob@resync-clients.example' };
const CAROL = { name: 'Carol Resync', email: 'carol@resync-partner.example' };
const DAVE = { name: 'Dave Deleted', email: 'dave@resync-gone.example' };
const ERIN = { name: 'Erin Resync', email: 'erin@resync-vendor.example' };
const REPLY_TO = 'office@resync-clients.example';
const HOLDER = 'web2:4242:worker:abcd1234';

interface Row {
  id: string;
  subject: string;
  addresses: { cc?: Array<{ email: string }>; replyTo?: Array<{ email: string }> } | null;
  participants: string[];
  is_read: boolean;
  read_pending: boolean;
}

/**
 * `crm-admin sync resync` against a real Cyrus mailbox, through the real CLI: mail stored as an older
 * release left it (no address lists, participants without Reply-To) is filled in, nothing is doubled,
 * local state stays; a stopped resync continues after its last committed page; a lease held elsewhere
 * is a refusal. Pages of 2 over 5 messages (newest first): [5, 4], [3, 2], [1].
 */
describe('sync resync: mail read again after an upgrade', function () {
  this.timeout(120_000);
  let app: Express;
  let ctx: AppContext;
  let mail: MailUser;
  let owner: CrmUser;
  let accountId: string;
  let env: Record<string, string>;

  const q = <T extends object>(sql: string, bind: unknown[] = []) => ctx.db.sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const rows = () => q<Row>('SELECT id, subject, addresses, participants, is_read, read_pending FROM emails WHERE email_account_id = $1 ORDER BY subject', [accountId]);
  const row = async (subject: string) => (await rows()).find((r) => r.subject === subject)!;
  /** As mail synced before migrations 0020 and 0026 looks: no address lists, Reply-To not among the participants. */
  const makeOld = (subjects?: string[]) =>
    ctx.db.sequelize.query(
      `UPDATE emails SET addresses = NULL, participants = array_remove(participants, $2)
        WHERE email_account_id = $1 AND ($3::text[] IS NULL OR subject = ANY($3::text[]))`,
      { bind: [accountId, REPLY_TO, subjects ?? null] },
    );
  const resync = async (...args: string[]) => {
    const res = await runCli(['sync', 'resync', '--account', accountId, '--page-size', '2', '--pause-ms', '0', '--json', ...args], env);
    return { res, result: res.stdout ? JSON.parse(res.stdout).results?.[0] : undefined };
  };

  before(async () => {
    env = cliEnv();
    ctx = await testContext();
    app = await testApp();
    mail = await freshMailUser('resync');
    owner = await crmUser();
    const me = { name: 'Staff Member', email: mail.user };
    await put(mail, 'INBOX', { from: ALICE, to: me, cc: BOB, subject: 'Resync 1 kickoff', body: 'one', date: day(1), headers: { 'Reply-To': `Alice Office <${REPLY_TO}>` } });
    await put(mail, 'INBOX', { from: CAROL, to: me, subject: 'Resync 2 offer', body: 'two', date: day(2) });
    await put(mail, 'INBOX', { from: DAVE, to: me, subject: 'Resync 3 dave', body: 'three', date: day(3) });
    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Resync 4 unread', body: 'four', date: day(4) });
    await put(mail, 'INBOX', { from: ERIN, to: me, cc: BOB, subject: 'Resync 5 order', body: 'five', date: day(5) });
    accountId = await linkViaApi(app, ctx, owner, mail);
    expect(await rows()).to.have.length(5);
  });

  it('refills Cc, Reply-To and participants without doubling emails or contacts, and keeps notes, read state and deleted contacts', async () => {
    const contactId = async (email: string) => (await q<{ id: string }>('SELECT id FROM contacts WHERE email_account_id = $1 AND email = $2', [accountId, email]))[0].id;
    // Local state: a note, a contact deleted by the user, an email read here (told to the server), one read here whose
    // write-back has not reached the server yet (read_pending), which a plain sync upsert would take back to unread.
    const notes = await owner.as(request(app).patch(`/api/contacts/${await contactId(ALICE.email)}`)).send({ notes: 'Dôležitý klient' });
    expect(notes.status, JSON.stringify(notes.body)).to.equal(200);
    const deleted = await owner.as(request(app).delete(`/api/contacts/${await contactId(DAVE.email)}`));
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    const read = await owner.as(request(app).patch(`/api/emails/${(await row('Resync 2 offer')).id}`)).send({ isRead: true });
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    await ctx.db.sequelize.query(`UPDATE emails SET is_read = true, read_pending = true WHERE email_account_id = $1 AND subject = 'Resync 4 unread'`, { bind: [accountId] });
    await makeOld();
    const before = await rows();
    const contactsBefore = await storedContacts(ctx, accountId);
    expect(before).to.have.length(4);
    expect(before.every((r) => r.addresses === null)).to.equal(true);
    const detailBefore = await owner.as(request(app).get(`/api/emails/${(await row('Resync 1 kickoff')).id}`));
    expect(detailBefore.body.data.email.replyTo).to.deep.equal([]);

    const { res, result } = await resync();
    expect(res.status, res.stderr).to.equal(0);
    expect(result).to.include({ outcome: 'finished', resumed: false, pages: 3, pagesDone: 3, fetched: 5 });
    expect(result.withoutAddresses).to.deep.equal({ before: 4, after: 0 });
    expect(res.stderr).to.contain(`resync ${mail.user}: page 1 done`).and.contain('page 3 done');

    const after = await rows();
    expect(after.map((r) => r.subject)).to.deep.equal(before.map((r) => r.subject));
    const kickoff = after.find((r) => r.subject === 'Resync 1 kickoff')!;
    expect(kickoff.addresses!.cc!.map((a) => a.email)).to.deep.equal([BOB.email]);
    expect(kickoff.addresses!.replyTo!.map((a) => a.email)).to.deep.equal([REPLY_TO]);
    expect(kickoff.participants).to.include(REPLY_TO);
    const detail = await owner.as(request(app).get(`/api/emails/${kickoff.id}`));
    expect(detail.body.data.email.cc.map((a: { email: string }) => a.email)).to.deep.equal([BOB.email]);
    expect(detail.body.data.email.replyTo.map((a: { email: string }) => a.email)).to.deep.equal([REPLY_TO]);
    expect(after.find((r) => r.subject === 'Resync 5 order')!.addresses!.cc!.map((a) => a.email)).to.deep.equal([BOB.email]);

    const contactsAfter = await storedContacts(ctx, accountId);
    expect(contactsAfter.map((c) => c.email)).to.deep.equal(contactsBefore.map((c) => c.email));
    expect(contactsAfter.map((c) => c.email)).not.to.include(DAVE.email);
    const [alice] = await q<{ notes: string | null; name: string | null }>('SELECT notes, name FROM contacts WHERE email_account_id = $1 AND email = $2', [accountId, ALICE.email]);
    expect(alice).to.deep.equal({ notes: 'Dôležitý klient', name: ALICE.name });
    expect(await row('Resync 2 offer')).to.include({ is_read: true });
    expect(await row('Resync 4 unread')).to.include({ is_read: true, read_pending: true });

    const audit = await q<{ details: Record<string, unknown>; success: boolean }>(
      `SELECT details, success FROM audit_logs WHERE action = 'sync.resync' AND details->>'emailAccountId' = $1 ORDER BY created_at DESC LIMIT 1`,
      [accountId],
    );
    expect(audit[0].success).to.equal(true);
    expect(audit[0].details).to.include({ outcome: 'finished', pages: 3, fetched: 5 });
  });

  it('continues a resync stopped by --max-pages or SIGTERM after its last committed page, and starts a finished one over only with --restart', async () => {
    const first = await resync('--restart', '--max-pages', '1');
    expect(first.res.status, first.res.stderr).to.equal(0);
    expect(first.result).to.include({ outcome: 'paused', pages: 1, pagesDone: 1 });

    // The next run does page 2, then pauses long; SIGTERM ends the pause, the lease is given back.
    const child = spawn(crmAdmin, ['sync', 'resync', '--account', accountId, '--page-size', '2', '--pause-ms', '60000', '--json'], {
      env: { ...childEnv(), LOG_LEVEL: 'error', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const pageTwo = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        if (stderr.includes('page 2 done')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await Promise.race([pageTwo, exited]);
    child.kill('SIGTERM');
    expect(await exited, stderr).to.equal(1);
    const stopped = JSON.parse(stdout.slice(0, stdout.lastIndexOf('}') + 1)).results[0];
    expect(stopped).to.include({ outcome: 'interrupted', resumed: true, pages: 1, pagesDone: 2 });
    expect((await syncState(ctx, accountId)).locked_by).to.equal(null);

    // Pages 1 and 2 made old again: a run that redid them would fill them.
    await makeOld(['Resync 5 order', 'Resync 4 unread', 'Resync 2 offer']);
    const rest = await resync();
    expect(rest.res.status, rest.res.stderr).to.equal(0);
    expect(rest.result).to.include({ outcome: 'finished', resumed: true, pages: 1, pagesDone: 3, fetched: 1 });
    expect(rest.result.withoutAddresses).to.deep.equal({ before: 3, after: 3 });
    expect((await rows()).filter((r) => r.addresses === null).map((r) => r.subject)).to.deep.equal(['Resync 2 offer', 'Resync 4 unread', 'Resync 5 order']);

    const audits = async () =>
      (await q<{ n: number }>(`SELECT count(*)::int AS n FROM audit_logs WHERE action = 'sync.resync' AND details->>'emailAccountId' = $1`, [accountId]))[0].n;
    const auditsBefore = await audits();
    const again = await resync();
    expect(again.res.status, again.res.stderr).to.equal(0);
    expect(again.result).to.include({ outcome: 'already_finished', pages: 0 });
    expect(await audits(), 'a run that did nothing is not audited').to.equal(auditsBefore);

    const restarted = await resync('--restart');
    expect(restarted.res.status, restarted.res.stderr).to.equal(0);
    expect(restarted.result).to.include({ outcome: 'finished', resumed: false, pages: 3 });
    expect(restarted.result.withoutAddresses).to.deep.equal({ before: 3, after: 0 });
    expect(await rows()).to.have.length(4);
  });

  it('is refused (exit 1, naming the holder) while another process holds the account sync lease', async () => {
    // Whatever progress there is (none when this test runs alone) stays as it was.
    const progress = () => q<{ updated_at: Date; pages_done: number }>('SELECT updated_at, pages_done FROM resync_progress WHERE email_account_id = $1', [accountId]);
    const before = await progress();
    await ctx.db.sequelize.query(`UPDATE mail_sync_states SET locked_by = $2, locked_until = now() + interval '5 minutes', status = 'syncing' WHERE email_account_id = $1`, {
      bind: [accountId, HOLDER],
    });
    try {
      const { res } = await resync('--restart');
      expect(res.status, res.stdout).to.equal(1);
      const error = JSON.parse(res.stderr.slice(res.stderr.indexOf('{'))).error;
      expect(error.code).to.equal('conflict');
      expect(error.details.refused[0].reason).to.contain('worker pid 4242 on web2');
      expect(await progress()).to.deep.equal(before);
    } finally {
      await ctx.db.sequelize.query(`UPDATE mail_sync_states SET locked_by = NULL, locked_until = NULL, status = 'ok' WHERE email_account_id = $1`, { bind: [accountId] });
    }
  });

  it('says clearly that an unknown --account does not exist, and wants --account or --all', async () => {
    const unknown: CliResult = await runCli(['sync', 'resync', '--account', '00000000-0000-4000-8000-000000000000'], env);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.contain('Emailový účet neexistuje');
    const neither = await runCli(['sync', 'resync'], env);
    expect(neither.status).to.equal(2);
    expect(neither.stderr).to.match(/account|all/);
  });
});
