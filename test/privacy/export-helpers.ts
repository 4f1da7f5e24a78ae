/** Shared by the export tests: a person with mail, the export over a real socket, a table held locked. */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { until } from '../support/poll.js';
import { requireDatabaseUrl } from '../support/test-env.js';

/** An address with `emails` emails of `bytes` random bytes each (random text does not compress). */
export async function personWithMail(emails = 20, bytes = 1500): Promise<string> {
  const address = `export-${randomBytes(4).toString('hex')}@clients.example`;
  const owner = await createUser();
  const account = await createEmailAccount(owner.user);
  const contact = await createContact(account, { email: address, name: 'Export Test' });
  for (let i = 0; i < emails; i++) await createEmail(account, contact, { subject: `Správa ${i}`, body: randomBytes(bytes).toString('base64') });
  return address;
}

export interface ExportAnswer {
  status: number;
  /** Whether the response ended cleanly, as a whole zip would. */
  complete: boolean;
  body: Buffer;
}

export interface ExportCall {
  answer: Promise<ExportAnswer>;
  /** Whether the response has ended so far. */
  ended(): boolean;
  /** Bytes of the body received so far. */
  received(): number;
  /** The client goes away (closes its connection) without reading the rest. */
  abandon(): void;
}

/**
 * POST /api/admin/privacy/export over a real socket (supertest would buffer the body): the answer once
 * the connection closes, and what has arrived so far.
 */
export function exportOverHttp(server: http.Server, bearer: string, address: string): ExportCall {
  let ended = false;
  let received = 0;
  let request: http.ClientRequest | undefined;
  const answer = new Promise<ExportAnswer>((resolve, reject) => {
    request = http.request(
      {
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        method: 'POST',
        path: '/api/admin/privacy/export',
        headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          received += c.length;
          chunks.push(c);
        });
        res.on('end', () => (ended = true));
        res.on('error', () => undefined);
        res.once('close', () => resolve({ status: res.statusCode ?? 0, complete: res.complete, body: Buffer.concat(chunks) }));
      },
    );
    request.on('error', (err) => (request?.destroyed ? undefined : reject(err)));
    request.end(JSON.stringify({ email: address }));
  });
  return { answer, ended: () => ended, received: () => received, abandon: () => request?.destroy() };
}

export interface LockedTableWork {
  server: http.Server;
  admin: string;
  address: string;
  locker: pg.Client;
}

/**
 * The app on a socket, an admin, a person with mail (`person`: emails and bytes each), and `table`
 * locked in `mode` by another transaction for the time of `work` (`locker.query('ROLLBACK')` lets go).
 */
export async function withLockedTable(table: string, mode: string, work: (w: LockedTableWork) => Promise<void>, person: [number, number] = [20, 1500]): Promise<void> {
  const address = await personWithMail(...person);
  const admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  const server = http.createServer(await testApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const locker = new pg.Client({ connectionString: requireDatabaseUrl() });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ${mode} MODE`);
    await work({ server, admin, address, locker });
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The backend of the export whose statement (`like`) waits for a lock. */
export async function waitingBackend(ctx: AppContext, like: string, what: string, timeoutMs = 30_000): Promise<number> {
  const [waiting] = await until(
    () =>
      ctx.db.sequelize
        .query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()", {
          bind: [like],
          type: QueryTypes.SELECT,
        })
        .then((rows) => (rows.length > 0 ? rows : undefined)),
    { what, timeoutMs },
  );
  return waiting.pid;
}
