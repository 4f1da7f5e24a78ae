/**
 * The JMAP contract suite: every case of what the CRM's sync and sending rely on, run by two entry
 * files against two servers, so the medium tier's fake answers as the real one does:
 * - test/jmap/contract.test.ts: the test Cyrus 3.6 (scripts/jmap/start.sh), end-to-end tier;
 * - test/medium/jmap/contract.test.ts: the in-process fake (test/support/jmap-fake/), medium tier.
 * A case that passes on Cyrus and fails on the fake is a bug of the fake; one that fails on Cyrus is
 * a wrong expectation. Cases use only what both offer: mail users and IMAP-style appends
 * (test/support/imap.ts), the relay's log (test/support/relay-log.ts) and the JMAP client.
 */
import { jmapReadingContract } from './jmap-reading.js';
import { jmapWritingContract } from './jmap-writing.js';

export function jmapContract(target: 'Cyrus' | 'fake'): void {
  describe(`JMAP contract (${target}): reading, as the sync does`, jmapReadingContract);
  describe(`JMAP contract (${target}): writing, as sending does`, jmapWritingContract);
}
