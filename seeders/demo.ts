import type { RequestMeta } from '../src/audit/audit-service.js';
import type { Services } from '../src/app/services.js';

/** A demo data set for trying the service locally: one admin and two members. */
const DEMO_USERS = [
  { username: 'admin', firstName: 'Alena', lastName: 'Adminová', role: 'admin' as const },
  { username: 'jana', firstName: 'Jana', lastName: 'Nováková', role: 'member' as const },
  { username: 'peter', firstName: 'Peter', lastName: 'Horváth', role: 'member' as const },
];

export interface SeededUser {
  username: string;
  role: string;
  /** Null when the user already existed (its password is not known and is left alone). */
  temporaryPassword: string | null;
}

/** Idempotent: users that already exist are reported and left untouched. */
export async function seed(services: Services, meta: RequestMeta): Promise<SeededUser[]> {
  const result: SeededUser[] = [];
  for (const demo of DEMO_USERS) {
    if (await services.users.findByUsername(demo.username)) {
      result.push({ username: demo.username, role: demo.role, temporaryPassword: null });
      continue;
    }
    const { temporaryPassword } = await services.users.create(demo, meta);
    result.push({ username: demo.username, role: demo.role, temporaryPassword });
  }
  return result;
}
