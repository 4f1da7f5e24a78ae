import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { until } from '../support/poll.js';
import {
  crmUser,
  freshMailUser,
  linkViaApi,
  randomFile,
  sendingWorld,
  serverBlob,
  uniqueSubject,
  waitForServerEmails,
  type CrmUser,
  type SendingWorld,
} from '../sending/helpers.js';

interface DraftFile {
  id: string;
  name: string;
  type: string;
  size: number;
}

/** A Windows program by its content (MZ header, PE signature), whatever its name says. */
const windowsProgram = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(58), Buffer.from([0x80, 0, 0, 0]), Buffer.alloc(64), Buffer.from('PE\0\0'), randomFile(4_000)]);
const pdf = (text: string) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(text), randomFile(6_000)]);

/**
 * Files of server drafts (issue 47): added by multipart POST/PATCH with the checks of a send's files,
 * listed on the draft, taken off one by one, and sent with it (now, or later with sendAt), over HTTP
 * against Cyrus and the test relay.
 */
describe('drafts: attachments added by multipart, sent with the draft', function () {
  this.timeout(120_000);
  let world: SendingWorld;
  let app: Express;
  let ctx: AppContext;
  let owner: CrmUser;

  before(async () => {
    world = await sendingWorld();
    ({ app, ctx, owner } = world);
  });

  /** A draft made by a form: text fields first, then the files. */
  const formDraft = (who: CrmUser, fields: Record<string, string>, files: Array<{ name: string; bytes: Buffer; type?: string }>) => {
    let req = who.as(request(app).post('/api/drafts'));
    for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
    for (const f of files) req = req.attach('attachments', f.bytes, { filename: f.name, contentType: f.type ?? 'application/pdf' });
    return req;
  };
  const owners = async (ids: string[]) =>
    ctx.db.sequelize.query<{ id: string; draft_id: string | null; scheduled_email_id: string | null }>(
      'SELECT id, draft_id, scheduled_email_id FROM email_attachment_files WHERE id = ANY ($1::uuid[])',
      { bind: [ids], type: QueryTypes.SELECT },
    );
  /** The bytes of the arrived email's attachments, by name. */
  const arrivedFiles = async (subject: string) => {
    const [arrived] = await waitForServerEmails(world.bob, subject);
    const files = new Map<string, Buffer>();
    for (const a of arrived.attachments ?? []) files.set(a.name!, await serverBlob(world.bob, a.blobId!));
    return files;
  };

  it('keeps the files of a form, lists them, takes one off, and sends the rest with their bytes; the sent draft lets go of them', async () => {
    const subject = uniqueSubject('Koncept s prílohou');
    const first = pdf('zmluva');
    const made = await formDraft(owner, { emailAccountId: world.accountId, to: world.bob.user, subject, text: 'V prílohe zmluva.' }, [{ name: 'zmluva.pdf', bytes: first }]);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const id = made.body.data.draft.id as string;
    expect(made.body.data.draft.attachments).to.have.length(1);
    expect(made.body.data.draft.attachments[0]).to.include({ name: 'zmluva.pdf', type: 'application/pdf', size: first.length });

    // PATCH by a form: a field and two more files; then one of them is taken off.
    const second = pdf('príloha č. 2');
    const patched = await owner
      .as(request(app).patch(`/api/drafts/${id}`))
      .field('text', 'V prílohe zmluva a cenník.')
      .attach('attachments', second, { filename: 'cenník.pdf', contentType: 'application/pdf' })
      .attach('attachments', pdf('nechcená'), { filename: 'omyl.pdf', contentType: 'application/pdf' });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.data.draft.text).to.equal('V prílohe zmluva a cenník.');
    const files = patched.body.data.draft.attachments as DraftFile[];
    expect(files.map((f) => f.name)).to.deep.equal(['zmluva.pdf', 'cenník.pdf', 'omyl.pdf']);
    const wrong = files[2];
    expect((await owner.as(request(app).delete(`/api/drafts/${id}/attachments/${wrong.id}`))).status).to.equal(204);
    const again = await owner.as(request(app).delete(`/api/drafts/${id}/attachments/${wrong.id}`));
    expect(again.status).to.equal(404);
    expect(again.body.error.message).to.equal('Príloha konceptu neexistuje');
    const listed = (await owner.as(request(app).get('/api/drafts?limit=100'))).body.data.items.find((d: { id: string }) => d.id === id);
    expect(listed.attachments.map((f: DraftFile) => f.name)).to.deep.equal(['zmluva.pdf', 'cenník.pdf']);

    const sent = await owner.as(request(app).post(`/api/drafts/${id}/send`)).send({});
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const arrived = await arrivedFiles(subject);
    expect([...arrived.keys()]).to.deep.equal(['zmluva.pdf', 'cenník.pdf']);
    expect(arrived.get('zmluva.pdf')!.equals(first)).to.equal(true);
    expect(arrived.get('cenník.pdf')!.equals(second)).to.equal(true);
    // Sent: the draft is gone and its files are nobody's (the cleanup job removes them).
    expect((await owner.as(request(app).get(`/api/drafts/${id}`))).status).to.equal(404);
    const rows = await owners(files.map((f) => f.id));
    expect(rows).to.have.length(3);
    for (const row of rows) expect(row).to.include({ draft_id: null, scheduled_email_id: null });
  });

  it('refuses an executable (by content, or by name) and changes nothing: no draft made, the draft patched stays as it was', async () => {
    const before = (await owner.as(request(app).get('/api/drafts?limit=100'))).body.data.total as number;
    const refused = await formDraft(owner, { emailAccountId: world.accountId, to: world.bob.user, subject: 'x', text: 'x' }, [
      { name: 'ok.pdf', bytes: pdf('ok') },
      { name: 'faktura.pdf', bytes: windowsProgram },
    ]);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    expect(refused.body.error.code).to.equal('attachment_not_allowed');
    expect((await owner.as(request(app).get('/api/drafts?limit=100'))).body.data.total).to.equal(before);

    const id = (await owner.as(request(app).post('/api/drafts')).send({ emailAccountId: world.accountId, text: 'Pôvodný text' })).body.data.draft.id as string;
    const patch = await owner
      .as(request(app).patch(`/api/drafts/${id}`))
      .field('text', 'Nový text')
      .attach('attachments', randomFile(100), { filename: 'setup.exe', contentType: 'application/octet-stream' });
    expect(patch.status).to.equal(400);
    expect(patch.body.error.code).to.equal('attachment_not_allowed');
    const kept = (await owner.as(request(app).get(`/api/drafts/${id}`))).body.data.draft;
    expect(kept).to.include({ text: 'Pôvodný text' });
    expect(kept.attachments).to.deep.equal([]);

    // A text field after a file: 400, nothing kept (the rule of every form).
    const late = await owner
      .as(request(app).patch(`/api/drafts/${id}`))
      .attach('attachments', pdf('a'), { filename: 'a.pdf', contentType: 'application/pdf' })
      .field('text', 'neskoro');
    expect(late.status).to.equal(400);
    expect((await owner.as(request(app).get(`/api/drafts/${id}`))).body.data.draft.attachments).to.deep.equal([]);
  });

  it("another user's draft or file is a 404, and their form keeps nothing on it", async () => {
    const mine = (await formDraft(owner, { emailAccountId: world.accountId, text: 'môj' }, [{ name: 'moja.pdf', bytes: pdf('moja') }])).body.data.draft;
    const other = await crmUser();
    const theirs = await other.as(request(app).patch(`/api/drafts/${mine.id}`)).attach('attachments', pdf('cudzia'), { filename: 'cudzia.pdf', contentType: 'application/pdf' });
    expect(theirs.status).to.equal(404);
    expect(theirs.body.error.message).to.equal('Koncept neexistuje');
    const removed = await other.as(request(app).delete(`/api/drafts/${mine.id}/attachments/${mine.attachments[0].id}`));
    expect(removed.status).to.equal(404);
    expect(removed.body.error.message).to.equal('Koncept neexistuje');
    expect((await owner.as(request(app).get(`/api/drafts/${mine.id}`))).body.data.draft.attachments.map((f: DraftFile) => f.name)).to.deep.equal(['moja.pdf']);

    // A file of another draft (even the caller's own) is not this draft's.
    const second = (await owner.as(request(app).post('/api/drafts')).send({ emailAccountId: world.accountId })).body.data.draft.id as string;
    const elsewhere = await owner.as(request(app).delete(`/api/drafts/${second}/attachments/${mine.attachments[0].id}`));
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.body.error.message).to.equal('Príloha konceptu neexistuje');
    expect((await owners([mine.attachments[0].id]))[0].draft_id).to.equal(mine.id);
    expect((await owner.as(request(app).delete(`/api/drafts/${mine.id}/attachments/not-an-id`))).status).to.equal(400);
  });

  it('a refused send keeps the draft with its files', async () => {
    const refusing = await crmUser();
    const accountId = await linkViaApi(app, ctx, refusing, await freshMailUser('refuse'));
    const made = await formDraft(refusing, { emailAccountId: accountId, to: world.bob.user, subject: 'Nepôjde', text: 'S prílohou' }, [{ name: 'a.pdf', bytes: pdf('a') }]);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const id = made.body.data.draft.id as string;
    const res = await refusing.as(request(app).post(`/api/drafts/${id}/send`)).send({});
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body.error).to.deep.include({ code: 'submission_refused', details: { draftId: id } });
    const kept = (await refusing.as(request(app).get(`/api/drafts/${id}`))).body.data.draft;
    expect(kept.attachments.map((f: DraftFile) => f.name)).to.deep.equal(['a.pdf']);
  });

  it('a draft sent with sendAt carries its files into the schedule, and they arrive when it goes', async () => {
    const subject = uniqueSubject('Koncept neskôr');
    const bytes = pdf('naplánovaná');
    const made = await formDraft(owner, { emailAccountId: world.accountId, to: world.bob.user, subject, text: 'Neskôr s prílohou.' }, [{ name: 'plan.pdf', bytes }]);
    const id = made.body.data.draft.id as string;
    const fileId = made.body.data.draft.attachments[0].id as string;
    const res = await owner.as(request(app).post(`/api/drafts/${id}/send`)).send({ sendAt: new Date(Date.now() + 1000).toISOString() });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const scheduled = res.body.data.scheduled as { id: string; attachments: DraftFile[] };
    expect(scheduled.attachments.map((f) => f.name)).to.deep.equal(['plan.pdf']);
    expect((await owners([fileId]))[0]).to.include({ draft_id: null, scheduled_email_id: scheduled.id });
    await until(
      async () => {
        await ctx.services.scheduledSends.run();
        const list = (await owner.as(request(app).get('/api/scheduled-emails?limit=100'))).body.data.items as Array<{ id: string; status: string }>;
        return list.find((s) => s.id === scheduled.id && s.status === 'sent');
      },
      { what: 'the scheduled draft sent', timeoutMs: 60_000, intervalMs: 200 },
    );
    const arrived = await arrivedFiles(subject);
    expect(arrived.get('plan.pdf')!.equals(bytes)).to.equal(true);
  });
});
