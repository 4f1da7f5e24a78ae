/**
 * Rules of the auth/users services checked without a database: the repositories are tiny fakes.
 */
import { expect } from 'chai';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { ConflictError, RateLimitError } from '../../src/errors/app-errors.js';
import type { Transactions, Tx } from '../../src/db/transactions.js';
import { LoginThrottle, THROTTLED_MESSAGE } from '../../src/auth/login-throttle.js';
import type { ThrottleCounter } from '../../src/auth/throttle-repository.js';
import { UserAdminService } from '../../src/users/user-admin-service.js';
import type { UserRepository } from '../../src/users/user-repository.js';

/** A counter whose consume answers what the test says; counts what it was asked. */
function fakeCounter(consume: () => Promise<unknown>): ThrottleCounter & { consumed: string[] } {
  const consumed: string[] = [];
  return {
    consumed,
    consume: (key) => {
      consumed.push(key);
      return consume();
    },
    delete: async () => undefined,
    reward: async () => undefined,
  };
}

function throttleWith(counters: Record<string, ThrottleCounter>): LoginThrottle {
  return new LoginThrottle({ counter: (keyPrefix) => counters[keyPrefix] });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('unit: LoginThrottle.reserve', () => {
  it('passes while both counters have points left', async () => {
    const byUserIp = fakeCounter(async () => new RateLimiterRes(4, 0));
    const byIp = fakeCounter(async () => new RateLimiterRes(49, 0));
    await throttleWith({ login_fail_user_ip: byUserIp, login_fail_ip: byIp }).reserve('Anna', '10.0.0.1');
    expect(byIp.consumed).to.deep.equal(['10.0.0.1']);
    // The username is hashed into the key, never stored as such.
    expect(byUserIp.consumed).to.have.length(1);
    expect(byUserIp.consumed[0])
      .to.match(/_10\.0\.0\.1$/)
      .and.not.include('anna');
  });

  it('answers 429 with the longer of the two waits when both limits are used up', async () => {
    const throttle = throttleWith({
      login_fail_user_ip: fakeCounter(() => Promise.reject(new RateLimiterRes(0, 2_500))),
      login_fail_ip: fakeCounter(() => Promise.reject(new RateLimiterRes(0, 7_200))),
    });
    const err = await rejection(throttle.reserve('anna', '10.0.0.1'));
    expect(err).to.be.instanceOf(RateLimitError);
    expect((err as RateLimitError).message).to.equal(THROTTLED_MESSAGE);
    expect((err as RateLimitError).headers['Retry-After']).to.equal('8');
  });

  it('passes a store failure on as it is, not as a 429', async () => {
    const failure = new Error('connection refused');
    const throttle = throttleWith({
      login_fail_user_ip: fakeCounter(() => Promise.reject(failure)),
      login_fail_ip: fakeCounter(async () => new RateLimiterRes(49, 0)),
    });
    expect(await rejection(throttle.reserve('anna', '10.0.0.1'))).to.equal(failure);
  });
});

describe('unit: UserAdminService keeps one admin', () => {
  const tx = {} as Tx;
  const transactions: Transactions = { run: (work) => work(tx) };

  function adminService(otherAdmins: number) {
    const user = {
      id: 'u1',
      username: 'boss',
      role: 'admin',
      firstName: null,
      lastName: null,
      set(values: Record<string, unknown>) {
        Object.assign(this, values);
      },
    };
    const saved: unknown[] = [];
    const repository = {
      lockAdmins: async () => [],
      lockById: async (id: string) => (id === user.id ? user : null),
      countOtherAdmins: async () => otherAdmins,
      save: async (u: unknown) => {
        saved.push(u);
        return u;
      },
    } as unknown as UserRepository;
    const audit = { record: async () => undefined };
    const service = new UserAdminService({ repository, transactions, audit, users: {}, hasher: {}, sessions: {}, emailAccounts: {}, files: {} } as never);
    return { service, user, saved };
  }

  it('refuses to demote the last admin and saves nothing', async () => {
    const { service, user, saved } = adminService(0);
    const err = await rejection(service.update('u1', { role: 'member' }, { actor: 'test' }));
    expect(err).to.be.instanceOf(ConflictError);
    expect(user.role).to.equal('admin');
    expect(saved).to.have.length(0);
  });

  it('demotes an admin while another admin remains', async () => {
    const { service, user, saved } = adminService(1);
    await service.update('u1', { role: 'member' }, { actor: 'test' });
    expect(user.role).to.equal('member');
    expect(saved).to.deep.equal([user]);
  });
});
