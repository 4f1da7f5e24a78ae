/** Where each secret comes from (src/config/secret-sources.ts): the variable, NAME_FILE, or a systemd credential. */
import { expect } from 'chai';
import { resolveSecretSources, SECRET_VARIABLES } from '../../src/config/secret-sources.js';
import { isWorthWaiting } from '../../src/db/database-wait.js';

/** An in-memory file system: path -> content. */
function files(entries: Record<string, string>) {
  const read = (file: string) => {
    if (!(file in entries)) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    return entries[file];
  };
  return { read, exists: (file: string) => file in entries };
}

describe('unit: secrets from files', () => {
  it('reads every secret variable from its NAME_FILE, the database URL (it holds a password) included', () => {
    for (const name of [...SECRET_VARIABLES, 'DATABASE_URL']) {
      const fs = files({ '/run/secrets/one': `value-of-${name}\n` });
      const { env, problems } = resolveSecretSources({ [`${name}_FILE`]: '/run/secrets/one' }, fs.read, fs.exists);
      expect(problems, name).to.deep.equal([]);
      expect(env[name], name).to.equal(`value-of-${name}`);
    }
  });

  it('reads NAME_FILE without the trailing line break, and drops the _FILE name', () => {
    const fs = files({ '/run/secrets/access': 'access-secret\n', '/run/secrets/db': 'postgres://crm:pw@db/crm\r\n' });
    const { env, problems } = resolveSecretSources({ JWT_ACCESS_SECRET_FILE: '/run/secrets/access', DATABASE_URL_FILE: '/run/secrets/db', PORT: '3000' }, fs.read, fs.exists);
    expect(problems).to.deep.equal([]);
    expect(env).to.deep.equal({ JWT_ACCESS_SECRET: 'access-secret', DATABASE_URL: 'postgres://crm:pw@db/crm', PORT: '3000' });
  });

  it('reads a systemd credential named like the variable from $CREDENTIALS_DIRECTORY', () => {
    const fs = files({ '/run/credentials/staff-crm@all.service/CRM_ENCRYPTION_KEY': 'ab'.repeat(32) });
    const { env, problems } = resolveSecretSources({ CREDENTIALS_DIRECTORY: '/run/credentials/staff-crm@all.service' }, fs.read, fs.exists);
    expect(problems).to.deep.equal([]);
    expect(env.CRM_ENCRYPTION_KEY).to.equal('ab'.repeat(32));
    expect(env.JWT_ACCESS_SECRET).to.equal(undefined);
  });

  it('reads the credentials of a directory (LoadCredential=staff-crm:/etc/staff-crm/credentials) as staff-crm_<NAME>', () => {
    const dir = '/run/credentials/staff-crm-backup.service';
    const fs = files({ [`${dir}/staff-crm_BACKUP_SIGNING_KEY`]: `${'cd'.repeat(32)}\n`, [`${dir}/staff-crm_postgres.password`]: 'not a secret variable' });
    const { env, problems } = resolveSecretSources({ CREDENTIALS_DIRECTORY: dir }, fs.read, fs.exists);
    expect(problems).to.deep.equal([]);
    expect(env.BACKUP_SIGNING_KEY).to.equal('cd'.repeat(32));
  });

  it('takes the same file delivered both ways (an old drop-in beside the directory) once, and refuses two different ones', () => {
    const dir = '/run/credentials/staff-crm@all.service';
    const same = files({ [`${dir}/DATABASE_URL`]: 'postgres://a\n', [`${dir}/staff-crm_DATABASE_URL`]: 'postgres://a\n' });
    const one = resolveSecretSources({ CREDENTIALS_DIRECTORY: dir }, same.read, same.exists);
    expect(one.problems).to.deep.equal([]);
    expect(one.env.DATABASE_URL).to.equal('postgres://a');
    const differ = files({ [`${dir}/DATABASE_URL`]: 'postgres://a', [`${dir}/staff-crm_DATABASE_URL`]: 'postgres://b' });
    const two = resolveSecretSources({ CREDENTIALS_DIRECTORY: dir }, differ.read, differ.exists);
    expect(two.problems).to.have.length(1);
    expect(two.problems[0]).to.match(/^DATABASE_URL: zadané viackrát \(systémový credential DATABASE_URL .*systémový credential staff-crm_DATABASE_URL/);
  });

  it('refuses two values for one secret, naming both sources, whichever two they are', () => {
    const fs = files({ '/s/key': 'x', '/creds/JWT_REFRESH_SECRET': 'y', '/creds/CRM_ENCRYPTION_KEY': 'z' });
    const { problems } = resolveSecretSources(
      { JWT_ACCESS_SECRET: 'env', JWT_ACCESS_SECRET_FILE: '/s/key', JWT_REFRESH_SECRET: 'env', CREDENTIALS_DIRECTORY: '/creds', CRM_ENCRYPTION_KEY_FILE: '/s/key' },
      fs.read,
      fs.exists,
    );
    expect(problems).to.have.length(3);
    expect(problems[0]).to.match(/^JWT_ACCESS_SECRET: zadané viackrát \(JWT_ACCESS_SECRET, JWT_ACCESS_SECRET_FILE\)/);
    expect(problems[1]).to.match(/^JWT_REFRESH_SECRET: zadané viackrát \(JWT_REFRESH_SECRET, systémový credential JWT_REFRESH_SECRET/);
    expect(problems[2]).to.match(/^CRM_ENCRYPTION_KEY: zadané viackrát \(CRM_ENCRYPTION_KEY_FILE, systémový credential/);
  });

  it('an empty variable is no value (systemd EnvironmentFiles carry KEY= lines), so a file beside it is fine', () => {
    const fs = files({ '/s/a': 'from-file' });
    const { env, problems } = resolveSecretSources({ JWT_ACCESS_SECRET: '', JWT_ACCESS_SECRET_FILE: '/s/a', JWT_REFRESH_SECRET_FILE: '' }, fs.read, fs.exists);
    expect(problems).to.deep.equal([]);
    expect(env.JWT_ACCESS_SECRET).to.equal('from-file');
  });

  it('reports a file that cannot be read, or is empty, as a problem of its variable', () => {
    const fs = files({ '/s/empty': '\n' });
    const { problems } = resolveSecretSources({ JWT_ACCESS_SECRET_FILE: '/s/missing', JWT_REFRESH_SECRET_FILE: '/s/empty' }, fs.read, fs.exists);
    expect(problems).to.deep.equal(['JWT_ACCESS_SECRET_FILE: súbor /s/missing sa nedá prečítať (ENOENT)', 'JWT_REFRESH_SECRET_FILE: súbor /s/empty je prázdny']);
  });
});

describe('unit: which database failures serve waits out', () => {
  it('waits for a refused, unreachable or starting database; not for a wrong password or a missing database', () => {
    expect(isWorthWaiting(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).to.equal(true);
    // A Unix socket whose server has not started yet (the embedded server's, ?host=/run/postgresql).
    expect(isWorthWaiting(Object.assign(new Error('connect ENOENT /run/postgresql/.s.PGSQL.5432'), { code: 'ENOENT', syscall: 'connect' }))).to.equal(true);
    expect(isWorthWaiting(Object.assign(new Error('getaddrinfo EAI_AGAIN db'), { code: 'EAI_AGAIN' }))).to.equal(true);
    expect(isWorthWaiting(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).to.equal(true);
    expect(isWorthWaiting(new Error('Connection terminated unexpectedly'))).to.equal(true);
    expect(isWorthWaiting(Object.assign(new Error('password authentication failed for user "crm"'), { code: '28P01' }))).to.equal(false);
    expect(isWorthWaiting(Object.assign(new Error('database "crm" does not exist'), { code: '3D000' }))).to.equal(false);
  });
});
