import { expect } from 'chai';
import type { QueryInterface } from 'sequelize';
import { withPinnedSearchPath } from '../../src/db/migration-sql.js';
import { testContext } from '../support/harness.js';

/**
 * The helper of the migrations since 0080 (src/db/migration-sql.ts) on the real database: a migration's
 * statement may rightly outlast the sessions' statement timeout (0083 rewrites every contact).
 */
describe('database: a migration run through withPinnedSearchPath', function () {
  this.timeout(30_000);

  it('runs without the sessions statement timeout, with the schema pinned, in one transaction', async () => {
    const { sequelize } = (await testContext()).db;
    const [[session]] = (await sequelize.query("SELECT current_setting('statement_timeout') AS t")) as unknown as [[{ t: string }]];
    expect(session.t, 'the pool sets a statement timeout').to.not.equal('0');
    const qi = { sequelize } as unknown as QueryInterface;
    let path = '';
    // Refuses (and the helper throws) unless the timeout is off inside the migration's transaction.
    await withPinnedSearchPath(qi, (p) => {
      path = p;
      return `DO $$ BEGIN IF current_setting('statement_timeout') <> '0' THEN RAISE EXCEPTION 'statement_timeout %', current_setting('statement_timeout'); END IF; END $$;`;
    });
    expect(path).to.match(/^"[^"]+", pg_temp$/);
    // SET LOCAL: the session keeps its own timeout afterwards.
    const [[after]] = (await sequelize.query("SELECT current_setting('statement_timeout') AS t")) as unknown as [[{ t: string }]];
    expect(after.t).to.equal(session.t);
  });
});
