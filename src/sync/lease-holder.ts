/**
 * Who holds an account's lease, as mail_sync_states.locked_by names it: `host:pid:role:random`.
 * The role says which kind of process it is (a `serve --no-api` worker, an API replica running a
 * "sync now", a crm-admin command), so that `sync status` and the take-over log name a process an
 * operator can find. Older releases wrote `host:pid:random`; any other text (tests name their
 * workers freely) is shown as it is.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** serve (API and sync), api (serve --no-sync), worker (serve --no-api), cli (crm-admin). */
export type SyncRole = 'serve' | 'api' | 'worker' | 'cli';

export interface LeaseHolder {
  /** locked_by as stored. */
  id: string;
  host: string | null;
  pid: number | null;
  role: string | null;
}

export function newInstanceId(role: SyncRole): string {
  return `${os.hostname()}:${process.pid}:${role}:${randomBytes(4).toString('hex')}`;
}

const WITH_ROLE = /^([^:]+):(\d+):([a-z]+):[0-9a-f]+$/;
const WITHOUT_ROLE = /^([^:]+):(\d+):[0-9a-f]+$/;

export function parseHolder(id: string): LeaseHolder {
  const withRole = WITH_ROLE.exec(id);
  if (withRole) return { id, host: withRole[1], pid: Number(withRole[2]), role: withRole[3] };
  const older = WITHOUT_ROLE.exec(id);
  if (older) return { id, host: older[1], pid: Number(older[2]), role: null };
  return { id, host: null, pid: null, role: null };
}

/** One phrase for logs and the CLI: `worker pid 4242 on web1`, or the raw id. */
export function describeHolder(id: string): string {
  const h = parseHolder(id);
  if (h.host === null) return id;
  return `${h.role ?? 'process'} pid ${h.pid} on ${h.host}`;
}
