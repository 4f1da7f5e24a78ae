/**
 * The mail server's own ceiling for scheduled sends (issue 47), without the CRM: the same two JMAP
 * requests a scheduled send makes after its setup (createDraft: Email/set into Drafts; submitDraft:
 * EmailSubmission/set moving it to Sent, and the read-back Email/get), from warm clients straight to
 * the test Cyrus, `concurrency` in flight, the emails spread over `mailboxes` sending mailboxes in
 * turn (CEILING_SETUP_EACH=1: the send setup, Mailbox/get and Identity/get, asked for each email). Prints sends a second and the time 1,000 would take: what no scheduler in front of this Cyrus
 * on this machine can beat. Each delivery is counted at the relay as well (none twice, none missing).
 *
 *   node --import=tsx/esm bench/cyrus-send-ceiling.ts [emails=300] [mailboxes=1] [concurrency=20]
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDraft, JmapClient, prepareSend, submitDraft } from '../src/jmap/index.js';
import { EMAIL_GET_ARGS } from '../src/sync/jmap-sync-calls.js';
import { createTestMailUser } from '../test/support/imap.js';
import { relayDeliveries } from '../test/support/relay-log.js';

const [emails = 300, mailboxes = 1, concurrency = 20] = process.argv.slice(2).map(Number);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('bash', [path.join(repo, 'scripts/jmap/start.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
// Started just above: the test helpers that make mail users must not look for a test run's lease.
process.env.CRM_TEST_EXTERNAL_JMAP = '1';
const sessionUrl = process.env.TEST_JMAP_SESSION_URL ?? `http://127.0.0.1:${process.env.JMAP_HTTP_PORT ?? 18080}/.well-known/jmap`;

const bob = await createTestMailUser('ceiling-bob');
const senders = await Promise.all(
  Array.from({ length: mailboxes }, async (_, i) => {
    const user = await createTestMailUser(`ceiling-a${i}`);
    const client = new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: user.user, password: user.pass } });
    const accountId = await client.mailAccountId();
    return { user, client, accountId, setup: await prepareSend(client, accountId, user.user) };
  }),
);
const tag = crypto.randomBytes(4).toString('hex');
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < emails; i = next++) {
      const s = senders[i % senders.length];
      const draft = {
        from: [{ email: s.user.user }],
        to: [{ email: bob.user }],
        subject: `C${tag} ${i}`,
        messageId: [`${crypto.randomUUID()}@example.test`],
        bodyValues: { text: { value: 'bench' } },
        textBody: [{ partId: 'text', type: 'text/plain' }],
      };
      // CEILING_SETUP_EACH=1: the setup asked again for each email, as the scheduler does today.
      const setup = process.env.CEILING_SETUP_EACH === '1' ? await prepareSend(s.client, s.accountId, s.user.user) : s.setup;
      const created = await createDraft(s.client, s.accountId, setup, draft);
      if (!created.ok) throw new Error(`draft refused: ${JSON.stringify(created)}`);
      const sent = await submitDraft(s.client, s.accountId, setup, { emailId: created.emailId, envelope: { mailFrom: s.user.user, rcptTo: [bob.user] } }, EMAIL_GET_ARGS);
      if (!sent.ok) throw new Error(`submission refused: ${JSON.stringify(sent)}`);
    }
  }),
);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
// The relay's count of this run's subjects, once the last delivery had time to arrive.
await new Promise((r) => setTimeout(r, 5_000));
const counts = Array.from({ length: emails }, (_, i) => relayDeliveries(`C${tag} ${i}`).length);
const delivered = { twice: counts.filter((n) => n > 1).length, missing: counts.filter((n) => n === 0).length };
console.log(
  JSON.stringify({
    emails,
    mailboxes,
    concurrency,
    seconds: Number(seconds.toFixed(1)),
    sendsPerSecond: Number((emails / seconds).toFixed(2)),
    secondsFor1000: Math.round((1000 / emails) * seconds),
    relay: delivered,
  }),
);
