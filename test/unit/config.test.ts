import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { AppConfig, ConfigError } from '../../src/config/config.js';
import { unitTempPath } from './support/temp-dir.js';

describe('configuration (AppConfig.fromEnv)', () => {
  it('takes CORS_ORIGIN as a comma-separated list, each entry checked alike', () => {
    const base = { JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32), CRM_DATA_DIR: unitTempPath('cfg-cors-list') };
    const config = AppConfig.fromEnv({ ...base, CORS_ORIGIN: ' https://CRM.example.sk/ , http://localhost:5173,,https://crm.example.sk' });
    expect(config.corsOrigins).to.deep.equal(['https://crm.example.sk', 'http://localhost:5173']);
    expect(() => AppConfig.fromEnv({ ...base, CORS_ORIGIN: 'https://crm.example.sk, null' })).to.throw(ConfigError);
    expect(AppConfig.fromEnv(base).corsOrigins).to.deep.equal([]);
  });

  it('takes the database timeouts in ms, the client-side query timeout longer than the statement timeout', () => {
    const base = { JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32), CRM_DATA_DIR: unitTempPath('cfg-db-timeouts') };
    const defaults = AppConfig.fromEnv(base);
    expect([defaults.databaseStatementTimeoutMs, defaults.databaseQueryTimeoutMs, defaults.databaseListenUrl]).to.deep.equal([12_000, 15_000, undefined]);
    const set = AppConfig.fromEnv({
      ...base,
      DATABASE_STATEMENT_TIMEOUT_MS: '20000',
      DATABASE_QUERY_TIMEOUT_MS: '25000',
      DATABASE_LISTEN_URL: 'postgres://crm@db.example:5432/crm',
    });
    expect([set.databaseStatementTimeoutMs, set.databaseQueryTimeoutMs, set.databaseListenUrl]).to.deep.equal([20_000, 25_000, 'postgres://crm@db.example:5432/crm']);
    expect(() => AppConfig.fromEnv({ ...base, DATABASE_STATEMENT_TIMEOUT_MS: '20000' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals(['DATABASE_QUERY_TIMEOUT_MS: musí byť dlhší ako DATABASE_STATEMENT_TIMEOUT_MS']);
    expect(() => AppConfig.fromEnv({ ...base, DATABASE_LISTEN_URL: 'mysql://x' })).to.throw(ConfigError);
  });

  it('takes CRM_STORAGE and the bucket: s3 needs the bucket and both keys, half a bucket is refused, the keys come from files too', () => {
    const base = { JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32), CRM_DATA_DIR: unitTempPath('cfg-storage') };
    const local = AppConfig.fromEnv(base);
    expect(local.storage).to.deep.equal({ kind: 'local', s3: undefined, sweepGraceMs: 24 * 3600 * 1000 });
    const bucket = { CRM_S3_BUCKET: 'crm-files', CRM_S3_ACCESS_KEY_ID: 'key-id', CRM_S3_SECRET_ACCESS_KEY: 'secret-key' };
    const s3 = AppConfig.fromEnv({ ...base, ...bucket, CRM_STORAGE: 's3', CRM_S3_ENDPOINT: 'http://127.0.0.1:9000', STORAGE_SWEEP_GRACE_HOURS: '2' });
    expect(s3.storage).to.deep.equal({
      kind: 's3',
      s3: { endpoint: 'http://127.0.0.1:9000', bucket: 'crm-files', region: 'us-east-1', accessKeyId: 'key-id', secretAccessKey: 'secret-key' },
      sweepGraceMs: 2 * 3600 * 1000,
    });
    expect(() => AppConfig.fromEnv({ ...base, CRM_STORAGE: 's3' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals(['CRM_STORAGE=s3: chýba CRM_S3_BUCKET, CRM_S3_ACCESS_KEY_ID, CRM_S3_SECRET_ACCESS_KEY']);
    expect(() => AppConfig.fromEnv({ ...base, CRM_S3_BUCKET: 'crm-files' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.deep.equals(['CRM_S3_*: nastavte CRM_S3_BUCKET, CRM_S3_ACCESS_KEY_ID, CRM_S3_SECRET_ACCESS_KEY spolu (chýba CRM_S3_ACCESS_KEY_ID, CRM_S3_SECRET_ACCESS_KEY)']);
    for (const wrong of [{ CRM_STORAGE: 'nfs' }, { CRM_S3_BUCKET: 'Bad_Bucket' }, { CRM_S3_ENDPOINT: 'ftp://x' }, { STORAGE_SWEEP_GRACE_HOURS: '0' }]) {
      expect(() => AppConfig.fromEnv({ ...base, ...bucket, ...wrong }), JSON.stringify(wrong)).to.throw(ConfigError);
    }
    // The keys from files, as every secret (and a key given twice is a start error that names no value).
    const secretFile = unitTempPath('cfg-storage-secret');
    fs.writeFileSync(secretFile, 'secret-from-file\n');
    const fromFile = AppConfig.fromEnv({ ...base, CRM_S3_BUCKET: 'crm-files', CRM_S3_ACCESS_KEY_ID: 'key-id', CRM_S3_SECRET_ACCESS_KEY_FILE: secretFile });
    expect(fromFile.storage.s3?.secretAccessKey).to.equal('secret-from-file');
    let twice: unknown;
    try {
      AppConfig.fromEnv({ ...base, ...bucket, CRM_S3_SECRET_ACCESS_KEY_FILE: secretFile });
    } catch (err) {
      twice = err;
    }
    expect((twice as ConfigError).problems.join(' '))
      .to.match(/CRM_S3_SECRET_ACCESS_KEY: zadané viackrát/)
      .and.not.to.contain('secret-key');
  });

  it('lists every problem at once', () => {
    let error: unknown;
    try {
      AppConfig.fromEnv({ PORT: 'eighty', SYNC_CRON: 'every minute', BCRYPT_ROUNDS: '40', NODE_ENV: 'staging', CORS_ORIGIN: 'not a url' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'SYNC_CRON', 'BCRYPT_ROUNDS', 'NODE_ENV', 'CORS_ORIGIN']) expect(problems).to.contain(name);
  });

  // Issue 52, finding 17: url.parse (sequelize) printed a malformed URL with its password in a DEP0170 warning.
  it('refuses a DATABASE_URL url.parse would warn about, naming no part of it', () => {
    const base = { CRM_DATA_DIR: unitTempPath('cfg-db-url') };
    for (const url of [
      'postgres://crm:Sec-Ret@localhost:x/crm',
      'postgres://crm:Sec#Ret@localhost/crm',
      'postgres://crm:Sec-Ret@db!x/crm',
      'postgres://crm:Sec%zzRet@db/crm',
      'mysql://crm:Sec-Ret@db/crm',
    ]) {
      let error: unknown;
      try {
        AppConfig.fromEnv({ ...base, DATABASE_URL: url });
      } catch (err) {
        error = err;
      }
      expect(error, url).to.be.instanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems, url).to.contain('DATABASE_URL');
      expect(problems, url).to.not.match(/Sec|Ret|crm@/);
    }
    for (const url of ['postgres://crm:Sec%23Ret%40@db.example.sk:5432/crm', 'postgresql://crm@[::1]:5433/crm?sslmode=require', 'postgres://crm@/crm?host=/run/postgresql']) {
      expect(AppConfig.fromEnv({ ...base, DATABASE_URL: url }).databaseUrl, url).to.equal(url);
    }
  });

  it('requires the secrets in production, naming each missing one', () => {
    expect(() => AppConfig.fromEnv({ NODE_ENV: 'production', CRM_DATA_DIR: '/nonexistent' }))
      .to.throw(ConfigError)
      .with.property('problems')
      .that.satisfies((p: string[]) => ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'CRM_ENCRYPTION_KEY'].every((n) => p.join().includes(n)));
  });

  // Security regression: `file:///x` has the opaque origin "null", which made `Origin: null` (sandboxed
  // frames, local files) a CORS origin allowed with credentials.
  it('accepts only an http(s) origin as CORS_ORIGIN, stored normalised', () => {
    const base = { JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32), CRM_DATA_DIR: unitTempPath('cfg-cors') };
    for (const bad of [
      'file:///x',
      'null',
      'data:text/html,x',
      'javascript:alert(1)',
      'ftp://crm.example.sk',
      'https://crm.example.sk/app',
      'https://u:p@crm.example.sk',
      'https://crm.example.sk/?a=1',
    ]) {
      expect(() => AppConfig.fromEnv({ ...base, CORS_ORIGIN: bad }), bad)
        .to.throw(ConfigError)
        .with.property('problems')
        .that.satisfies((p: string[]) => p.length === 1 && p[0].startsWith('CORS_ORIGIN: CORS_ORIGIN musí byť origin http(s)://'));
    }
    expect(AppConfig.fromEnv({ ...base, CORS_ORIGIN: 'https://CRM.example.sk/' }).corsOrigin).to.equal('https://crm.example.sk');
    expect(AppConfig.fromEnv({ ...base, CORS_ORIGIN: 'http://localhost:5173' }).corsOrigin).to.equal('http://localhost:5173');
  });

  it('reports configuration problems in Slovak', () => {
    try {
      AppConfig.fromEnv({ PORT: 'eighty', LOG_LEVEL: 'loud', TRUST_PROXY: '-1' });
      expect.fail('no ConfigError');
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).to.not.match(/\b(expected|received|invalid|option|number|too (big|small))\b/i);
    }
  });

  it('rejects the same secret for access and refresh tokens', () => {
    const same = 'x'.repeat(40);
    expect(() => AppConfig.fromEnv({ JWT_ACCESS_SECRET: same, JWT_REFRESH_SECRET: same, CRM_ENCRYPTION_KEY: 'ab'.repeat(32) })).to.throw(/JWT_REFRESH_SECRET/);
  });

  it('treats empty values (EnvironmentFile "KEY=") as unset and applies the defaults', () => {
    const dir = unitTempPath('cfg-defaults');
    const config = AppConfig.fromEnv({ PORT: '', HOST: '', CRM_DATA_DIR: dir, SYNC_CRON: '', SYNC_INTERVAL: '', SYNC_CONCURRENCY: '' });
    expect(config.port).to.equal(3000);
    expect(config.host).to.equal('127.0.0.1');
    expect(config.syncCron).to.equal(undefined);
    expect(config.syncIntervalSeconds).to.equal(30);
    expect(config.syncConcurrency).to.equal(4);
    expect(config.bcryptRounds).to.equal(12);
  });

  it('reads SYNC_INTERVAL as seconds or with a unit, between 1 s and 24 h', () => {
    const dir = unitTempPath('cfg-interval');
    const interval = (value: string) => AppConfig.fromEnv({ CRM_DATA_DIR: dir, SYNC_INTERVAL: value }).syncIntervalSeconds;
    expect([interval('45'), interval('20s'), interval('2m'), interval('1h')]).to.deep.equal([45, 20, 120, 3600]);
    for (const bad of ['0', '25h', 'soon', '1.5m', '-5']) {
      expect(() => interval(bad), bad)
        .to.throw(ConfigError)
        .with.property('problems')
        .that.satisfies((p: string[]) => p.join().includes('SYNC_INTERVAL'));
    }
  });

  it('generates development secrets once, mode 0600, and reuses them', () => {
    const dir = unitTempPath('cfg-secrets');
    const first = AppConfig.fromEnv({ CRM_DATA_DIR: dir });
    const second = AppConfig.fromEnv({ CRM_DATA_DIR: dir });
    expect(first.secrets.jwtAccessSecret).to.equal(second.secrets.jwtAccessSecret);
    expect(first.secrets.jwtAccessSecret).not.to.equal(first.secrets.jwtRefreshSecret);
    expect(first.secrets.encryptionKey.length).to.equal(32);
    expect(fs.statSync(path.join(dir, 'secrets.json')).mode & 0o777).to.equal(0o600);
  });
});
