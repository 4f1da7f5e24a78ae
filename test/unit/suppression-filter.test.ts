import { expect } from 'chai';
import { AddressHasher } from '../../src/privacy/address-hash.js';
import { hashKeyOf } from '../../src/privacy/hash-keys.js';
import { SuppressionFilter } from '../../src/privacy/suppression-filter.js';
import type { SuppressionRepository, SuppressionRow } from '../../src/privacy/suppression-repository.js';
import type { MappedEmail } from '../../src/sync/email-mapper.js';

const KEY = Buffer.alloc(32, 1);
const OLD_KEY = Buffer.alloc(32, 2);
const ERASED_AT = new Date('2026-05-01T12:00:00Z');

function email(jmapId: string, participants: string[], date: Date | null): MappedEmail {
  return {
    jmapId,
    included: true,
    messageId: null,
    threadId: null,
    inReplyTo: null,
    from: null,
    to: null,
    subject: jmapId,
    body: null,
    isRead: false,
    date,
    participants,
    correspondents: participants.map((a) => ({ email: a, name: null })),
    hasAttachments: false,
    outbound: false,
    addresses: { from: [], to: [], cc: [], replyTo: [] },
  };
}

/** The suppression table in memory; `erase` adds a row as the erasure would. */
function table(rows: SuppressionRow[] = []) {
  const repo = {
    probes: 0,
    loads: 0,
    async watermark() {
      repo.probes++;
      return rows.length === 0 ? null : new Date(Math.max(...rows.map((r) => r.erased_at.getTime())));
    },
    async all() {
      repo.loads++;
      return rows;
    },
  };
  return { repo, erase: (hash: Buffer, at: Date) => rows.push({ address_hash: hash, erased_at: at }) };
}

/** No hash keys carried from another installation. */
const none = { carried: async () => [] as Buffer[] };

const included = (list: MappedEmail[]) => list.filter((m) => m.included).map((m) => m.jmapId);

describe('privacy: the sync gate (suppression-filter.ts)', () => {
  const hasher = new AddressHasher(KEY, [OLD_KEY]);

  it('leaves out mail of an erased address up to the erasure (or undated), keeps later mail and everyone else', async () => {
    const { repo, erase } = table();
    erase(hasher.hash('Jana@Example.com'), ERASED_AT);
    const gate = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: none }).forRun();
    const out = await gate.admit([
      email('before', ['jana@example.com'], new Date('2026-04-01T00:00:00Z')),
      email('at', ['bob@example.com', 'jana@example.com'], ERASED_AT),
      email('undated', ['jana@example.com'], null),
      email('after', ['jana@example.com'], new Date(ERASED_AT.getTime() + 1000)),
      email('other', ['bob@example.com'], new Date('2026-04-01T00:00:00Z')),
    ]);
    expect(included(out)).to.deep.equal(['after', 'other']);
  });

  it('matches an erasure hashed under a retired key (CRM_ENCRYPTION_OLD_KEYS)', async () => {
    const { repo, erase } = table();
    erase(new AddressHasher(OLD_KEY).hash('jana@example.com'), ERASED_AT);
    const gate = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: none }).forRun();
    expect(included(await gate.admit([email('old', ['jana@example.com'], new Date('2026-01-01'))]))).to.deep.equal([]);
    expect(
      included(
        await new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher: new AddressHasher(KEY), hashKeys: none })
          .forRun()
          .admit([email('old', ['jana@example.com'], new Date('2026-01-01'))]),
      ),
    ).to.deep.equal(['old']);
  });

  it('loads the list once per run and again only after a new erasure', async () => {
    const { repo, erase } = table();
    const gate = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: none }).forRun();
    const page = [email('m', ['jana@example.com'], new Date('2026-01-01'))];
    expect(included(await gate.admit(page))).to.deep.equal(['m']);
    expect(repo.loads).to.equal(0);
    erase(hasher.hash('jana@example.com'), ERASED_AT);
    expect(included(await gate.admit(page))).to.deep.equal([]);
    await gate.admit(page);
    expect(repo.loads).to.equal(1);
    expect(repo.probes).to.equal(3);
  });

  it('EMAIL_RETENTION_DAYS: leaves out mail older than the period, keeps undated mail', async () => {
    const { repo } = table();
    const now = () => new Date('2026-06-01T00:00:00Z');
    const gate = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: none, retentionDays: 30, now }).forRun();
    const out = await gate.admit([
      email('old', ['a@example.com'], new Date('2026-04-30T00:00:00Z')),
      email('recent', ['a@example.com'], new Date('2026-05-20T00:00:00Z')),
      email('undated', ['a@example.com'], null),
    ]);
    expect(included(out)).to.deep.equal(['recent', 'undated']);
  });

  it('matches an erasure hashed under a key carried from another installation (a restored archive, ADR 0161)', async () => {
    const elsewhere = new AddressHasher(Buffer.alloc(32, 9));
    const { repo, erase } = table();
    erase(elsewhere.hash('ana@example.com'), ERASED_AT);
    const mail = [email('hers', ['ana@example.com'], new Date('2026-04-01T00:00:00Z')), email('his', ['bob@example.com'], null)];
    const without = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: none }).forRun();
    expect(included(await without.admit(mail))).to.deep.equal(['hers', 'his']);
    const carried = { carried: async () => [hashKeyOf(Buffer.alloc(32, 9))] };
    const withKey = new SuppressionFilter({ suppressions: repo as unknown as SuppressionRepository, hasher, hashKeys: carried }).forRun();
    expect(included(await withKey.admit(mail))).to.deep.equal(['his']);
  });
});
