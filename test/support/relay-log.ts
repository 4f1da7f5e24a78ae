import fs from 'node:fs';
import path from 'node:path';
import { activeFake } from './mail-server.js';

export interface RelayDelivery {
  from: string;
  to: string[];
  messageId: string | null;
  subject: string | null;
}

/**
 * The messages the test SMTP relay (scripts/jmap/smtp-relay.mjs; in the medium tier, the JMAP fake) handed on with this Subject,
 * one entry per SMTP transaction. A mailbox cannot count submissions: Cyrus keeps one copy of a
 * Message-ID per mailbox, so a message submitted twice shows once there. The relay writes its line
 * before it answers the submission, so a message the CRM has sent is already listed here.
 */
export function relayDeliveries(subject: string): RelayDelivery[] {
  // The medium tier's fake logs its deliveries the same way (test/support/jmap-fake/server.ts).
  const fake = activeFake();
  if (fake) return fake.deliveries.filter((delivery) => delivery.subject === subject);
  const log = path.join(process.env.JMAP_BASE ?? '/tmp/crm-test-jmap', 'log/smtp-relay.log');
  if (!fs.existsSync(log)) throw new Error(`the SMTP relay's log ${log} does not exist: is the test mail server's relay running?`);
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => / delivered (\{.*\})$/.exec(line)?.[1])
    .filter((json): json is string => json !== undefined)
    .map((json) => JSON.parse(json) as RelayDelivery)
    .filter((delivery) => delivery.subject === subject);
}
