import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { member } from '../companies/support.js';
import { companyOfContact, conversationOf, count, createTask, inMinutes, mail, personOf, tasksOf, team, type Team } from './support.js';

const ASSIGNEE_REFUSED = 'Úlohu možno prideliť len aktívnemu používateľovi, ktorý vidí prepojený záznam';

/** /api/tasks over two personal mailboxes and a team mailbox (issue 46): who sees, changes and gets a task. */
describe('tasks', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  const ACME = `acme-${run}.sk`;
  const LUBO = `lubo@${ACME}`;
  let app: Express;
  let t: Team;
  let lubo: string;
  let conversation: string;
  let company: string;

  before(async () => {
    app = await testApp();
    t = await team(app, run);
    // Ľubomír writes to alice, bob and the team mailbox: one person all of them see.
    await mail(t.aliceBox, LUBO, { name: 'Ľubomír Šebo' });
    await mail(t.bobBox, LUBO, { name: 'L. Šebo' });
    const inTeam = await mail(t.teamBox, LUBO, { name: 'Ľubo Šebo', subject: `Objednávka ${run}` });
    lubo = (await personOf(LUBO))!;
    conversation = await conversationOf(inTeam.emailId);
    company = await companyOfContact(inTeam.contactId);
  });

  it('creates a task for the caller by default, lists it under assignee=me, audited without its title', async () => {
    const task = await createTask(t.alice, { title: 'Zavolať Ľubomírovi', dueAt: '2030-03-01T09:00:00+01:00', personId: lubo });
    expect(task).to.include({ title: 'Zavolať Ľubomírovi', dueAt: '2030-03-01T08:00:00.000Z', status: 'open', completedAt: null, notifiedAt: null, mayEdit: true });
    expect(task.assignee).to.include({ id: t.alice.id, disabled: false });
    expect(task.createdBy!.id).to.equal(t.alice.id);
    expect(task.link).to.deep.equal({ type: 'person', id: lubo, visible: true, name: 'Ľubomír Šebo', emailAccountId: null });
    expect((await tasksOf(t.alice)).map((x) => x.id)).to.include(task.id);
    expect((await t.alice.get(`/api/tasks/${task.id}`)).body.data.task).to.deep.include({ id: task.id, title: 'Zavolať Ľubomírovi' });
    const audit = await AuditLog.findOne({ where: { action: AuditActions.taskCreated, userId: t.alice.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ taskId: task.id, assigneeId: t.alice.id, linkType: 'person', linkId: lubo });
    expect(JSON.stringify(audit?.details)).to.not.include('Zavolať');
  });

  it('gives a task to a colleague who sees the record: they list it, the link shows as they see it, and they get task.assigned', async () => {
    const task = await createTask(t.alice, { title: 'Poslať ponuku', dueAt: inMinutes(60), personId: lubo, assigneeId: t.bob.id });
    const bobs = (await tasksOf(t.bob)).find((x) => x.id === task.id)!;
    expect(bobs.link).to.include({ visible: true, name: 'L. Šebo' });
    expect(bobs.assignee.id).to.equal(t.bob.id);
    expect(await count("events WHERE type = 'task.assigned' AND user_id = $1 AND payload->>'taskId' = $2", [t.bob.id, task.id])).to.equal(1);
    // Not in alice's own list (assigned to bob), but in every task she sees.
    expect((await tasksOf(t.alice)).map((x) => x.id)).to.not.include(task.id);
    expect((await tasksOf(t.alice, '&assignee=any')).map((x) => x.id)).to.include(task.id);
    expect((await tasksOf(t.alice, `&assignee=${t.bob.id}`)).map((x) => x.id)).to.include(task.id);
  });

  it('refuses an assignee who cannot see the record, a disabled or unknown one (400, nothing stored), and a record the caller does not see (404)', async () => {
    let before = await count('tasks WHERE created_by = $1', [t.carol.id]);
    // The editor without canRead reads no mail of the team mailbox: the conversation is not theirs to see.
    for (const assigneeId of [t.noRead.id, t.alice.id, randomUUID()]) {
      const res = await t.carol.post('/api/tasks', { title: 'Odpovedať', dueAt: inMinutes(30), conversationId: conversation, assigneeId });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.message).to.equal(ASSIGNEE_REFUSED);
    }
    // A reader of the team mailbox who was disabled.
    const leaver = await member(app);
    expect((await t.carol.post(`/api/email-accounts/${t.teamBox.id}/share`, { userId: leaver.id, role: 'viewer', canRead: true })).status).to.equal(201);
    before += 1;
    const kept = await createTask(t.carol, { title: 'Ešte môže', dueAt: inMinutes(30), conversationId: conversation, assigneeId: leaver.id });
    await (await testContext()).services.userLifecycle.disable(leaver.id, { actor: 'test' });
    const disabled = await t.carol.post('/api/tasks', { title: 'Odpovedať', dueAt: inMinutes(30), conversationId: conversation, assigneeId: leaver.id });
    expect(disabled.status).to.equal(400);
    expect(disabled.body.error.message).to.equal(ASSIGNEE_REFUSED);
    // A task they already had stays theirs, marked so that someone gives it to another.
    expect((await t.carol.get(`/api/tasks/${kept.id}`)).body.data.task.assignee).to.include({ id: leaver.id, disabled: true });
    expect(await count('tasks WHERE created_by = $1', [t.carol.id])).to.equal(before);
    // The outsider does not see the person, the company or the conversation: their own 404.
    const outsider = [
      [{ personId: lubo }, 'Osoba neexistuje'],
      [{ companyId: company }, 'Firma neexistuje'],
      [{ conversationId: conversation }, 'Konverzácia neexistuje'],
      [{ personId: randomUUID() }, 'Osoba neexistuje'],
    ] as const;
    for (const [link, message] of outsider) {
      const res = await t.outsider.post('/api/tasks', { title: 'Cudzie', dueAt: inMinutes(30), ...link });
      expect(res.status, JSON.stringify(link)).to.equal(404);
      expect(res.body.error.message).to.equal(message);
    }
    expect(await count('tasks WHERE created_by = $1', [t.outsider.id])).to.equal(0);
  });

  it('shows a conversation task to every reader of the mailbox; owner and editor change it, a viewer gets 403, others 404', async () => {
    const task = await createTask(t.editor, { title: 'Vybaviť objednávku', dueAt: inMinutes(120), conversationId: conversation, assigneeId: t.carol.id });
    expect(task.link).to.deep.equal({ type: 'conversation', id: conversation, visible: true, name: `Objednávka ${run}`, emailAccountId: t.teamBox.id });
    const viewers = await t.viewer.get(`/api/tasks/${task.id}`);
    expect(viewers.status).to.equal(200);
    expect(viewers.body.data.task.mayEdit).to.equal(false);
    expect((await tasksOf(t.viewer, '&assignee=any')).map((x) => x.id)).to.include(task.id);
    const refused = await t.viewer.patch(`/api/tasks/${task.id}`, { status: 'done' });
    expect(refused.status).to.equal(403);
    expect((await t.viewer.del(`/api/tasks/${task.id}`)).status).to.equal(403);
    for (const who of [t.noRead, t.outsider, t.alice]) {
      expect((await who.get(`/api/tasks/${task.id}`)).status).to.equal(404);
      expect((await who.patch(`/api/tasks/${task.id}`, { status: 'done' })).status).to.equal(404);
      expect((await who.del(`/api/tasks/${task.id}`)).status).to.equal(404);
      expect((await tasksOf(who, '&assignee=any')).map((x) => x.id)).to.not.include(task.id);
    }
    // The owner (triage right) closes it; the editor (its creator) reopens it.
    expect((await t.carol.patch(`/api/tasks/${task.id}`, { status: 'done' })).body.data.task.status).to.equal('done');
    expect((await t.editor.patch(`/api/tasks/${task.id}`, { status: 'open' })).body.data.task).to.include({ status: 'open', completedAt: null });
  });

  it("keeps someone else's private task out of reach (404 for GET, PATCH, DELETE), admins included", async () => {
    const task = await createTask(t.bob, { title: 'Súkromná', dueAt: inMinutes(10) });
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const asAdmin = (r: request.Test) => r.set('Authorization', admin.bearer);
    expect((await asAdmin(request(app).get(`/api/tasks/${task.id}`))).status).to.equal(404);
    expect((await asAdmin(request(app).delete(`/api/tasks/${task.id}`))).status).to.equal(404);
    for (const who of [t.alice, t.carol, t.outsider]) {
      expect((await who.get(`/api/tasks/${task.id}`)).status).to.equal(404);
      expect((await who.patch(`/api/tasks/${task.id}`, { title: 'prepísané' })).status).to.equal(404);
      expect((await who.del(`/api/tasks/${task.id}`)).status).to.equal(404);
    }
    expect((await t.bob.get(`/api/tasks/${task.id}`)).body.data.task.title).to.equal('Súkromná');
  });

  it('changes title, due time, status and assignee: done sets completedAt, a new dueAt clears notifiedAt, audited by field names', async () => {
    const task = await createTask(t.alice, { title: 'Pôvodná', dueAt: inMinutes(-5), personId: lubo });
    const ctx = await testContext();
    await ctx.services.taskDue.run();
    expect((await t.alice.get(`/api/tasks/${task.id}`)).body.data.task.notifiedAt).to.be.a('string');
    const later = inMinutes(90);
    const changed = await t.alice.patch(`/api/tasks/${task.id}`, { title: 'Nová', dueAt: later, status: 'done' });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.data.task).to.include({ title: 'Nová', dueAt: later, status: 'done', notifiedAt: null });
    expect(changed.body.data.task.completedAt).to.be.a('string');
    const audit = await AuditLog.findOne({ where: { action: AuditActions.taskUpdated, userId: t.alice.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ taskId: task.id, fields: ['title', 'dueAt', 'status'], status: 'done' });
    // Given to bob (who sees the person): the answer is the task as it stands, though it is no longer alice's to list.
    const given = await t.alice.patch(`/api/tasks/${task.id}`, { assigneeId: t.bob.id });
    expect(given.body.data.task.assignee.id).to.equal(t.bob.id);
    expect((await tasksOf(t.bob, '&status=done')).map((x) => x.id)).to.include(task.id);
    // The viewer does not see the person through alice's mailbox... but through the team mailbox they do; the editor without canRead does not.
    const refused = await t.bob.patch(`/api/tasks/${task.id}`, { assigneeId: t.noRead.id });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.message).to.equal(ASSIGNEE_REFUSED);
  });

  it('deletes a task (204, then 404), audited', async () => {
    const task = await createTask(t.bob, { title: 'Zmazať', dueAt: inMinutes(10), companyId: company });
    expect(task.link).to.include({ type: 'company', id: company, visible: true, name: ACME });
    expect((await t.bob.del(`/api/tasks/${task.id}`)).status).to.equal(204);
    expect((await t.bob.get(`/api/tasks/${task.id}`)).status).to.equal(404);
    expect((await t.bob.del(`/api/tasks/${task.id}`)).status).to.equal(404);
    expect(await AuditLog.count({ where: { action: AuditActions.taskDeleted, userId: t.bob.id } })).to.be.at.least(1);
  });

  it('lists by status and in due order, paged with a total', async () => {
    const who = t.viewer;
    const ids = [];
    for (const minutes of [300, 100, 200]) ids.push((await createTask(who, { title: `Poradie ${minutes}`, dueAt: inMinutes(minutes) })).id);
    await who.patch(`/api/tasks/${ids[2]}`, { status: 'done' }).expect(200);
    expect((await tasksOf(who)).map((x) => x.id)).to.deep.equal([ids[1], ids[0]]);
    expect((await tasksOf(who, '&status=done')).map((x) => x.id)).to.deep.equal([ids[2]]);
    expect((await tasksOf(who, '&status=all')).map((x) => x.id)).to.deep.equal([ids[1], ids[2], ids[0]]);
    const page = await who.get('/api/tasks?status=all&limit=1&page=2');
    expect(page.body.data.items.map((x: { id: string }) => x.id)).to.deep.equal([ids[2]]);
    expect(page.body.data.pagination).to.include({ page: 2, limit: 1, total: 3, hasNext: true });
    // Another user's id: only the tasks of theirs the caller sees (none).
    expect(await tasksOf(who, `&assignee=${t.bob.id}`)).to.deep.equal([]);
  });

  it('answers bad input with the Slovak envelope and stores nothing', async () => {
    const before = await count('tasks WHERE created_by = $1', [t.alice.id]);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ dueAt: inMinutes(10) }, 'Názov úlohy musí byť text'],
      [{ title: '   ', dueAt: inMinutes(10) }, 'Názov úlohy je povinný'],
      [{ title: 'x'.repeat(501), dueAt: inMinutes(10) }, 'Názov úlohy môže mať najviac 500 znakov'],
      [{ title: 'a\u202Eb', dueAt: inMinutes(10) }, 'Názov úlohy nesmie obsahovať riadiace znaky ani znaky meniace smer textu'],
      [{ title: 'x', dueAt: '2030-01-01' }, 'dueAt musí byť dátum a čas v ISO 8601 s časovou zónou (napr. 2026-05-04T09:00:00+02:00)'],
      [{ title: 'x', dueAt: '3030-01-01T00:00:00Z' }, 'dueAt musí byť medzi rokmi 2000 a 2099'],
      [{ title: 'x', dueAt: inMinutes(10), personId: lubo, companyId: company }, 'Úloha môže byť prepojená najviac s jedným záznamom: personId, companyId alebo conversationId'],
      [{ title: 'x', dueAt: inMinutes(10), assigneeId: 'nie-uuid' }, 'assigneeId musí byť identifikátor používateľa'],
      [{ title: 'x', dueAt: inMinutes(10), owner: 'x' }, 'Neznáme pole: owner'],
      [{ title: 42, dueAt: inMinutes(10) }, 'Názov úlohy musí byť text'],
    ];
    for (const [body, message] of bad) {
      const res = await t.alice.post('/api/tasks', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(
        res.body.error.details.map((d: { message: string }) => d.message),
        JSON.stringify(body),
      ).to.include(message);
    }
    const raw = await request(app)
      .post('/api/tasks')
      .set('Authorization', (await sessionFor(t.alice.fixture)).bearer)
      .set('Content-Type', 'application/json')
      .send('{"title":');
    expect(raw.status).to.equal(400);
    expect((await t.alice.get('/api/tasks/nie-uuid')).status).to.equal(400);
    expect((await t.alice.get('/api/tasks?status=hotove')).status).to.equal(400);
    expect((await t.alice.get('/api/tasks?assignee=nikto')).status).to.equal(400);
    const task = await createTask(t.alice, { title: 'Zostane', dueAt: inMinutes(10) });
    expect((await t.alice.patch(`/api/tasks/${task.id}`, {})).status).to.equal(400);
    expect((await t.alice.patch(`/api/tasks/${task.id}`, { status: 'zrušená' })).status).to.equal(400);
    expect((await t.alice.patch(`/api/tasks/${task.id}`, { personId: lubo })).status).to.equal(400);
    expect((await t.alice.get(`/api/tasks/${task.id}`)).body.data.task).to.include({ title: 'Zostane', status: 'open' });
    expect(await count('tasks WHERE created_by = $1', [t.alice.id])).to.equal(before + 1);
    expect((await request(app).get('/api/tasks')).status).to.equal(401);
  });
});
