import crypto from 'node:crypto';
import { clientKey } from './client-key.js';
import { consumeAll, type ThrottleCounter, type ThrottleRepository } from './throttle-repository.js';

export interface ThrottleLimit {
  points: number;
  durationSeconds: number;
}

export interface LoginLimits {
  perUsernameAndIp: ThrottleLimit;
  perIp: ThrottleLimit;
  perKnownDevice: ThrottleLimit;
}

/**
 * Failed password checks allowed before 429. The one place these numbers live.
 * - per username+client: stops guessing one account from one place (5 per 15 min).
 * - per client: stops one place spraying many accounts (50 per hour); malformed logins count here too.
 * - per username+known device: a browser where the user logged in before (known-device.ts) is
 *   counted on its own, outside the two above (5 per 15 min), so nobody else at the same address
 *   can lock the user out of it.
 * Nothing keys on the username alone: an attacker must never be able to lock a user out from other
 * clients. A client is its IP address, an IPv6 client its /64 (client-key.ts).
 */
export const LOGIN_LIMITS: LoginLimits = {
  perUsernameAndIp: { points: 5, durationSeconds: 15 * 60 },
  perIp: { points: 50, durationSeconds: 60 * 60 },
  perKnownDevice: { points: 5, durationSeconds: 15 * 60 },
};

export const THROTTLED_MESSAGE = 'Príliš veľa neúspešných pokusov o prihlásenie. Skúste to znova neskôr.';

/**
 * Counters live in PostgreSQL (table rate_limits, see ThrottleRepository) so every instance behind a
 * load balancer sees the same failures.
 *
 * An attempt reserves its points BEFORE the password is checked: bcrypt takes long enough that a
 * check-then-count scheme would let hundreds of parallel guesses through before the first failure
 * is counted. A successful check gives the points back.
 */
export class LoginThrottle {
  private readonly byUsernameAndIp: ThrottleCounter;
  private readonly byIp: ThrottleCounter;
  private readonly byKnownDevice: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limits: LoginLimits = LOGIN_LIMITS) {
    this.byUsernameAndIp = counters.counter('login_fail_user_ip', limits.perUsernameAndIp);
    this.byIp = counters.counter('login_fail_ip', limits.perIp);
    this.byKnownDevice = counters.counter('login_fail_device', limits.perKnownDevice);
  }

  /**
   * Counts one attempt; throws RateLimitError (with Retry-After) when a limit is already used up.
   * `device`: the id of a verified known-device token issued for this username.
   */
  async reserve(username: string, ip: string | null | undefined, device?: string | null): Promise<void> {
    const client = clientKey(ip);
    await consumeAll(
      device ? [() => this.byKnownDevice.consume(userKey(username, device))] : [() => this.byUsernameAndIp.consume(userKey(username, client)), () => this.byIp.consume(client)],
      THROTTLED_MESSAGE,
    );
  }

  /** A request that never reached a password check (a malformed login) still uses up the client's points. */
  async reserveClient(ip: string | null | undefined): Promise<void> {
    await consumeAll([() => this.byIp.consume(clientKey(ip))], THROTTLED_MESSAGE);
  }

  /** The password was right: this username+client starts from zero again and the client gets its point back. */
  async succeeded(username: string, ip: string | null | undefined, device?: string | null): Promise<void> {
    const client = clientKey(ip);
    if (device) await this.byKnownDevice.delete(userKey(username, device));
    else {
      // One after the other: at most one pool connection per request (ADR 0121).
      await this.byUsernameAndIp.delete(userKey(username, client));
      await this.byIp.reward(client);
    }
  }
}

/** Hashed: keys stay within varchar(255) whatever the input, and the table holds no usernames. */
function userKey(username: string, client: string): string {
  const user = crypto.createHash('sha256').update(username.trim().toLowerCase()).digest('base64url');
  return `${user}_${client}`;
}
