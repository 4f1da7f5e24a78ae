import { expect } from 'chai';
import { cli, cliJson, freshDatabase } from '../admin/cli-helpers.js';

/**
 * "The last active admin" is a property of a whole database (the shared one always holds other
 * tests' admins), so this runs on a database of its own, through crm-admin.
 */
describe('the last active admin cannot be disabled (crm-admin)', function () {
  this.timeout(180_000);
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;

  before(async () => {
    ({ env, drop } = await freshDatabase('crm_last_active_admin'));
  });

  after(async () => {
    await drop?.();
  });

  it('refuses to disable the only admin (exit 1, 409 conflict in --json), and changes nothing', async () => {
    await cliJson(['users', 'create', '--username', 'solo', '--role', 'admin'], undefined, env);
    const res = await cli(['users', 'disable', 'solo', '--yes', '--json'], undefined, env);
    expect(res.status).to.equal(1);
    const error = JSON.parse(res.stderr.trim()) as { error: { code: string; statusCode: number; message: string } };
    expect(error.error).to.include({ statusCode: 409, message: 'Posledného aktívneho administrátora nemožno zablokovať' });
    const [solo] = (await cliJson(['users', 'list', '--role', 'admin'], undefined, env)).items;
    expect(solo.disabledAt).to.equal(null);
  });

  it('a disabled admin does not count: the only active one can be neither disabled, demoted nor deleted', async () => {
    await cliJson(['users', 'create', '--username', 'other', '--role', 'admin'], undefined, env);
    const disabled = await cliJson(['users', 'disable', 'other', '--yes'], undefined, env);
    expect(disabled.changed).to.equal(true);
    expect(disabled.user.disabledAt).to.be.a('string');
    for (const args of [
      ['users', 'disable', 'solo', '--yes'],
      ['users', 'set-role', 'solo', 'member', '--yes'],
      ['users', 'delete', 'solo', '--yes'],
    ]) {
      const res = await cli(args, undefined, env);
      expect(res.status, `${args.join(' ')}\n${res.stderr}`).to.equal(1);
      expect(res.stderr).to.match(/administrátora/);
    }
    // Enabled again, the other admin counts: now solo may be disabled.
    await cliJson(['users', 'enable', 'other'], undefined, env);
    expect((await cliJson(['users', 'disable', 'solo', '--yes'], undefined, env)).changed).to.equal(true);
    const admins = (await cliJson(['users', 'list', '--role', 'admin'], undefined, env)).items as Array<{ username: string; disabledAt: string | null }>;
    expect(admins.map((u) => [u.username, u.disabledAt === null])).to.deep.equal([
      ['other', true],
      ['solo', false],
    ]);
  });
});
