import type * as PromClient from 'prom-client';
import type { Gauge } from 'prom-client';
import { releaseVersion } from '../shared/release-version.js';
import { lazyRequire } from '../shared/lazy-require.js';

/** Loaded when an instance first builds its metrics (ADR 0113): a crm-admin command never does. */
const prom = lazyRequire<typeof PromClient>('prom-client');

/** Outcome of one account's sync run; `skipped` = another instance holds the account's lease. */
export type SyncRunResult = 'ok' | 'error' | 'auth_failed' | 'skipped';

const SYNC_RESULTS: readonly SyncRunResult[] = ['ok', 'error', 'auth_failed', 'skipped'];
/** The reasons the sync reports (src/sync/sync-errors.ts describeFailure), known before the first failure. */
const SYNC_FAILURE_REASONS = ['auth', 'auth_failed', 'timeout', 'unreachable', 'method', 'protocol', 'config', 'internal'] as const;
const SYNC_ITEM_KINDS = ['email', 'contact'] as const;
const SYNC_STATUSES = ['idle', 'syncing', 'ok', 'error', 'auth_failed'] as const;

/** The cluster's sync state as the gauges show it (src/sync/sync-repository.ts SyncSnapshot). */
interface SyncSnapshot {
  due: number;
  overdue: number;
  byStatus: Record<string, number>;
  leasesHeld: number;
  leasesExpired: number;
  oldestSuccessAgeSeconds: number;
}

/**
 * Every Prometheus metric of one service instance, in a registry of its own: prom-client's global
 * registry would make a second app in the same process (tests, or two contexts) fail on duplicate
 * metric names. Built once per composition root (services.metrics); the HTTP middleware and the mail
 * sync both write here, the metrics endpoint reads it.
 */
export class AppMetrics {
  readonly registry = new (prom().Registry)();

  readonly httpRequests = new (prom().Counter)({
    name: 'crm_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new (prom().Histogram)({
    name: 'crm_http_request_duration_seconds',
    help: 'Time from receiving the request to the end of the response, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** One increment per account sync run. */
  readonly syncRuns = new (prom().Counter)({
    name: 'crm_sync_runs_total',
    help: 'Mail sync runs of one account, by result (ok, error, auth_failed, skipped)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** Failed runs by cause, e.g. unreachable, timeout, auth, cannot_calculate_changes, database. */
  readonly syncFailures = new (prom().Counter)({
    name: 'crm_sync_failures_total',
    help: 'Failed mail sync runs, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly syncDuration = new (prom().Histogram)({
    name: 'crm_sync_run_duration_seconds',
    help: 'Duration of one account sync run, by result',
    labelNames: ['result'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });

  /** Emails and contacts written by the sync (new rows), by kind. */
  readonly syncItems = new (prom().Counter)({
    name: 'crm_sync_items_total',
    help: 'Rows created by the mail sync, by kind (email, contact)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  /** Always 1; the labels say which release on which Node runs (join on it in queries and alerts). */
  readonly buildInfo = new (prom().Gauge)({
    name: 'crm_build_info',
    help: 'Build information of the running service: version of the release and of Node.js; always 1',
    labelNames: ['version', 'node'] as const,
    registers: [this.registry],
  });

  /** Freshness: how long new mail took from the mail server to the CRM's database. */
  readonly syncLag = new (prom().Histogram)({
    name: 'crm_sync_lag_seconds',
    help: "Time from the mail server's receivedAt to the email being stored, for new mail found by incremental runs",
    buckets: [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 300, 900, 3600],
    registers: [this.registry],
  });

  /** Cost: HTTP requests to the JMAP server (an idle check is one). */
  readonly syncJmapRequests = new (prom().Counter)({
    name: 'crm_sync_jmap_requests_total',
    help: 'HTTP requests the mail sync made to the JMAP server',
    registers: [this.registry],
  });

  /*
   * The sync gauges are read from the database when scraped (observeSync), not kept by the process
   * that syncs: every instance, API replica or worker, reports the whole cluster, so a dead worker
   * shows on any of them (due and overdue grow, an expired lease stays).
   */
  readonly syncAccountsDue = this.syncGauge(
    'crm_sync_accounts_due',
    'Active email accounts whose turn has come and that no worker is syncing yet (whole database, read when scraped)',
    (s, g) => g.set(s.due),
  );

  readonly syncAccountsOverdue = this.syncGauge(
    'crm_sync_accounts_overdue',
    'Of the due accounts, those waiting for longer than one SYNC_INTERVAL (workers cannot keep up, or none runs)',
    (s, g) => g.set(s.overdue),
  );

  readonly syncAccounts = this.syncGauge(
    'crm_sync_accounts',
    'Syncable email accounts by sync status (idle, syncing, ok, error, auth_failed), whole database',
    (s, g) => {
      for (const status of SYNC_STATUSES) g.set({ status }, s.byStatus[status] ?? 0);
    },
    ['status'],
  );

  readonly syncLeasesHeld = this.syncGauge('crm_sync_leases_held', 'Accounts a process is syncing right now (live leases), whole database', (s, g) => g.set(s.leasesHeld));

  readonly syncLeasesExpired = this.syncGauge(
    'crm_sync_leases_expired',
    'Leases whose holder stopped renewing them (a crashed or hung worker) and that nobody has taken over yet',
    (s, g) => g.set(s.leasesExpired),
  );

  readonly syncOldestSuccessAge = this.syncGauge(
    'crm_sync_oldest_success_age_seconds',
    'Seconds since the least recently synced account last synced successfully (0 before any success)',
    (s, g) => g.set(s.oldestSuccessAgeSeconds),
  );

  private syncSource?: () => Promise<SyncSnapshot>;
  /** One database read per scrape, shared by the gauges prom-client collects together. */
  private pendingSnapshot?: Promise<SyncSnapshot | undefined>;

  constructor() {
    prom().collectDefaultMetrics({ register: this.registry });
    // prom-client's nodejs_active_{handles,requests,resources}_total are gauges named like counters
    // (promtool check metrics: "non-counter metrics should not have _total suffix"); their per-type
    // versions without the suffix (nodejs_active_handles{type=...}) stay and carry the same numbers.
    for (const metric of this.registry.getMetricsAsArray()) {
      const { name, type } = metric as unknown as { name: string; type: string };
      if (name.endsWith('_total') && type !== 'counter') this.registry.removeSingleMetric(name);
    }
    this.buildInfo.set({ version: releaseVersion(), node: process.versions.node }, 1);
    // Every known label value has a sample from the start: rate() and absent() alerts need a 0 before
    // the first run, not a series that appears with its first increment.
    for (const result of SYNC_RESULTS) {
      this.syncRuns.inc({ result }, 0);
      this.syncDuration.zero({ result });
    }
    for (const reason of SYNC_FAILURE_REASONS) this.syncFailures.inc({ reason }, 0);
    for (const kind of SYNC_ITEM_KINDS) this.syncItems.inc({ kind }, 0);
  }

  /** Where the crm_sync_* gauges read the cluster's state (SyncService.snapshot); wired in src/app/wiring/operations.ts. */
  observeSync(source: () => Promise<SyncSnapshot>): void {
    this.syncSource = source;
  }

  private syncGauge<L extends string = never>(name: string, help: string, apply: (s: SyncSnapshot, g: Gauge<L>) => void, labelNames: readonly L[] = []): Gauge<L> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect with the gauge as `this`
    const metrics = this;
    return new (prom().Gauge)<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const snapshot = await metrics.readSnapshot();
        if (snapshot) apply(snapshot, this);
      },
    });
  }

  private readSnapshot(): Promise<SyncSnapshot | undefined> {
    if (!this.syncSource) return Promise.resolve(undefined);
    this.pendingSnapshot ??= this.syncSource()
      .catch(() => undefined) // the database is down: the gauges keep their last values, /ready says why
      .finally(() => setImmediate(() => (this.pendingSnapshot = undefined)));
    return this.pendingSnapshot;
  }

  /** Convenience for the sync: counts the run, its duration and (when it failed) its reason at once. */
  recordSyncRun(result: SyncRunResult, seconds: number, failureReason?: string): void {
    this.syncRuns.inc({ result });
    this.syncDuration.observe({ result }, seconds);
    if (result === 'error' || result === 'auth_failed') this.syncFailures.inc({ reason: failureReason ?? result });
  }

  /** Starts a timer; call the returned function with the result when the run ends. */
  startSyncRun(): (result: SyncRunResult, failureReason?: string) => void {
    const started = process.hrtime.bigint();
    return (result, failureReason) => this.recordSyncRun(result, Number(process.hrtime.bigint() - started) / 1e9, failureReason);
  }
}
