import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { isForeignKeyViolation, isUniqueViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import { ACCOUNT_NOT_FOUND, type AccountRight, type AccountRole, type EmailAccountAccess } from './account-access.js';
import type { EmailAccountMemberRepository, MemberRecord, MemberRights } from './member-repository.js';
import type { OwnershipTransfer } from './ownership-transfer.js';

/** Who changes shares: a member of the account (the API) or an administrator (crm-admin, /api/admin). */
/** An administrator acting over HTTP is named (userId), so audit records and created_by say who (issue 26); crm-admin is not. */
export type SharingActor = { kind: 'member'; userId: string } | { kind: 'admin'; userId?: string };

export interface NewShare {
  userId: string;
  role: Exclude<AccountRole, 'owner'>;
  canRead: boolean;
  canSend: boolean;
}

/** One change of a member, as change() received it. */
interface ChangeRequest {
  actor: SharingActor;
  accountId: string;
  userId: string;
  changes: ShareChanges;
  meta: RequestMeta;
}

export interface ShareChanges {
  /** 'owner' transfers the ownership: the previous owner stays as an editor. */
  role?: AccountRole;
  canRead?: boolean;
  canSend?: boolean;
}

export type { MemberRecord } from './member-repository.js';

const USER_NOT_FOUND = 'Používateľ neexistuje';
const MEMBER_NOT_FOUND = 'Používateľ nemá prístup k tomuto emailovému účtu';
const SHARE_EXISTS = 'Používateľ už má prístup k tomuto emailovému účtu';
const OWNER_STAYS = 'Vlastníka emailového účtu nemožno odobrať ani mu obmedziť práva; najprv odovzdajte vlastníctvo inému používateľovi';
const OWNER_HAS_ALL = 'Vlastník má vždy všetky práva (canRead aj canSend)';
const VIEWER_SENDS = 'Divák (viewer) nemôže odosielať; zvoľte rolu editor';

/**
 * Sharing one email account between staff (docs/contract.md §4.3): the owner shares it
 * (editor / viewer, canRead, canSend), changes and removes shares and may hand the ownership over;
 * a member may leave. Administrators do the same for any account. Every change is audited: by whom
 * (the request's actor), for whom (the audit record's user) and which rights. All changes of one
 * account's shares take turns on the account's row, so racing requests end as 409 / 404, never 500.
 */
export class EmailAccountSharingService {
  constructor(
    private readonly deps: {
      members: EmailAccountMemberRepository;
      access: EmailAccountAccess;
      ownership: OwnershipTransfer;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  async members(actor: SharingActor, accountId: string, page: PageRequest): Promise<Page<MemberRecord>> {
    return this.deps.transactions.run(async (tx) => {
      await this.check(actor, accountId, 'view', tx);
      return this.deps.members.list(accountId, page, tx);
    });
  }

  async share(actor: SharingActor, accountId: string, input: NewShare, meta: RequestMeta): Promise<MemberRecord> {
    const { members, audit } = this.deps;
    return this.writing(() =>
      this.deps.transactions.run(async (tx) => {
        // The right first: who may not share learns nothing about which users exist.
        await this.check(actor, accountId, 'share', tx);
        const user = await members.findUser(input.userId, tx);
        if (!user) throw new NotFoundError(USER_NOT_FOUND);
        const account = await this.lock(actor, accountId, 'share', tx);
        if (await members.find(accountId, input.userId, tx)) throw new ConflictError(SHARE_EXISTS, undefined, 'share_exists');
        const rights = validRights({ role: input.role, canRead: input.canRead, canSend: input.canSend });
        await members.insert(accountId, input.userId, rights, actorId(actor), tx);
        await audit.record(
          {
            action: AuditActions.emailAccountShared,
            userId: user.id,
            username: user.username,
            details: { emailAccountId: accountId, email: account.email, by: actorId(actor), ...(actor.kind === 'admin' ? { byAdmin: true } : {}), ...rights },
          },
          meta,
          tx,
        );
        return (await members.find(accountId, input.userId, tx))!;
      }),
    );
  }

  /** Changes a member's role or rights; role 'owner' hands the ownership over (only the owner or an admin). */
  async change(actor: SharingActor, accountId: string, userId: string, changes: ShareChanges, meta: RequestMeta): Promise<MemberRecord> {
    const request: ChangeRequest = { actor, accountId, userId, changes, meta };
    return this.writing(() =>
      this.deps.transactions.run(async (tx) => {
        await this.check(actor, accountId, 'share', tx);
        return changes.role === 'owner' ? this.handOver(request, tx) : this.changeRights(request, tx);
      }),
    );
  }

  /** role 'owner': the ownership moves to the member, who keeps every right (an owner has them all). */
  private async handOver({ actor, accountId, userId, changes, meta }: ChangeRequest, tx: Tx): Promise<MemberRecord> {
    const { members, ownership } = this.deps;
    if (changes.canRead === false || changes.canSend === false) throw new ValidationError('Neplatné údaje', [{ field: 'role', message: OWNER_HAS_ALL }]);
    if (!(await members.find(accountId, userId, tx))) throw new NotFoundError(MEMBER_NOT_FOUND);
    await ownership.transfer(accountId, userId, { by: actorId(actor), recheck: (t) => this.check(actor, accountId, 'share', t) }, meta, tx);
    return (await members.find(accountId, userId, tx))!;
  }

  /** Any other role or rights: the owner keeps theirs; an unchanged member is no change (and no audit record). */
  private async changeRights({ actor, accountId, userId, changes, meta }: ChangeRequest, tx: Tx): Promise<MemberRecord> {
    const { members, audit } = this.deps;
    const account = await this.lock(actor, accountId, 'share', tx);
    const member = await members.find(accountId, userId, tx);
    if (!member) throw new NotFoundError(MEMBER_NOT_FOUND);
    const rights = validRights({ role: changes.role ?? member.role, canRead: changes.canRead ?? member.canRead, canSend: changes.canSend ?? member.canSend });
    if (member.role === 'owner' && (rights.role !== 'owner' || !rights.canRead || !rights.canSend)) throw new ConflictError(OWNER_STAYS, undefined, 'owner_required');
    if (rights.role === member.role && rights.canRead === member.canRead && rights.canSend === member.canSend) return member;
    await members.update(accountId, userId, rights, tx);
    const previous = { role: member.role, canRead: member.canRead, canSend: member.canSend };
    await audit.record(
      {
        action: AuditActions.emailAccountShareChanged,
        userId,
        username: member.username,
        details: { emailAccountId: accountId, email: account.email, by: actorId(actor), ...rights, previous },
      },
      meta,
      tx,
    );
    return (await members.find(accountId, userId, tx))!;
  }

  /** Removes a member's access; a member may also remove their own. The owner is never removed. */
  async unshare(actor: SharingActor, accountId: string, userId: string, meta: RequestMeta): Promise<MemberRecord> {
    const { members, audit } = this.deps;
    const right: AccountRight = actor.kind === 'member' && actor.userId === userId ? 'view' : 'share';
    return this.deps.transactions.run(async (tx) => {
      await this.check(actor, accountId, right, tx);
      const account = await this.lock(actor, accountId, right, tx);
      const member = await members.find(accountId, userId, tx);
      if (!member) throw new NotFoundError(MEMBER_NOT_FOUND);
      if (member.role === 'owner') throw new ConflictError(OWNER_STAYS, undefined, 'owner_required');
      await members.delete(accountId, userId, tx);
      await audit.record(
        {
          action: AuditActions.emailAccountUnshared,
          userId,
          username: member.username,
          details: { emailAccountId: accountId, email: account.email, by: actorId(actor), role: member.role, canRead: member.canRead, canSend: member.canSend },
        },
        meta,
        tx,
      );
      return member;
    });
  }

  /**
   * Makes the user the account's owner (an admin's choice; the previous owner stays as an editor). The
   * user need not be a member yet.
   */
  async transferOwnership(actor: SharingActor, accountId: string, userId: string, meta: RequestMeta): Promise<MemberRecord> {
    return this.writing(() =>
      this.deps.transactions.run(async (tx) => {
        await this.check(actor, accountId, 'share', tx);
        await this.deps.ownership.transfer(accountId, userId, { by: actorId(actor), recheck: (t) => this.check(actor, accountId, 'share', t) }, meta, tx);
        return (await this.deps.members.find(accountId, userId, tx))!;
      }),
    );
  }

  /** 404 when the account is not the member's to see (or does not exist), 403 without the right. */
  private async check(actor: SharingActor, accountId: string, right: AccountRight, tx: Tx): Promise<void> {
    if (actor.kind === 'member') await this.deps.access.requireAccount(actor.userId, accountId, right, tx);
    else if (!(await this.deps.members.findAccount(accountId, tx))) throw new NotFoundError(ACCOUNT_NOT_FOUND);
  }

  /** The account's row locked for this change; the member's right is asked again under the lock. */
  private async lock(actor: SharingActor, accountId: string, right: AccountRight, tx: Tx): Promise<{ id: string; email: string }> {
    const account = await this.deps.members.lockAccount(accountId, tx);
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    await this.check(actor, accountId, right, tx);
    return account;
  }

  /** A share racing another for the same user is a 409; a user or account deleted meanwhile a 404. */
  private async writing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(SHARE_EXISTS, undefined, 'share_exists');
      if (isForeignKeyViolation(err)) throw new NotFoundError(USER_NOT_FOUND);
      throw err;
    }
  }
}

function actorId(actor: SharingActor): string | null {
  return actor.userId ?? null;
}

/** A viewer reads only (the database says the same in a CHECK). */
function validRights(rights: MemberRights): MemberRights {
  if (rights.role === 'viewer' && rights.canSend) throw new ValidationError('Neplatné údaje', [{ field: 'canSend', message: VIEWER_SENDS }]);
  return rights;
}
