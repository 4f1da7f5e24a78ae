import crypto from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { AppConfig, ConfigError } from '../../src/config/config.js';
import { envSchema } from '../../src/config/env-schema.js';
import { repoRoot } from '../support/cli.js';
import { requirePrerequisite } from '../support/prerequisite.js';
import { testEnv } from '../support/test-env.js';

const unitPath = path.join(repoRoot, 'systemd/staff-crm@.service');
const envExamplePath = path.join(repoRoot, 'systemd/staff-crm.env.example');
const waitReady = path.join(repoRoot, 'scripts/wait-ready.mjs');

function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** `Key=value` lines of a unit file (last one wins, as in systemd for single-valued keys). */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1], [...(settings.get(m[1]) ?? []), m[2]]);
  }
  return settings;
}

function envFileEntries(text: string, { commented }: { commented: boolean }): Record<string, string> {
  const pattern = commented ? /^#([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = pattern.exec(line.trim());
    if (m) out[m[1]] = m[2]!;
  }
  return out;
}

describe('systemd unit', function () {
  this.timeout(300_000);

  let verifier = false;
  before(function () {
    verifier = hasSystemdAnalyze();
    if (verifier || process.getuid?.() !== 0) return;
    // As root on Debian with apt (CI): get the verifier rather than leaving the check out.
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'systemd'], { stdio: 'ignore', timeout: 240_000 });
    verifier = hasSystemdAnalyze();
  });

  /** Only the two verify tests need systemd-analyze; the others read the files themselves. */
  function requireVerifier(test: Mocha.Context): void {
    requirePrerequisite(test, verifier, 'systemd-analyze (apt-get install systemd): the unit file is NOT verified');
  }

  /**
   * verify needs the ExecStart/ExecStartPost programs to exist: a copy of systemd/ (units and drop-ins)
   * with /opt/staff-crm = this checkout; `units` are the names to verify in it (template instances too).
   */
  function verifyCopy(
    name: string,
    edit: (unit: string) => string = (u) => u,
    units = ['staff-crm@all.service', 'staff-crm@api.service', 'staff-crm@worker.service'],
  ): { status: number | null; lines: string[] } {
    const dir = path.join(testEnv.tmpRoot!, name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.cpSync(path.join(repoRoot, 'systemd'), dir, { recursive: true });
    for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(service|timer|conf)$/.test(f))) {
      const text = fs
        .readFileSync(path.join(dir, file), 'utf8')
        .replaceAll('/opt/staff-crm', repoRoot.replace(/\/$/, ''))
        .replaceAll('/etc/staff-crm/staff-crm.env', envExamplePath);
      fs.writeFileSync(path.join(dir, file), edit(text));
    }
    const res = spawnSync('systemd-analyze', ['verify', ...units.map((u) => path.join(dir, u))], { encoding: 'utf8', timeout: 60_000 });
    // Only lines about this unit: a container may add noise about the host's own units.
    return { status: res.status, lines: `${res.stdout}${res.stderr}`.split('\n').filter((l) => l.includes('staff-crm')) };
  }

  it('passes `systemd-analyze verify` with no warning about the units (every role, drop-ins included)', function () {
    requireVerifier(this);
    const res = verifyCopy('systemd-verify');
    expect(res.lines, res.lines.join('\n')).to.deep.equal([]);
    expect(res.status).to.equal(0);
  });

  it('would report a broken unit (the check above can fail)', function () {
    requireVerifier(this);
    const res = verifyCopy('systemd-verify-broken', (u) => u.replace('ProtectSystem=strict', 'ProtectSystm=strict'));
    expect(res.lines.join('\n')).to.match(/Unknown key .ProtectSystm/);
    // A role's drop-in is read too.
    const dropIn = verifyCopy('systemd-verify-dropin', (u) => u.replace('Environment=CRM_SERVE_FLAGS=--no-api', 'Enviroment=CRM_SERVE_FLAGS=--no-api'));
    expect(dropIn.lines.join('\n')).to.match(/staff-crm@worker\.service\.d\/role\.conf.*Unknown key .Enviroment/);
    const missing = verifyCopy('systemd-verify-missing', (u) => u.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/crm-admin'));
    expect(missing.lines.join('\n')).to.match(/not executable/);
  });

  it('runs `crm-admin serve` hardened, with its state in /var/lib/staff-crm', () => {
    const s = unitSettings(fs.readFileSync(unitPath, 'utf8'));
    const one = (key: string) => s.get(key)?.at(-1);
    expect(one('Type')).to.equal('exec');
    expect(one('ExecStart')).to.equal('/opt/staff-crm/bin/crm-admin serve $CRM_SERVE_FLAGS');
    expect(one('ExecStartPost')).to.match(/^\/opt\/staff-crm\/scripts\/wait-ready\.mjs --timeout-ms \d+$/);
    // Every instance is the one dynamic user, so they share the state directory.
    expect(one('User')).to.equal('staff-crm');
    expect(s.get('Environment')).to.include('CRM_DATA_DIR=/var/lib/staff-crm').and.include('NODE_ENV=production');
    expect(one('StateDirectory')).to.equal('staff-crm');
    const hardening: Record<string, string> = {
      DynamicUser: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      NoNewPrivileges: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      ProtectClock: 'yes',
      ProtectHostname: 'yes',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
      RestrictNamespaces: 'yes',
      RestrictRealtime: 'yes',
      RestrictSUIDSGID: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
      CapabilityBoundingSet: '',
      UMask: '0077',
      Restart: 'on-failure',
    };
    for (const [key, value] of Object.entries(hardening)) expect(one(key), key).to.equal(value);
    // The allow list first, then what is taken out of it (a ~ list first would make a deny list).
    expect(s.get('SystemCallFilter')).to.deep.equal(['@system-service', '~@privileged']);
    expect(one('PrivateUsers')).to.equal('yes');
    expect(one('PrivateMounts')).to.equal('yes');
    // V8's JIT needs W+X pages.
    expect(s.has('MemoryDenyWriteExecute')).to.equal(false);
    // The postmaster lives in the unit's cgroup: SIGTERM to node only, SIGKILL only for leftovers.
    expect(one('KillMode')).to.be.oneOf(['mixed', 'control-group']);
    expect(Number(one('TimeoutStopSec'))).to.be.greaterThan(8);
    expect(Number(one('RestartSec'))).to.be.greaterThan(0);
    expect(Number(one('StartLimitBurst'))).to.be.greaterThan(0);
  });

  it('has an EnvironmentFile example with every configuration variable, and docs/configuration.md documents each', () => {
    const example = fs.readFileSync(envExamplePath, 'utf8');
    const reference = fs.readFileSync(path.join(repoRoot, 'docs', 'configuration.md'), 'utf8');
    const listed = Object.keys(envFileEntries(example, { commented: false }));
    const known = Object.keys(envSchema.shape);
    expect([...listed].sort()).to.deep.equal([...known].sort());
    for (const key of known) expect(reference, `docs/configuration.md lacks ${key}`).to.contain(`\`${key}\``);
  });

  it('has an example that the program accepts once the secrets are filled in, and refuses without them', () => {
    const example = fs.readFileSync(envExamplePath, 'utf8');
    const values = envFileEntries(example, { commented: false });
    const secrets = {
      JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
      JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
      CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
    };
    const config = AppConfig.fromEnv({ ...values, ...secrets });
    expect(config.isProduction).to.equal(true);
    expect(config.dataDir).to.equal('/var/lib/staff-crm');
    // The commented production examples are valid values too.
    AppConfig.fromEnv({ ...values, ...envFileEntries(example, { commented: true }), ...secrets });
    let problems: string[] = [];
    try {
      AppConfig.fromEnv(values);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems.map((p) => p.split(':')[0])).to.deep.equal(['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'CRM_ENCRYPTION_KEY']);
  });
});

describe('systemd roles, credentials, backup unit and the crm-admin wrapper', function () {
  this.timeout(300_000);
  const systemdDir = path.join(repoRoot, 'systemd');
  const settingsOf = (file: string) => unitSettings(fs.readFileSync(path.join(systemdDir, file), 'utf8'));

  it('runs every role from the one template: all (default instance), api (--no-sync), worker (--no-api)', () => {
    const template = settingsOf('staff-crm@.service');
    expect(template.get('Environment')).to.include('CRM_SERVE_FLAGS=');
    expect(template.get('DefaultInstance')).to.deep.equal(['all']);
    expect(template.get('EnvironmentFile')).to.deep.equal(['/etc/staff-crm/staff-crm.env', '-/etc/staff-crm/%i.env']);
    expect(settingsOf('staff-crm@api.service.d/role.conf').get('Environment')).to.deep.equal(['CRM_SERVE_FLAGS=--no-sync']);
    expect(settingsOf('staff-crm@worker.service.d/role.conf').get('Environment')).to.include('CRM_SERVE_FLAGS=--no-api');
    // No second way to run it beside the template.
    expect(fs.existsSync(path.join(systemdDir, 'staff-crm.service'))).to.equal(false);
  });

  /** The secret files an admin puts in /etc/staff-crm/credentials (here: a directory of the test's own). */
  const secretFiles = () => {
    const dir = fs.mkdtempSync(path.join(testEnv.tmpRoot!, 'etc-credentials-'));
    const values = {
      JWT_ACCESS_SECRET: crypto.randomBytes(36).toString('base64'),
      JWT_REFRESH_SECRET: crypto.randomBytes(36).toString('base64'),
      CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      BACKUP_SIGNING_KEY: crypto.randomBytes(32).toString('hex'),
    };
    for (const [name, value] of Object.entries(values)) fs.writeFileSync(path.join(dir, name), `${value}\n`, { mode: 0o600 });
    return { dir, values };
  };

  /**
   * What systemd does with `LoadCredential=ID:PATH` at a unit's start (systemd.exec(5)): a file is copied
   * as `ID`, every file of a directory as `ID_<file name>`, into a fresh $CREDENTIALS_DIRECTORY.
   * /etc/staff-crm/credentials stands for `etc`.
   */
  const credentialsDirectory = (loadCredential: string[], etc: string): string => {
    const out = fs.mkdtempSync(path.join(testEnv.tmpRoot!, 'credentials-directory-'));
    for (const setting of loadCredential) {
      const [id, source] = [setting.slice(0, setting.indexOf(':')), setting.slice(setting.indexOf(':') + 1).replace('/etc/staff-crm/credentials', etc)];
      if (!fs.existsSync(source)) throw new Error(`LoadCredential=${setting}: ${source} does not exist, the unit would fail to start`);
      if (fs.statSync(source).isDirectory()) for (const file of fs.readdirSync(source)) fs.copyFileSync(path.join(source, file), path.join(out, `${id}_${file}`));
      else fs.copyFileSync(source, path.join(out, id));
    }
    return out;
  };

  const example = () => envFileEntries(fs.readFileSync(envExamplePath, 'utf8'), { commented: false });

  it('hands every secret file over as a credential (BACKUP_SIGNING_KEY included) to the service and the backup unit, and the program reads them', () => {
    const { dir, values } = secretFiles();
    for (const unit of ['staff-crm@.service', 'staff-crm-backup.service']) {
      const config = AppConfig.fromEnv({ ...example(), CREDENTIALS_DIRECTORY: credentialsDirectory(settingsOf(unit).get('LoadCredential') ?? [], dir) });
      expect(config.secrets.jwtAccessSecret, unit).to.equal(values.JWT_ACCESS_SECRET);
      expect(config.secrets.encryptionKey.toString('hex'), unit).to.equal(values.CRM_ENCRYPTION_KEY);
      expect(config.backupSigning.current, `${unit} does not pass BACKUP_SIGNING_KEY`).to.equal(values.BACKUP_SIGNING_KEY);
    }
    // A second source for one secret is a start error.
    let problems: string[] = [];
    try {
      AppConfig.fromEnv({
        ...example(),
        CREDENTIALS_DIRECTORY: credentialsDirectory(settingsOf('staff-crm@.service').get('LoadCredential') ?? [], dir),
        JWT_REFRESH_SECRET: crypto.randomBytes(36).toString('base64'),
      });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^JWT_REFRESH_SECRET: .*JWT_REFRESH_SECRET, .*CREDENTIALS_DIRECTORY/);
  });

  it('has a sandboxed backup unit (systemd-analyze security below 3.0) with OnFailure=, and a timer', function () {
    requirePrerequisite(this, hasSystemdAnalyze(), 'systemd-analyze (apt-get install systemd): the backup unit is NOT checked');
    const backup = settingsOf('staff-crm-backup.service');
    expect(backup.get('OnFailure')).to.deep.equal(['staff-crm-failure@%n.service']);
    expect(backup.get('Type')).to.deep.equal(['oneshot']);
    // A relative archive name, resolved against the unit's working directory (its own state directory).
    expect(backup.get('WorkingDirectory')).to.deep.equal(['/var/lib/staff-crm-backups']);
    expect(backup.get('StateDirectory')).to.deep.equal(['staff-crm staff-crm-backups']);
    expect(backup.get('ExecStart')![0]).to.match(/crm-admin db backup "crm-\$\(date/);
    expect(settingsOf('staff-crm-backup.timer').get('Persistent')).to.deep.equal(['true']);

    const dir = path.join(testEnv.tmpRoot!, 'systemd-backup-unit');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const file of ['staff-crm-backup.service', 'staff-crm-backup.timer', 'staff-crm-failure@.service']) {
      const text = fs
        .readFileSync(path.join(systemdDir, file), 'utf8')
        .replaceAll('/opt/staff-crm', repoRoot.replace(/\/$/, ''))
        .replaceAll('/etc/staff-crm/staff-crm.env', envExamplePath);
      fs.writeFileSync(path.join(dir, file), text);
    }
    const units = ['staff-crm-backup.service', 'staff-crm-backup.timer', 'staff-crm-failure@staff-crm-backup.service.service'].map((u) => path.join(dir, u));
    const verify = spawnSync('systemd-analyze', ['verify', ...units], { encoding: 'utf8', timeout: 60_000 });
    const lines = `${verify.stdout}${verify.stderr}`.split('\n').filter((l) => l.includes('staff-crm'));
    expect(lines, lines.join('\n')).to.deep.equal([]);
    expect(verify.status).to.equal(0);
    const security = spawnSync('systemd-analyze', ['security', '--offline=yes', path.join(dir, 'staff-crm-backup.service')], { encoding: 'utf8', timeout: 60_000 });
    const exposure = /Overall exposure level for staff-crm-backup\.service: (\d+\.\d+)/.exec(`${security.stdout}${security.stderr}`);
    expect(exposure, security.stdout + security.stderr).to.not.equal(null);
    expect(Number(exposure![1])).to.be.below(3.0);
  });

  /** The wrapper with a stand-in for systemd-run that prints the properties and arguments it was given. */
  const wrapper = (args: string[], cwd: string, env: Record<string, string> = {}) => {
    const bin = path.join(testEnv.tmpRoot!, 'fake-systemd-run');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'systemd-run'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', { mode: 0o755 });
    const res = spawnSync(path.join(systemdDir, 'crm-admin'), args, { cwd, encoding: 'utf8', env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ...env } });
    expect(res.status, res.stderr).to.equal(0);
    return res.stdout.trimEnd().split('\n');
  };

  it("runs crm-admin through the wrapper in the caller's directory, so relative --out/backup paths land there", () => {
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(testEnv.tmpRoot!, 'admin-cwd-')));
    const args = wrapper(['db', 'backup', 'crm.tar.gz'], cwd);
    expect(args).to.include(`WorkingDirectory=-${cwd}`);
    expect(args.slice(-4)).to.deep.equal(['/opt/staff-crm/bin/crm-admin', 'db', 'backup', 'crm.tar.gz']);
  });

  it('passes every secret file to the command through the wrapper, BACKUP_SIGNING_KEY included (issue 52, finding 12)', () => {
    const { dir, values } = secretFiles();
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(testEnv.tmpRoot!, 'admin-cwd-')));
    const args = wrapper(['db', 'backup', 'crm.tar.gz'], cwd, { STAFF_CRM_CREDENTIALS: dir });
    const loaded = args.filter((a) => a.startsWith('LoadCredential=')).map((a) => a.slice('LoadCredential='.length));
    const config = AppConfig.fromEnv({ ...example(), CREDENTIALS_DIRECTORY: credentialsDirectory(loaded, dir) });
    expect(config.backupSigning.current, 'the wrapper does not pass BACKUP_SIGNING_KEY').to.equal(values.BACKUP_SIGNING_KEY);
    expect(config.secrets.encryptionKey.toString('hex')).to.equal(values.CRM_ENCRYPTION_KEY);
  });
});

describe("readiness gate (scripts/wait-ready.mjs, the unit's ExecStartPost)", () => {
  function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(waitReady, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  }

  it('waits until the readiness endpoint answers 200', async () => {
    let calls = 0;
    const server = http.createServer((req, res) => {
      calls += 1;
      res.statusCode = req.url === '/api/health/ready' && calls >= 3 ? 200 : 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // Default URL from HOST/PORT, as under systemd with the EnvironmentFile; 0.0.0.0 is polled on loopback.
      const res = await run(['--timeout-ms', '20000'], { HOST: '0.0.0.0', PORT: String(port) });
      expect(res.code, res.stderr).to.equal(0);
      expect(calls).to.equal(3);
    } finally {
      server.close();
    }
  });

  it('fails the start when the service never gets ready', async () => {
    const server = http.createServer((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await run([`http://127.0.0.1:${port}/api/health/ready`, '--timeout-ms', '600']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/not ready after 600 ms .* HTTP 503/);
    } finally {
      server.close();
    }
  });

  it('is skipped with CRM_READY_URL=none', async () => {
    expect((await run([], { CRM_READY_URL: 'none', PORT: '1' })).code).to.equal(0);
  });
});
