/**
 * Debian's chromium for the browser test, installed on first use like scripts/jmap/start.sh installs
 * Cyrus (CI runs as root on a fresh machine). playwright-core brings no browser of its own.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string {
  const found = () => CANDIDATES.find((p) => fs.existsSync(p));
  const present = found();
  if (present) return present;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 600_000 });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env, timeout: 900_000 });
  const installed = found();
  if (!installed) throw new Error('apt-get install chromium did not provide /usr/bin/chromium');
  return installed;
}

/** The flags of a quiet, throwaway headless browser: nothing phones home, nothing is kept. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
