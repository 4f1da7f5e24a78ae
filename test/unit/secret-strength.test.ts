import crypto from 'node:crypto';
import { expect } from 'chai';
import { AppConfig, ConfigError } from '../../src/config/config.js';
import { estimateSecretBits, isGuessableSecret, MIN_SECRET_BITS } from '../../src/config/secret-strength.js';
import { unitTempPath } from './support/temp-dir.js';

/** Issue 35, item 6: production accepted "aaaa…" (40 characters) as a signing secret. */
describe('guessable secrets (secret-strength.ts)', () => {
  const guessable = [
    'a'.repeat(40),
    'a'.repeat(64),
    'Xk9#'.repeat(10),
    'changeme-changeme-changeme-changeme!',
    'Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3',
    'abcdefghijklmnopqrstuvwxyz0123456789',
    '0123456789abcdef'.repeat(4),
    'ab'.repeat(32),
    `${'a'.repeat(40)}Xk9#Bq7!Zr`,
  ];

  it('refuses repeated characters, runs and repeated blocks, whatever the length', () => {
    for (const secret of guessable) expect(isGuessableSecret(secret), `${secret}: ${estimateSecretBits(secret)} bits`).to.equal(true);
  });

  it('accepts random secrets of every form the documentation and the development set-up use', () => {
    const forms: Array<[string, () => string]> = [
      ['openssl rand -base64 48', () => crypto.randomBytes(48).toString('base64')],
      ['openssl rand -base64 32 (the key)', () => crypto.randomBytes(32).toString('base64')],
      ['openssl rand -hex 32 (the key)', () => crypto.randomBytes(32).toString('hex')],
      ['development JWT secret (48 bytes base64url)', () => crypto.randomBytes(48).toString('base64url')],
      ['32 random hex characters, the shortest secret accepted', () => crypto.randomBytes(16).toString('hex')],
    ];
    for (const [form, draw] of forms) {
      for (let i = 0; i < 2000; i++) {
        const secret = draw();
        expect(estimateSecretBits(secret), `${form}: ${secret}`).to.be.at.least(MIN_SECRET_BITS);
      }
    }
  });

  it('production lists each guessable secret with the command that makes a good one, beside the other problems', () => {
    let error: unknown;
    try {
      AppConfig.fromEnv({ NODE_ENV: 'production', PORT: 'eighty', JWT_ACCESS_SECRET: 'a'.repeat(40), JWT_REFRESH_SECRET: 'b'.repeat(40), CRM_ENCRYPTION_KEY: 'ab'.repeat(32) });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    // The schema's problems come first (a bad PORT); once they are fixed, the secrets are checked.
    expect((error as ConfigError).problems.join('\n')).to.contain('PORT');

    try {
      AppConfig.fromEnv({
        NODE_ENV: 'production',
        CRM_DATA_DIR: unitTempPath('cfg-guessable'),
        JWT_ACCESS_SECRET: 'a'.repeat(40),
        JWT_REFRESH_SECRET: 'b'.repeat(40),
        CRM_ENCRYPTION_KEY: 'ab'.repeat(32),
      });
      expect.fail('guessable secrets were accepted');
    } catch (err) {
      expect(err).to.be.instanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems.map((p) => p.split(':')[0])).to.deep.equal(['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'CRM_ENCRYPTION_KEY']);
      expect(problems[0]).to.contain('openssl rand -base64 48');
      expect(problems[2]).to.contain('openssl rand -base64 32');
    }
  });

  it('production accepts random secrets; development keeps what it is given and its generated secrets pass the rule', () => {
    const random = {
      JWT_ACCESS_SECRET: crypto.randomBytes(48).toString('base64'),
      JWT_REFRESH_SECRET: crypto.randomBytes(48).toString('base64'),
      CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    };
    expect(AppConfig.fromEnv({ NODE_ENV: 'production', CRM_DATA_DIR: unitTempPath('cfg-random'), ...random }).isProduction).to.equal(true);
    expect(
      AppConfig.fromEnv({
        NODE_ENV: 'development',
        CRM_DATA_DIR: unitTempPath('cfg-dev-weak'),
        JWT_ACCESS_SECRET: 'a'.repeat(40),
        JWT_REFRESH_SECRET: 'b'.repeat(40),
        CRM_ENCRYPTION_KEY: 'ab'.repeat(32),
      }).isDevelopment,
    ).to.equal(true);
    const generated = AppConfig.fromEnv({ NODE_ENV: 'development', CRM_DATA_DIR: unitTempPath('cfg-dev-generated') }).secrets;
    expect(isGuessableSecret(generated.jwtAccessSecret)).to.equal(false);
    expect(isGuessableSecret(generated.jwtRefreshSecret)).to.equal(false);
    expect(isGuessableSecret(generated.encryptionKey.toString('hex'))).to.equal(false);
  });
});
