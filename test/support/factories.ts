import crypto from 'node:crypto';
import type { AppContext } from '../../src/app/context.js';
import type { Role, User } from '../../src/models/index.js';
import { testContext } from './harness.js';

export function uniqueName(prefix = 'u'): string {
  return `${prefix}${crypto.randomBytes(5).toString('hex')}`;
}

export interface UserFixture {
  user: User;
  username: string;
  /** The temporary password issued at creation; it opens the account only for a `temporary` fixture. */
  temporaryPassword: string;
  /** The user's own password (onboarding done); undefined for a `temporary` fixture. */
  password?: string;
}

/**
 * Creates a user through the real service. By default the user has finished the password step
 * (changed_password true, `password` set), as every user who works with the API has: a user with a
 * temporary password reaches only the onboarding endpoints (docs/contract.md §3). `temporary: true` keeps the
 * state right after creation (login with `temporaryPassword`, everything else 403).
 */
export async function createUser(
  options: { role?: Role; password?: string; temporary?: boolean; username?: string; emailSetupSkipped?: boolean; ctx?: AppContext } = {},
): Promise<UserFixture> {
  const ctx = options.ctx ?? (await testContext());
  const username = options.username ?? uniqueName(options.role === 'admin' ? 'admin' : 'member');
  const { user, temporaryPassword } = await ctx.services.users.create({ username, role: options.role ?? 'member', firstName: 'Test', lastName: 'User' }, { actor: 'test' });
  const password = options.temporary ? undefined : (options.password ?? `Fixture-${crypto.randomBytes(6).toString('base64url')}-9`);
  if (password) {
    user.password = await ctx.services.hasher.hash(password);
    user.changedPassword = true;
    user.tempPassword = null;
    user.tempPasswordExpiresAt = null;
  }
  if (options.emailSetupSkipped) user.emailSetupSkipped = true;
  await user.save();
  return { user, username, temporaryPassword, password };
}
