import { expect } from 'chai';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { createUser } from '../support/factories.js';
import { sessionFor } from '../support/auth.js';
import { auditRecords, crmUser, sendingWorld, uniqueSubject, waitForServerEmails, type CrmUser, type MailUser, type SendingWorld } from '../sending/helpers.js';

/** Email templates (issue 47): private and shared, placeholders checked when saved, rendered as text. */
describe('templates: private and shared, placeholders filled as text', function () {
  this.timeout(90_000);
  let world: SendingWorld;
  let bob: MailUser;
  let colleague: CrmUser;

  before(async () => {
    world = await sendingWorld();
    bob = world.bob;
    colleague = await crmUser();
  });

  const create = (who: CrmUser, body: Record<string, unknown>) => who.as(request(world.app).post('/api/templates')).send(body);

  /** The contact of the address in the owner's account, named `name` (created, or renamed when it exists). */
  async function contact(name: string, email = bob.user): Promise<string> {
    const res = await world.owner.as(request(world.app).post('/api/contacts')).send({ emailAccountId: world.accountId, email, name });
    if (res.status === 201) return res.body.data.contact.id as string;
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    const list = await world.owner.as(request(world.app).get('/api/contacts').query({ emailAccountId: world.accountId, search: email }));
    const id = (list.body.data.items as Array<{ id: string; email: string }>).find((c) => c.email === email.toLowerCase())!.id;
    expect((await world.owner.as(request(world.app).patch(`/api/contacts/${id}`)).send({ name })).status).to.equal(200);
    return id;
  }

  it('a private template is its author’s alone: others get 404 and do not list it', async () => {
    const { app, owner } = world;
    const made = await create(owner, { name: 'Súkromná', subject: 'Ahoj {{contact.firstName}}', text: 'Text' });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const t = made.body.data.template;
    expect(t).to.include({ name: 'Súkromná', shared: false, authorId: owner.fixture.user.id, editable: true, html: null });
    const mine = await owner.as(request(app).get('/api/templates'));
    expect(mine.body.data.items.map((x: { id: string }) => x.id)).to.include(t.id);
    const theirs = await colleague.as(request(app).get('/api/templates'));
    expect(theirs.body.data.items.map((x: { id: string }) => x.id)).not.to.include(t.id);
    for (const res of [
      await colleague.as(request(app).get(`/api/templates/${t.id}`)),
      await colleague.as(request(app).patch(`/api/templates/${t.id}`)).send({ name: 'X' }),
      await colleague.as(request(app).delete(`/api/templates/${t.id}`)),
      await colleague.as(request(app).post(`/api/templates/${t.id}/render`)).send({ contactId: t.id }),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error.message).to.equal('Šablóna neexistuje');
    }
  });

  it('a shared template everyone lists and uses; only its author or an admin changes or deletes it (others 403); all audited', async () => {
    const { app, owner, ctx } = world;
    const made = await create(owner, { name: 'Tímová', subject: 'Ponuka', text: 'Dobrý deň', shared: true });
    const id = made.body.data.template.id as string;
    const seen = await colleague.as(request(app).get(`/api/templates/${id}`));
    expect(seen.status).to.equal(200);
    expect(seen.body.data.template.editable).to.equal(false);
    const patch = await colleague.as(request(app).patch(`/api/templates/${id}`)).send({ text: 'Prepísané' });
    expect(patch.status).to.equal(403);
    expect(patch.body.error.message).to.equal('Zdieľanú šablónu môže meniť a mazať len jej autor alebo administrátor');
    expect((await colleague.as(request(app).delete(`/api/templates/${id}`))).status).to.equal(403);

    const admin = await createUser({ role: 'admin' });
    const adminSession = await sessionFor(admin);
    const byAdmin = await request(app).patch(`/api/templates/${id}`).set('Authorization', adminSession.bearer).send({ text: 'Opravené adminom' });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).to.equal(200);
    expect(byAdmin.body.data.template).to.include({ text: 'Opravené adminom', authorId: owner.fixture.user.id, editable: true });

    expect((await owner.as(request(app).patch(`/api/templates/${id}`)).send({ name: 'Tímová 2' })).body.data.template.name).to.equal('Tímová 2');
    expect((await owner.as(request(app).delete(`/api/templates/${id}`))).status).to.equal(204);
    expect((await owner.as(request(app).get(`/api/templates/${id}`))).status).to.equal(404);

    const actions = async (userId: string, action: string) => (await auditRecords(ctx, userId, action)).filter((r) => r.details.templateId === id);
    expect(await actions(owner.fixture.user.id, 'email_template.created')).to.have.length(1);
    expect((await actions(owner.fixture.user.id, 'email_template.updated'))[0].details).to.deep.include({ changed: ['name'] });
    expect((await actions(admin.user.id, 'email_template.updated'))[0].details).to.deep.include({ authorId: owner.fixture.user.id, changed: ['text'] });
    expect(await actions(owner.fixture.user.id, 'email_template.deleted')).to.have.length(1);
  });

  it('an unknown placeholder is a 400 naming it, when created and when changed', async () => {
    const bad = await create(world.owner, { name: 'Zlá', subject: 'Ahoj', text: 'Váš email {{contact.email}}' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details[0].field).to.equal('text');
    expect(bad.body.error.details[0].message).to.include('{{contact.email}}');
    const good = await create(world.owner, { name: 'Dobrá', subject: 'Ahoj', text: 'x' });
    const patch = await world.owner.as(request(world.app).patch(`/api/templates/${good.body.data.template.id}`)).send({ subject: '{{ user.email }}' });
    expect(patch.status).to.equal(400);
    expect(patch.body.error.details[0].message).to.include('{{user.email}}');
  });

  it('renders with diacritics, and a name with <script> and CR/LF stays text: escaped in HTML, never a header line', async () => {
    const { app, owner } = world;
    const made = await create(owner, {
      name: 'Pozdrav',
      subject: 'Pre {{contact.name}} ({{contact.lastName}})',
      text: 'Dobrý deň, {{contact.firstName}}!\n{{user.firstName}} {{user.lastName}}',
      html: '<p>Dobrý deň, <b>{{contact.name}}</b></p>',
    });
    const id = made.body.data.template.id as string;
    const lubo = await contact('Ľubomír Šebo');
    const r = await owner.as(request(app).post(`/api/templates/${id}/render`)).send({ contactId: lubo });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.data).to.deep.equal({ subject: 'Pre Ľubomír Šebo (Šebo)', text: 'Dobrý deň, Ľubomír!\nTest User', html: '<p>Dobrý deň, <b>Ľubomír Šebo</b></p>' });

    // Names typed through the API refuse control characters since 0.5.0 (and the sync strips them); a name
    // stored before that still may hold them, so the render must keep them out of the header: set by SQL.
    const evil = await contact('Evil', `evil-${Date.now()}@example.test`);
    await world.ctx.db.sequelize.query('UPDATE contacts SET name = $1 WHERE id = $2', { bind: ['<script>alert(1)</script>\r\nBcc: spy@evil.test', evil] });
    const e = await owner.as(request(app).post(`/api/templates/${id}/render`)).send({ contactId: evil });
    expect(e.body.data.subject).to.equal('Pre <script>alert(1)</script> Bcc: spy@evil.test (Bcc: spy@evil.test)');
    expect(e.body.data.subject).not.to.match(/[\r\n]/);
    expect(e.body.data.html).to.equal('<p>Dobrý deň, <b>&#60;script&#62;alert(1)&#60;/script&#62; \nBcc: spy@evil.test</b></p>');

    // A contact the colleague may not see: 404 (the template is the owner's anyway).
    const stranger = await colleague.as(request(app).post(`/api/templates/${id}/render`)).send({ contactId: lubo });
    expect(stranger.status).to.equal(404);
  });

  it('compose with templateId and contactId renders it on the server; what arrives at Cyrus is the rendered text', async () => {
    const { app, owner, accountId } = world;
    const marker = uniqueSubject('Šablóna');
    const made = await create(owner, { name: 'Ponuka', subject: `${marker} pre {{contact.name}}`, text: 'Dobrý deň, {{contact.firstName}}.', html: '<p>{{contact.name}}</p>' });
    const lubo = await contact(`Ľubomír Šebo ${marker.split(' ').pop()}`);
    const sent = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, contactId: lubo, templateId: made.body.data.template.id });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const subject = `${marker} pre Ľubomír Šebo ${marker.split(' ').pop()}`;
    const [delivered] = await waitForServerEmails(bob, subject);
    expect(delivered.bodyValues![delivered.textBody![0].partId!].value.trim()).to.equal('Dobrý deň, Ľubomír.');
    const noContact = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: bob.user, templateId: made.body.data.template.id });
    expect(noContact.status).to.equal(400);
    expect(noContact.body.error.details[0]).to.deep.equal({ field: 'contactId', message: 'Šablóna sa vypĺňa pre kontakt alebo osobu: uveďte contactId alebo personId' });
  });

  it('renders for a person (personId) and composes to them: the address of theirs with the newest mail is the default To', async () => {
    const { app, owner, accountId, ctx } = world;
    const marker = uniqueSubject('Osoba');
    const made = await create(owner, { name: 'Osobe', subject: `${marker} {{contact.name}}`, text: 'Dobrý deň, {{contact.firstName}}. {{company.name}}' });
    const id = made.body.data.template.id as string;
    await contact('Božena Osobná');
    const [row] = await ctx.db.sequelize.query<{ id: string }>('SELECT person_id AS id FROM person_emails WHERE email = $1', { bind: [bob.user.toLowerCase()], type: QueryTypes.SELECT });
    const rendered = await owner.as(request(app).post(`/api/templates/${id}/render`)).send({ personId: row.id });
    expect(rendered.status, JSON.stringify(rendered.body)).to.equal(200);
    expect(rendered.body.data).to.include({ subject: `${marker} Božena Osobná`, text: 'Dobrý deň, Božena. ' });
    const stranger = await colleague.as(request(app).post(`/api/templates/${id}/render`)).send({ personId: row.id });
    expect(stranger.status).to.equal(404);
    for (const body of [{}, { personId: row.id, contactId: row.id }, { personId: 'x' }]) {
      expect((await owner.as(request(app).post(`/api/templates/${id}/render`)).send(body)).status, JSON.stringify(body)).to.equal(400);
    }
    const sent = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, personId: row.id, templateId: id });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const [delivered] = await waitForServerEmails(bob, `${marker} Božena Osobná`);
    expect(delivered.bodyValues![delivered.textBody![0].partId!].value.trim()).to.equal('Dobrý deň, Božena.');
    // A person needs the mailbox to send from.
    const noAccount = await owner.as(request(app).post('/api/emails')).send({ personId: row.id, text: 'x', contactId: undefined });
    expect(noAccount.status).to.equal(400);
  });
});
