/**
 * Pure rules of access and configuration: the email-account rights as SQL conditions
 * (src/email-accounts/account-rights.ts), the environment schema (src/config/env-schema.ts) and the
 * metrics allow-list (src/shared/ip-allow-list.ts).
 */
import { expect } from 'chai';
import { accessToAccount, accessToContact, accountsWith, deniedMessage, rightCondition, type AccountRight } from '../../src/email-accounts/account-rights.js';
import { envSchema, parseDurationSeconds } from '../../src/config/env-schema.js';
import { createAllowMatcher, DEFAULT_METRICS_ALLOW, parseAllowList } from '../../src/shared/ip-allow-list.js';
import { nextSlotMs, phaseMs, tickMs } from '../../src/sync/sync-schedule.js';

/** Evaluates a right's SQL condition for one membership row (the grammar used is tiny: IN, AND, =, columns). */
function allows(right: AccountRight, m: { role: string; can_read: boolean; can_send: boolean }): boolean {
  const js = rightCondition(right)
    .replace(/m\.role IN \(([^)]*)\)/g, (_s, list: string) => `[${list}].includes(m.role)`)
    .replace(/m\.role = ('[a-z]+')/g, 'm.role === $1')
    .replace(/\bAND\b/g, '&&')
    .replace(/m\.(can_read|can_send)/g, 'm.$1');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the rights SQL, turned into a JS predicate, is the oracle
  return Boolean(new Function('m', `return ${js};`)(m));
}

const RIGHTS: AccountRight[] = ['view', 'readEmails', 'editContacts', 'markRead', 'sync', 'send', 'share', 'manage'];

describe('unit: email-account rights', () => {
  it('grants each role exactly the rights of the sharing design', () => {
    const row = (role: string, can_read = true, can_send = true) => ({ role, can_read, can_send });
    const granted = (m: ReturnType<typeof row>) => RIGHTS.filter((r) => allows(r, m));
    expect(granted(row('owner'))).to.deep.equal(RIGHTS);
    expect(granted(row('editor'))).to.deep.equal(['view', 'readEmails', 'editContacts', 'markRead', 'sync', 'send']);
    expect(granted(row('viewer', true, false))).to.deep.equal(['view', 'readEmails']);
    // can_read false: the account and its contacts, no email, and so no read state to change.
    expect(granted(row('editor', false, false))).to.deep.equal(['view', 'editContacts', 'sync']);
  });

  it('has a Slovak 403 message for every right, each different', () => {
    const messages = RIGHTS.map(deniedMessage);
    expect(new Set(messages).size).to.equal(RIGHTS.length);
    expect(deniedMessage('send')).to.equal('Z tohto emailového účtu nemáte právo odosielať');
    expect(deniedMessage('share')).to.match(/len jeho vlastník/);
  });

  it('binds the caller and the account as parameters, never as spliced values', () => {
    for (const sql of [accountsWith('send'), accessToAccount('markRead'), accessToContact('editContacts')]) {
      expect(sql).to.include('$userId');
      expect(sql).to.not.match(/'[0-9a-f-]{36}'/);
    }
    expect(accessToAccount('view')).to.include('$accountId');
    expect(accessToContact('view')).to.include('$contactId');
    expect(accountsWith('readEmails')).to.match(/^SELECT m\.email_account_id FROM email_account_members m WHERE m\.user_id = \$userId AND \(m\.can_read\)$/);
  });
});

describe('unit: environment schema', () => {
  it('applies the documented defaults to an empty environment', () => {
    const env = envSchema.parse({});
    expect(env).to.include({
      NODE_ENV: 'development',
      PORT: 3000,
      HOST: '127.0.0.1',
      JMAP_TIMEOUT_MS: 15000,
      SYNC_INTERVAL: 30,
      SYNC_CONCURRENCY: 4,
      BCRYPT_ROUNDS: 12,
      LOG_FORMAT: 'auto',
      TRUST_PROXY: 0,
    });
    expect(env.METRICS_ALLOW).to.deep.equal(['127.0.0.0/8', '::1/128']);
    expect(env.LOG_SYSLOG_PREFIX).to.equal(false);
  });

  it('reads durations as seconds or with a unit', () => {
    expect(['30', '30s', ' 2m ', '1h', '0'].map(parseDurationSeconds)).to.deep.equal([30, 30, 120, 3600, 0]);
    for (const bad of ['', '1d', '1.5m', '-1', 'm', '1 h 2']) expect(parseDurationSeconds(bad), bad).to.equal(null);
    expect(envSchema.parse({ SYNC_INTERVAL: '24h' }).SYNC_INTERVAL).to.equal(86_400);
    expect(envSchema.safeParse({ SYNC_INTERVAL: '1441m' }).success).to.equal(false);
  });

  it('flags accept true/false, 1/0, yes/no and nothing else', () => {
    expect(['true', '1', 'yes', 'false', '0', 'no', ''].map((v) => envSchema.parse({ ERROR_STACKS: v }).ERROR_STACKS)).to.deep.equal([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    const bad = envSchema.safeParse({ ERROR_STACKS: 'on' });
    expect(bad.success).to.equal(false);
    // zod keeps enum values as object keys, so "0" and "1" come first: the set matters, not the order.
    const allowed = bad.error!.issues[0].message.replace(/^Povolené hodnoty: /, '').split(', ');
    expect(allowed).to.have.members(['true', 'false', '1', '0', 'yes', 'no']);
  });

  it('checks secrets, the database URL, the encryption key and the bcrypt cost, in Slovak', () => {
    const problems = (env: Record<string, string>) => envSchema.safeParse(env).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(problems({ JWT_ACCESS_SECRET: 'short' })).to.deep.equal(['JWT_ACCESS_SECRET: JWT_ACCESS_SECRET musí mať aspoň 32 znakov']);
    expect(problems({ DATABASE_URL: 'mysql://x' })).to.deep.equal(['DATABASE_URL: DATABASE_URL musí začínať postgres:// alebo postgresql://']);
    expect(problems({ CRM_ENCRYPTION_KEY: 'ab'.repeat(31) })[0]).to.match(/CRM_ENCRYPTION_KEY musí byť 32 bajtov/);
    expect(problems({ CRM_ENCRYPTION_KEY: 'ab'.repeat(32) })).to.deep.equal([]);
    expect(problems({ CRM_ENCRYPTION_KEY: `${'A'.repeat(43)}=` })).to.deep.equal([]);
    expect(problems({ BCRYPT_ROUNDS: '3' })).to.deep.equal(['BCRYPT_ROUNDS: Hodnota musí byť aspoň 4']);
    expect(problems({ BCRYPT_ROUNDS: '16' })).to.deep.equal(['BCRYPT_ROUNDS: Hodnota môže byť najviac 15']);
    expect(problems({ SYNC_CRON: 'every minute' })).to.deep.equal(['SYNC_CRON: SYNC_CRON nie je platný cron výraz']);
    expect(problems({ METRICS_PATH: 'metrics' })).to.have.length(1);
  });
});

describe('unit: metrics allow-list', () => {
  it('parses none, addresses and CIDR ranges, and says what is wrong in Slovak', () => {
    expect(parseAllowList(' none ')).to.deep.equal({ entries: [] });
    expect(parseAllowList('10.0.0.0/8, ::1 ,192.168.1.5')).to.deep.equal({ entries: ['10.0.0.0/8', '::1', '192.168.1.5'] });
    expect(parseAllowList(' , ')).to.deep.equal({ problem: 'prázdny zoznam (použite none na vypnutie)' });
    for (const bad of ['10.0.0.0/33', '::1/129', 'localhost', '10.0.0.1/8/1', '10.0.0.0/x']) {
      expect(parseAllowList(bad), bad).to.deep.equal({ problem: `neplatná adresa alebo rozsah "${bad}"` });
    }
  });

  it('matches addresses and ranges, IPv4-mapped IPv6 as IPv4, and nothing for a missing address', () => {
    const matches = createAllowMatcher((parseAllowList(DEFAULT_METRICS_ALLOW) as { entries: string[] }).entries);
    expect(['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1'].every(matches)).to.equal(true);
    expect(['10.0.0.1', '::2', '::ffff:10.0.0.1', 'garbage', '', undefined].some(matches)).to.equal(false);
    expect(createAllowMatcher([])('127.0.0.1')).to.equal(false);
    const single = createAllowMatcher(['192.168.1.5']);
    expect([single('192.168.1.5'), single('192.168.1.6')]).to.deep.equal([true, false]);
  });
});

describe('unit: sync schedule boundaries', () => {
  it('a turn exactly at now is not "after now": the next one is a whole interval later', () => {
    expect(nextSlotMs(10_000, 0, 10_000)).to.equal(20_000);
    expect(nextSlotMs(10_000, 500, 10_000)).to.equal(10_500);
    expect(nextSlotMs(10_500, 500, 10_000)).to.equal(20_500);
    expect(nextSlotMs(0, 9_999, 10_000)).to.equal(9_999);
  });

  it('phases for a one-second interval stay below a second, and differ between accounts', () => {
    const phases = new Set(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => phaseMs(id, 1000)));
    expect([...phases].every((p) => Number.isInteger(p) && p >= 0 && p < 1000)).to.equal(true);
    expect(phases.size).to.be.greaterThan(1);
  });

  it('ticks a sixth of the interval, rounded, between 1 s and 5 s', () => {
    expect([1000, 6000, 6003, 12_000, 29_997, 30_003, 86_400_000].map(tickMs)).to.deep.equal([1000, 1000, 1001, 2000, 5000, 5000, 5000]);
  });
});
