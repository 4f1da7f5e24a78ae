import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { sanitiseEmailHtml } from '../emails/html-sanitiser.js';
import type { SignatureRecord, SignatureRepository } from './signature-repository.js';
import type { Signature } from './signature-text.js';

export interface SignatureInput {
  text: string;
  html?: string | null;
}

/**
 * The caller's own signature per mailbox they may send from (issue 47): each member of a team mailbox
 * has their own. The send right decides, as for sending itself: a member without canSend (a viewer)
 * gets 403, someone the account is not shared with 404 (EmailAccountAccess.sendingAccount).
 */
export class SignatureService {
  constructor(
    private readonly deps: {
      signatures: SignatureRepository;
      accounts: EmailAccountAccess;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async get(userId: string, accountId: string): Promise<SignatureRecord> {
    await this.deps.accounts.sendingAccount(userId, accountId);
    return (await this.deps.signatures.find(userId, accountId)) ?? { emailAccountId: accountId, text: '', html: null, updatedAt: null };
  }

  async set(userId: string, accountId: string, input: SignatureInput, meta: RequestMeta): Promise<SignatureRecord> {
    // Stored clean: what is appended to outgoing mail later is what the sanitiser let through. Remote
    // images stay (a logo in a signature is the sender's own choice, and it goes to the recipient).
    const html = input.html ? sanitiseEmailHtml(input.html, { inlineImages: new Map(), remoteImages: true }).html : null;
    return this.deps.transactions.run(async (tx) => {
      await this.deps.accounts.sendingAccount(userId, accountId, tx);
      const saved = await this.deps.signatures.upsert(userId, accountId, input.text, html, tx);
      // The length only: a signature holds phone numbers and names.
      await this.deps.audit.record(
        { action: AuditActions.signatureUpdated, userId, details: { emailAccountId: accountId, textLength: input.text.length, html: html !== null } },
        meta,
        tx,
      );
      return saved;
    });
  }

  /** What a send appends (no right checked here: the sender checks the send right itself). */
  async forSending(userId: string, accountId: string): Promise<Signature | null> {
    const found = await this.deps.signatures.find(userId, accountId);
    return found ? { text: found.text, html: found.html } : null;
  }
}
