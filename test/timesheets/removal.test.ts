import { expect } from 'chai';
import { Readable } from 'node:stream';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Timesheet } from '../../src/models/index.js';
import type { AppContext } from '../../src/app/context.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { pdfFixture, xlsxFixture } from './fixtures.js';
import { expectEveryFileReferenced, storedFiles } from './helpers.js';

describe('timesheet removal: user deletion and purge (service)', function () {
  this.timeout(60_000);
  let ctx: AppContext;

  before(async () => {
    ctx = await testContext();
  });

  after(async () => {
    await expectEveryFileReferenced();
  });

  async function seed(owner: UserFixture, periods: Array<[number, number]>, content = pdfFixture(), name = 'seed.pdf'): Promise<Timesheet[]> {
    const actor = { userId: owner.user.id, username: owner.username, role: owner.user.role };
    const rows: Timesheet[] = [];
    for (const [year, month] of periods) {
      const file = await ctx.services.timesheets.receive(Readable.from([content]));
      rows.push(await ctx.services.timesheets.upload(actor, { file: { ...file, originalName: name }, year, month }, { actor: 'test' }));
    }
    return rows;
  }

  async function exists(rows: Timesheet[]): Promise<boolean[]> {
    const files = await storedFiles();
    return rows.map((r) => files.includes(r.filePath));
  }

  describe('removeAllForUser', () => {
    it('removes every row and file of the user and nobody else’s', async () => {
      const [victim, bystander] = await Promise.all([createUser(), createUser()]);
      const gone = await seed(victim, [
        [2026, 1],
        [2026, 2],
        [2025, 12],
      ]);
      const kept = await seed(bystander, [[2026, 1]]);
      const result = await ctx.services.timesheets.removeAllForUser(victim.user.id);
      expect(result).to.deep.equal({ count: 3, bytes: 3 * pdfFixture().length });
      expect(await Timesheet.count({ where: { userId: victim.user.id } })).to.equal(0);
      expect(await exists(gone)).to.deep.equal([false, false, false]);
      expect(await exists(kept)).to.deep.equal([true]);
      expect(await ctx.services.timesheets.removeAllForUser(victim.user.id)).to.deep.equal({ count: 0, bytes: 0 });
    });

    it('inside a transaction removes the files only once it commits', async () => {
      const owner = await createUser();
      const rows = await seed(owner, [[2026, 3]]);
      await ctx.db.sequelize
        .transaction(async (transaction) => {
          await ctx.services.timesheets.removeAllForUser(owner.user.id, transaction);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(await Timesheet.count({ where: { userId: owner.user.id } })).to.equal(1);
      expect(await exists(rows)).to.deep.equal([true]);

      await ctx.db.sequelize.transaction(async (transaction) => {
        const result = await ctx.services.timesheets.removeAllForUser(owner.user.id, transaction);
        expect(result.count).to.equal(1);
        expect(await exists(rows), 'file kept until commit').to.deep.equal([true]);
      });
      expect(await Timesheet.count({ where: { userId: owner.user.id } })).to.equal(0);
      expect(await exists(rows)).to.deep.equal([false]);
    });

    it('takes the files when the admin deletes the user through the user service', async () => {
      const admin = await createUser({ role: 'admin' });
      const owner = await createUser();
      const rows = await seed(owner, [
        [2026, 4],
        [2026, 5],
      ]);
      await ctx.services.userAdmin.delete(owner.user.id, { actor: `user:${admin.user.id}` });
      expect(await Timesheet.count({ where: { userId: owner.user.id } })).to.equal(0);
      expect(await exists(rows)).to.deep.equal([false, false]);
    });
  });

  describe('purge', () => {
    it('dry run counts rows and bytes before the month and removes nothing', async () => {
      const owner = await createUser();
      const rows = await seed(owner, [
        [2023, 12],
        [2024, 2],
        [2024, 3],
        [2025, 1],
      ]);
      const result = await ctx.services.timesheets.purge({ before: { year: 2024, month: 3 }, userId: owner.user.id, dryRun: true }, { actor: 'test' });
      expect(result).to.deep.equal({ count: 2, bytes: 2 * pdfFixture().length });
      expect(await exists(rows)).to.deep.equal([true, true, true, true]);
    });

    it('removes rows and files of periods before the month for one user, and audits it', async () => {
      const [owner, other] = await Promise.all([createUser(), createUser()]);
      const rows = await seed(
        owner,
        [
          [2023, 12],
          [2024, 2],
          [2024, 3],
          [2025, 1],
        ],
        xlsxFixture(),
        'seed.xlsx',
      );
      const others = await seed(other, [[2023, 1]]);
      const result = await ctx.services.timesheets.purge({ before: { year: 2024, month: 3 }, userId: owner.user.id }, { actor: 'cli:test' });
      expect(result).to.deep.equal({ count: 2, bytes: 2 * xlsxFixture().length });
      expect(await exists(rows)).to.deep.equal([false, false, true, true]);
      expect(await exists(others)).to.deep.equal([true]);
      const remaining = await Timesheet.findAll({ where: { userId: owner.user.id }, order: [['year', 'ASC']] });
      expect(remaining.map((r) => `${r.year}-${r.month}`)).to.deep.equal(['2024-3', '2025-1']);
      const audit = await AuditLog.findAll({ where: { action: AuditActions.timesheetPurge, actor: 'cli:test' } });
      expect(audit.map((a) => a.details)).to.deep.include({ before: '2024-03', targetUserId: owner.user.id, count: 2, bytes: 2 * xlsxFixture().length });
    });

    it('works through more rows than one batch and reports progress', async () => {
      const owner = await createUser();
      // Rows straight into the table beside real stored files: 230 uploads through HTTP would only slow the suite.
      const rows: Timesheet[] = [];
      for (let i = 0; i < 230; i++) {
        const file = await ctx.services.timesheets.receive(Readable.from([Buffer.from(`%PDF-1.4 ${i}`)]));
        rows.push(
          await Timesheet.create({ userId: owner.user.id, fileName: `${i}.pdf`, filePath: file.key, fileType: 'pdf', fileSize: file.size, year: 2001, month: 1 + (i % 12) }),
        );
      }
      const progress: Array<[number, number]> = [];
      const result = await ctx.services.timesheets.purge(
        { before: { year: 2002, month: 1 }, userId: owner.user.id, onProgress: (done, total) => progress.push([done, total]) },
        { actor: 'test' },
      );
      expect(result.count).to.equal(230);
      expect(result.bytes).to.equal(rows.reduce((sum, r) => sum + r.fileSize, 0));
      expect(progress.length).to.be.greaterThan(1);
      expect(progress.at(-1)).to.deep.equal([230, 230]);
      expect((await exists(rows)).filter(Boolean)).to.deep.equal([]);
    });

    it('rejects a bad month or user id with 400 and removes nothing', async () => {
      for (const options of [{ before: { year: 2024, month: 13 } }, { before: { year: 1999, month: 1 } }, { before: { year: 2024, month: 1 }, userId: 'x' }]) {
        let status: number | undefined;
        await ctx.services.timesheets.purge(options, { actor: 'test' }).catch((err: { statusCode?: number }) => (status = err.statusCode));
        expect(status, JSON.stringify(options)).to.equal(400);
      }
    });
  });
});
