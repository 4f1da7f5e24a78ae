import { z } from 'zod';
import type NodeCron from 'node-cron';
import { lazyRequire } from '../shared/lazy-require.js';
import { DEFAULT_METRICS_ALLOW, parseAllowList } from '../shared/ip-allow-list.js';
// Configuration problems are reported in Slovak like every other message.
import '../shared/zod-slovak.js';

/** Loaded only to check SYNC_CRON when it is set (ADR 0113). */
const nodeCron = lazyRequire<typeof NodeCron>('node-cron');

/** systemd EnvironmentFiles often carry `KEY=` lines: an empty value means "not set", not "empty string". */
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const withDefault = <T extends z.ZodType>(schema: T, fallback: unknown) => z.preprocess((v) => (v === undefined || v === '' ? fallback : v), schema);

const secret = (name: string) => z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32, `${name} musí mať aspoň 32 znakov`).optional());

/**
 * The frontend's origin: http(s) only, scheme://host[:port] and nothing more. Anything else (file:,
 * data:, a path) has an opaque or surprising origin; `file:///x` would have made `Origin: null`
 * (sandboxed frames, local files) a credentialed CORS origin. Stored as the normalised origin.
 */
const CORS_ORIGIN_MESSAGE = 'CORS_ORIGIN musí byť origin http(s)://host[:port] bez cesty, napr. https://crm.example.sk (viac originov oddeľte čiarkou)';
const oneOrigin = z
  .url({ protocol: /^https?$/, error: CORS_ORIGIN_MESSAGE, abort: true })
  .refine((v) => {
    const url = new URL(v);
    return url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  }, CORS_ORIGIN_MESSAGE)
  .transform((v) => new URL(v).origin);
/** One origin or a comma-separated list (e.g. the app and its staging twin); stored as normalised origins, duplicates dropped. */
const corsOrigin = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .transform((text, ctx) => {
      const origins: string[] = [];
      for (const part of text
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '')) {
        const parsed = oneOrigin.safeParse(part);
        if (!parsed.success) {
          ctx.addIssue({ code: 'custom', message: CORS_ORIGIN_MESSAGE });
          return z.NEVER;
        }
        origins.push(parsed.data);
      }
      return origins.length === 0 ? undefined : [...new Set(origins)];
    })
    .optional(),
);

const booleanFlag = withDefault(
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v)),
  'false',
);

/** "30" (seconds), "30s", "2m", "1h"; null when it is none of these. */
export function parseDurationSeconds(text: string): number | null {
  const match = /^\s*(\d+)\s*(s|m|h)?\s*$/.exec(text);
  if (!match) return null;
  const factor = { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
  return Number(match[1]) * factor;
}

export const envSchema = z.object({
  NODE_ENV: withDefault(z.enum(['development', 'production', 'test']), 'development'),
  PORT: withDefault(z.coerce.number().int().min(0).max(65535), '3000'),
  HOST: withDefault(z.string().min(1), '127.0.0.1'),
  DATABASE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL musí začínať postgres:// alebo postgresql://')
      .optional(),
  ),
  CRM_DATA_DIR: withDefault(z.string().min(1), './data'),
  JMAP_SESSION_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url().optional()),
  JMAP_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(120_000), '15000'),
  JWT_ACCESS_SECRET: secret('JWT_ACCESS_SECRET'),
  JWT_REFRESH_SECRET: secret('JWT_REFRESH_SECRET'),
  CRM_ENCRYPTION_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'CRM_ENCRYPTION_KEY musí byť 32 bajtov (64 hex znakov alebo base64)')
      .optional(),
  ),
  /** Retired encryption keys, comma separated, still accepted for decryption during a key rotation. */
  CRM_ENCRYPTION_OLD_KEYS: optionalString,
  /**
   * How often each email account is checked for new mail: seconds ("30") or with a unit ("30s",
   * "2m", "1h"). Every account has its own turn within the interval. An idle check is one request.
   */
  SYNC_INTERVAL: withDefault(
    z.string().transform((v, ctx) => {
      const seconds = parseDurationSeconds(v);
      if (seconds === null || seconds < 1 || seconds > 86_400) {
        ctx.addIssue({ code: 'custom', message: 'SYNC_INTERVAL musí byť trvanie od 1 s do 24 h, napr. 30, 30s, 2m alebo 1h' });
        return z.NEVER;
      }
      return seconds;
    }),
    '30s',
  ),
  /** Accounts one process syncs at the same time. */
  SYNC_CONCURRENCY: withDefault(z.coerce.number().int().min(1).max(64), '4'),
  /** Open GET /api/events streams one user may hold on one instance (tabs, devices); 429 beyond. */
  EVENTS_MAX_STREAMS_PER_USER: withDefault(z.coerce.number().int().min(1).max(100), '5'),
  /**
   * Optional (older setting): when set, the scheduler looks for due accounts only at these cron times
   * instead of every few seconds, so mail can be as late as the cron period. Empty = every few seconds.
   */
  SYNC_CRON: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .refine((v) => nodeCron().validate(v), 'SYNC_CRON nie je platný cron výraz')
      .optional(),
  ),
  CORS_ORIGIN: corsOrigin,
  BCRYPT_ROUNDS: withDefault(z.coerce.number().int().min(4).max(15), '12'),
  LOG_LEVEL: withDefault(z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']), 'info'),
  // crm-admin commands log to stderr; only warnings by default so their output stays readable.
  CLI_LOG_LEVEL: withDefault(z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']), 'warn'),
  /**
   * Log line format: `json`, or `journald` (each JSON line prefixed with its syslog priority, <3> error ...
   * <7> debug, so `journalctl -p err` works). `auto`: journald when stdout is the journal (JOURNAL_STREAM).
   */
  LOG_FORMAT: withDefault(z.enum(['auto', 'json', 'journald']), 'auto'),
  /** Same as LOG_FORMAT=journald (for setups that pipe stdout to a syslog-aware collector). */
  LOG_SYSLOG_PREFIX: booleanFlag,
  /** The contract (docs/contract.md §7) shows `error.stack` only in development AND when stack output is enabled. */
  ERROR_STACKS: booleanFlag,
  TEMP_PASSWORD_TTL_DAYS: withDefault(z.coerce.number().int().min(1).max(90), '7'),
  /** Number of reverse proxies in front of the service, for the client IP in audit records and throttling. */
  TRUST_PROXY: withDefault(z.coerce.number().int().min(0).max(10), '0'),
  METRICS_PATH: withDefault(z.string().regex(/^\/[A-Za-z0-9/_-]*$/), '/api/metrics'),
  /** Who may scrape METRICS_PATH: `none` or comma-separated addresses/CIDR ranges (client IP per TRUST_PROXY). */
  METRICS_ALLOW: withDefault(
    z.string().transform((v, ctx) => {
      const parsed = parseAllowList(v);
      if ('problem' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.problem });
        return z.NEVER;
      }
      return parsed.entries;
    }),
    DEFAULT_METRICS_ALLOW,
  ),
  SHUTDOWN_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(60_000), '8000'),
  /** All attachments of one sent email together, in bytes (the mail server's own limit applies as well). */
  SEND_MAX_TOTAL_BYTES: withDefault(
    z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024),
    String(25 * 1024 * 1024),
  ),
  /** Emails one user may send per SEND_RATE_WINDOW_SECONDS (429 beyond). */
  SEND_RATE_LIMIT: withDefault(z.coerce.number().int().min(1).max(100_000), '60'),
  SEND_RATE_WINDOW_SECONDS: withDefault(z.coerce.number().int().min(1).max(86_400), '3600'),
  /** Megabytes of attachments one user may upload to the mail server per SEND_RATE_WINDOW_SECONDS (429 beyond; failed sends count too). */
  SEND_UPLOAD_BUDGET_MB: withDefault(z.coerce.number().int().min(1).max(1_000_000), '250'),
  /** Multipart sends (uploads) in progress at once, per user and in this process (429 beyond). */
  SEND_UPLOADS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '2'),
  SEND_UPLOADS_TOTAL: withDefault(z.coerce.number().int().min(1).max(10_000), '16'),
  /** Attachment downloads in progress at once, per user and in this process (429 beyond). */
  ATTACHMENT_DOWNLOADS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '4'),
  ATTACHMENT_DOWNLOADS_TOTAL: withDefault(z.coerce.number().int().min(1).max(10_000), '16'),
  /** A download whose mail server or client moves no byte for this long is ended. */
  ATTACHMENT_IDLE_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(600_000), '30000'),
  /** Per-user timesheet quota: number of files, and megabytes in all. */
  TIMESHEET_QUOTA_FILES: withDefault(z.coerce.number().int().min(1).max(1_000_000), '500'),
  TIMESHEET_QUOTA_MB: withDefault(z.coerce.number().int().min(1).max(10_000_000), '500'),
  /** Successful timesheet uploads per user and hour. */
  TIMESHEET_UPLOADS_PER_HOUR: withDefault(z.coerce.number().int().min(1).max(100_000), '20'),
  /** Free space (MB) kept on the disk of CRM_DATA_DIR (it also holds the embedded database): uploads below it get 507. */
  STORAGE_RESERVE_MB: withDefault(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER), '1024'),
  /** Audit records older than this many days are deleted by the hourly maintenance of `serve`. */
  AUDIT_RETENTION_DAYS: withDefault(z.coerce.number().int().min(1).max(36_500), '365'),
  /**
   * Emails older than this many days (by their date) are not stored by the sync and are deleted from
   * the CRM's copy by the hourly maintenance (never from the mail server). Empty or unset: kept forever.
   */
  EMAIL_RETENTION_DAYS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(36_500).optional()),
  /** With EMAIL_RETENTION_DAYS: also delete contacts the retention left without any email (their notes go with them). */
  EMAIL_RETENTION_DELETE_EMPTY_CONTACTS: booleanFlag,
});

export type RawEnv = z.infer<typeof envSchema>;
