import { expect } from 'chai';
import { NetworkInTransactionError, runInTransactionScope, transactionOpen } from '../../src/db/transaction-scope.js';
import { fetchJson, type FetchImpl } from '../../src/jmap/http.js';

/**
 * The house rule "no network call inside a database transaction" (issue 34), made checkable: every
 * transaction of the service (sequelizeTransactions) runs in this scope, and every JMAP request
 * refuses to start inside it. The whole suite runs with the real Transactions, so any code path that
 * calls the mail server inside a transaction fails the test that takes it.
 */
describe('unit: no network call inside a database transaction', () => {
  function countingFetch(): { fetchImpl: FetchImpl; calls: () => number } {
    let calls = 0;
    const fetchImpl: FetchImpl = () => {
      calls++;
      return Promise.resolve(new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }));
    };
    return { fetchImpl, calls: () => calls };
  }

  it('refuses a JMAP request while a transaction is open, before anything is sent', async () => {
    const { fetchImpl, calls } = countingFetch();
    const err = await runInTransactionScope(() => fetchJson('http://127.0.0.1:9/jmap', {}, { fetchImpl, timeoutMs: 1000 })).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NetworkInTransactionError);
    expect(calls()).to.equal(0);
  });

  it('lets it through outside a transaction, and once the transaction has ended (work started from an afterCommit hook)', async () => {
    const { fetchImpl, calls } = countingFetch();
    await fetchJson('http://127.0.0.1:9/jmap', {}, { fetchImpl, timeoutMs: 1000 });
    let later: Promise<unknown> = Promise.resolve();
    await runInTransactionScope(async (close) => {
      expect(transactionOpen()).to.equal(true);
      close(); // what the commit does before its afterCommit hooks run
      later = fetchJson('http://127.0.0.1:9/jmap', {}, { fetchImpl, timeoutMs: 1000 });
    });
    await later;
    expect(transactionOpen()).to.equal(false);
    expect(calls()).to.equal(2);
  });
});
