import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, uniqueName, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';

interface DirectoryBody {
  data: { users: Array<Record<string, unknown>>; pagination: { page: number; limit: number; total: number } };
}

describe('colleague directory (GET /api/users/directory)', function () {
  this.timeout(30_000);
  let app: Express;
  let member: UserFixture;
  let memberSession: TestSession;
  let tag: string;
  let sebo: UserFixture;
  let zuzana: UserFixture;
  let leaver: UserFixture;

  before(async () => {
    app = await testApp();
    tag = uniqueName('dir');
    member = await createUser();
    memberSession = await sessionFor(member);
    sebo = await createUser({ username: `${tag}-sebo` });
    await sebo.user.update({ firstName: 'Ľubomír', lastName: `Šebo${tag}` });
    zuzana = await createUser({ username: `${tag}-zuz` });
    await zuzana.user.update({ firstName: 'Zuzana', lastName: `Áčová${tag}` });
    leaver = await createUser({ username: `${tag}-leaver` });
    await leaver.user.update({ disabledAt: new Date() });
  });

  const directory = (query: Record<string, string | number>, session = memberSession) => request(app).get('/api/users/directory').query(query).set('Authorization', session.bearer);

  it('lists active colleagues to a member with id, username and names only', async () => {
    const res = await directory({ search: tag });
    expect(res.status).to.equal(200);
    const { users, pagination } = (res.body as DirectoryBody).data;
    // One list shape (issue 45): data.items, the deprecated data.users the same for a release.
    expect((res.body as { data: { items: unknown } }).data.items).to.deep.equal(users);
    expect(users.map((u) => u.username)).to.have.members([`${tag}-sebo`, `${tag}-zuz`]);
    expect(pagination).to.deep.equal({ page: 1, limit: 50, total: 2, totalExact: true, hasNext: false });
    for (const user of users) expect(Object.keys(user).sort()).to.deep.equal(['firstName', 'id', 'lastName', 'username']);
    expect(users.find((u) => u.username === `${tag}-sebo`)).to.deep.equal({ id: sebo.user.id, username: `${tag}-sebo`, firstName: 'Ľubomír', lastName: `Šebo${tag}` });
  });

  it('sorts by last name: Áčová before Šebo', async () => {
    const { users } = ((await directory({ search: tag })).body as DirectoryBody).data;
    expect(users.map((u) => u.id)).to.deep.equal([zuzana.user.id, sebo.user.id]);
  });

  it('hides disabled users, also when searched by their exact username', async () => {
    const { users, pagination } = ((await directory({ search: `${tag}-leaver` })).body as DirectoryBody).data;
    expect(users).to.deep.equal([]);
    expect(pagination.total).to.equal(0);
  });

  it('searches without regard to case or diacritics, in first and last names', async () => {
    const cases: Array<[string, string[]]> = [
      [`SEBO${tag}`, [sebo.user.id]],
      [`sebo${tag}`, [sebo.user.id]],
      [`acova${tag}`, [zuzana.user.id]],
      [`ÁČOVÁ${tag}`, [zuzana.user.id]],
    ];
    for (const [search, ids] of cases) {
      const { users } = ((await directory({ search })).body as DirectoryBody).data;
      expect(
        users.map((u) => u.id),
        search,
      ).to.deep.equal(ids);
    }
    // The first name alone (shared with other tests' users): found, whatever the accents.
    const { users } = ((await directory({ search: 'lubomir', limit: 100 })).body as DirectoryBody).data;
    expect(users.map((u) => u.id)).to.include(sebo.user.id);
  });

  it('takes % and _ literally', async () => {
    const { users } = ((await directory({ search: `${tag}%` })).body as DirectoryBody).data;
    expect(users).to.deep.equal([]);
  });

  it('pages like every list', async () => {
    const first = ((await directory({ search: tag, limit: 1 })).body as DirectoryBody).data;
    const second = ((await directory({ search: tag, limit: 1, page: 2 })).body as DirectoryBody).data;
    expect(first.pagination).to.deep.equal({ page: 1, limit: 1, total: 2, totalExact: true, hasNext: true });
    expect(second.pagination).to.deep.equal({ page: 2, limit: 1, total: 2, totalExact: true, hasNext: false });
    expect([first.users[0].id, second.users[0].id]).to.deep.equal([zuzana.user.id, sebo.user.id]);
  });

  it('answers 401 anonymous, 403 during onboarding and 400 to bad queries', async () => {
    expect((await request(app).get('/api/users/directory')).status).to.equal(401);
    const fresh = await createUser({ temporary: true });
    const onboarding = await directory({}, await sessionFor(fresh));
    expect(onboarding.status).to.equal(403);
    expect(onboarding.body.error.code).to.equal('password_change_required');
    const bad: Array<Record<string, string | number>> = [{ limit: 101 }, { search: '' }, { role: 'admin' }, { search: 'x'.repeat(101) }];
    for (const query of bad) {
      const res = await directory(query);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
    }
  });

  it('folds Slovak letters in the database function itself', async () => {
    const ctx = await testContext();
    const [row] = await ctx.db.sequelize.query<{ folded: string }>("SELECT crm_fold('ŠťASTNÝ Ňuňo Ďuríček Ľalia Ŕ ô ä') AS folded", { type: QueryTypes.SELECT });
    expect(row.folded).to.equal('stastny nuno duricek lalia r o a');
  });
});
