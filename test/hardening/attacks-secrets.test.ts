import crypto from 'node:crypto';
import { expect } from 'chai';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { EmailAccount } from '../../src/models/index.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { runCli } from '../support/cli.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';

/** The sealed format the service wrote before issue 13 (no additional data), made here by hand. */
function legacySeal(key: Buffer, plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const keyId = crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
  return ['v1', keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
}

/**
 * Issue 13 (outside attack): a mail password's ciphertext was not bound to its row, and the GCM tag
 * length was not pinned. Someone who can write one row (their own account, a restored dump, an SQL
 * injection elsewhere) copied another account's email, ciphertext and JMAP id into it, and the CRM
 * signed in to the victim's mailbox and filled the attacker's CRM with the victim's mail.
 */
describe('attack: mail-password ciphertext moved to another row', function () {
  this.timeout(60_000);

  it("a ciphertext copied to another account row does not decrypt: the copy cannot sync the victim's mailbox", async () => {
    const ctx = await testContext();
    const victim = await createUser();
    const attacker = await createUser();
    const victimAccount = await ctx.services.emailAccounts.add(victim.user.id, { email: 'alice@example.test', emailPassword: 'alicepw' }, { actor: 'test' });
    const attackerAccount = await ctx.services.emailAccounts.add(attacker.user.id, { email: 'carol@example.test', emailPassword: 'carolpw' }, { actor: 'test' });
    await ctx.services.mailSync.whenIdle();
    const stolen = await EmailAccount.findByPk(victimAccount.id);
    await EmailAccount.update({ email: stolen!.email, emailPassword: stolen!.emailPassword, jmapAccountId: stolen!.jmapAccountId }, { where: { id: attackerAccount.id } });
    const moved = (await EmailAccount.findByPk(attackerAccount.id))!;
    expect(() => ctx.services.emailAccounts.credentialsOf(moved)).to.throw();
    const run = await ctx.services.mailSync.syncAccount(attackerAccount.id);
    expect(run.outcome).to.not.equal('ok');
    expect(run.stored).to.equal(0);
    // The victim's own row still works.
    expect(ctx.services.emailAccounts.credentialsOf(stolen!).password).to.equal('alicepw');
  });

  it('a tag cut short is refused (GCM would otherwise accept a 4-byte tag: 2^32 tries to forge)', () => {
    const box = new SecretBox(crypto.randomBytes(32));
    const sealed = box.encrypt('mail-password', 'email_account:1');
    const parts = sealed.split(':');
    parts[3] = Buffer.from(parts[3], 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.decrypt(parts.join(':'), 'email_account:1')).to.throw();
    expect(box.decrypt(sealed, 'email_account:1')).to.equal('mail-password');
  });

  it('rows sealed the old way are re-sealed, bound to their row, when crm-admin or serve starts', async () => {
    const ctx = await testContext();
    const owner = await createUser();
    const account = await ctx.services.emailAccounts.add(owner.user.id, { email: 'bob@example.test', emailPassword: 'bobpw' }, { actor: 'test' });
    await ctx.services.mailSync.whenIdle();
    const legacy = legacySeal(ctx.config.secrets.encryptionKey, 'bobpw');
    await EmailAccount.update({ emailPassword: legacy }, { where: { id: account.id } });

    // The real process: the re-seal is part of a command's start, which a command run in the test
    // process on its shared database skips (test/support/cli-in-process.ts).
    const res = await runCli(['email-accounts', 'list', '--json'], cliEnv());
    expect(res.status, res.stderr).to.equal(0);
    const resealed = (await EmailAccount.findByPk(account.id))!;
    expect(resealed.emailPassword).to.match(/^v2:/);
    expect(ctx.services.emailAccounts.credentialsOf(resealed).password).to.equal('bobpw');
    // The old format is no longer opened outside the re-seal step.
    expect(() => ctx.services.emailAccounts.credentialsOf(Object.assign(resealed, { emailPassword: legacy }))).to.throw();
  });
});
