import { expect } from 'chai';
import { DatabaseError } from 'sequelize';
import { isDatabaseUnavailable, isQueryTimeout, isReadOnlyRefusal, isStatementCancelled } from '../../src/db/db-errors.js';

/** A driver error as node-postgres builds it: a message, and a SQLSTATE when the server sent one. */
function driverError(message: string, code?: string): Error & { code?: string; sql: string } {
  return Object.assign(new Error(message), code ? { code, sql: 'SELECT 1' } : { sql: 'SELECT 1' });
}

describe('unit: which database errors are an outage (503), not a bug (500)', () => {
  it('a connection that died under a query, wrapped by sequelize or as the driver threw it', () => {
    const message = 'Client has encountered a connection error and is not queryable';
    expect(isDatabaseUnavailable(new DatabaseError(driverError(message)))).to.equal(true);
    // Sequelize's own statements on a fresh connection (SET client_min_messages ...) are not wrapped.
    expect(isDatabaseUnavailable(driverError(message))).to.equal(true);
    expect(isDatabaseUnavailable(driverError('Connection terminated unexpectedly'))).to.equal(true);
  });

  it('the server shutting down or refusing, by SQLSTATE', () => {
    expect(isDatabaseUnavailable(new DatabaseError(driverError('terminating connection due to administrator command', '57P01')))).to.equal(true);
    expect(isDatabaseUnavailable(new DatabaseError(driverError('the database system is starting up', '57P03')))).to.equal(true);
  });

  it('a Unix socket that is not there (its server is down), but not any missing file', () => {
    const connect = Object.assign(new Error('connect ENOENT /srv/crm/postgres/.s.PGSQL.5432'), { code: 'ENOENT', syscall: 'connect', errno: -2 });
    expect(isDatabaseUnavailable(connect)).to.equal(true);
    const file = Object.assign(new Error("ENOENT: no such file or directory, open '/srv/crm/timesheets/x.pdf'"), { code: 'ENOENT', syscall: 'open', errno: -2 });
    expect(isDatabaseUnavailable(file)).to.equal(false);
  });

  it('a write (or a LISTEN) refused as read-only, 25006: a standby or a demoted primary during a failover', () => {
    expect(isDatabaseUnavailable(new DatabaseError(driverError('cannot execute INSERT in a read-only transaction', '25006')))).to.equal(true);
    // The LISTEN connection gets the driver's own error.
    expect(isDatabaseUnavailable(driverError('cannot execute LISTEN during recovery', '25006'))).to.equal(true);
    expect(isReadOnlyRefusal(driverError('cannot execute LISTEN during recovery', '25006'))).to.equal(true);
    expect(isReadOnlyRefusal(new DatabaseError(driverError('duplicate key value violates unique constraint', '23505')))).to.equal(false);
  });

  it('a query the client gave up on (no answer within DATABASE_QUERY_TIMEOUT_MS), wrapped or as the driver threw it', () => {
    expect(isDatabaseUnavailable(new DatabaseError(driverError('Query read timeout')))).to.equal(true);
    expect(isQueryTimeout(driverError('Query read timeout'))).to.equal(true);
    expect(isQueryTimeout(driverError('Query read timeout, or so'))).to.equal(false);
  });

  it('any other error stays a bug: a syntax error, a plain Error with another message, a cancelled statement', () => {
    expect(isDatabaseUnavailable(new DatabaseError(driverError('syntax error at or near "SELEC"', '42601')))).to.equal(false);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable, or so'))).to.equal(false);
    const cancelled = new DatabaseError(driverError('canceling statement due to statement timeout', '57014'));
    expect(isDatabaseUnavailable(cancelled)).to.equal(false);
    expect(isStatementCancelled(cancelled)).to.equal(true);
  });
});
