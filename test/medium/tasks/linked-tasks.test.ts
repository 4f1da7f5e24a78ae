import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { Sql } from '../../../src/db/sql.js';
import { TaskRepository } from '../../../src/tasks/task-repository.js';
import { createUser, type UserFixture } from '../../support/factories.js';
import { testContext } from '../../support/harness.js';

/**
 * TaskRepository.visibleLinked (ADR 0173, amended): a statement planned for some links only answers
 * the tasks of those links and the unlinked ones; a task of another link is left out, never shown as
 * if it had no link. A timeline's tasks never have another link, so no HTTP request reaches this.
 */
describe('tasks read for some links only', function () {
  this.timeout(30_000);
  let owner: UserFixture;
  let tasks: TaskRepository;
  let companyTask: string;
  let unlinkedTask: string;

  before(async () => {
    const ctx = await testContext();
    tasks = new TaskRepository(new Sql(ctx.db.sequelize));
    owner = await createUser();
    const insert = async (sql: string, bind: unknown[]) => (await ctx.db.sequelize.query<{ id: string }>(sql, { bind, type: QueryTypes.SELECT }))[0].id;
    const companyId = await insert('INSERT INTO companies (domain, name) VALUES ($1, $2) RETURNING id', [`linked-${owner.user.id}.sk`, 'Linked s.r.o.']);
    companyTask = await insert("INSERT INTO tasks (title, due_at, assignee_id, created_by, company_id) VALUES ('Firma', now(), $1, $1, $2) RETURNING id", [
      owner.user.id,
      companyId,
    ]);
    unlinkedTask = await insert("INSERT INTO tasks (title, due_at, assignee_id, created_by) VALUES ('Bez väzby', now(), $1, $1) RETURNING id", [owner.user.id]);
  });

  it('answers a task of a link it was asked for with that link, and an unlinked task', async () => {
    const found = await tasks.visibleLinked(owner.user.id, [companyTask, unlinkedTask], ['company', 'person']);
    expect(found.map((t) => [t.id, t.link?.type ?? null])).to.deep.equal([
      [companyTask, 'company'],
      [unlinkedTask, null],
    ]);
  });

  it('leaves out a task of a link it was not asked for, and answers every link alike', async () => {
    const found = await tasks.visibleLinked(owner.user.id, [companyTask, unlinkedTask], ['person']);
    expect(found.map((t) => t.id)).to.deep.equal([unlinkedTask]);
    const all = await tasks.visible(owner.user.id, [companyTask, unlinkedTask]);
    expect(all.map((t) => [t.id, t.link?.type ?? null, t.mayEdit])).to.deep.equal([
      [companyTask, 'company', true],
      [unlinkedTask, null, true],
    ]);
  });
});
