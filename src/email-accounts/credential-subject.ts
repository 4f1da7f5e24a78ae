import type { RequestMeta } from '../shared/request-meta.js';

// Apart from the throttle, which loads the JMAP client: creating a user names its subject, and
// `crm-admin users ...` should not load the mail client to do so (ADR 0124).

/** Whom a credential check is counted against (throttleKey) and whose audit record a refusal is (userId: an existing user, or null). */
export interface CredentialSubject {
  throttleKey: string;
  userId: string | null;
  /** The user about to be created with this mailbox (details.forUsername of the record). */
  forUsername?: string;
}

/**
 * The subject of a check made on behalf of a user who does not exist yet: the acting administrator
 * ("user:<id>" on the web, counted with their own checks; "cli:<os user>" for crm-admin).
 */
export function actingSubject(meta: RequestMeta, username: string): CredentialSubject {
  const actor = meta.actor ?? 'anonymous';
  const userId = actor.startsWith('user:') ? actor.slice('user:'.length) : null;
  return { throttleKey: userId ?? actor, userId, forUsername: username };
}
