import type { AuditService } from '../../audit/audit-service.js';
import { BackupRepository } from '../../backup/backup-repository.js';
import { BackupService } from '../../backup/backup-service.js';
import { StorageRestorer } from '../../backup/file-restorer.js';
import { RestoreService } from '../../backup/restore-service.js';
import { backupKeys } from '../../backup/signing.js';
import { EventHub } from '../../events/event-hub.js';
import { EventMetrics } from '../../events/event-metrics.js';
import { OutboxPruner } from '../../events/outbox-pruner.js';
import { MaintenanceRepository } from '../../maintenance/maintenance-repository.js';
import { RetentionService } from '../../maintenance/retention-service.js';
import { AppMetrics } from '../../metrics/metrics.js';
import { EmailRetention } from '../../privacy/email-retention.js';
import { EmailRetentionRepository } from '../../privacy/email-retention-repository.js';
import { ErasureRepository } from '../../privacy/erasure-repository.js';
import { ExportRepository } from '../../privacy/export-repository.js';
import { PrivacyService } from '../../privacy/privacy-service.js';
import type { SyncService } from '../../sync/sync-service.js';
import { DeliveryRepository } from '../../webhooks/delivery-repository.js';
import { parsePrivateAllowList } from '../../webhooks/webhook-address.js';
import { WebhookDeliveryJob } from '../../webhooks/webhook-delivery-job.js';
import { WebhookRepository } from '../../webhooks/webhook-repository.js';
import { WebhookSender } from '../../webhooks/webhook-sender.js';
import { WebhookService } from '../../webhooks/webhook-service.js';
import { OrphanSweep } from '../../storage/orphan-sweep.js';
import { createFileStorage } from '../../storage/storage-factory.js';
import { StorageService } from '../../storage/storage-service.js';
import { StoredFileRepository } from '../../storage/stored-file-repository.js';
import type { Plumbing } from './plumbing.js';

// Running the service: metrics, backup and restore, retention and privacy, live updates.

interface Audited {
  audit: AuditService;
}

/** Per instance (not prom-client's global registry): HTTP middleware and mail sync both record here. */
export function metrics(s: { readonly mailSync: SyncService }): AppMetrics {
  const built = new AppMetrics();
  // Read at each scrape: the sync of a serving instance exists by then.
  built.observeSync(() => s.mailSync.snapshot());
  return built;
}

function backupRepository(p: Plumbing): BackupRepository {
  return p.once('backupRepository', () => new BackupRepository(p.sequelize));
}

function encryptionKeys(p: Plumbing) {
  return backupKeys({ current: p.config.secrets.encryptionKey, old: p.config.secrets.oldEncryptionKeys }, p.config.backupSigning);
}

export function backup(p: Plumbing, s: Audited): BackupService {
  return new BackupService({ repository: backupRepository(p), storage: p.storage, audit: s.audit, keys: encryptionKeys(p), hashKeys: p.privacyHashKeys, logger: p.logger });
}

export function restore(p: Plumbing, s: Audited): RestoreService {
  return new RestoreService({
    repository: backupRepository(p),
    files: new StorageRestorer(p.storage, p.config.dataDir),
    audit: s.audit,
    keys: encryptionKeys(p),
    hashKeys: p.privacyHashKeys,
    logger: p.logger,
  });
}

/** Stored files for the operator (src/storage): migrate-storage and the orphan sweep. */
export function storage(p: Plumbing, s: Audited): StorageService {
  return new StorageService({
    storage: p.storage,
    storageOfKind: (kind) => createFileStorage(p.config.storage, p.config.dataDir, kind),
    sweep: new OrphanSweep({ storage: p.storage, files: new StoredFileRepository(p.sql), logger: p.logger, graceMs: p.config.storage.sweepGraceMs }),
    audit: s.audit,
  });
}

export function retention(p: Plumbing, s: Audited & { storage: StorageService }): RetentionService {
  return new RetentionService({
    transactions: p.transactions,
    maintenance: new MaintenanceRepository(p.sql),
    sessions: p.sessionRepository,
    auditRecords: p.auditRepository,
    throttles: p.throttles,
    audit: s.audit,
    logger: p.logger,
    auditRetentionDays: p.config.auditRetentionDays,
    emails: new EmailRetention(new EmailRetentionRepository(p.sql), p.transactions, p.config.emailRetention),
    storedFiles: s.storage,
  });
}

export function privacy(p: Plumbing, s: Audited): PrivacyService {
  return new PrivacyService({
    erasure: new ErasureRepository(p.sql),
    exports: new ExportRepository(p.sql),
    suppressions: p.suppressions,
    hasher: p.addressHasher,
    transactions: p.transactions,
    audit: s.audit,
    logger: p.logger,
  });
}

/**
 * Live updates (GET /api/events): the database fills the outbox (migration 0021); the hub of an API
 * process follows it. Sessions are checked in the database, never in the session cache: a stream
 * ends on the very notification that evicts the cache.
 */
export function events(p: Plumbing, s: { metrics: AppMetrics }): EventHub {
  return new EventHub({
    outbox: p.outbox,
    memberships: (userId) => p.memberRepository.membershipsOf(userId),
    session: async (sessionId, userId) => {
      const found = await p.sessionRepository.findActiveWithUser(sessionId, userId);
      return found && found.user.changedPassword ? { expiresAt: found.sessionExpiresAt } : undefined;
    },
    listen: (channels, handlers) => p.listener.subscribe(channels, handlers),
    metrics: (openStreams) => new EventMetrics(s.metrics, openStreams),
    logger: p.logger,
    maxStreamsPerUser: p.config.eventsMaxStreamsPerUser,
  });
}

export function outboxPruner(p: Plumbing): OutboxPruner {
  return new OutboxPruner(p.outbox, p.logger);
}

/** Signed webhooks (src/webhooks): the admin routes' service. */
export function webhooks(p: Plumbing, s: Audited): WebhookService {
  return new WebhookService({
    webhooks: new WebhookRepository(p.sql),
    deliveries: new DeliveryRepository(p.sql),
    transactions: p.transactions,
    audit: s.audit,
    secretBox: p.secretBox,
    allow: parsePrivateAllowList(p.config.webhooks.allowedPrivateHosts),
  });
}

/** The delivery job every serve runs each second (docs/adr/0134-webhooks.md). */
export function webhookDelivery(p: Plumbing): WebhookDeliveryJob {
  return new WebhookDeliveryJob({
    webhooks: new WebhookRepository(p.sql),
    deliveries: new DeliveryRepository(p.sql),
    transactions: p.transactions,
    secretBox: p.secretBox,
    sender: new WebhookSender(parsePrivateAllowList(p.config.webhooks.allowedPrivateHosts)),
    retrySchedule: p.config.webhooks.retrySchedule,
    logger: p.logger,
  });
}
