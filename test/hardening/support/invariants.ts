import { expect } from 'chai';
import type { AppConfig } from '../../../src/config/config.js';
import { ERROR_CODES } from '../../../src/errors/error-codes.js';
import { testEnv } from '../../support/test-env.js';
import type { RawRequest, RawResponse } from './http-target.js';

/**
 * What must hold for EVERY answer of the service, whatever was sent: never a server error, errors in
 * exactly the contract's envelope (docs/contract.md §7), and nothing internal in any body.
 */

/** Things an error body must never show: stack frames, source paths, SQL and driver internals. */
const LEAK_PATTERNS: Array<[string, RegExp]> = [
  ['stack frame', /\n\s+at\s|\bat (?:async )?[\w$.<>]+ \(/],
  ['source position', /\.(?:ts|js|mjs|cjs):\d+/],
  ['file path', /(?:\/work\/|\/tmp\/|\/root\/|node_modules|file:\/\/)/],
  ['SQL', /\b(?:SELECT\s.+\sFROM|INSERT INTO|UPDATE\s+"?\w+"?\s+SET|DELETE FROM)\b/is],
  [
    'driver internals',
    /Sequelize|SQLSTATE|syntax error at|violates (?:unique|foreign|check|not-null)|duplicate key value|relation "|invalid input syntax|ECONNREFUSED|TypeError|ReferenceError|RangeError|Cannot read prop/,
  ],
  ['bcrypt hash', /\$2[aby]\$\d{2}\$/],
  ['sealed secret', /\bv1:[0-9a-f]{8}:[\w-]+:[\w-]+:/],
];

/** Secrets of the running configuration: never in any body, success or error. */
export function configSecrets(config: AppConfig): string[] {
  const secrets = [config.secrets.jwtAccessSecret, config.secrets.jwtRefreshSecret, config.secrets.encryptionKey.toString('hex')];
  const dbPassword = testEnv.databaseUrl ? decodeURIComponent(new URL(testEnv.databaseUrl).password) : '';
  if (dbPassword) secrets.push(dbPassword);
  return secrets;
}

export interface CheckOptions {
  /** 502/504 in the envelope are the documented answer of an unreachable mail server (docs/contract.md §7). */
  allowUpstream?: boolean;
  /** Extra strings that must not appear anywhere in the body (passwords the test knows). */
  secrets?: string[];
}

function describeExchange(req: RawRequest, res: RawResponse): string {
  const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? `<${req.body.length} bytes>` : req.body.slice(0, 400);
  return `${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers ?? {}).slice(0, 400)} ${body}\n  -> ${res.status} ${res.text.slice(0, 600)}`;
}

/** Words of zod's (and other libraries') English messages; contract (docs/contract.md §7): every message is Slovak. */
export const ENGLISH_WORDS =
  /\b(expected|received|invalid|must|required|string|number|too (big|small)|greater|less|characters?|unrecognized|keys?|option|input|should|cannot|not allowed|unexpected|malformed)\b/gi;

/** Every `message` of an error body (the envelope's and each detail's). */
function messagesOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) messagesOf(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'message' && typeof item === 'string') out.push(item);
      else messagesOf(item, out);
    }
  }
  return out;
}

/**
 * No English in any message; a word the request itself carried (an unknown field named "invalid"
 * echoed as "Neznáme pole: invalid") is not the service speaking English.
 */
export function expectSlovakMessages(res: RawResponse, sent = '', context = ''): void {
  const error = (res.json as { error?: unknown } | undefined)?.error;
  for (const message of messagesOf(error)) {
    const english = [...message.matchAll(ENGLISH_WORDS)].map((m) => m[0]).filter((word) => !sent.toLowerCase().includes(word.toLowerCase()));
    if (english.length > 0) expect.fail(`English (${english.join(', ')}) in the message ${JSON.stringify(message)} ${context}`);
  }
}

/** The contract's error envelope (docs/contract.md §7), exactly: no extra keys, statusCode equal to the HTTP status; Slovak messages. */
export function expectErrorEnvelope(res: RawResponse, context = '', sent = ''): void {
  expect(String(res.headers['content-type'] ?? ''), `content-type ${context}`).to.match(/^application\/json/);
  const body = res.json as Record<string, unknown> | undefined;
  expect(body, `JSON body ${context}`).to.be.an('object');
  expect(Object.keys(body!).sort(), `envelope keys ${context}`).to.deep.equal(['error', 'success']);
  expect(body!.success, context).to.equal(false);
  const error = body!.error as Record<string, unknown>;
  expect(error, context).to.be.an('object');
  const keys = Object.keys(error);
  expect(keys, `error keys ${context}`).to.include.members(['message', 'statusCode', 'code']);
  expect(
    keys.filter((k) => !['message', 'statusCode', 'code', 'details'].includes(k)),
    `extra error keys ${context}`,
  ).to.deep.equal([]);
  // contract (docs/contract.md §7): every error carries a documented, stable code.
  expect(Object.keys(ERROR_CODES), `documented error code ${context}`).to.include(error.code);
  expect(error.message, context).to.be.a('string').and.not.equal('');
  expect(error.statusCode, context).to.equal(res.status);
  expectSlovakMessages(res, sent, context);
}

/** Everything the client sent, as text: what an answer may echo without it counting against the service. */
function requestText(req: RawRequest): string {
  const sent = req.body === undefined ? '' : req.body.toString();
  let path = req.path;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    // A malformed escape stays as it was sent.
  }
  return `${req.path} ${path} ${JSON.stringify(req.headers ?? {})} ${sent}`;
}

/** Leak patterns count only when the request did not carry the same text (an echoed field name is not a leak). */
export function expectNoLeak(req: RawRequest, res: RawResponse, secrets: string[] = []): void {
  const sentText = requestText(req);
  for (const secret of secrets) {
    if (secret && !sentText.includes(secret)) expect(res.text.includes(secret), `a secret in the body of ${describeExchange(req, res)}`).to.equal(false);
  }
  if (res.status < 400) return;
  for (const [what, pattern] of LEAK_PATTERNS) {
    const found = pattern.exec(res.text);
    if (found && !sentText.includes(found[0])) expect.fail(`${what} (${JSON.stringify(found[0])}) in ${describeExchange(req, res)}`);
  }
}

/** Every invariant of one exchange. */
export function expectSafeAnswer(req: RawRequest, res: RawResponse, options: CheckOptions = {}): void {
  const context = describeExchange(req, res);
  const upstream = options.allowUpstream && (res.status === 502 || res.status === 504);
  if (res.status >= 500 && !upstream) expect.fail(`server error: ${context}`);
  if (res.status >= 400 && req.method !== 'HEAD') expectErrorEnvelope(res, context, requestText(req));
  expectNoLeak(req, res, options.secrets);
}
