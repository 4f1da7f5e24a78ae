import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { getEmails } from '../../src/jmap/index.js';
import { AuditLog } from '../../src/models/index.js';
import { crmUser, jmapAs, put, storedEmails } from '../sync/helpers.js';
import { ALICE, BOB, get, memberRows, share, sharedMailbox, type SharedMailbox } from './helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Contract (docs/contract.md §4.3): sharing over HTTP, on a mailbox synced from the real Cyrus: the owner
 * shares it with an editor and a viewer; each sees and changes exactly what the role allows; a user
 * without a share sees nothing of it (404 for every id).
 */
describe('sharing an email account (owner, editor, viewer) over HTTP', function () {
  this.timeout(120_000);
  let box: SharedMailbox;
  let contacts: Json[];
  let emails: Json[];
  const contactOf = (address: string) => contacts.find((c) => c.email === address)!;
  const emailTitled = (subject: string) => emails.find((e) => e.subject === subject)!;

  before(async () => {
    box = await sharedMailbox('share-api');
    const listed = await get(box, box.owner, `/api/contacts?emailAccountId=${box.accountId}`);
    contacts = listed.body.data.items;
    emails = (await get(box, box.owner, `/api/emails?emailAccountId=${box.accountId}`)).body.data.items;
    expect(contacts.map((c) => c.email).sort()).to.deep.equal([ALICE.email, BOB.email]);
    expect(emails).to.have.length(3);
  });

  it('lists the account for each member with their role and rights; the owner keeps the primary flag', async () => {
    const view = async (who: typeof box.owner) => ((await get(box, who, '/api/email-accounts')).body.data.items as Json[]).find((a) => a.id === box.accountId);
    expect(await view(box.owner)).to.deep.include({ role: 'owner', canRead: true, canSend: true, isPrimary: true });
    expect(await view(box.editor)).to.deep.include({ role: 'editor', canRead: true, canSend: true, isPrimary: false, email: box.mail.user });
    expect(await view(box.viewer)).to.deep.include({ role: 'viewer', canRead: true, canSend: false, isPrimary: false });
    expect(await view(box.outsider)).to.equal(undefined);
    for (const who of [box.editor, box.viewer]) expect((await view(who))!).to.not.have.property('emailPassword');
  });

  it('shows the contacts and emails of the account to the editor and the viewer, and nothing of it to anyone else', async () => {
    for (const who of [box.editor, box.viewer]) {
      const listed = (await get(box, who, '/api/contacts')).body.data.items as Json[];
      expect(
        listed
          .filter((c) => c.emailAccountId === box.accountId)
          .map((c) => c.id)
          .sort(),
      ).to.deep.equal(contacts.map((c) => c.id).sort());
      const mails = (await get(box, who, `/api/emails?contactId=${contactOf(ALICE.email).id}`)).body.data;
      expect(mails.pagination.total).to.equal(2);
      const full = await get(box, who, `/api/emails/${emailTitled('Faktúra').id}`);
      expect(full.status).to.equal(200);
      expect(full.body.data.email.body).to.contain('Posielam faktúru');
      expect((await get(box, who, `/api/emails/${emailTitled('Faktúra').id}/thread`)).status).to.equal(200);
    }
    const outsiderContacts = (await get(box, box.outsider, '/api/contacts')).body.data.items as Json[];
    const outsiderEmails = (await get(box, box.outsider, '/api/emails')).body.data.items as Json[];
    expect(outsiderContacts.filter((c) => c.emailAccountId === box.accountId)).to.deep.equal([]);
    expect(outsiderEmails.filter((e) => e.emailAccountId === box.accountId)).to.deep.equal([]);
  });

  it('lists the members for every member, the owner first', async () => {
    for (const who of [box.owner, box.editor, box.viewer]) {
      const res = await get(box, who, `/api/email-accounts/${box.accountId}/users`);
      expect(res.status).to.equal(200);
      expect(res.body.data.pagination.total).to.equal(3);
      const items = res.body.data.items as Json[];
      expect(items[0]).to.deep.include({ userId: box.owner.fixture.user.id, role: 'owner', canRead: true, canSend: true, emailAccountId: box.accountId });
      expect(items.map((m) => m.role).sort()).to.deep.equal(['editor', 'owner', 'viewer']);
    }
    expect((await get(box, box.viewer, `/api/email-accounts/${box.accountId}/users?limit=101`)).status).to.equal(400);
  });

  it('lets the editor change contacts (rows stay the owner’s) and start a sync; the viewer gets 403 for both', async () => {
    const alice = contactOf(ALICE.email);
    const edited = await box.editor.as(request(box.app).patch(`/api/contacts/${alice.id}`)).send({ notes: 'VIP klient' });
    expect(edited.status).to.equal(200);
    expect(edited.body.data.contact.notes).to.equal('VIP klient');
    const refused = await box.viewer.as(request(box.app).patch(`/api/contacts/${alice.id}`)).send({ notes: 'nie' });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('email_account_forbidden');
    expect((await get(box, box.owner, `/api/contacts/${alice.id}`)).body.data.contact.notes).to.equal('VIP klient');

    const added = await box.editor.as(request(box.app).post('/api/contacts')).send({ emailAccountId: box.accountId, email: 'carol@partner.example' });
    expect(added.status).to.equal(201);
    const [row] = await box.ctx.db.sequelize.query<{ user_id: string }>('SELECT user_id FROM contacts WHERE id = $1', {
      bind: [added.body.data.contact.id],
      type: QueryTypes.SELECT,
    });
    expect(row.user_id).to.equal(box.owner.fixture.user.id);
    expect((await box.viewer.as(request(box.app).post('/api/contacts')).send({ emailAccountId: box.accountId, email: 'dan@partner.example' })).status).to.equal(403);
    expect((await box.viewer.as(request(box.app).delete(`/api/contacts/${added.body.data.contact.id}`))).status).to.equal(403);
    expect((await box.editor.as(request(box.app).delete(`/api/contacts/${added.body.data.contact.id}`))).status).to.equal(200);

    expect((await box.viewer.as(request(box.app).post(`/api/email-accounts/${box.accountId}/sync`))).status).to.equal(403);
    expect((await box.editor.as(request(box.app).post(`/api/email-accounts/${box.accountId}/sync`))).status).to.equal(202);
    await box.ctx.services.mailSync.whenIdle();
  });

  it('keeps the account’s settings and deletion to the owner (403 for members)', async () => {
    for (const who of [box.editor, box.viewer]) {
      const patched = await who.as(request(box.app).patch(`/api/email-accounts/${box.accountId}`)).send({ isActive: false });
      expect(patched.status).to.equal(403);
      expect(patched.body.error.code).to.equal('email_account_forbidden');
      expect((await who.as(request(box.app).delete(`/api/email-accounts/${box.accountId}`))).status).to.equal(403);
    }
    expect((await get(box, box.owner, '/api/email-accounts')).body.data.items.find((a: Json) => a.id === box.accountId).isActive).to.equal(true);
  });

  it('marking read by the editor reaches the server as $seen and shows read for the owner and the viewer', async () => {
    const unread = emailTitled('Objednávka 1');
    expect(unread.isRead).to.equal(false);
    expect((await box.viewer.as(request(box.app).patch(`/api/emails/${unread.id}`)).send({ isRead: true })).status).to.equal(403);
    const marked = await box.editor.as(request(box.app).patch(`/api/emails/${unread.id}`)).send({ isRead: true });
    expect(marked.status).to.equal(200);
    expect(marked.body.data.email).to.deep.include({ isRead: true, readPending: false });

    const bob = contactOf(BOB.email);
    expect((await box.viewer.as(request(box.app).post(`/api/emails/contact/${bob.id}/read`))).status).to.equal(403);
    const all = await box.editor.as(request(box.app).post(`/api/emails/contact/${bob.id}/read`));
    expect(all.body.data).to.deep.equal({ updated: 1, pushed: 1, pending: 0 });

    const stored = await storedEmails(box.ctx, box.accountId);
    const jmap = jmapAs(box.mail);
    const { list } = await getEmails(
      jmap,
      await jmap.mailAccountId(),
      stored.map((e) => e.jmap_id),
      ['id', 'keywords'],
    );
    expect(
      list.every((e) => (e.keywords as Record<string, boolean>).$seen === true),
      JSON.stringify(list),
    ).to.equal(true);
    for (const who of [box.owner, box.viewer]) {
      expect((await get(box, who, `/api/emails/${unread.id}`)).body.data.email.isRead).to.equal(true);
      expect((await get(box, who, `/api/emails?emailAccountId=${box.accountId}&unread=true`)).body.data.pagination.total).to.equal(0);
    }
  });

  it('canRead false hides the email lists and contents but still shows the contacts', async () => {
    const changed = await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`)).send({ canRead: false });
    expect(changed.status).to.equal(200);
    expect(changed.body.data.member).to.deep.include({ role: 'viewer', canRead: false, canSend: false });
    const alice = contactOf(ALICE.email);

    expect(((await get(box, box.viewer, '/api/emails')).body.data.items as Json[]).filter((e) => e.emailAccountId === box.accountId)).to.deep.equal([]);
    for (const path of [
      `/api/emails/${emailTitled('Faktúra').id}`,
      `/api/emails/${emailTitled('Faktúra').id}/thread`,
      `/api/emails?emailAccountId=${box.accountId}`,
      `/api/emails?contactId=${alice.id}`,
    ]) {
      const res = await get(box, box.viewer, path);
      expect(res.status, path).to.equal(403);
      expect(res.body.error.code, path).to.equal('email_account_forbidden');
      expect(JSON.stringify(res.body), path).to.not.contain('Posielam');
    }
    expect((await get(box, box.viewer, `/api/contacts/${alice.id}`)).status).to.equal(200);
    expect(((await get(box, box.viewer, `/api/contacts?emailAccountId=${box.accountId}`)).body.data.items as Json[]).length).to.be.greaterThan(1);
    const listed = ((await get(box, box.viewer, '/api/email-accounts')).body.data.items as Json[]).find((a) => a.id === box.accountId);
    expect(listed).to.deep.include({ role: 'viewer', canRead: false });

    await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`)).send({ canRead: true });
    expect((await get(box, box.viewer, `/api/emails/${emailTitled('Faktúra').id}`)).status).to.equal(200);
  });

  it('validates shares: 400 for bad input, 404 for unknown users and accounts, 403 without the right, 409 for existing access', async () => {
    const someone = await crmUser();
    const post = (body: unknown, as = box.owner, accountId = box.accountId) => as.as(request(box.app).post(`/api/email-accounts/${accountId}/share`)).send(body as object);
    for (const body of [
      {},
      { userId: someone.fixture.user.id },
      { userId: 'nie-uuid', role: 'viewer' },
      { userId: someone.fixture.user.id, role: 'owner' },
      { userId: someone.fixture.user.id, role: 'admin' },
      { userId: someone.fixture.user.id, role: 'viewer', canSend: true },
      { userId: someone.fixture.user.id, role: 'editor', canRead: 'yes' },
      { userId: someone.fixture.user.id, role: 'editor', extra: 1 },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
    }
    expect((await post({ userId: '00000000-0000-4000-8000-000000000000', role: 'viewer' })).status).to.equal(404);
    expect((await post({ userId: someone.fixture.user.id, role: 'viewer' }, box.owner, '00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await post({ userId: someone.fixture.user.id, role: 'viewer' }, box.outsider)).status).to.equal(404);
    for (const who of [box.viewer, box.editor]) {
      const res = await post({ userId: someone.fixture.user.id, role: 'viewer' }, who);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('email_account_forbidden');
    }
    const again = await post({ userId: box.editor.fixture.user.id, role: 'viewer' });
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('share_exists');
    expect((await post({ userId: box.owner.fixture.user.id, role: 'editor' })).body.error.code).to.equal('share_exists');

    const ownerId = box.owner.fixture.user.id;
    const removeOwner = await box.editor.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${ownerId}`));
    expect(removeOwner.status).to.equal(403);
    const selfRemove = await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${ownerId}`));
    expect([selfRemove.status, selfRemove.body.error.code]).to.deep.equal([409, 'owner_required']);
    const demote = await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${ownerId}`)).send({ role: 'editor' });
    expect([demote.status, demote.body.error.code]).to.deep.equal([409, 'owner_required']);
    const noSend = await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${ownerId}`)).send({ canSend: false });
    expect(noSend.status).to.equal(409);
    expect((await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${someone.fixture.user.id}`)).send({ role: 'editor' })).status).to.equal(404);
    expect((await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`)).send({})).status).to.equal(400);
    expect(await memberRows(box.ctx, box.accountId)).to.deep.equal({
      [ownerId]: 'owner',
      [box.editor.fixture.user.id]: 'editor',
      [box.viewer.fixture.user.id]: 'viewer',
    });
  });

  it('gives a user without a share 404 for every id of the account, and changes nothing', async () => {
    const o = box.outsider;
    const before = await storedEmails(box.ctx, box.accountId);
    const attempts: Array<[string, string, object?]> = [
      ['get', `/api/email-accounts/${box.accountId}/users`],
      ['post', `/api/email-accounts/${box.accountId}/sync`],
      ['patch', `/api/email-accounts/${box.accountId}`, { isActive: false }],
      ['delete', `/api/email-accounts/${box.accountId}`],
      ['post', `/api/email-accounts/${box.accountId}/share`, { userId: o.fixture.user.id, role: 'editor' }],
      ['patch', `/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`, { role: 'editor' }],
      ['delete', `/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`],
      ['get', `/api/contacts?emailAccountId=${box.accountId}`],
      ['get', `/api/emails?emailAccountId=${box.accountId}`],
      ['post', '/api/contacts', { emailAccountId: box.accountId, email: 'x@partner.example' }],
      ...contacts.flatMap((c): Array<[string, string, object?]> => [
        ['get', `/api/contacts/${c.id}`],
        ['patch', `/api/contacts/${c.id}`, { notes: 'x' }],
        ['delete', `/api/contacts/${c.id}`],
        ['get', `/api/emails?contactId=${c.id}`],
        ['post', `/api/emails/contact/${c.id}/read`],
      ]),
      ...emails.flatMap((e): Array<[string, string, object?]> => [
        ['get', `/api/emails/${e.id}`],
        ['get', `/api/emails/${e.id}/thread`],
        ['patch', `/api/emails/${e.id}`, { isRead: false }],
      ]),
    ];
    for (const [method, path, body] of attempts) {
      let req = o.as(request(box.app)[method as 'get'](path));
      if (body) req = req.send(body);
      const res = await req;
      expect(res.status, `${method} ${path}`).to.equal(404);
    }
    expect(await storedEmails(box.ctx, box.accountId)).to.deep.equal(before);
    expect(Object.keys(await memberRows(box.ctx, box.accountId))).to.have.length(3);
  });

  it('syncs the account once, however many members ask for it', async () => {
    const me = { name: 'Tímová schránka', email: box.mail.user };
    await put(box.mail, 'INBOX', { from: BOB, to: me, subject: 'Upomienka', body: 'Faktúra je po splatnosti.', date: new Date() });
    const asks = await Promise.all([box.owner, box.editor, box.owner, box.editor].map((who) => who.as(request(box.app).post(`/api/email-accounts/${box.accountId}/sync`))));
    expect(asks.map((r) => r.status)).to.deep.equal([202, 202, 202, 202]);
    await box.ctx.services.mailSync.whenIdle();
    const stored = await storedEmails(box.ctx, box.accountId);
    expect(stored.filter((e) => e.subject === 'Upomienka')).to.have.length(1);
    expect(stored).to.have.length(4);
    // One sync state, one status line: the account is one unit of sync work, not one per member.
    expect((await box.ctx.services.syncStatus.statusList()).filter((r) => r.accountId === box.accountId)).to.have.length(1);
    for (const who of [box.owner, box.editor, box.viewer]) {
      expect((await get(box, who, `/api/emails?emailAccountId=${box.accountId}&search=Upomienka`)).body.data.pagination.total).to.equal(1);
    }
  });

  it('unsharing removes access on the very next request; a member may leave on their own', async () => {
    const temp = await crmUser();
    expect((await share(box, temp, { role: 'editor' })).status).to.equal(201);
    const alice = contactOf(ALICE.email);
    expect((await get(box, temp, `/api/contacts/${alice.id}`)).status).to.equal(200);
    expect((await get(box, temp, `/api/emails/${emailTitled('Faktúra').id}`)).status).to.equal(200);

    const removed = await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${temp.fixture.user.id}`));
    expect(removed.status).to.equal(200);
    expect((await get(box, temp, `/api/contacts/${alice.id}`)).status).to.equal(404);
    expect((await get(box, temp, `/api/emails/${emailTitled('Faktúra').id}`)).status).to.equal(404);
    expect((await get(box, temp, `/api/emails?emailAccountId=${box.accountId}`)).status).to.equal(404);
    expect(((await get(box, temp, '/api/email-accounts')).body.data.items as Json[]).map((a) => a.id)).to.not.include(box.accountId);
    expect((await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${temp.fixture.user.id}`))).status).to.equal(404);

    const leaver = await crmUser();
    await share(box, leaver, { role: 'viewer' });
    expect((await leaver.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${box.viewer.fixture.user.id}`))).status).to.equal(403);
    expect((await leaver.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${leaver.fixture.user.id}`))).status).to.equal(200);
    expect((await get(box, leaver, `/api/email-accounts/${box.accountId}/users`)).status).to.equal(404);
  });

  it('audits every share change: by whom, for whom, which rights', async () => {
    const records = await AuditLog.findAll({
      where: { action: [AuditActions.emailAccountShared, AuditActions.emailAccountShareChanged, AuditActions.emailAccountUnshared] },
      order: [['id', 'ASC']],
    });
    const mine = records.filter((r) => (r.details as Json).emailAccountId === box.accountId);
    const created = mine.find((r) => r.action === AuditActions.emailAccountShared && r.userId === box.editor.fixture.user.id)!;
    expect(created.actor).to.equal(`user:${box.owner.fixture.user.id}`);
    expect(created.details).to.deep.include({ by: box.owner.fixture.user.id, role: 'editor', canRead: true, canSend: true, email: box.mail.user });
    const changed = mine.find((r) => r.action === AuditActions.emailAccountShareChanged && r.userId === box.viewer.fixture.user.id)!;
    expect(changed.details).to.deep.include({ role: 'viewer', canRead: false, canSend: false, previous: { role: 'viewer', canRead: true, canSend: false } });
    const removed = mine.filter((r) => r.action === AuditActions.emailAccountUnshared);
    expect(removed).to.have.length(2);
    expect(removed.map((r) => (r.details as Json).role).sort()).to.deep.equal(['editor', 'viewer']);
  });

  it('hands the ownership over explicitly: the owner’s id moves to every row of the account, the old owner stays as editor', async () => {
    const [ownerId, editorId] = [box.owner.fixture.user.id, box.editor.fixture.user.id];
    const res = await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${editorId}`)).send({ role: 'owner' });
    expect(res.status).to.equal(200);
    expect(res.body.data.member).to.deep.include({ userId: editorId, role: 'owner', canRead: true, canSend: true });
    expect(await memberRows(box.ctx, box.accountId)).to.deep.include({ [ownerId]: 'editor', [editorId]: 'owner' });
    const [owners] = await box.ctx.db.sequelize.query<{ account: string; contacts: string[]; emails: string[] }>(
      `SELECT (SELECT user_id::text FROM email_accounts WHERE id = $1) AS account,
              ARRAY(SELECT DISTINCT user_id::text FROM contacts WHERE email_account_id = $1) AS contacts,
              ARRAY(SELECT DISTINCT user_id::text FROM emails WHERE email_account_id = $1) AS emails`,
      { bind: [box.accountId], type: QueryTypes.SELECT },
    );
    expect(owners).to.deep.equal({ account: editorId, contacts: [editorId], emails: [editorId] });
    expect((await box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}`)).send({ isActive: true })).status).to.equal(403);
    expect((await box.editor.as(request(box.app).patch(`/api/email-accounts/${box.accountId}`)).send({ isActive: true })).status).to.equal(200);
    // The new owner's lists and the sync go on as before.
    expect((await box.editor.as(request(box.app).post(`/api/email-accounts/${box.accountId}/sync`))).status).to.equal(202);
    await box.ctx.services.mailSync.whenIdle();
    expect(await storedEmails(box.ctx, box.accountId)).to.have.length(4);
    const record = await AuditLog.findOne({ where: { action: AuditActions.emailAccountOwnerChanged, userId: editorId } });
    expect(record?.details).to.deep.include({ emailAccountId: box.accountId, previousOwnerId: ownerId, by: ownerId });
  });
});
