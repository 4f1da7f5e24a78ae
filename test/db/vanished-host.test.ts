/**
 * Issue 50: a database host that stops answering without closing the connections (a hung VM, a
 * stalled network, a black-holed route) hung requests for minutes: no client-side query timeout, no
 * TCP keep-alive; the fault test of test/hardening/ only stops PostgreSQL cleanly (the sockets close).
 * Now a request answers 503 with Retry-After within 20 s, with the default settings, and the same
 * process serves again by itself once the host answers again.
 *
 * A `crm-admin serve` child reaches its database through a proxy that can be frozen (it stops
 * forwarding bytes and keeps every socket open). Only statuses are asserted: the 20 s of the contract
 * is the requests' deadline, and missing it fails the test.
 */
import { expect } from 'chai';
import { startFreezableProxy, type FreezableProxy } from '../support/freezable-proxy.js';
import { until } from '../support/poll.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { childEnvOn, serveWithUser, type Served } from './served.js';

describe('database: a host that stops answering without closing connections', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let proxy: FreezableProxy;
  let served: Served;

  before(async () => {
    scratch = await scratchDatabase('crm_vanished', { migrated: true });
    proxy = await startFreezableProxy(scratch.url);
    // The default timeouts: the contract holds as shipped.
    served = await serveWithUser(childEnvOn(proxy.url));
  });

  after(async () => {
    proxy?.thaw();
    const code = await served?.stop();
    await proxy?.close();
    await scratch?.drop();
    expect(code, 'serve exits cleanly').to.equal(0);
  });

  it('answers reads and writes 503 with Retry-After within 20 s while it is frozen, and 200 again by itself once it answers', async () => {
    // Several pooled connections, idle and ready when the host goes silent.
    const warm = await Promise.all([1, 2, 3].map(() => served.get('/api/admin/users?limit=5')));
    expect(warm.map((r) => r.status)).to.deep.equal([200, 200, 200]);

    proxy.freeze();
    // Each request's deadline is the 20 s. First a write alone, on a pooled connection: a transaction,
    // whose ROLLBACK after the unanswered statement must not wait out the query timeout a second time.
    const write = await served.send('POST', '/api/admin/users', { username: `frozen${Date.now()}`, role: 'member' });
    expect(write.status, await write.text()).to.equal(503);
    expect(write.headers.get('retry-after')).to.match(/^\d+$/);
    // Then reads at once: on the pooled connections left, and on new ones (a log-in that gets no answer).
    const answers = await Promise.all([
      served.get('/api/admin/users?limit=5'),
      served.get('/api/timesheets/all?limit=5'),
      served.get('/api/admin/users?limit=1'),
      served.get('/api/admin/users?limit=2'),
    ]);
    for (const res of answers) {
      expect(res.status, await res.text()).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    }
    // And once more after those connections were given up.
    const later = await served.get('/api/admin/users?limit=5');
    expect(later.status, await later.text()).to.equal(503);

    proxy.thaw();
    await until(async () => (await served.get('/api/admin/users?limit=5')).status === 200, { what: 'answers 200 again', timeoutMs: 30_000, intervalMs: 250 });
    const written = await served.send('POST', '/api/admin/users', { username: `thawed${Date.now()}`, role: 'member' });
    expect(written.status, await written.text()).to.equal(201);
    expect(served.serve.child.exitCode, 'the same process').to.equal(null);
    expect(served.serve.output(), 'no 500').not.to.include('"status":500');
  });
});
