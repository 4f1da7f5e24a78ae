import { z } from 'zod';
import { emailAccountSchema } from '../email-accounts/email-account-responses.js';
import { userSchema } from '../users/user-responses.js';

/** Where onboarding stands (docs/contract.md §3): the frontend routes on these. */
const onboarding = {
  needsPasswordChange: z.boolean().meta({ description: 'The user still has only the temporary password: show set-password' }),
  needsEmailSetup: z.boolean().meta({ description: 'No active email account and the step was not skipped: show link-email' }),
};

/** data of POST /api/auth/set-password and POST /api/auth/skip-email. */
export const userStateData = z.object({ user: userSchema, ...onboarding });

/** When the tokens expire: the cookies are HttpOnly, so the frontend learns it here (refresh a little before). */
const expiry = {
  accessTokenExpiresAt: z.iso.datetime().meta({ description: 'When the access token (and its cookie) expires: refresh before', example: '2026-11-26T09:00:00.000Z' }),
  refreshTokenExpiresAt: z.iso
    .datetime()
    .optional()
    .meta({ description: 'When the refresh token expires; present when a refresh token is answered (login with rememberMe; a refresh that rotated it)' }),
};

/** data of POST /api/auth/login. */
export const loginData = z.object({
  user: userSchema,
  tokens: z
    .object({
      accessToken: z.string().meta({ description: 'Also set as the accessToken cookie; for Authorization: Bearer' }),
      refreshToken: z.string().meta({ description: 'Also set as the refreshToken cookie when rememberMe is true' }),
    })
    .meta({ id: 'Tokens' }),
  ...expiry,
  ...onboarding,
});

/** data of POST /api/auth/refresh. */
export const refreshData = z.object({
  accessToken: z.string().meta({ description: 'Also set as the accessToken cookie; for Authorization: Bearer' }),
  refreshToken: z
    .string()
    .optional()
    .meta({
      description:
        'The rotated refresh token (the one sent is spent): also set as the refreshToken cookie when the session was opened with rememberMe. Absent when a parallel request rotated it a moment ago (within the grace period): that response carries it',
    }),
  ...expiry,
});

/** data of POST /api/auth/link-email: the contract fixes `accountId` (the JMAP account id); the account beside it. */
export const linkEmailData = z.object({
  email: z.string(),
  accountId: z.string().meta({ description: 'The JMAP account id (docs/contract.md §4.1); the same as emailAccount.jmapAccountId' }),
  emailAccount: emailAccountSchema,
  ...onboarding,
});

/** docs/contract.md §3: /me and /session carry the onboarding flags, so a reloaded frontend knows the step. */
const onboardingFlags = {
  needsPasswordChange: onboarding.needsPasswordChange,
  needsEmailSetup: onboarding.needsEmailSetup,
};

/** data of GET /api/auth/me. */
export const meData = z.object({ user: userSchema, ...onboardingFlags });

/** data of GET /api/auth/session. */
export const sessionData = z.object({ user: userSchema, authenticated: z.literal(true), ...onboardingFlags });

export type UserStateData = z.input<typeof userStateData>;
export type LoginData = z.input<typeof loginData>;
export type RefreshData = z.input<typeof refreshData>;
export type LinkEmailData = z.input<typeof linkEmailData>;
export type MeData = z.input<typeof meData>;
export type SessionData = z.input<typeof sessionData>;
