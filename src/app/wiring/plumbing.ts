import type { Sequelize } from 'sequelize';
import type { AppConfig } from '../../config/config.js';
import type { Logger } from '../../logging/logger.js';
import { Sql } from '../../db/sql.js';
import { sequelizeTransactions, type Transactions } from '../../db/transactions.js';
import type { SharedListener } from '../../db/shared-listener.js';
import { SecretBox } from '../../crypto/secret-box.js';
import { AuditRepository } from '../../audit/audit-repository.js';
import { PasswordHasher } from '../../users/password-hasher.js';
import { UserRepository } from '../../users/user-repository.js';
import { SessionRepository } from '../../auth/session-repository.js';
import { ThrottleRepository } from '../../auth/throttle-repository.js';
import { EmailAccountAccess } from '../../email-accounts/account-access.js';
import { EmailAccountRepository } from '../../email-accounts/email-account-repository.js';
import { EmailAccountMemberRepository } from '../../email-accounts/member-repository.js';
import type { FileStorage } from '../../storage/file-storage.js';
import type { EmailRepository } from '../../emails/email-repository.js';
import type { MailStoreRepository } from '../../sync/mail-store-repository.js';
import type { SyncRole } from '../../sync/lease-holder.js';
import type { AddressHasher } from '../../privacy/address-hash.js';
import type { PrivacyHashKeys } from '../../privacy/hash-keys.js';
import type { SuppressionRepository } from '../../privacy/suppression-repository.js';
import type { OutboxRepository } from '../../events/outbox-repository.js';
import { lazyModule } from './lazy-module.js';
import type * as sharedListenerExports from '../../db/shared-listener.js';
import type * as sessionCacheExports from '../../auth/session-cache.js';
import type * as storageFactoryExports from '../../storage/storage-factory.js';
import type * as emailRepositoryExports from '../../emails/email-repository.js';
import type * as mailStoreRepositoryExports from '../../sync/mail-store-repository.js';
import type * as addressHashExports from '../../privacy/address-hash.js';
import type * as suppressionRepositoryExports from '../../privacy/suppression-repository.js';
import type * as hashKeysExports from '../../privacy/hash-keys.js';
import type * as hashKeyRepositoryExports from '../../privacy/hash-key-repository.js';
import type * as outboxRepositoryExports from '../../events/outbox-repository.js';

// Modules only some areas use, loaded with the first part that needs them (ADR 0124).
const shared = lazyModule<typeof sharedListenerExports>(import.meta.url, '../../db/shared-listener.js');
const sessionCache = lazyModule<typeof sessionCacheExports>(import.meta.url, '../../auth/session-cache.js');
const storageFactory = lazyModule<typeof storageFactoryExports>(import.meta.url, '../../storage/storage-factory.js');
const emailRepo = lazyModule<typeof emailRepositoryExports>(import.meta.url, '../../emails/email-repository.js');
const mailStoreRepo = lazyModule<typeof mailStoreRepositoryExports>(import.meta.url, '../../sync/mail-store-repository.js');
const addressHash = lazyModule<typeof addressHashExports>(import.meta.url, '../../privacy/address-hash.js');
const suppressionRepo = lazyModule<typeof suppressionRepositoryExports>(import.meta.url, '../../privacy/suppression-repository.js');
const hashKeys = lazyModule<typeof hashKeysExports>(import.meta.url, '../../privacy/hash-keys.js');
const hashKeyRepo = lazyModule<typeof hashKeyRepositoryExports>(import.meta.url, '../../privacy/hash-key-repository.js');
const outboxRepo = lazyModule<typeof outboxRepositoryExports>(import.meta.url, '../../events/outbox-repository.js');

export interface ServicesOptions {
  runRequestedSyncs?: boolean;
  syncRole?: SyncRole;
}

/**
 * What the areas of the composition root share and nobody outside it sees: the process's config,
 * database and logger, the one cache of built parts, and the repositories and helpers more than one
 * area uses. Each is built on first use (ADR 0113); src/app/wiring/<area>.ts builds an area's
 * services from these, and src/app/services.ts is the public face that names them.
 */
export class Plumbing {
  private readonly parts = new Map<string, unknown>();

  constructor(
    readonly config: AppConfig,
    readonly sequelize: Sequelize,
    readonly logger: Logger,
    readonly options: ServicesOptions,
  ) {}

  /** Builds the part the first time it is asked for; the same instance afterwards. */
  once<T>(name: string, build: () => T): T {
    if (!this.parts.has(name)) this.parts.set(name, build());
    return this.parts.get(name) as T;
  }

  /** Whether a part has been built (shutdown closes only what exists). */
  has(name: string): boolean {
    return this.parts.has(name);
  }

  // One SQL runner and one transaction runner for every repository and service.
  get sql(): Sql {
    return this.once('sql', () => new Sql(this.sequelize));
  }
  get transactions(): Transactions {
    return this.once('transactions', () => sequelizeTransactions(this.sequelize));
  }
  get throttles(): ThrottleRepository {
    return this.once('throttles', () => new ThrottleRepository(this.sql));
  }
  /** Where every stored file lives (CRM_STORAGE: the data directory or an S3 bucket, src/storage). */
  get storage(): FileStorage {
    return this.once('fileStorage', () => storageFactory().createFileStorage(this.config.storage, this.config.dataDir));
  }
  get secretBox(): SecretBox {
    return this.once('secretBox', () => new SecretBox(this.config.secrets.encryptionKey, this.config.secrets.oldEncryptionKeys));
  }
  /** The one LISTEN connection of the process (session cache and event hub), opened on first use. */
  get listener(): SharedListener {
    return this.once('listener', () => new (shared().SharedListener)(this.sequelize, [outboxRepo().EVENTS_CHANNEL, sessionCache().AUTH_CHANGE_CHANNEL], this.logger));
  }
  get hasher(): PasswordHasher {
    return this.once('hasher', () => new PasswordHasher(this.config.bcryptRounds));
  }

  // Repositories that several areas read.
  get auditRepository(): AuditRepository {
    return this.once('auditRepository', () => new AuditRepository(this.sql));
  }
  get userRepository(): UserRepository {
    return this.once('userRepository', () => new UserRepository());
  }
  get sessionRepository(): SessionRepository {
    return this.once('sessionRepository', () => new SessionRepository(this.sql));
  }
  get emailAccountRepository(): EmailAccountRepository {
    return this.once('emailAccountRepository', () => new EmailAccountRepository());
  }
  get memberRepository(): EmailAccountMemberRepository {
    return this.once('memberRepository', () => new EmailAccountMemberRepository(this.sql));
  }
  /** Who may do what on an account (own or shared): one answer for every area. */
  get accountAccess(): EmailAccountAccess {
    return this.once('accountAccess', () => new EmailAccountAccess(this.memberRepository));
  }
  get emailRepository(): EmailRepository {
    return this.once('emailRepository', () => new (emailRepo().EmailRepository)(this.sql));
  }
  get mailStore(): MailStoreRepository {
    return this.once('mailStore', () => new (mailStoreRepo().MailStoreRepository)(this.sql));
  }
  /** Erased addresses: what the sync must not store and what privacy erases (src/privacy). */
  get addressHasher(): AddressHasher {
    return this.once('addressHasher', () => new (addressHash().AddressHasher)(this.config.secrets.encryptionKey, this.config.secrets.oldEncryptionKeys));
  }
  /** The keys erasures are hashed under, those carried from another installation's archive included (ADR 0161). */
  get privacyHashKeys(): PrivacyHashKeys {
    return this.once(
      'privacyHashKeys',
      () =>
        new (hashKeys().PrivacyHashKeys)({
          repository: new (hashKeyRepo().HashKeyRepository)(this.sql),
          secretBox: this.secretBox,
          encryptionKey: this.config.secrets.encryptionKey,
          oldKeys: this.config.secrets.oldEncryptionKeys,
          logger: this.logger,
        }),
    );
  }
  get suppressions(): SuppressionRepository {
    return this.once('suppressions', () => new (suppressionRepo().SuppressionRepository)(this.sql));
  }
  get outbox(): OutboxRepository {
    return this.once('outbox', () => new (outboxRepo().OutboxRepository)(this.sql));
  }
}
