/**
 * A JMAP mail server in the test process, answering as the project's test Cyrus 3.6 does
 * (scripts/jmap/start.sh): the medium tier's mail server (docs: CONTRIBUTING.md, "Tests"). It listens
 * on 127.0.0.1 (so blob downloads over node:http and every client of the CRM work unchanged) and keeps
 * everything in memory. What it answers is held to Cyrus's answers by the contract suite
 * (test/contract/jmap-contract.ts), which runs the same cases against both.
 *
 * Mail users and their messages come from test/support/imap.ts as on Cyrus (createTestMailUser,
 * appendMessage); a submission is delivered into the recipients' inboxes on the fake and logged like
 * the relay's deliveries (relayDeliveries).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MethodCall, MethodResponse } from '../../../src/jmap/index.js';
import { deliveryRecord, emailSet, submissionSet, type SetContext } from './email-set.js';
import { emailChanges, emailGet, emailQuery, identityGet, mailboxGet, MethodError, threadGet } from './methods.js';
import { blobIdOf } from './mime.js';
import { FakeAccount, type StoredEmail } from './store.js';
import { recordedSession } from '../../unit/support/fake-jmap.js';

const LIMITS = { maxSizeRequest: 10_485_760, maxCallsInRequest: 50, maxObjectsInGet: 4096, maxObjectsInSet: 4096 };
const CAPABILITIES = [
  'urn:ietf:params:jmap:core',
  'urn:ietf:params:jmap:mail',
  'urn:ietf:params:jmap:submission',
  'urn:ietf:params:jmap:vacationresponse',
  'urn:ietf:params:jmap:mdn',
];

export interface Delivery {
  from: string;
  to: string[];
  messageId: string | null;
  subject: string | null;
}

type Args = Record<string, unknown>;

export class FakeJmapServer {
  readonly accounts = new Map<string, FakeAccount>();
  readonly deliveries: Delivery[] = [];
  private server?: http.Server;
  private port = 0;

  static async start(): Promise<FakeJmapServer> {
    const fake = new FakeJmapServer();
    fake.server = http.createServer((req, res) => {
      fake.handle(req, res).catch((err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err));
      });
    });
    // Node closes an idle kept-alive connection after 5 s, and a client that picks it up at that moment
    // gets ECONNRESET (seen at load 35, where a test spends seconds between two requests): a minute.
    fake.server.keepAliveTimeout = 65_000;
    fake.server.headersTimeout = 66_000;
    await new Promise<void>((resolve) => fake.server!.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get sessionUrl(): string {
    return `${this.origin}/.well-known/jmap`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Creates the user (or sets its password), as scripts/jmap/add-user.sh does on Cyrus. */
  addUser(user: string, password: string): FakeAccount {
    const existing = this.accounts.get(user.toLowerCase());
    if (existing) {
      existing.password = password;
      return existing;
    }
    const account = new FakeAccount(user.toLowerCase(), password);
    this.accounts.set(account.user, account);
    return account;
  }

  /** IMAP APPEND: flags in IMAP form (\\Seen, $Forwarded) become keywords. */
  append({
    user,
    password,
    mailbox,
    raw,
    flags = [],
    receivedAt,
  }: {
    user: string;
    password: string;
    mailbox: string;
    raw: Buffer;
    flags?: string[];
    receivedAt?: Date;
  }): StoredEmail {
    const account = this.accounts.get(user.toLowerCase());
    if (!account || account.password !== password) throw new Error(`IMAP LOGIN failed for ${user}`);
    const box = account.mailbox(mailbox === 'INBOX' ? 'inbox' : mailbox);
    if (!box) throw new Error(`IMAP APPEND failed: no mailbox ${mailbox}`);
    const keywords = flags.map((f) => (f.startsWith('\\') ? `$${f.slice(1)}` : f));
    return account.add(raw, [box.id], keywords, receivedAt);
  }

  private authenticate(req: http.IncomingMessage): FakeAccount | undefined {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return undefined;
    const pair = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    const account = this.accounts.get(pair.slice(0, colon).toLowerCase());
    return account && account.password === pair.slice(colon + 1) ? account : undefined;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    if (url.pathname === '/.well-known/jmap') {
      res.writeHead(301, { Location: `${this.origin}/jmap` }).end();
      return;
    }
    const account = this.authenticate(req);
    if (!account) {
      await drain(req);
      res.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8', 'WWW-Authenticate': 'Basic realm="localhost"' }).end('<html><body><h1>Unauthorized</h1></body></html>');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/jmap') return json(res, 200, this.session(account));
    if (req.method === 'POST' && url.pathname === '/jmap/') return this.api(account, req, res);
    const upload = /^\/jmap\/upload\/([^/]+)\/$/.exec(url.pathname);
    if (req.method === 'POST' && upload) return this.upload(account, decodeURIComponent(upload[1]), req, res);
    const download = /^\/jmap\/download\/([^/]+)\/([^/]+)\/([^/]*)$/.exec(url.pathname);
    if (req.method === 'GET' && download) return this.download(account, download.map(decodeURIComponent), url, res);
    await drain(req);
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
  }

  private session(account: FakeAccount): Args {
    const base = recordedSession();
    const capabilities = { ...(base.capabilities as Args), 'urn:ietf:params:jmap:vacationresponse': {}, 'urn:ietf:params:jmap:mdn': {} };
    const accountCapabilities = (Object.values(base.accounts as Args)[0] as { accountCapabilities: Args }).accountCapabilities;
    return {
      ...base,
      username: account.user,
      capabilities,
      accounts: { [account.user]: { name: account.user, isPrimary: true, isPersonal: true, isReadOnly: false, accountCapabilities } },
      primaryAccounts: { 'urn:ietf:params:jmap:mail': account.user, 'urn:ietf:params:jmap:submission': account.user },
    };
  }

  private async api(account: FakeAccount, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req, LIMITS.maxSizeRequest);
    // The connection is not kept: a client may still be sending the body it was refused (ECONNRESET on its next request).
    if (body === undefined) return problem(res.setHeader('Connection', 'close'), 413, 'limit', { limit: 'maxSizeRequest' });
    let request: { using?: unknown; methodCalls?: unknown };
    try {
      request = JSON.parse(body.toString('utf8')) as typeof request;
    } catch {
      return problem(res, 400, 'notJSON');
    }
    if (!request || !Array.isArray(request.using) || !Array.isArray(request.methodCalls)) return problem(res, 400, 'notRequest');
    const unknown = (request.using as string[]).find((c) => !CAPABILITIES.includes(c));
    if (unknown) return problem(res, 400, 'unknownCapability', { detail: `The Request object used capability '${unknown}', which is not supported by this server.` });
    const calls = request.methodCalls as MethodCall[];
    if (calls.length > LIMITS.maxCallsInRequest) return problem(res, 400, 'limit', { limit: 'maxCallsInRequest' });
    if (calls.some(([name, args]) => name === 'Email/get' && Array.isArray(args.ids) && args.ids.length > LIMITS.maxObjectsInGet))
      return problem(res, 400, 'limit', { limit: 'maxObjectsInGet' });
    const responses: MethodResponse[] = [];
    const ctx: SetContext = { account, created: new Map(), deliver: (from, to, email) => this.deliver(from, to, email) };
    for (const [name, rawArgs, callId] of calls) {
      try {
        const args = resolveReferences(rawArgs, responses);
        if (args.accountId !== undefined && args.accountId !== account.user) throw new MethodError({ type: 'accountNotFound' });
        responses.push(...this.call(ctx, name, args, callId));
      } catch (err) {
        if (!(err instanceof MethodError)) throw err;
        responses.push(['error', err.details, callId]);
      }
    }
    json(res, 200, { methodResponses: responses, sessionState: '0' });
  }

  private call(ctx: SetContext, name: string, args: Args, callId: string): MethodResponse[] {
    const { account } = ctx;
    const resolveIds = (list: unknown) => (Array.isArray(list) ? list.map((id: string) => (id.startsWith('#') ? (ctx.created.get(id.slice(1)) ?? id) : id)) : list);
    switch (name) {
      case 'Mailbox/get':
        return [[name, mailboxGet(account, args), callId]];
      case 'Email/get':
        return [[name, emailGet(account, { ...args, ids: resolveIds(args.ids) }), callId]];
      case 'Email/query':
        return [[name, emailQuery(account, args), callId]];
      case 'Email/changes':
        return [[name, emailChanges(account, args), callId]];
      case 'Email/set':
        if (args.ifInState !== undefined && args.ifInState !== account.state) throw new MethodError({ type: 'stateMismatch' });
        return [[name, emailSet(ctx, args), callId]];
      case 'EmailSubmission/set':
        return submissionSet(ctx, args, callId);
      case 'Identity/get':
        return [[name, identityGet(account), callId]];
      case 'Thread/get':
        return [[name, threadGet(account, args), callId]];
      case 'Core/echo':
        return [[name, args, callId]];
      default:
        throw new MethodError({ type: 'unknownMethod' });
    }
  }

  /** The relay's part: logged, then into the inbox of each recipient the fake knows (others are "outside"). */
  private deliver(from: string, to: string[], email: StoredEmail): void {
    this.deliveries.push(deliveryRecord(from, to, email));
    const received = new Date();
    const trace = Buffer.from(`Return-Path: <${from}>\r\nReceived: from crm-test-jmap-fake by localhost with LMTPA; ${received.toUTCString()}\r\n`, 'latin1');
    for (const rcpt of new Set(to.map((t) => t.toLowerCase()))) {
      const target = this.accounts.get(rcpt);
      const inbox = target?.mailbox('inbox');
      // Cyrus keeps one delivered copy of a Message-ID per mailbox (duplicate delivery suppression).
      const messageId = deliveryRecord(from, to, email).messageId;
      if (!target || !inbox) continue;
      const dup = [...target.emails.values()].some((e) => e.mailboxIds.has(inbox.id) && messageId !== null && deliveryRecord(from, to, e).messageId === messageId);
      if (!dup) target.add(Buffer.concat([trace, email.raw]), [inbox.id], [], received);
    }
  }

  private async upload(account: FakeAccount, accountId: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const data = await readBody(req, Infinity);
    if (accountId !== account.user) return void res.writeHead(404).end();
    const type = req.headers['content-type'] ?? 'application/octet-stream';
    const blobId = blobIdOf(data!);
    account.blobs.set(blobId, { data: data!, type });
    json(res, 201, { accountId, blobId, type, size: data!.length });
  }

  private download(account: FakeAccount, [, accountId, blobId, name]: string[], url: URL, res: http.ServerResponse): void {
    const blob = accountId === account.user ? account.blob(blobId) : undefined;
    if (!blob) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
    res.writeHead(200, {
      'Content-Type': url.searchParams.get('accept') ?? blob.type,
      'Content-Length': blob.data.length,
      'Content-Disposition': `attachment; filename="${name}"`,
    });
    res.end(blob.data);
  }
}

/** RFC 8620 §3.7: "#ids" arguments read from an earlier response of the same request. */
function resolveReferences(args: Args, responses: MethodResponse[]): Args {
  const out: Args = {};
  for (const [key, value] of Object.entries(args)) {
    if (!key.startsWith('#')) {
      out[key] = value;
      continue;
    }
    const ref = value as { resultOf: string; name: string; path: string };
    const source = responses.find((r) => r[2] === ref.resultOf && r[0] === ref.name);
    if (!source) throw new MethodError({ type: 'resultReference' });
    out[key.slice(1)] = pointer(source[1], ref.path);
  }
  return out;
}

function pointer(value: unknown, path: string): unknown {
  let current: unknown = value;
  const parts = path.split('/').slice(1);
  for (const [i, part] of parts.entries()) {
    if (part === '*' && Array.isArray(current)) return current.flatMap((item) => pointer(item, `/${parts.slice(i + 1).join('/')}`) as unknown[]);
    if (current === null || typeof current !== 'object') throw new MethodError({ type: 'resultReference' });
    current = (current as Record<string, unknown>)[part];
  }
  return current ?? [];
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function problem(res: http.ServerResponse, status: number, type: string, extra: Args = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/problem+json; charset=utf-8' }).end(JSON.stringify({ type: `urn:ietf:params:jmap:error:${type}`, status, ...extra }));
}

/** The request body, or undefined once it passes `max` bytes (the rest is read and dropped). */
async function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= max) chunks.push(chunk);
  }
  return size > max ? undefined : Buffer.concat(chunks);
}

async function drain(req: http.IncomingMessage): Promise<void> {
  for await (const _ of req as AsyncIterable<Buffer>) void _;
}
