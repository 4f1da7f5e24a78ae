/**
 * Test fixtures for the mail sync: build exact raw messages and put them into a mailbox of the test
 * Cyrus server over IMAP (node:net, no packages), and create throwaway mail users.
 * JMAP has Email/import too, but IMAP APPEND also sets the internal date (receivedAt) and flags in
 * one step, exactly as mail delivered or sent by another client would look.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { activeFake, ensureCyrus } from './mail-server.js';
import { testEnv } from './test-env.js';

export function testImapPort(): number {
  return Number(process.env.TEST_JMAP_IMAP_PORT ?? 11143);
}

/** The test server's session URL; call it inside before()/it() (the global setup fills it in). */
export function testJmapSessionUrl(): string {
  const url = testEnv.jmapSessionUrl ?? process.env.TEST_JMAP_SESSION_URL;
  if (!url) throw new Error('TEST_JMAP_SESSION_URL is not set: run `bash scripts/jmap/start.sh` and export it');
  return url;
}

// ---------------------------------------------------------------------------------------- users

const addUserScript = fileURLToPath(new URL('../../scripts/jmap/add-user.sh', import.meta.url));

/** Creates the mail user (or resets its password) and its mailboxes on the test server (Cyrus, or the medium tier's fake). */
export async function addMailUser(user: string, pass: string): Promise<void> {
  const fake = activeFake();
  if (fake) {
    fake.addUser(user, pass);
    return;
  }
  await ensureCyrus();
  const env = { ...process.env };
  if (process.env.TEST_JMAP_IMAP_PORT) env.JMAP_IMAP_PORT = process.env.TEST_JMAP_IMAP_PORT;
  try {
    await promisify(execFile)('bash', [addUserScript, user, pass], { env, timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`add-user.sh ${user} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** A fresh, isolated mail user such as u-3f9a1c2e7b@example.test, so test files never share mailboxes. */
export async function createTestMailUser(prefix = 'u'): Promise<{ user: string; pass: string }> {
  const user = `${prefix}-${randomBytes(5).toString('hex')}@example.test`;
  const pass = `pw-${randomBytes(9).toString('base64url')}`;
  await addMailUser(user, pass);
  return { user, pass };
}

// ------------------------------------------------------------------------------------- messages

export type AddressInput = string | { name?: string; email: string };

export interface MessageSpec {
  from: AddressInput | AddressInput[];
  to: AddressInput | AddressInput[];
  cc?: AddressInput | AddressInput[];
  subject: string;
  body: string;
  /** With or without angle brackets; default a new unique id (Cyrus derives Email ids from content). */
  messageId?: string;
  /** Also written as References. */
  inReplyTo?: string | string[];
  date?: Date;
  /** Extra header fields, e.g. { 'List-Id': '<news.example.com>', 'Auto-Submitted': 'auto-generated' }. */
  headers?: Record<string, string>;
  /** Makes the message multipart/alternative with this HTML beside the text body. */
  html?: string;
}

/** A raw RFC 5322 message with CRLF line ends; non-ASCII headers as RFC 2047 encoded words. */
export function buildMessage(spec: MessageSpec): string {
  const lines = [
    `From: ${addressList(spec.from)}`,
    `To: ${addressList(spec.to)}`,
    ...(spec.cc ? [`Cc: ${addressList(spec.cc)}`] : []),
    `Subject: ${encodeWords(spec.subject)}`,
    `Date: ${rfc5322Date(spec.date ?? new Date())}`,
    `Message-ID: ${angle(spec.messageId ?? `${randomUUID()}@crm.test`)}`,
  ];
  if (spec.inReplyTo !== undefined) {
    const refs = (Array.isArray(spec.inReplyTo) ? spec.inReplyTo : [spec.inReplyTo]).map(angle).join(' ');
    lines.push(`In-Reply-To: ${refs}`, `References: ${refs}`);
  }
  for (const [name, value] of Object.entries(spec.headers ?? {})) lines.push(`${name}: ${encodeWords(value)}`);
  lines.push('MIME-Version: 1.0');
  if (spec.html === undefined) return [...lines, ...textPart(spec.body, 'plain'), ''].join('\r\n');
  const boundary = `alt-${randomBytes(8).toString('hex')}`;
  return [
    ...lines,
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    ...textPart(spec.body, 'plain'),
    `--${boundary}`,
    ...textPart(spec.html, 'html'),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** Headers + blank line + body of one text part; base64 unless the text is short-lined ASCII. */
function textPart(text: string, subtype: 'plain' | 'html'): string[] {
  const crlf = text.replace(/\r?\n/g, '\r\n');
  const type = `Content-Type: text/${subtype}; charset=utf-8`;
  if (/^[\x20-\x7e\t\r\n]*$/.test(crlf) && crlf.split('\r\n').every((l) => l.length <= 900)) {
    return [type, 'Content-Transfer-Encoding: 7bit', '', crlf];
  }
  const b64 =
    Buffer.from(crlf, 'utf8')
      .toString('base64')
      .match(/.{1,76}/g) ?? [];
  return [type, 'Content-Transfer-Encoding: base64', '', ...b64];
}

function addressList(input: AddressInput | AddressInput[]): string {
  return (Array.isArray(input) ? input : [input]).map(formatAddress).join(', ');
}

function formatAddress(a: AddressInput): string {
  if (typeof a === 'string') return a;
  if (!a.name) return `<${a.email}>`;
  const name = /[^\x00-\x7f]/.test(a.name) ? encodeWords(a.name) : `"${a.name.replace(/(["\\])/g, '\\$1')}"`;
  return `${name} <${a.email}>`;
}

/** RFC 2047 B-encoding in words of at most ~45 bytes, never splitting a UTF-8 sequence. */
function encodeWords(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const words: string[] = [];
  let current = '';
  for (const ch of value) {
    if (Buffer.byteLength(current + ch) > 45) {
      words.push(current);
      current = '';
    }
    current += ch;
  }
  words.push(current);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

const angle = (id: string) => (id.startsWith('<') ? id : `<${id}>`);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const pad = (n: number) => String(n).padStart(2, '0');
const hms = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

function rfc5322Date(d: Date): string {
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${hms(d)} +0000`;
}

/** IMAP date-time (RFC 3501): "22-Nov-2026 02:39:41 +0000". */
function imapDate(d: Date): string {
  return `${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${hms(d)} +0000`;
}

// ----------------------------------------------------------------------------------------- IMAP

export interface AppendOptions {
  port?: number;
  host?: string;
  user: string;
  pass: string;
  /** e.g. "INBOX", "Sent" (ASCII names only). */
  mailbox: string;
  raw: string;
  /** e.g. ['\\Seen'], ['$Forwarded']. */
  flags?: string[];
  /** Becomes the Email's receivedAt. */
  internalDate?: Date;
  timeoutMs?: number;
}

/** IMAP LOGIN + APPEND (synchronising literal) + LOGOUT; rejects on any NO/BAD. */
export async function appendMessage(o: AppendOptions): Promise<void> {
  const fake = activeFake();
  if (fake) {
    fake.append({ user: o.user, password: o.pass, mailbox: o.mailbox, raw: Buffer.from(o.raw, 'utf8'), flags: o.flags, receivedAt: o.internalDate });
    return;
  }
  const session = await ImapSession.open(o.host ?? '127.0.0.1', o.port ?? testImapPort(), o.timeoutMs ?? 10_000);
  try {
    await session.command(`LOGIN ${quote(o.user)} ${quote(o.pass)}`);
    const bytes = Buffer.from(o.raw, 'utf8');
    const date = o.internalDate ? ` "${imapDate(o.internalDate)}"` : '';
    await session.command(`APPEND ${quote(o.mailbox)} (${(o.flags ?? []).join(' ')})${date} {${bytes.length}}`, bytes);
    await session.command('LOGOUT');
  } finally {
    session.close();
  }
}

function quote(s: string): string {
  if (/[\r\n\x00]|[^\x00-\x7f]/.test(s)) throw new Error(`IMAP quoted strings cannot carry ${JSON.stringify(s)}`);
  return `"${s.replace(/(["\\])/g, '\\$1')}"`;
}

/** Just enough IMAP client: a line reader, tagged commands, one literal per command. */
class ImapSession {
  private buffer = '';
  private lines: string[] = [];
  private waiter?: { resolve: (line: string) => void; reject: (err: Error) => void };
  private failure?: Error;
  private tag = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let i: number;
      while ((i = this.buffer.indexOf('\r\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 2);
      }
      this.wake();
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      this.wake();
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('IMAP connection closed')));
    socket.on('timeout', () => {
      fail(new Error('IMAP server did not answer in time'));
      socket.destroy();
    });
  }

  static async open(host: string, port: number, timeoutMs: number): Promise<ImapSession> {
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs);
    const session = new ImapSession(socket);
    const greeting = await session.nextLine();
    if (!greeting.startsWith('* OK')) throw new Error(`unexpected IMAP greeting: ${greeting}`);
    return session;
  }

  async command(text: string, literal?: Buffer): Promise<string> {
    const tag = `t${++this.tag}`;
    this.socket.write(`${tag} ${text}\r\n`);
    for (;;) {
      const line = await this.nextLine();
      if (line.startsWith('+') && literal) {
        this.socket.write(Buffer.concat([literal, Buffer.from('\r\n')]));
        literal = undefined;
      } else if (line.startsWith(`${tag} `)) {
        if (!line.startsWith(`${tag} OK`)) throw new Error(`IMAP ${text.split(' ')[0]} failed: ${line}`);
        return line;
      }
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    const line = this.lines.shift();
    if (line !== undefined) {
      this.waiter = undefined;
      w.resolve(line);
    } else if (this.failure) {
      this.waiter = undefined;
      w.reject(this.failure);
    }
  }
}
