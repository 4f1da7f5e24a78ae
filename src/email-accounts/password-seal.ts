import type { SecretBox } from '../crypto/secret-box.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccountRepository } from './email-account-repository.js';

/**
 * The additional data a mail password is sealed with: its own row. A ciphertext copied into another
 * account row (with that row's email and JMAP id) does not open there.
 */
export function passwordContext(accountId: string): string {
  return `email_account:${accountId}`;
}

export interface ResealResult {
  resealed: number;
  failed: number;
}

/**
 * Brings every stored mail password to the current format (bound to its row) and the current key.
 * Needs the key, so it cannot be a SQL migration: it runs when `serve` or a crm-admin command opens
 * the database (after the migrations) and after `crm-admin db migrate`. Rows already current are not
 * touched; each row is replaced only if nobody changed it meanwhile, so instances may run it together.
 */
export class PasswordReseal {
  constructor(private readonly deps: { accounts: EmailAccountRepository; secretBox: SecretBox; logger: Logger }) {}

  async run(): Promise<ResealResult> {
    const { accounts, secretBox, logger } = this.deps;
    const result: ResealResult = { resealed: 0, failed: 0 };
    for (const row of await accounts.listSealedOtherThan(secretBox.currentPrefix)) {
      try {
        const context = passwordContext(row.id);
        const plain = secretBox.isLegacy(row.emailPassword) ? secretBox.openLegacy(row.emailPassword) : secretBox.decrypt(row.emailPassword, context);
        if (await accounts.replaceSealedPassword(row.id, row.emailPassword, secretBox.encrypt(plain, context))) result.resealed++;
      } catch (err) {
        // A key that was rotated out, or a tampered value: the row stays as it is and its sync reports it.
        result.failed++;
        logger.error('mail password could not be re-sealed', { emailAccountId: row.id, err });
      }
    }
    if (result.resealed > 0 || result.failed > 0) logger.info('mail passwords re-sealed', { ...result });
    return result;
  }
}
