import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { Tx } from '../db/transactions.js';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import { ACCOUNT_NOT_FOUND } from './account-access.js';
import type { EmailAccountRepository } from './email-account-repository.js';
import type { EmailAccountMemberRepository, MemberRecord } from './member-repository.js';

const USER_NOT_FOUND = 'Používateľ neexistuje';
const OWNER_CHANGED = 'Vlastník emailového účtu sa medzitým zmenil; skúste to znova';
const SAME_ADDRESS = 'Nový vlastník už má pripojený emailový účet s touto adresou';

/** A shared account the user owns, as user deletion lists it. */
export interface OwnedSharedAccount {
  emailAccountId: string;
  email: string;
  /** Members besides the owner. */
  members: number;
}

/** Who asks for a hand-over; `recheck` asks their right again once the account row is locked. */
export interface TransferActor {
  by: string | null;
  recheck?: (tx: Tx) => Promise<void>;
}

/**
 * Hands an email account over to a new owner, inside the caller's transaction: by its owner's choice
 * (the sharing API), an admin's, or because its owner is being deleted. The owner is named in four
 * places (the owner member row, email_accounts.user_id, and contacts/emails.user_id); the account
 * row's update moves contacts and emails by cascade (migration 0018), and the database checks at
 * commit that the member rows agree (migration 0009).
 *
 * Locks, in the order every other writer takes them: both owners' user rows (id order; the
 * one-primary rule of EmailAccountService takes the owner's row first), the account row, then the
 * account's sync state row, so a sync batch in progress commits first and the next one sees the new
 * owner (its lease check compares the owner too).
 */
export class OwnershipTransfer {
  constructor(
    private readonly members: EmailAccountMemberRepository,
    private readonly accounts: EmailAccountRepository,
    private readonly audit: AuditService,
  ) {}

  /** Answers false when the user already owns the account. */
  async transfer(accountId: string, toUserId: string, actor: TransferActor, meta: RequestMeta, tx: Tx): Promise<boolean> {
    const { by } = actor;
    const { members, accounts } = this;
    const before = await members.findAccount(accountId, tx);
    if (!before) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    if (before.ownerId === toUserId) return false;
    const locked = new Map<string, string>();
    for (const id of [before.ownerId, toUserId].sort()) {
      const user = await accounts.lockOwner(id, tx);
      if (user) locked.set(id, user.username);
    }
    if (!locked.has(toUserId)) throw new NotFoundError(USER_NOT_FOUND);
    const account = await members.lockAccount(accountId, tx);
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    if (account.ownerId !== before.ownerId) throw new ConflictError(OWNER_CHANGED);
    // A right checked before the lock may be gone: a concurrent hand-over took the account away.
    await actor.recheck?.(tx);
    await members.awaitSyncBatch(accountId, tx);
    try {
      await members.transferOwnership(accountId, account.ownerId, toUserId, tx);
    } catch (err) {
      // email_accounts (user_id, lower(email)): the new owner has linked this mailbox themselves.
      if (isUniqueViolation(err)) throw new ConflictError(SAME_ADDRESS);
      throw err;
    }
    if (account.isPrimary) await accounts.promoteOldest(account.ownerId, tx);
    await this.audit.record(
      {
        action: AuditActions.emailAccountOwnerChanged,
        userId: toUserId,
        username: locked.get(toUserId),
        details: { emailAccountId: accountId, email: account.email, by, previousOwnerId: account.ownerId, role: 'owner', canRead: true, canSend: true },
      },
      meta,
      tx,
    );
    return true;
  }

  /** The accounts the user owns that are shared with someone else. */
  sharedAccountsOwnedBy(userId: string, tx?: Tx): Promise<OwnedSharedAccount[]> {
    return this.members.sharedAccountsOwnedBy(userId, tx);
  }

  /** Every shared account of a user who is being deleted goes to the new owner. */
  async handOver(userId: string, newOwnerId: string, meta: RequestMeta, tx: Tx): Promise<OwnedSharedAccount[]> {
    const owned = await this.sharedAccountsOwnedBy(userId, tx);
    for (const account of owned) await this.transfer(account.emailAccountId, newOwnerId, { by: null }, meta, tx);
    return owned;
  }

  /** Audit records for the shares of a user who is being deleted (the rows go with the user, by cascade). */
  async recordSharesEnding(userId: string, meta: RequestMeta, tx: Tx): Promise<MemberRecord[]> {
    const shares = await this.members.sharesOf(userId, tx);
    for (const share of shares) {
      await this.audit.record(
        {
          action: AuditActions.emailAccountUnshared,
          userId,
          username: share.username,
          details: { emailAccountId: share.emailAccountId, email: share.email, by: null, reason: 'user_deleted', role: share.role, canRead: share.canRead, canSend: share.canSend },
        },
        meta,
        tx,
      );
    }
    return shares;
  }
}
