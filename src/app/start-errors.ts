import type { AppConfig } from '../config/config.js';
import { isConnectFailure } from '../db/db-errors.js';

/**
 * One line that tells a sysadmin reading journald what to fix, for the failures a start meets in
 * practice. Never includes the database password (DATABASE_URL may be echoed by a driver message).
 */
export function describeStartError(err: unknown, config: AppConfig, port = config.port): string {
  const e = err as { code?: string; syscall?: string; message?: string; parent?: { message?: string } };
  const message = e.message ?? String(err);
  let line: string;
  // Only a failed listen means the port is taken: an outgoing connect that finds no free local port
  // (ephemeral ports used up) also fails with EADDRINUSE, and is told as what it is below.
  if (e.code === 'EADDRINUSE' && e.syscall === 'listen' && port === 0) {
    line = `no free port to listen on ${config.host} (PORT=0 takes any free one; too many connections open on this machine?)`;
  } else if (e.code === 'EADDRINUSE' && e.syscall === 'listen') {
    line = `port ${port} on ${config.host} is already in use (another crm-admin serve running?); choose another PORT or stop that process`;
  } else if (e.code === 'EACCES' && message.includes('listen')) {
    line = `not allowed to listen on ${config.host}:${port} (ports below 1024 need a capability; use a reverse proxy)`;
  } else if (e.code === 'EADDRNOTAVAIL') {
    line = `HOST ${config.host} is not an address of this machine`;
  } else if (e.code === 'EADDRINUSE') {
    line = `no free local port for an outgoing connection (${message}); too many connections open on this machine`;
  } else if (isConnectFailure(err)) {
    line = `cannot connect to the database at ${databaseTarget(config)}: ${e.parent?.message ?? message}`;
  } else {
    line = message;
  }
  return `start failed: ${redactPassword(line, config.databaseUrl)}`.replace(/\s*\n\s*/g, ' ');
}

function databaseTarget(config: AppConfig): string {
  if (!config.databaseUrl) return `the embedded PostgreSQL in ${config.dataDir}`;
  try {
    const url = new URL(config.databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname} (DATABASE_URL)`;
  } catch {
    return 'DATABASE_URL';
  }
}

function redactPassword(text: string, databaseUrl: string | undefined): string {
  if (!databaseUrl) return text;
  let password = '';
  try {
    password = decodeURIComponent(new URL(databaseUrl).password);
  } catch {
    return text;
  }
  return password ? text.split(password).join('***') : text;
}
