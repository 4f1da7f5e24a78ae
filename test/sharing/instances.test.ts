import { expect } from 'chai';
import request from 'supertest';
import { startServe, type ServeProcess } from '../support/cli.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { baseTestEnv, testApp, testContext } from '../support/harness.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';

/**
 * Permissions are never cached per instance (only sessions are, src/auth/session-cache.ts): a share
 * removed through one instance ends the access on another at the very next request, even while that
 * instance serves the member's session from its cache. No waiting, no retries in this test.
 */
describe('sharing across instances', function () {
  this.timeout(120_000);
  let other: ServeProcess;

  before(async () => {
    // LOG_LEVEL info: startServe waits for the start line that names the URL.
    other = await startServe(['--no-sync'], { ...baseTestEnv(), LOG_LEVEL: 'info' });
  });

  after(async () => {
    if (!other) return;
    other.child.kill('SIGTERM');
    expect(await other.exited).to.equal(0);
  });

  it('unsharing on this instance ends the access on the other one at once, with the session still cached there', async () => {
    const ctx = await testContext();
    const app = await testApp();
    const owner = await createUser({ password: 'Instances-Owner-2026', emailSetupSkipped: true });
    const member = await createUser({ password: 'Instances-Member-2026', emailSetupSkipped: true });
    const account = await createEmailAccount(owner);
    const contact = await createContact(account, { name: 'Zdieľaný klient' });
    const email = await createEmail(account, contact, { subject: 'Zdieľaná správa' });
    const [ownerSession, memberSession] = [await sessionFor(owner), await sessionFor(member)];
    const shared = await request(app).post(`/api/email-accounts/${account.id}/share`).set('Authorization', ownerSession.bearer).send({ userId: member.user.id, role: 'editor' });
    expect(shared.status).to.equal(201);

    const onOther = (path: string) => fetch(`${other.url}${path}`, { headers: { Authorization: memberSession.bearer } });
    // A third instance in this process (its own services and session cache), whose cache can be looked at.
    const thirdCtx = await testContext({ JMAP_TIMEOUT_MS: '4999' });
    const third = await testApp({ JMAP_TIMEOUT_MS: '4999' });
    const onThird = (path: string) => request(third).get(path).set('Authorization', memberSession.bearer);
    const paths = [`/api/contacts/${contact.id}`, `/api/emails/${email.id}`, `/api/email-accounts/${account.id}/users`, `/api/emails?emailAccountId=${account.id}`];
    // Several requests: both instances have the member's session in their caches by now.
    for (let i = 0; i < 3; i++) {
      for (const path of paths) {
        expect((await onOther(path)).status, path).to.equal(200);
        expect((await onThird(path)).status, path).to.equal(200);
      }
    }
    expect(thirdCtx.services.sessions.cacheStats()).to.deep.include({ listening: true });
    expect(thirdCtx.services.sessions.cacheStats().entries).to.be.greaterThan(0);

    const removed = await request(app).delete(`/api/email-accounts/${account.id}/share/${member.user.id}`).set('Authorization', ownerSession.bearer);
    expect(removed.status).to.equal(200);
    for (const path of paths) {
      expect((await onOther(path)).status, path).to.equal(404);
      expect((await onThird(path)).status, path).to.equal(404);
    }
    // The session itself is untouched: the member is still signed in there.
    expect((await onOther('/api/auth/me')).status).to.equal(200);
    const listed = (await (await onOther('/api/email-accounts')).json()) as { data: { items: Array<{ id: string }> } };
    expect(listed.data.items.map((a) => a.id)).to.not.include(account.id);

    // And back: a new share applies there at once too.
    await ctx.services.emailAccountSharing.share({ kind: 'admin' }, account.id, { userId: member.user.id, role: 'viewer', canRead: true, canSend: false }, { actor: 'test' });
    expect((await onOther(`/api/emails/${email.id}`)).status).to.equal(200);
    const patched = await fetch(`${other.url}/api/contacts/${contact.id}`, {
      method: 'PATCH',
      headers: { Authorization: memberSession.bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ notes: 'viewer' }),
    });
    expect(patched.status).to.equal(403);
  });
});
