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
  /** The temporary password, usable while the user has not set their own. */
  temporaryPassword: string;
  /** Set when the fixture was created with its own password (onboarding done). */
  password?: string;
}

/**
 * Creates a user through the real service. With `password`, the user has finished the password step
 * (changed_password true) and logs in with that password.
 */
export async function createUser(
  options: { role?: Role; password?: string; username?: string; emailSetupSkipped?: boolean; ctx?: AppContext } = {},
): Promise<UserFixture> {
  const ctx = options.ctx ?? (await testContext());
  const username = options.username ?? uniqueName(options.role === 'admin' ? 'admin' : 'member');
  const { user, temporaryPassword } = await ctx.services.users.create(
    { username, role: options.role ?? 'member', firstName: 'Test', lastName: 'User' },
    { actor: 'test' },
  );
  if (options.password) {
    user.password = await ctx.services.hasher.hash(options.password);
    user.changedPassword = true;
    user.tempPassword = null;
    user.tempPasswordExpiresAt = null;
  }
  if (options.emailSetupSkipped) user.emailSetupSkipped = true;
  await user.save();
  return { user, username, temporaryPassword, password: options.password };
}
