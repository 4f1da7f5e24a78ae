import type { User } from '../../src/models/index.js';
import { testContext } from './harness.js';

export interface TestSession {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** For supertest: .set('Authorization', bearer) */
  bearer: string;
  /** For supertest: .set('Cookie', cookie) */
  cookie: string;
}

/**
 * A real session for a user, made by the same service the login endpoint uses. Tests of other areas
 * use it to act as a user without going through the login flow each time.
 */
export async function sessionFor(target: User | { user: User }): Promise<TestSession> {
  const user = 'user' in target ? target.user : target;
  const ctx = await testContext();
  const { accessToken, refreshToken, session } = await ctx.services.sessions.create(user, { rememberMe: true }, { actor: 'test' });
  return {
    accessToken,
    refreshToken: refreshToken!,
    sessionId: session.id,
    bearer: `Bearer ${accessToken}`,
    cookie: `accessToken=${accessToken}`,
  };
}
