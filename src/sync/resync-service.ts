/**
 * `crm-admin sync resync`: reads an account's mail from the server again, so that mail synced before
 * a release added columns gets them (resync-pass.ts says what is refreshed and what is kept). It holds
 * the account's sync lease for the whole pass, so the scheduled sync of that account waits for it and
 * it never runs beside one; a lease held elsewhere is a refusal, not a wait. Progress lives in
 * resync_progress (resync-repository.ts): a stopped pass resumes, a finished one starts over only when
 * asked. Each account's run is one audit record (sync.resync) with its counts.
 */
import { AuditActions, type AuditService } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import { NotFoundError } from '../errors/app-errors.js';
import type { JmapClient } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccount } from '../models/index.js';
import type { RequestMeta } from '../shared/request-meta.js';
import { ACCOUNT_NOT_FOUND } from '../email-accounts/account-access.js';
import { AccountLease } from './account-lease.js';
import { BatchWriter } from './batch-writer.js';
import { describeHolder, newInstanceId } from './lease-holder.js';
import type { MailStoreRepository } from './mail-store-repository.js';
import { resyncPass, type PassStats, type ResyncPacing, type ResyncPageEvent } from './resync-pass.js';
import type { ResyncRepository } from './resync-repository.js';
import { describeFailure } from './sync-errors.js';
import type { SyncRepository } from './sync-repository.js';
import type { MailAdmission } from './sync-types.js';

export type { ResyncPacing, ResyncPageEvent } from './resync-pass.js';

export interface ResyncDeps {
  repository: SyncRepository;
  mailStore: MailStoreRepository;
  progress: ResyncRepository;
  transactions: Transactions;
  clientFor: (account: EmailAccount) => JmapClient;
  /** Erased addresses and retention: what the writer must not store (src/privacy). */
  admission?: MailAdmission;
  audit: AuditService;
  logger: Logger;
  /** The lease's length; every page renews it, and a pause is shorter (see the command's limits). */
  leaseSeconds?: number;
  /** SYNC_INTERVAL, which the lease needs to know (only the scheduled sync's outcome uses it). */
  intervalSeconds: number;
}

/** finished: reached the end; paused: --max-pages; interrupted: a signal; already_finished: nothing to do without --restart. */
export type ResyncOutcome = 'finished' | 'paused' | 'interrupted' | 'already_finished' | 'refused' | 'error';

export interface ResyncResult extends PassStats {
  accountId: string;
  email: string | null;
  outcome: ResyncOutcome;
  /** This run continued a pass an earlier run had begun. */
  resumed: boolean;
  /** The whole pass so far (earlier runs included). */
  pagesDone: number;
  emailsDone: number;
  startedAt: string | null;
  finishedAt: string | null;
  /** Stored emails without the address lists (Cc, Reply-To) before and after this run. */
  withoutAddresses: { before: number; after: number } | null;
  /** Why it was refused or failed. */
  reason?: string;
}

export interface ResyncOptions {
  restart?: boolean;
  pacing: ResyncPacing;
  /** Ctrl-C / SIGTERM: the run stops after the page in progress (committed) and gives the lease back. */
  signal: AbortSignal;
  onPage?: (event: ResyncPageEvent) => void;
}

const NO_STATS: PassStats = { pages: 0, fetched: 0, stored: 0, emailsCreated: 0, deleted: 0, contactsCreated: 0 };

export class ResyncService {
  private readonly owner = newInstanceId('cli');

  constructor(private readonly deps: ResyncDeps) {}

  /** Every active account, one after the other (not at once: the point is not to flood the server). */
  async resyncAll(options: ResyncOptions, meta: RequestMeta): Promise<ResyncResult[]> {
    await this.deps.repository.ensureStateRows();
    const results: ResyncResult[] = [];
    for (const accountId of await this.deps.repository.activeAccountIds(false)) {
      if (options.signal.aborted) break;
      results.push(await this.resyncAccount(accountId, options, meta));
    }
    return results;
  }

  async resyncAccount(accountId: string, options: ResyncOptions, meta: RequestMeta): Promise<ResyncResult> {
    const { deps } = this;
    const lease = await AccountLease.acquire(deps, accountId, this.owner, {
      leaseSeconds: deps.leaseSeconds ?? 120,
      schedule: { intervalMs: deps.intervalSeconds * 1000 },
      dueOnly: false,
    });
    if (!(lease instanceof AccountLease)) {
      if (lease.refused === 'the email account does not exist') throw new NotFoundError(ACCOUNT_NOT_FOUND);
      // Refused: nothing changed, nothing to audit.
      return { ...blank(accountId, null, 'refused'), reason: lease.refused };
    }
    if (lease.takenOver) {
      const { holder, expiredAt } = lease.takenOver;
      deps.logger.warn('mail sync lease taken over', { accountId, from: holder, fromHolder: describeHolder(holder), expiredAt, by: lease.owner });
    }
    let ran: PassRun;
    try {
      ran = await this.pass(lease, options);
    } finally {
      // The sync's status stays as it was; the account is due again at once, so its next sync replays what changed meanwhile.
      await lease.finish({ outcome: 'released' });
    }
    return this.report(lease.account, ran, meta);
  }

  /** The pass under the lease; a failure is an outcome (pages committed before it stay, with their progress). */
  private async pass(lease: AccountLease, options: ResyncOptions): Promise<PassRun> {
    const { deps } = this;
    const accountId = lease.account.id;
    const ran: PassRun = { outcome: 'error', counts: { ...NO_STATS }, resumed: false, before: null };
    try {
      const start = await deps.progress.begin(accountId, lease.account.jmapAccountId, options.restart === true);
      ran.resumed = start.resumed;
      if (start.finishedAt !== null) return { ...ran, outcome: 'already_finished' };
      ran.before = await deps.progress.emailsWithoutAddresses(accountId);
      const writer = new BatchWriter(deps.mailStore, deps.transactions, lease, deps.admission?.forRun());
      const context = { lease, client: deps.clientFor(lease.account), writer, progress: deps.progress, logger: deps.logger, signal: options.signal, onPage: options.onPage };
      ran.outcome = await resyncPass({ ...context, stats: ran.counts }, start, options.pacing);
    } catch (err) {
      // Aborted requests fail in their own ways: the signal is what stopped them.
      if (options.signal.aborted) ran.outcome = 'interrupted';
      else {
        deps.logger.warn('mail resync failed', { accountId, err });
        ran.reason = describeFailure(err).message;
      }
    }
    return ran;
  }

  /** The result with the pass's totals as stored, one log line and the audit record (sync.resync). */
  private async report(account: EmailAccount, ran: PassRun, meta: RequestMeta): Promise<ResyncResult> {
    const { deps } = this;
    const progress = await deps.progress.current(account.id);
    const after = ran.before === null ? null : await deps.progress.emailsWithoutAddresses(account.id);
    const result: ResyncResult = {
      ...blank(account.id, account.email, ran.outcome),
      ...ran.counts,
      resumed: ran.resumed,
      pagesDone: progress?.pagesDone ?? 0,
      emailsDone: progress?.emailsDone ?? 0,
      startedAt: progress?.startedAt.toISOString() ?? null,
      finishedAt: progress?.finishedAt?.toISOString() ?? null,
      withoutAddresses: ran.before === null ? null : { before: ran.before, after: after! },
      reason: ran.reason,
    };
    const { outcome, resumed, pages, fetched, stored, emailsCreated, deleted, contactsCreated, pagesDone, withoutAddresses, reason } = result;
    deps.logger.info('mail resync run', { accountId: account.id, outcome, pages, fetched, stored, pagesDone, resumed });
    // A pass finished earlier and not restarted read and wrote nothing: no record.
    if (outcome === 'already_finished') return result;
    await deps.audit.record(
      {
        action: AuditActions.syncResync,
        success: outcome !== 'error',
        details: { emailAccountId: account.id, outcome, resumed, pages, fetched, stored, emailsCreated, deleted, contactsCreated, pagesDone, withoutAddresses, reason },
      },
      meta,
    );
    return result;
  }
}

/** What one pass under the lease did. */
interface PassRun {
  outcome: ResyncOutcome;
  counts: PassStats;
  resumed: boolean;
  /** Emails without address lists when the pass began (null: it did not begin). */
  before: number | null;
  reason?: string;
}

function blank(accountId: string, email: string | null, outcome: ResyncOutcome): ResyncResult {
  return { accountId, email, outcome, resumed: false, ...NO_STATS, pagesDone: 0, emailsDone: 0, startedAt: null, finishedAt: null, withoutAddresses: null };
}
