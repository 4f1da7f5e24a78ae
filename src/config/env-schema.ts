import net from 'node:net';
import { z } from 'zod';
import type NodeCron from 'node-cron';
import { lazyRequire } from '../shared/lazy-require.js';
import { databaseUrlProblem } from './database-url.js';
import { DEFAULT_METRICS_ALLOW, parseAllowList } from '../shared/ip-allow-list.js';
// Configuration problems are reported in Slovak like every other message.
import '../shared/zod-slovak.js';

/** Loaded only to check SYNC_CRON when it is set (ADR 0113). */
const nodeCron = lazyRequire<typeof NodeCron>('node-cron');

/** systemd EnvironmentFiles often carry `KEY=` lines: an empty value means "not set", not "empty string". */
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
/** The fallback is also recorded as metadata (`envDefault`): docs/configuration.md is generated from it. */
const withDefault = <T extends z.ZodType>(schema: T, fallback: string) =>
  z.preprocess((v) => (v === undefined || v === '' ? fallback : v), schema).meta({ envDefault: `\`${fallback}\`` });

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

const booleanFlag = () =>
  withDefault(
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

/**
 * Every setting the program reads from the environment. Each has a description (and withDefault its
 * default): `npm run docs:config` writes docs/configuration.md from them, and the lint fails when that
 * file is out of date.
 */
/**
 * A PostgreSQL connection string checked before anything parses it (database-url.ts); empty is unset.
 * The message never quotes the value: it holds the password.
 */
function databaseUrlVariable(name: string) {
  return z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .superRefine((value, ctx) => {
        const problem = databaseUrlProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem.replace('DATABASE_URL', name) });
      })
      .optional(),
  );
}

export const envSchema = z.object({
  NODE_ENV: withDefault(z.enum(['development', 'production', 'test']), 'development').describe(
    '`production`: `__Host-` prefixed Secure + SameSite=strict cookies, no stacks, secrets required',
  ),
  PORT: withDefault(z.coerce.number().int().min(0).max(65535), '3000').describe('HTTP listener: port'),
  HOST: withDefault(z.string().min(1), '127.0.0.1').describe('HTTP listener: address'),
  DATABASE_URL: databaseUrlVariable('DATABASE_URL')
    .meta({ envDefault: 'unset: embedded PostgreSQL in `CRM_DATA_DIR`' })
    .describe(
      'any PostgreSQL 13+ with the `unaccent` extension available (tested on 15 and 18); an @ : / ? # % in the user or password percent-encoded (%40 ...): a malformed URL is refused with a message that quotes none of it',
    ),
  DATABASE_WAIT_SECONDS: withDefault(z.coerce.number().int().min(0).max(86_400), '300').describe(
    'how long `serve` keeps retrying the database at `DATABASE_URL` at start (readiness 503 meanwhile); 0: try once',
  ),
  DATABASE_POOL_MAX: withDefault(z.coerce.number().int().min(1).max(1000), '20').describe(
    'database connections one `serve` (or `serve --no-api` worker) pools at most; it also holds one LISTEN connection beside them (docs/scale-out.md: sizing `max_connections`)',
  ),
  DATABASE_OWNER_URL: databaseUrlVariable('DATABASE_OWNER_URL')
    .meta({ envDefault: 'unset: `DATABASE_URL` owns the schema too (embedded: the role `crm_owner`)' })
    .describe(
      'the same database as `DATABASE_URL`, as the role that owns its schema: migrations (`serve`, `db migrate`) and `db restore` run as it, so the role of `DATABASE_URL` needs rows only (docs/operations.md, ADR 0171)',
    ),
  DATABASE_LISTEN_URL: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'DATABASE_LISTEN_URL musí začínať postgres:// alebo postgresql://')
        .optional(),
    )
    .meta({ envDefault: 'unset: `DATABASE_URL`' })
    .describe(
      'where the one LISTEN connection of a `serve` goes, when not to `DATABASE_URL`: PostgreSQL itself when `DATABASE_URL` is a PgBouncer in transaction mode (docs/scale-out.md)',
    ),
  DATABASE_STATEMENT_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(3_600_000), '12000').describe(
    '`statement_timeout` of every database session, set after the log-in: a statement running longer is cancelled and its request answers 503 with `Retry-After`; migrations and backups lift it',
  ),
  DATABASE_QUERY_TIMEOUT_MS: withDefault(z.coerce.number().int().min(200).max(3_600_000), '15000').describe(
    'the client gives up on a query the database has not answered in this long (a vanished host, a stalled network or proxy), drops the connection and answers 503; must exceed `DATABASE_STATEMENT_TIMEOUT_MS`',
  ),
  CRM_DATA_DIR: withDefault(z.string().min(1), './data').describe('embedded database, stored files (with `CRM_STORAGE=local`), generated dev secrets'),
  JMAP_SESSION_URL: z
    .preprocess((v) => (v === '' ? undefined : v), z.url().optional())
    .describe('JMAP session resource, e.g. `http://127.0.0.1:8080/.well-known/jmap`; link-email answers 503 when unset'),
  JMAP_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(120_000), '15000').describe('timeout of one JMAP request'),
  JWT_ACCESS_SECRET: secret('JWT_ACCESS_SECRET')
    .meta({ envDefault: 'generated once into `CRM_DATA_DIR/secrets.json` (0600) outside production' })
    .describe('access token signing key (≥ 32 chars, different from `JWT_REFRESH_SECRET`)'),
  JWT_REFRESH_SECRET: secret('JWT_REFRESH_SECRET')
    .meta({ envDefault: 'generated once into `CRM_DATA_DIR/secrets.json` (0600) outside production' })
    .describe('refresh token signing key (≥ 32 chars, different from `JWT_ACCESS_SECRET`)'),
  CRM_ENCRYPTION_KEY: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'CRM_ENCRYPTION_KEY musí byť 32 bajtov (64 hex znakov alebo base64)')
        .optional(),
    )
    .meta({ envDefault: 'generated likewise (outside production)' })
    .describe('32-byte key (64 hex chars or base64) for mail passwords at rest (AES-256-GCM)'),
  CRM_ENCRYPTION_OLD_KEYS: optionalString.describe('comma-separated retired keys, still accepted for decryption during a rotation'),
  BACKUP_SIGNING_KEY: secret('BACKUP_SIGNING_KEY')
    .meta({ envDefault: 'unset: a key derived from `CRM_ENCRYPTION_KEY` (as before 0.2.0)' })
    .describe('the secret backups are signed with (≥ 32 chars, e.g. `openssl rand -hex 32`); keep it with the encryption key, apart from the archives'),
  BACKUP_SIGNING_KEYS_RETIRED: optionalString.describe('comma-separated retired backup signing secrets: archives signed with them still verify and restore'),
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
  ).describe(
    'how often each email account is checked for new mail (`45`, `30s`, `2m`, `1h`; 1 s to 24 h); every account has its own turn within the interval. Cost per idle account: one JMAP request per check, `3600 / interval` per hour (120 at the default)',
  ),
  SYNC_CONCURRENCY: withDefault(z.coerce.number().int().min(1).max(64), '4').describe('accounts one process syncs at the same time'),
  EVENTS_MAX_STREAMS_PER_USER: withDefault(z.coerce.number().int().min(1).max(100), '5').describe(
    'open live-update streams (`GET /api/events`) one user may hold on one instance; 429 beyond',
  ),
  FOLLOW_UP_CHECK_SECONDS: withDefault(
    z.coerce
      .number()
      .int()
      .min(1)
      .max(60)
      .refine((n) => 60 % n === 0, 'FOLLOW_UP_CHECK_SECONDS musí deliť 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 alebo 60)'),
    '30',
  ).describe(
    'how often every `serve` looks for follow-ups that came due, in seconds (a divisor of 60; the check runs at those seconds of each minute); one instance claims each due follow-up and its owner gets one `follow_up.due` live event',
  ),
  WEBHOOK_RETRY_SCHEDULE: withDefault(
    z.string().transform((v, ctx) => {
      const parts = v.split(',').map((p) => p.trim());
      const seconds = parts.map(Number);
      if (v.trim() === '' || seconds.length > 20 || seconds.some((n, i) => parts[i] === '' || !Number.isInteger(n) || n < 0 || n > 604_800)) {
        ctx.addIssue({ code: 'custom', message: 'WEBHOOK_RETRY_SCHEDULE musí byť zoznam sekúnd oddelených čiarkou (najviac 20, každá 0 až 604800), napr. 5,300,1800' });
        return z.NEVER;
      }
      return seconds;
    }),
    '5,300,1800,7200,18000,36000',
  ).describe(
    'waits in seconds before the 2nd, 3rd, ... attempt of a webhook delivery that got no 2xx (comma separated); when they are used up the delivery is failed. The default tries 7 times over about 17 hours',
  ),
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: withDefault(
    z.string().transform((v, ctx) => {
      for (const entry of v
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const [address, prefix, extra] = entry.split('/');
        const family = net.isIP(address ?? '');
        const prefixOk = prefix === undefined || (family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
        const hostOk = family !== 0 || (prefix === undefined && /^[a-z0-9.-]+$/i.test(entry));
        if (!prefixOk || !hostOk || extra !== undefined) {
          ctx.addIssue({ code: 'custom', message: `WEBHOOK_ALLOWED_PRIVATE_HOSTS: neplatný host alebo rozsah "${entry}"` });
          return z.NEVER;
        }
      }
      return v;
    }),
    '',
  )
    .meta({ envDefault: 'empty (none)' })
    .describe(
      'webhook receivers on private, loopback or link-local addresses that are allowed anyway: comma separated host names, addresses and CIDR ranges (e.g. `erp.internal,10.1.2.0/24`); every other such address is refused at creation and at delivery',
    ),
  SYNC_CRON: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .refine((v) => nodeCron().validate(v), 'SYNC_CRON nie je platný cron výraz')
        .optional(),
    )
    .describe(
      'older setting: when set, due accounts are looked for only at these cron times instead of every few seconds (mail then waits for the next firing); leave it empty for mail within a minute',
    ),
  CORS_ORIGIN: corsOrigin.describe(
    'the frontend origins allowed with credentials (and by the CSRF check): `http(s)://host[:port]`, nothing else; several comma-separated (`https://crm.example.sk,https://staging.crm.example.sk`)',
  ),
  BCRYPT_ROUNDS: withDefault(z.coerce.number().int().min(4).max(15), '12').describe('password hash cost (tests use 4)'),
  LOG_LEVEL: withDefault(z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']), 'info').describe('winston JSON lines to stdout (`http` logs every request)'),
  // crm-admin commands log to stderr; only warnings by default so their output stays readable.
  CLI_LOG_LEVEL: withDefault(z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']), 'warn').describe(
    "level of `crm-admin` commands' log lines (stderr; stdout stays clean for `--json`)",
  ),
  LOG_FORMAT: withDefault(z.enum(['auto', 'json', 'journald']), 'auto').describe(
    '`json`; `journald`: each line prefixed with its syslog priority (`<3>` error, `<4>` warn, `<6>` info, `<7>` http/debug, sd-daemon(3)) so `journalctl -p err` works; `auto`: journald when stdout is the journal (`JOURNAL_STREAM` matches stdout)',
  ),
  LOG_SYSLOG_PREFIX: booleanFlag().describe('`true` = `LOG_FORMAT=journald`'),
  /** The contract (docs/contract.md §7) shows `error.stack` only in development AND when stack output is enabled. */
  ERROR_STACKS: booleanFlag().describe('with `NODE_ENV=development`, include `error.stack` in error responses'),
  TEMP_PASSWORD_TTL_DAYS: withDefault(z.coerce.number().int().min(1).max(90), '7').describe('lifetime of a temporary password'),
  TRUST_PROXY: withDefault(z.coerce.number().int().min(0).max(10), '0').describe(
    'number of reverse proxies in front (for the client IP in audit and throttling): **`1` behind the recommended proxy** (the systemd example sets it); with `0` and forwarding headers the service warns in its log and in `/api/health/ready`',
  ),
  METRICS_PATH: withDefault(z.string().regex(/^\/[A-Za-z0-9/_-]*$/), '/api/metrics').describe('Prometheus metrics'),
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
  ).describe('who may scrape the metrics: addresses/CIDR ranges, or `none` (endpoint off); client IP per `TRUST_PROXY`'),
  SHUTDOWN_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(60_000), '8000').describe('graceful shutdown bound after SIGTERM'),
  SEND_MAX_TOTAL_BYTES: withDefault(
    z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024),
    String(25 * 1024 * 1024),
  )
    .meta({ envDefault: '`26214400` (25 MiB)' })
    .describe("all attachments of one sent email together (the mail server's `maxSizeAttachmentsPerEmail` and per-file `maxSizeUpload` apply too)"),
  SEND_RATE_LIMIT: withDefault(z.coerce.number().int().min(1).max(100_000), '60').describe('emails one user may send per `SEND_RATE_WINDOW_SECONDS` (429 beyond)'),
  SEND_RATE_WINDOW_SECONDS: withDefault(z.coerce.number().int().min(1).max(86_400), '3600').describe('the window of `SEND_RATE_LIMIT` and `SEND_UPLOAD_BUDGET_MB`, in seconds'),
  SEND_UPLOAD_BUDGET_MB: withDefault(z.coerce.number().int().min(1).max(1_000_000), '250').describe(
    'attachment megabytes one user may upload per `SEND_RATE_WINDOW_SECONDS` (failed sends count too; 429 beyond)',
  ),
  SEND_UPLOADS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '2').describe('multipart sends in progress at once per user (429 beyond)'),
  SEND_UPLOADS_TOTAL: withDefault(z.coerce.number().int().min(1).max(10_000), '16').describe('multipart sends in progress at once per process (429 beyond)'),
  EXPENSIVE_REQUESTS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '4').describe(
    'searches (emails, conversations, contacts, companies) and exports one user may have in progress at once in one `serve` (429 with `Retry-After` beyond; per process, so behind a load balancer per instance)',
  ),
  HTML_RENDERS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '3').describe(
    'email details, thread pages and conversations (the requests that read and clean HTML bodies) one user may have in progress at once in one `serve` (429 with `Retry-After` beyond)',
  ),
  HTML_PAGE_MAX_BYTES: withDefault(z.coerce.number().int().min(65_536).max(67_108_864), '2097152').describe(
    'HTML read and cleaned for one page (a thread page or a conversation): emails past it answer `html: null` with `htmlOmitted: page_limit` (each email alone is cut at 512 KB by the mail server)',
  ),
  HTML_RENDER_TIMEOUT_MS: withDefault(z.coerce.number().int().min(10).max(60_000), '5000').describe(
    "time budget of cleaning one email's HTML in the worker threads, waiting for a thread included: past it the email answers `html: null` with `htmlOmitted: time_budget` and the thread is stopped",
  ),
  HTML_RENDER_THREADS: withDefault(z.coerce.number().int().min(0).max(64), '0').describe(
    'worker threads that clean HTML bodies off the main thread; 0: the cores less one, at least one (docs/adr/0162-html-cleaned-in-worker-threads.md)',
  ),
  ATTACHMENT_DOWNLOADS_PER_USER: withDefault(z.coerce.number().int().min(1).max(1000), '4').describe('attachment downloads in progress at once per user (429 beyond)'),
  ATTACHMENT_DOWNLOADS_TOTAL: withDefault(z.coerce.number().int().min(1).max(10_000), '16').describe('attachment downloads in progress at once per process (429 beyond)'),
  ATTACHMENT_IDLE_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100).max(600_000), '30000').describe('a download that moves no byte for this long is cut off'),
  TIMESHEET_QUOTA_FILES: withDefault(z.coerce.number().int().min(1).max(1_000_000), '500').describe('per-user timesheet quota: files (403 `quota_exceeded` beyond it)'),
  TIMESHEET_QUOTA_MB: withDefault(z.coerce.number().int().min(1).max(10_000_000), '500').describe('per-user timesheet quota: megabytes (403 `quota_exceeded` beyond it)'),
  TIMESHEET_UPLOADS_PER_HOUR: withDefault(z.coerce.number().int().min(1).max(100_000), '20').describe(
    'stored uploads per user and hour (429 beyond it; failed uploads do not count)',
  ),
  STORAGE_RESERVE_MB: withDefault(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER), '1024').describe(
    'free space kept on the disk of `CRM_DATA_DIR` (it also holds the embedded database): uploads below it get 507 `insufficient_storage` (with `CRM_STORAGE=local`; a bucket tells no free space)',
  ),
  CRM_STORAGE: withDefault(z.enum(['local', 's3']), 'local').describe(
    'where stored files (timesheets) live: `local`, a directory per kind under `CRM_DATA_DIR` (one host, or a shared volume); `s3`, the bucket of `CRM_S3_BUCKET`, for several hosts (docs/scale-out.md)',
  ),
  CRM_S3_ENDPOINT: z
    .preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/, error: 'CRM_S3_ENDPOINT musí byť URL http(s)://host[:port]' }).optional())
    .meta({ envDefault: 'unset: AWS S3 of `CRM_S3_REGION`' })
    .describe('the S3 API of an object store (Ceph RGW, MinIO, Swift s3api, Garage, a cloud), e.g. `https://s3.example.sk`; requests are path-style (`endpoint/bucket/key`)'),
  CRM_S3_BUCKET: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'CRM_S3_BUCKET musí byť názov bucketu S3 (3 až 63 znakov: malé písmená, číslice, bodka, pomlčka)')
        .optional(),
    )
    .describe(
      'the bucket (created beforehand) that holds the files with `CRM_STORAGE=s3`, each kind under its own prefix (`timesheets/`); also the target of `crm-admin timesheets migrate-storage --to s3`',
    ),
  CRM_S3_REGION: withDefault(z.string().regex(/^[a-z0-9-]{1,32}$/, 'CRM_S3_REGION musí byť názov regiónu, napr. us-east-1'), 'us-east-1').describe(
    "the region requests are signed for (most S3-compatible servers accept any; AWS needs the bucket's)",
  ),
  CRM_S3_ACCESS_KEY_ID: optionalString.describe('the access key of the bucket (also `CRM_S3_ACCESS_KEY_ID_FILE` or a systemd credential, like the other secrets)'),
  CRM_S3_SECRET_ACCESS_KEY: optionalString.describe(
    'its secret key (also `CRM_S3_SECRET_ACCESS_KEY_FILE` or a systemd credential); never logged or printed, `crm-admin doctor` included',
  ),
  STORAGE_SWEEP_GRACE_HOURS: withDefault(z.coerce.number().int().min(1).max(8760), '24').describe(
    'a stored file that no row references and is older than this is removed by the hourly maintenance of `serve` (a file whose removal failed, an upload whose process died before recording it)',
  ),
  AUDIT_RETENTION_DAYS: withDefault(z.coerce.number().int().min(1).max(36_500), '365').describe('audit records older than this are deleted by the hourly maintenance of `serve`'),
  EMAIL_RETENTION_DAYS: z
    .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(36_500).optional())
    .meta({ envDefault: 'unset (off)' })
    .describe(
      "emails older than this many days (by their date) are not stored by the sync and are deleted from the CRM's copy by the hourly maintenance of `serve`; never from the mail server (see [Personal data](personal-data.md))",
    ),
  EMAIL_RETENTION_DELETE_EMPTY_CONTACTS: booleanFlag().describe(
    'with `EMAIL_RETENTION_DAYS`: `true` also deletes contacts the retention left without any email (their notes go with them); `false` keeps them',
  ),
});

export type RawEnv = z.infer<typeof envSchema>;
