/**
 * Session discovery and credential checks against the real test Cyrus server
 * (TEST_JMAP_SESSION_URL, started by scripts/jmap/start.sh). Uses its own fresh mail user.
 */
import { expect } from 'chai';
import { fetchSession, JmapAuthError, JmapClient, JmapProtocolError, MAIL_CAPABILITY, validateMailCredentials } from '../../src/jmap/index.js';
import { createTestMailUser, testJmapSessionUrl } from '../support/imap.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

describe('jmap session discovery (Cyrus)', () => {
  let sessionUrl: string;
  let user: string;
  let pass: string;

  before(async () => {
    sessionUrl = testJmapSessionUrl();
    ({ user, pass } = await createTestMailUser('sess'));
  });

  it('follows /.well-known/jmap to /jmap and resolves the relative URLs against it', async () => {
    const session = await fetchSession(sessionUrl, { kind: 'basic', username: user, password: pass }, { timeoutMs: 5000 });
    const origin = new URL(sessionUrl).origin;
    expect(sessionUrl).to.match(/\/\.well-known\/jmap$/);
    expect(session.sessionUrl).to.equal(`${origin}/jmap`);
    expect(session.apiUrl).to.equal(`${origin}/jmap/`);
    expect(session.downloadUrl).to.equal(`${origin}/jmap/download/{accountId}/{blobId}/{name}?accept={type}`);
    expect(session.uploadUrl).to.equal(`${origin}/jmap/upload/{accountId}/`);
    expect(session.username).to.equal(user);
    expect(session.primaryAccounts[MAIL_CAPABILITY]).to.equal(user);
    expect(session.accounts[user]?.isPersonal).to.equal(true);
    expect(session.state).to.be.a('string');
    // Cyrus 3.6 advertises these; the batching code relies on reading them from the session
    expect(session.limits).to.include({ maxCallsInRequest: 50, maxObjectsInGet: 4096, maxObjectsInSet: 4096, maxSizeRequest: 10485760 });
  });

  it('validateMailCredentials answers the primary email account id (the full address on Cyrus)', async () => {
    expect(await validateMailCredentials(sessionUrl, user, pass, { timeoutMs: 5000 })).to.deep.equal({ accountId: user });
  });

  it('a wrong password gives JmapAuthError (401)', async () => {
    const err = await rejection(validateMailCredentials(sessionUrl, user, `${pass}-wrong`, { timeoutMs: 5000 }));
    expect(err).to.be.instanceOf(JmapAuthError);
    expect((err as JmapAuthError).status).to.equal(401);
    expect(err.message).not.to.contain(pass);
  });

  it('an unknown user gives JmapAuthError too', async () => {
    const err = await rejection(validateMailCredentials(sessionUrl, `nobody-${Date.now()}@example.test`, 'x', { timeoutMs: 5000 }));
    expect(err).to.be.instanceOf(JmapAuthError);
  });

  it('a request-level error keeps its RFC 8620 problem type', async () => {
    const client = new JmapClient({
      sessionUrl,
      credentials: { kind: 'basic', username: user, password: pass },
      extraCapabilities: ['urn:example:unsupported'],
    });
    const err = await rejection(client.call([['Mailbox/get', { accountId: user, ids: [] }, 'm']]));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect((err as JmapProtocolError).status).to.equal(400);
    expect((err as JmapProtocolError).problemType).to.equal('urn:ietf:params:jmap:error:unknownCapability');
  });
});
