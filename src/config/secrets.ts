import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Secrets {
  jwtAccessSecret: string;
  jwtRefreshSecret: string;
  encryptionKey: Buffer;
  /** Retired keys kept only to decrypt rows written before a key rotation. */
  oldEncryptionKeys: Buffer[];
}

interface StoredSecrets {
  jwtAccessSecret: string;
  jwtRefreshSecret: string;
  encryptionKey: string;
}

/**
 * Outside production the service must start with zero configuration, yet tokens and encrypted mail
 * passwords must survive a restart: generate the secrets once and keep them beside the data (0600).
 * Values given in the environment still win over the stored ones.
 */
export function loadOrCreateDevSecrets(dataDir: string, given: { jwtAccess?: string; jwtRefresh?: string; encryptionKey?: string }, options: { create?: boolean } = {}): Secrets {
  const file = path.join(dataDir, 'secrets.json');
  let stored: StoredSecrets;
  if (fs.existsSync(file)) {
    stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSecrets;
  } else if (options.create === false) {
    // A check that must change nothing (crm-admin doctor): throwaway values, written nowhere.
    stored = randomSecrets();
  } else {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    stored = randomSecrets();
    // wx: two processes starting at once must not overwrite each other's freshly generated keys.
    try {
      fs.writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSecrets;
    }
  }
  const key = given.encryptionKey ?? stored.encryptionKey;
  return {
    jwtAccessSecret: given.jwtAccess ?? stored.jwtAccessSecret,
    jwtRefreshSecret: given.jwtRefresh ?? stored.jwtRefreshSecret,
    encryptionKey: /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64'),
    oldEncryptionKeys: [],
  };
}

function randomSecrets(): StoredSecrets {
  return {
    jwtAccessSecret: crypto.randomBytes(48).toString('base64url'),
    jwtRefreshSecret: crypto.randomBytes(48).toString('base64url'),
    encryptionKey: crypto.randomBytes(32).toString('hex'),
  };
}
