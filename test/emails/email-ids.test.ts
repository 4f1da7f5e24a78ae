/**
 * Emails and their attachment rows get time-ordered ids (UUID version 7, migration 0015), so the
 * sync's bulk inserts append to the ends of their keys instead of scattering over them. Checked on
 * the database in use (PostgreSQL 18: uuidv7()) and for the expression older servers get instead.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { PORTABLE_UUID_V7 } from '../../migrations/0015-time-ordered-email-ids.js';
import type { AppContext } from '../../src/app/context.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';

const VERSION_7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix time in milliseconds a version-7 id carries in its first 48 bits. */
const millisOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('emails: time-ordered ids', function () {
  let ctx: AppContext;

  before(async () => {
    ctx = await testContext();
  });

  it('gives new emails and attachment rows version-7 ids that follow the order and time of their inserts', async () => {
    const user = await createUser();
    const account = await createEmailAccount(user.user);
    const contact = await createContact(account);
    const before = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createEmail(account, contact)).id);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const after = Date.now();
    for (const id of ids) {
      expect(id).to.match(VERSION_7);
      expect(millisOf(id)).to.be.within(before - 1000, after + 1000);
    }
    expect([...ids].sort()).to.deep.equal(ids);

    const [attachment] = await ctx.db.sequelize.query<{ id: string }>(
      `INSERT INTO email_attachments (email_id, position, blob_id, type, size) VALUES ($1, 0, 'B1', 'text/plain', 1) RETURNING id`,
      { bind: [ids[0]], type: QueryTypes.SELECT },
    );
    expect(attachment.id).to.match(VERSION_7);
  });

  it('builds the same layout where the server has no uuidv7() (PostgreSQL 13-17)', async () => {
    const before = Date.now();
    const rows = await ctx.db.sequelize.query<{ id: string }>(`SELECT (${PORTABLE_UUID_V7})::text AS id FROM generate_series(1, 2000)`, { type: QueryTypes.SELECT });
    const after = Date.now();
    const ids = rows.map((r) => r.id);
    expect(new Set(ids).size).to.equal(2000);
    for (const id of ids) {
      expect(id).to.match(VERSION_7);
      expect(millisOf(id)).to.be.within(before - 1000, after + 1000);
    }
    // Rows made later never carry an earlier time.
    const times = ids.map(millisOf);
    expect(times.every((t, i) => i === 0 || t >= times[i - 1])).to.equal(true);
  });
});
