import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { member } from '../companies/support.js';
import { lines, unzip } from '../privacy/helpers.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { binaryParser } from '../timesheets/helpers.js';
import { companyOfContact, conversationOf, count, createTask, inMinutes, mail, personOf, team, type Team } from './support.js';

/**
 * What happens to tasks when what they hang on changes: people merged, a user deleted (with and
 * without a successor), a mailbox removed, a person erased (issue 46, docs/adr/0140-tasks.md).
 */
describe('tasks: merges, leavers, removed mailboxes and erasure', function () {
  this.timeout(90_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let t: Team;
  let admin: string;

  const asAdmin = (r: request.Test) => r.set('Authorization', admin);
  const deleteUser = async (id: string, query = '') => {
    const res = await asAdmin(request(app).delete(`/api/admin/users/${id}${query}`));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };
  const linkedConversation = async (id: string) => {
    const [row] = await (
      await testContext()
    ).db.sequelize.query<{ conversation_id: string | null }>('SELECT conversation_id FROM tasks WHERE id = $1', {
      bind: [id],
      type: QueryTypes.SELECT,
    });
    return row.conversation_id;
  };

  before(async () => {
    app = await testApp();
    t = await team(app, run);
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  it('a merge moves the sources’ tasks to the merged person; the sources are 404 and the task shows the target', async () => {
    const work = `lubo@acme-${run}.sk`;
    const home = `lubo.sebo@domov-${run}.sk`;
    await mail(t.aliceBox, work, { name: 'Ľubomír Šebo' });
    await mail(t.aliceBox, home, { name: 'Ľubo' });
    const [target, source] = [(await personOf(work))!, (await personOf(home))!];
    const onSource = await createTask(t.alice, { title: 'Na zdroji', dueAt: inMinutes(60), personId: source });
    const merged = await t.alice.post(`/api/people/${target}/merge`, { sourceIds: [source] });
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
    expect((await t.alice.get(`/api/people/${source}`)).status).to.equal(404);
    const task = (await t.alice.get(`/api/tasks/${onSource.id}`)).body.data.task;
    expect(task.link).to.include({ type: 'person', id: target, visible: true });
    const timeline = await t.alice.get(`/api/people/${target}/timeline`);
    expect(timeline.body.data.items.map((i: { type: string; task?: { id: string } }) => i.task?.id)).to.include(onSource.id);
  });

  it("a deleted user's tasks: those others gave them go back, their own go, those they gave stay with the assignee", async () => {
    const leaver = await member(app);
    const colleague = await member(app);
    const given = await createTask(colleague, { title: 'Od kolegu', dueAt: inMinutes(60), assigneeId: leaver.id });
    const own = await createTask(leaver, { title: 'Vlastná', dueAt: inMinutes(60) });
    const passed = await createTask(leaver, { title: 'Kolegovi', dueAt: inMinutes(60), assigneeId: colleague.id });
    await deleteUser(leaver.id);
    const back = (await colleague.get(`/api/tasks/${given.id}`)).body.data.task;
    expect(back.assignee.id).to.equal(colleague.id);
    expect(await count('tasks WHERE id = $1', [own.id])).to.equal(0);
    const kept = (await colleague.get(`/api/tasks/${passed.id}`)).body.data.task;
    expect(kept).to.include({ title: 'Kolegovi', createdBy: null });
    expect(kept.assignee.id).to.equal(colleague.id);
  });

  it("a deletion with a successor hands the leaver's open tasks to them, own and given alike", async () => {
    const leaver = await member(app);
    const successor = await member(app);
    const giver = await member(app);
    const own = await createTask(leaver, { title: 'Rozrobená', dueAt: inMinutes(60) });
    const given = await createTask(giver, { title: 'Od kolegu', dueAt: inMinutes(60), assigneeId: leaver.id });
    const finished = await createTask(leaver, { title: 'Hotová', dueAt: inMinutes(-60) });
    await leaver.patch(`/api/tasks/${finished.id}`, { status: 'done' }).expect(200);
    await deleteUser(leaver.id, `?newOwnerId=${successor.id}`);
    const mine = (await successor.get('/api/tasks?limit=100')).body.data.items.map((x: { id: string }) => x.id);
    expect(mine).to.have.members([own.id, given.id]);
    expect(await count('tasks WHERE id = $1', [finished.id])).to.equal(0);
    expect((await giver.get(`/api/tasks/${given.id}`)).body.data.task.assignee.id).to.equal(successor.id);
  });

  it('a removed mailbox leaves its conversation’s task with its assignee, unlinked', async () => {
    const box = await member(app);
    const account = await createEmailAccount(box.fixture, { email: `box-${run}@staff-${run}.sk`, isPrimary: false });
    const thread = await mail(account, `klient@firma-${run}.sk`, { subject: 'Vlákno' });
    const conversation = await conversationOf(thread.emailId);
    const task = await createTask(box, { title: 'Odpísať', dueAt: inMinutes(60), conversationId: conversation });
    expect((await box.del(`/api/email-accounts/${account.id}`)).status).to.equal(200);
    const after = (await box.get(`/api/tasks/${task.id}`)).body.data.task;
    expect(after).to.include({ title: 'Odpísať', link: null });
    expect(await linkedConversation(task.id)).to.equal(null);
  });

  it("an erasure deletes the person's tasks and those of their own domain's company, keeps a business company's; the export lists them first", async () => {
    const ana = `ana@ana-rodina-${run}.sk`;
    const colleagueAtWork = `peter@firma-${run}.sk`;
    const anaMail = await mail(t.bobBox, ana, { name: 'Ana' });
    const work = await mail(t.bobBox, colleagueAtWork, { name: 'Peter' });
    await mail(t.bobBox, `office@firma-${run}.sk`, { name: 'Office' });
    const anaPerson = (await personOf(ana))!;
    const onPerson = await createTask(t.bob, { title: 'Ana: volať po 17:00', dueAt: inMinutes(60), personId: anaPerson });
    const onHerCompany = await createTask(t.bob, { title: 'Rodina Anina', dueAt: inMinutes(60), companyId: await companyOfContact(anaMail.contactId) });
    const onBusiness = await createTask(t.bob, { title: 'Firma', dueAt: inMinutes(60), companyId: await companyOfContact(work.contactId) });
    const petersTask = await createTask(t.bob, { title: 'Peter', dueAt: inMinutes(60), personId: (await personOf(colleagueAtWork))! });

    const exported = await asAdmin(request(app).post('/api/admin/privacy/export')).send({ email: ana }).buffer(true).parse(binaryParser);
    expect(exported.status).to.equal(200);
    const files = await unzip(exported.body as Buffer);
    const tasks = lines<{ id: string; title: string; linkedTo: string; assignee: string }>(files.get('tasks.jsonl'));
    expect(tasks.map((x) => [x.id, x.linkedTo]).sort()).to.deep.equal(
      [
        [onPerson.id, 'person'],
        [onHerCompany.id, 'company'],
      ].sort(),
    );
    expect(JSON.parse(files.get('summary.json')!)).to.include({ tasks: 2 });

    const erased = await asAdmin(request(app).post('/api/admin/privacy/erase')).send({ email: ana });
    expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
    expect(erased.body.data.erasure.tasks).to.equal(2);
    for (const gone of [onPerson, onHerCompany]) expect((await t.bob.get(`/api/tasks/${gone.id}`)).status).to.equal(404);
    for (const kept of [onBusiness, petersTask]) expect((await t.bob.get(`/api/tasks/${kept.id}`)).status).to.equal(200);
  });
});
