import os from 'node:os';
import path from 'node:path';
import { envSchema, type RawEnv } from './env-schema.js';
import { resolveSecretSources } from './secret-sources.js';
import { isGuessableSecret } from './secret-strength.js';
import { loadOrCreateDevSecrets, type Secrets } from './secrets.js';
import { stdoutIsJournal } from '../logging/journal.js';

/** Timesheet upload limits (issue 13: a member must not be able to fill the disk). */
export interface UploadLimits {
  quotaFiles: number;
  quotaBytes: number;
  uploadsPerHour: number;
  /** Free bytes kept on the storage's disk; uploads below it are refused. */
  reserveBytes: number;
}

/** One S3 bucket (CRM_S3_*): set only when its bucket and both keys are. */
export interface S3Settings {
  /** Unset: AWS itself (the region's endpoint). */
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** CRM_STORAGE and what it needs (src/storage). */
export interface StorageSettings {
  kind: 'local' | 's3';
  /** The bucket's settings when they are complete (also with kind local: migrate-storage's target). */
  s3?: S3Settings;
  /** STORAGE_SWEEP_GRACE_HOURS, in milliseconds. */
  sweepGraceMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Neplatná konfigurácia:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The one validated view of the environment. Everything else reads configuration from here,
 * never from process.env, so a typo in a variable fails at start and not at 3 a.m.
 */
export class AppConfig {
  readonly env: RawEnv['NODE_ENV'];
  readonly port: number;
  readonly host: string;
  readonly databaseUrl?: string;
  /** How long serve waits for the database at DATABASE_URL (DATABASE_WAIT_SECONDS). */
  readonly databaseWaitSeconds: number;
  /** The pool size of a service process (DATABASE_POOL_MAX); commands use a small pool of their own. */
  readonly databasePoolMax: number;
  /** Where the LISTEN connection goes when not to databaseUrl (DATABASE_LISTEN_URL: PgBouncer in transaction mode). */
  readonly databaseListenUrl?: string;
  /** The schema's owner, for migrations and restores (DATABASE_OWNER_URL); unset: databaseUrl's role owns it. */
  readonly databaseOwnerUrl?: string;
  /** statement_timeout of every session (DATABASE_STATEMENT_TIMEOUT_MS). */
  readonly databaseStatementTimeoutMs: number;
  /** The client-side timeout of a query (DATABASE_QUERY_TIMEOUT_MS), longer than the statement timeout. */
  readonly databaseQueryTimeoutMs: number;
  readonly dataDir: string;
  readonly jmapSessionUrl?: string;
  readonly jmapTimeoutMs: number;
  readonly secrets: Secrets;
  /** Each account's polling period (SYNC_INTERVAL), in seconds. */
  readonly syncIntervalSeconds: number;
  /** Accounts synced at once by this process (SYNC_CONCURRENCY). */
  readonly syncConcurrency: number;
  /** When set, the scheduler looks for due accounts only at these times (SYNC_CRON). */
  readonly syncCron?: string;
  /** The web app's origins (CORS_ORIGIN, comma-separated): CORS with credentials and the CSRF check allow them. */
  readonly corsOrigins: readonly string[];
  /** The first of corsOrigins (kept for callers that know one origin). */
  readonly corsOrigin?: string;
  readonly bcryptRounds: number;
  readonly logLevel: string;
  readonly cliLogLevel: string;
  /** Prefix log lines with their syslog priority (LOG_FORMAT / LOG_SYSLOG_PREFIX / JOURNAL_STREAM). */
  readonly logSyslogPrefix: boolean;
  readonly errorStacks: boolean;
  readonly tempPasswordTtlDays: number;
  readonly trustProxy: number;
  readonly metricsPath: string;
  /** Addresses/CIDR ranges allowed to scrape metrics; empty = endpoint off. */
  readonly metricsAllow: string[];
  readonly shutdownTimeoutMs: number;
  readonly sending: {
    maxTotalBytes: number;
    rateLimit: number;
    rateWindowSeconds: number;
    uploadBudgetMb: number;
    uploadsPerUser: number;
    uploadsTotal: number;
  };
  readonly attachmentDownloads: { perUser: number; total: number; idleTimeoutMs: number };
  /** Searches and exports in progress at once per user in this process (issue 52 finding 13). */
  readonly expensiveRequestsPerUser: number;
  /** HTML bodies: per-user renders in progress, bytes per page, the cleaning's time budget, worker threads (ADR 0162). */
  readonly htmlRendering: { perUser: number; pageMaxBytes: number; timeoutMs: number; threads: number };
  readonly uploadLimits: UploadLimits;
  /** Where stored files live (CRM_STORAGE, CRM_S3_*). */
  readonly storage: StorageSettings;
  readonly auditRetentionDays: number;
  /** EMAIL_RETENTION_DAYS (undefined: emails are kept forever) and what happens to contacts it empties. */
  readonly emailRetention: { days?: number; deleteEmptyContacts: boolean };
  /** Open live-update streams per user per instance (EVENTS_MAX_STREAMS_PER_USER). */
  readonly eventsMaxStreamsPerUser: number;
  /** FOLLOW_UP_CHECK_SECONDS: the period of the due follow-up check of every serve. */
  readonly followUpCheckSeconds: number;
  /** WEBHOOK_RETRY_SCHEDULE and WEBHOOK_ALLOWED_PRIVATE_HOSTS (src/webhooks). */
  readonly webhooks: { retrySchedule: number[]; allowedPrivateHosts: string };
  /** BACKUP_SIGNING_KEY and BACKUP_SIGNING_KEYS_RETIRED (src/backup/signing.ts). */
  readonly backupSigning: { current?: string; retired: string[] };

  private constructor(raw: RawEnv, secrets: Secrets) {
    this.env = raw.NODE_ENV;
    this.port = raw.PORT;
    this.host = raw.HOST;
    this.databaseUrl = raw.DATABASE_URL;
    this.databaseWaitSeconds = raw.DATABASE_WAIT_SECONDS;
    this.databasePoolMax = raw.DATABASE_POOL_MAX;
    this.databaseListenUrl = raw.DATABASE_LISTEN_URL;
    this.databaseOwnerUrl = raw.DATABASE_OWNER_URL;
    this.databaseStatementTimeoutMs = raw.DATABASE_STATEMENT_TIMEOUT_MS;
    this.databaseQueryTimeoutMs = raw.DATABASE_QUERY_TIMEOUT_MS;
    this.dataDir = path.resolve(raw.CRM_DATA_DIR);
    this.jmapSessionUrl = raw.JMAP_SESSION_URL;
    this.jmapTimeoutMs = raw.JMAP_TIMEOUT_MS;
    this.secrets = secrets;
    this.syncIntervalSeconds = raw.SYNC_INTERVAL;
    this.syncConcurrency = raw.SYNC_CONCURRENCY;
    this.syncCron = raw.SYNC_CRON;
    this.corsOrigins = raw.CORS_ORIGIN ?? [];
    this.corsOrigin = this.corsOrigins[0];
    this.bcryptRounds = raw.BCRYPT_ROUNDS;
    this.logLevel = raw.LOG_LEVEL;
    this.cliLogLevel = raw.CLI_LOG_LEVEL;
    this.logSyslogPrefix = raw.LOG_SYSLOG_PREFIX || (raw.LOG_FORMAT === 'auto' ? stdoutIsJournal(process.env.JOURNAL_STREAM) : raw.LOG_FORMAT === 'journald');
    this.errorStacks = raw.ERROR_STACKS;
    this.tempPasswordTtlDays = raw.TEMP_PASSWORD_TTL_DAYS;
    this.trustProxy = raw.TRUST_PROXY;
    this.metricsPath = raw.METRICS_PATH;
    this.metricsAllow = raw.METRICS_ALLOW;
    this.shutdownTimeoutMs = raw.SHUTDOWN_TIMEOUT_MS;
    this.sending = {
      maxTotalBytes: raw.SEND_MAX_TOTAL_BYTES,
      rateLimit: raw.SEND_RATE_LIMIT,
      rateWindowSeconds: raw.SEND_RATE_WINDOW_SECONDS,
      uploadBudgetMb: raw.SEND_UPLOAD_BUDGET_MB,
      uploadsPerUser: raw.SEND_UPLOADS_PER_USER,
      uploadsTotal: raw.SEND_UPLOADS_TOTAL,
    };
    this.expensiveRequestsPerUser = raw.EXPENSIVE_REQUESTS_PER_USER;
    this.htmlRendering = {
      perUser: raw.HTML_RENDERS_PER_USER,
      pageMaxBytes: raw.HTML_PAGE_MAX_BYTES,
      timeoutMs: raw.HTML_RENDER_TIMEOUT_MS,
      threads: raw.HTML_RENDER_THREADS || Math.max(1, os.availableParallelism() - 1),
    };
    this.attachmentDownloads = {
      perUser: raw.ATTACHMENT_DOWNLOADS_PER_USER,
      total: raw.ATTACHMENT_DOWNLOADS_TOTAL,
      idleTimeoutMs: raw.ATTACHMENT_IDLE_TIMEOUT_MS,
    };
    const MB = 1024 * 1024;
    this.uploadLimits = {
      quotaFiles: raw.TIMESHEET_QUOTA_FILES,
      quotaBytes: raw.TIMESHEET_QUOTA_MB * MB,
      uploadsPerHour: raw.TIMESHEET_UPLOADS_PER_HOUR,
      reserveBytes: raw.STORAGE_RESERVE_MB * MB,
    };
    this.storage = storageSettings(raw);
    this.auditRetentionDays = raw.AUDIT_RETENTION_DAYS;
    this.emailRetention = { days: raw.EMAIL_RETENTION_DAYS, deleteEmptyContacts: raw.EMAIL_RETENTION_DELETE_EMPTY_CONTACTS };
    this.eventsMaxStreamsPerUser = raw.EVENTS_MAX_STREAMS_PER_USER;
    this.followUpCheckSeconds = raw.FOLLOW_UP_CHECK_SECONDS;
    this.webhooks = { retrySchedule: raw.WEBHOOK_RETRY_SCHEDULE, allowedPrivateHosts: raw.WEBHOOK_ALLOWED_PRIVATE_HOSTS };
    this.backupSigning = {
      current: raw.BACKUP_SIGNING_KEY,
      retired: (raw.BACKUP_SIGNING_KEYS_RETIRED ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    };
  }

  get isProduction(): boolean {
    return this.env === 'production';
  }

  get isDevelopment(): boolean {
    return this.env === 'development';
  }

  get timesheetDir(): string {
    return path.join(this.dataDir, 'timesheets');
  }

  /**
   * Validates everything at once and throws a ConfigError listing every problem. `createDevSecrets:
   * false` (doctor) never writes the generated dev secrets: the data directory stays as it is.
   */
  static fromEnv(input: NodeJS.ProcessEnv = process.env, options: { createDevSecrets?: boolean } = {}): AppConfig {
    // Secrets may come from files (NAME_FILE, systemd credentials): read first, checked like the rest.
    const { env, problems } = resolveSecretSources(input);
    const parsed = envSchema.safeParse(env);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(`${issue.path.join('.') || '(env)'}: ${issue.message}`);
      }
    }
    if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
    const raw = parsed.data;
    const given = {
      jwtAccess: raw.JWT_ACCESS_SECRET,
      jwtRefresh: raw.JWT_REFRESH_SECRET,
      encryptionKey: raw.CRM_ENCRYPTION_KEY,
    };
    problems.push(...secretProblems(raw.NODE_ENV === 'production', given));
    // The server cancels a slow statement (57014, the connection stays); the client's timeout is for no answer at all.
    if (raw.DATABASE_QUERY_TIMEOUT_MS <= raw.DATABASE_STATEMENT_TIMEOUT_MS) {
      problems.push('DATABASE_QUERY_TIMEOUT_MS: musí byť dlhší ako DATABASE_STATEMENT_TIMEOUT_MS');
    }
    problems.push(...databaseRoleProblems(raw), ...storageProblems(raw));
    if (problems.length > 0) throw new ConfigError(problems);

    const secrets =
      given.jwtAccess && given.jwtRefresh && given.encryptionKey
        ? toSecrets(given.jwtAccess, given.jwtRefresh, given.encryptionKey)
        : loadOrCreateDevSecrets(path.resolve(raw.CRM_DATA_DIR), given, { create: options.createDevSecrets });
    const oldKeys = (raw.CRM_ENCRYPTION_OLD_KEYS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map(decodeKey);
    return new AppConfig(raw, { ...secrets, oldEncryptionKeys: oldKeys });
  }
}

const S3_REQUIRED = ['CRM_S3_BUCKET', 'CRM_S3_ACCESS_KEY_ID', 'CRM_S3_SECRET_ACCESS_KEY'] as const;

/** The embedded database has its owner role already (crm_owner): an owner URL without DATABASE_URL is a mistake. */
function databaseRoleProblems(raw: { DATABASE_URL?: string; DATABASE_OWNER_URL?: string }): string[] {
  return raw.DATABASE_OWNER_URL && !raw.DATABASE_URL ? ['DATABASE_OWNER_URL: platí len spolu s DATABASE_URL (vstavaná databáza má vlastnú rolu vlastníka)'] : [];
}

/** The bucket, both keys: all three or none (half a bucket is a typo, found at start, not at the first upload). */
function storageProblems(raw: RawEnv): string[] {
  const missing = S3_REQUIRED.filter((name) => raw[name] === undefined);
  if (raw.CRM_STORAGE === 's3' && missing.length > 0) return [`CRM_STORAGE=s3: chýba ${missing.join(', ')}`];
  if (missing.length > 0 && missing.length < S3_REQUIRED.length) return [`CRM_S3_*: nastavte ${S3_REQUIRED.join(', ')} spolu (chýba ${missing.join(', ')})`];
  return [];
}

function storageSettings(raw: RawEnv): StorageSettings {
  const { CRM_S3_BUCKET: bucket, CRM_S3_ACCESS_KEY_ID: accessKeyId, CRM_S3_SECRET_ACCESS_KEY: secretAccessKey } = raw;
  const s3 =
    bucket !== undefined && accessKeyId !== undefined && secretAccessKey !== undefined
      ? { endpoint: raw.CRM_S3_ENDPOINT, bucket, region: raw.CRM_S3_REGION, accessKeyId, secretAccessKey }
      : undefined;
  return { kind: raw.CRM_STORAGE, s3, sweepGraceMs: raw.STORAGE_SWEEP_GRACE_HOURS * 3600 * 1000 };
}

/** Secrets missing in production, guessable ones there, and a refresh secret equal to the access one anywhere. */
function secretProblems(production: boolean, given: { jwtAccess?: string; jwtRefresh?: string; encryptionKey?: string }): string[] {
  const problems: string[] = [];
  if (production) {
    if (!given.jwtAccess) problems.push('JWT_ACCESS_SECRET: povinné v produkcii');
    if (!given.jwtRefresh) problems.push('JWT_REFRESH_SECRET: povinné v produkcii');
    if (!given.encryptionKey) problems.push('CRM_ENCRYPTION_KEY: povinné v produkcii');
    problems.push(...guessableSecretProblems(given));
  }
  if (given.jwtAccess && given.jwtAccess === given.jwtRefresh) {
    problems.push('JWT_REFRESH_SECRET: musí sa líšiť od JWT_ACCESS_SECRET');
  }
  return problems;
}

/**
 * Production refuses secrets a person typed ("aaaa…", "changeme-changeme-…"): whoever guesses a JWT
 * secret signs tokens of any user, whoever guesses the key reads the mail passwords. The rule is in
 * secret-strength.ts; development and test keep whatever they are given (their generated secrets pass).
 */
function guessableSecretProblems(given: { jwtAccess?: string; jwtRefresh?: string; encryptionKey?: string }): string[] {
  const checked: Array<[string, string | undefined, string]> = [
    ['JWT_ACCESS_SECRET', given.jwtAccess, 'openssl rand -base64 48'],
    ['JWT_REFRESH_SECRET', given.jwtRefresh, 'openssl rand -base64 48'],
    ['CRM_ENCRYPTION_KEY', given.encryptionKey, 'openssl rand -base64 32'],
  ];
  return checked
    .filter(([, value]) => value !== undefined && isGuessableSecret(value))
    .map(([name, , command]) => `${name}: ľahko uhádnuteľná hodnota (opakujúce sa alebo postupné znaky); vygenerujte náhodnú, napr. \`${command}\``);
}

export function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new ConfigError(['CRM_ENCRYPTION_KEY: musí mať 32 bajtov']);
  return key;
}

function toSecrets(jwtAccess: string, jwtRefresh: string, encryptionKey: string): Secrets {
  return { jwtAccessSecret: jwtAccess, jwtRefreshSecret: jwtRefresh, encryptionKey: decodeKey(encryptionKey), oldEncryptionKeys: [] };
}
