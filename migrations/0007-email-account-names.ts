import type { QueryInterface } from 'sequelize';

/**
 * One name per concept: the resource is an "email account" (docs/adr/0029-frontend-contract-checked-openapi.md), also in the
 * audit log's action names. Old records are renamed so `audit list --action email_account.*` finds
 * the whole history, not only what was written after the upgrade.
 */
const RENAMES: Array<[string, string]> = [
  ['mail_account.added', 'email_account.added'],
  ['mail_account.updated', 'email_account.updated'],
  ['mail_account.removed', 'email_account.removed'],
  ['admin.mail_account_attached', 'admin.email_account_attached'],
];

async function rename(qi: QueryInterface, pairs: Array<[string, string]>): Promise<void> {
  for (const [from, to] of pairs) {
    await qi.sequelize.query('UPDATE audit_logs SET action = $to WHERE action = $from', { bind: { from, to } });
  }
}

export async function up(qi: QueryInterface): Promise<void> {
  await rename(qi, RENAMES);
}

export async function down(qi: QueryInterface): Promise<void> {
  await rename(
    qi,
    RENAMES.map(([from, to]) => [to, from]),
  );
}
