import { expect } from 'chai';
import { EmailAccount } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { createEmailAccount } from '../support/email-factories.js';
import type { RawRequest, RawResponse } from './support/http-target.js';
import { fuzzBench, type FuzzBench } from './support/setup.js';

/**
 * Defects the hardening found in auth and email accounts, fixed afterwards: each is now an ordinary
 * regression test of the behaviour that must hold.
 */
function knownDefect(title: string, where: string, test: () => Promise<void>): void {
  it(`${title} (was: ${where})`, test);
}

describe('hardening: regressions found by fuzzing auth and email accounts', function () {
  this.timeout(120_000);
  let bench: FuzzBench;

  before(async () => {
    bench = await fuzzBench();
  });
  after(() => bench?.target.close());

  const send = (r: RawRequest): Promise<RawResponse> => bench.target.send(r);

  knownDefect('a login racing the deletion of its user answers 401, not 500', 'src/auth/auth-service.ts login() -> SessionService.create: FK sessions_user_id_fkey', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 15; round++) {
      const password = 'Login-Race-Pass-2026';
      const fixture = await createUser({ password, emailSetupSkipped: true });
      const login = (i: number): RawRequest => ({
        method: 'POST',
        path: '/api/auth/login',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `10.88.${round}.${i + 1}` },
        body: JSON.stringify({ username: fixture.username, password }),
      });
      const remove: RawRequest = { method: 'DELETE', path: `/api/admin/users/${fixture.user.id}`, headers: { Authorization: bench.world.admin.session.bearer } };
      const answers = await Promise.all([login(0), login(1), remove, login(2), login(3)].map(send));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(
      statuses.filter((s) => s >= 500),
      'server errors among the answers',
    ).to.deep.equal([]);
  });

  knownDefect(
    "two of a user's email accounts made primary at the same moment: both 200, one primary",
    'src/mail-accounts/mail-account-service.ts update(): EmailAccount.update(isPrimary false) then account.save() deadlock',
    async () => {
      const fixture = await createUser({ password: 'Primary-Race-Pass-2026', emailSetupSkipped: true });
      const bearer = (await sessionFor(fixture)).bearer;
      const statuses: string[] = [];
      for (let round = 0; round < 5; round++) {
        const [x, y] = [await createEmailAccount(fixture, { isPrimary: false }), await createEmailAccount(fixture, { isPrimary: false })];
        const patch = (id: string): RawRequest => ({
          method: 'PATCH',
          path: `/api/email-accounts/${id}`,
          headers: { Authorization: bearer, 'Content-Type': 'application/json' },
          body: JSON.stringify({ isPrimary: true }),
        });
        const answers = await Promise.all([patch(x.id), patch(y.id), patch(x.id), patch(y.id)].map(send));
        statuses.push(...answers.map((a) => `${a.status} ${(a.json as { error?: { message?: string } }).error?.message ?? ''}`.trim()));
        expect(await EmailAccount.count({ where: { userId: fixture.user.id, isPrimary: true } })).to.equal(1);
      }
      expect(
        statuses.filter((s) => s !== '200'),
        'answers other than 200',
      ).to.deep.equal([]);
    },
  );
});
