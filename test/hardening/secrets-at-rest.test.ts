import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createTestMailUser } from '../support/imap.js';
import { parseSetCookies } from '../support/login.js';

/**
 * After the whole life of a user (created by an admin with a temporary password, logged in, token
 * refreshed, own password set, email account linked; a second user created with mail credentials),
 * no table of the database holds any of those secrets in clear, nor trivially encoded.
 */

/** Every row of every table of the public schema, as text (pg_dump of this machine is older than the server). */
async function dumpDatabase(ctx: AppContext): Promise<Map<string, string>> {
  const tables = await ctx.db.sequelize.query<{ name: string }>(
    "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    { type: QueryTypes.SELECT },
  );
  const dump = new Map<string, string>();
  for (const { name: table } of tables) {
    const rows = await ctx.db.sequelize.query<{ row: string }>(`SELECT t::text AS row FROM "${table.replace(/"/g, '""')}" t`, { type: QueryTypes.SELECT });
    dump.set(table, rows.map((r) => r.row).join('\n'));
  }
  return dump;
}

/** The forms a careless implementation would store a secret in. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), encodeURIComponent(secret)];
}

describe('secrets at rest: no table holds a password or token in clear', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  const secrets: Record<string, string> = {};
  const mailAddresses: string[] = [];
  let username: string;

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    const admin = await sessionFor(await createUser({ role: 'admin', password: 'Secrets-Admin-Pass-2026' }));
    const [linked, attached] = [await createTestMailUser('secret'), await createTestMailUser('secret')];
    secrets['mail password (linked)'] = linked.pass;
    secrets['mail password (attached by admin)'] = attached.pass;
    mailAddresses.push(linked.user, attached.user);

    username = `secrets.${Date.now().toString(36)}`;
    const created = await request(app).post('/api/admin/users').set('Authorization', admin.bearer).send({ username });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    secrets['temporary password'] = created.body.data.temporaryPassword;

    const login = await request(app).post('/api/auth/login').send({ username, password: secrets['temporary password'], rememberMe: true });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    secrets['access token (login)'] = login.body.data.tokens.accessToken;
    secrets['refresh token (login)'] = login.body.data.tokens.refreshToken;
    const bearer = `Bearer ${login.body.data.tokens.accessToken}`;

    const refreshed = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${secrets['refresh token (login)']}`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    secrets['access token (refresh)'] = refreshed.body.data.accessToken;
    secrets['refresh token (rotated)'] = parseSetCookies(refreshed).refreshToken.value;

    secrets['user password'] = 'Moje-Vlastne-Heslo-2026';
    const set = await request(app).post('/api/auth/set-password').set('Authorization', bearer).send({ newPassword: secrets['user password'] });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);

    const link = await request(app).post('/api/auth/link-email').set('Authorization', bearer).send({ email: linked.user, emailPassword: linked.pass });
    expect(link.status, JSON.stringify(link.body)).to.equal(200);

    const withMail = await request(app)
      .post('/api/admin/users')
      .set('Authorization', admin.bearer)
      .send({ username: `${username}.mail`, email: attached.user, emailPassword: attached.pass });
    expect(withMail.status, JSON.stringify(withMail.body)).to.equal(201);
    secrets['temporary password (second user)'] = withMail.body.data.temporaryPassword;
    await ctx.services.mailSync.whenIdle();
  });

  it('the secrets are the real ones (the flow used them all)', () => {
    expect(Object.keys(secrets)).to.have.length(9);
    for (const [what, value] of Object.entries(secrets)) expect(value, what).to.be.a('string').with.length.greaterThan(8);
  });

  it('no table of the database contains any of them, in clear, base64, hex or URL-encoded', async () => {
    const dump = await dumpDatabase(ctx);
    expect([...dump.keys()]).to.include.members(['users', 'sessions', 'email_accounts', 'audit_logs']);
    // The dump really holds this user's rows (a dump that read nothing would pass the check below).
    expect(dump.get('users')).to.include(username);
    expect(dump.get('email_accounts')).to.include(mailAddresses[0]);
    const found: string[] = [];
    for (const [what, secret] of Object.entries(secrets)) {
      const forms = encodings(secret);
      // A JWT's signature alone identifies the token just as well.
      if (what.includes('token')) forms.push(secret.split('.')[2]);
      for (const [table, text] of dump) {
        for (const form of forms) if (text.includes(form)) found.push(`${what} in table ${table}`);
      }
    }
    expect(found).to.deep.equal([]);
  });

  it('the stored forms are the expected protected ones: bcrypt hashes, sealed mail passwords, hashed token ids', async () => {
    const [user] = await ctx.db.sequelize.query<{ password: string; temp_password: string | null }>(
      "SELECT password, temp_password FROM users WHERE username LIKE 'secrets.%' AND username NOT LIKE '%.mail' ORDER BY created_at DESC LIMIT 1",
      { type: QueryTypes.SELECT },
    );
    expect(user.password).to.match(/^\$2[aby]\$\d{2}\$/);
    expect(user.temp_password).to.equal(null);
    const accounts = await ctx.db.sequelize.query<{ email_password: string }>('SELECT email_password FROM email_accounts WHERE email = ANY($1)', {
      bind: [mailAddresses],
      type: QueryTypes.SELECT,
    });
    expect(accounts).to.have.length(2);
    for (const a of accounts) expect(a.email_password).to.match(/^v2:[0-9a-f]{8}:[\w-]+:[\w-]+:[\w-]+$/);
    const [session] = await ctx.db.sequelize.query<{ current_jti_hash: string }>(
      "SELECT s.current_jti_hash FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username LIKE 'secrets.%' ORDER BY s.created_at DESC LIMIT 1",
      { type: QueryTypes.SELECT },
    );
    expect(session.current_jti_hash).to.match(/^[\w-]{43}$/);
  });
});
