/**
 * Issue 26 (Info): an administrator can share anyone's mailbox with themselves, canSend included.
 * That stays possible (admins manage shares), but it is no longer anonymous: the audit record and
 * the membership row name the administrator (details.by, byAdmin; created_by), where they were null.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { sendingWorld } from '../sending/helpers.js';

describe('attacks: an administrator granting themselves a mailbox (issue 26)', function () {
  this.timeout(60_000);

  it('the share names the administrator in the audit record and the membership row', async () => {
    const { app, ctx, accountId } = await sendingWorld();
    const admin = await createUser({ role: 'admin', password: 'Admin-Heslo-2026' });
    const session = await sessionFor(admin);
    const res = await request(app)
      .post(`/api/admin/email-accounts/${accountId}/share`)
      .set('Authorization', session.bearer)
      .send({ userId: admin.user.id, role: 'editor', canRead: true, canSend: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);

    const [record] = await ctx.db.sequelize.query<{ details: Record<string, unknown> }>(
      "SELECT details FROM audit_logs WHERE action = 'email_account.share_created' AND user_id = $1 AND details->>'emailAccountId' = $2",
      { bind: [admin.user.id, accountId], type: QueryTypes.SELECT },
    );
    expect(record?.details).to.include({ by: admin.user.id, byAdmin: true, canSend: true });
    const [row] = await ctx.db.sequelize.query<{ created_by: string | null }>('SELECT created_by FROM email_account_members WHERE email_account_id = $1 AND user_id = $2', {
      bind: [accountId, admin.user.id],
      type: QueryTypes.SELECT,
    });
    expect(row?.created_by).to.equal(admin.user.id);
  });
});
