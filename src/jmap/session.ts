/**
 * Session discovery (RFC 8620 §2): fetch, validate and normalise the session resource, plus the
 * credential check used when a user links a mail account.
 */
import { z } from 'zod';
import { JmapProtocolError } from './errors.js';
import { authorizationHeader, fetchJson, type FetchImpl } from './http.js';
import { CORE_CAPABILITY, MAIL_CAPABILITY, type JmapCredentials, type JmapLimits, type JmapSession } from './types.js';

export const DEFAULT_TIMEOUT_MS = 15_000;

const positiveInt = z.number().int().positive();

const coreCapabilitySchema = z.object({
  maxSizeUpload: positiveInt,
  maxConcurrentUpload: positiveInt,
  maxSizeRequest: positiveInt,
  maxConcurrentRequests: positiveInt,
  maxCallsInRequest: positiveInt,
  maxObjectsInGet: positiveInt,
  maxObjectsInSet: positiveInt,
});

const accountSchema = z.object({
  name: z.string(),
  isPersonal: z.boolean(),
  isReadOnly: z.boolean(),
  accountCapabilities: z.record(z.string(), z.unknown()),
});

// download/upload/eventSource URLs are required by the RFC but unused by us: tolerate their absence
// rather than refuse a server that can otherwise sync.
const sessionSchema = z.object({
  capabilities: z.record(z.string(), z.unknown()),
  accounts: z.record(z.string(), accountSchema),
  primaryAccounts: z.record(z.string(), z.string()),
  username: z.string(),
  apiUrl: z.string().min(1),
  downloadUrl: z.string().optional(),
  uploadUrl: z.string().optional(),
  eventSourceUrl: z.string().optional(),
  state: z.string(),
});

export interface FetchSessionOptions {
  timeoutMs?: number;
  fetchImpl?: FetchImpl;
  signal?: AbortSignal;
  /** Capabilities the session must offer; this client speaks core + mail, so both by default. */
  requiredCapabilities?: string[];
}

/**
 * GETs the session resource, following redirects (Cyrus: /.well-known/jmap → 301 → /jmap). fetch
 * keeps the Authorization header only on same-origin redirects, so a cross-origin hop ends in 401.
 */
export async function fetchSession(sessionUrl: string, credentials: JmapCredentials, options: FetchSessionOptions = {}): Promise<JmapSession> {
  const res = await fetchJson(
    sessionUrl,
    { method: 'GET', headers: { Authorization: authorizationHeader(credentials), Accept: 'application/json' } },
    { fetchImpl: options.fetchImpl ?? globalThis.fetch, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: options.signal },
  );
  return parseSession(res.body, res.url, options.requiredCapabilities ?? [CORE_CAPABILITY, MAIL_CAPABILITY]);
}

export function parseSession(body: unknown, finalUrl: string, requiredCapabilities: string[]): JmapSession {
  const parsed = sessionSchema.safeParse(body);
  if (!parsed.success) {
    throw new JmapProtocolError(`JMAP session at ${finalUrl} has an unexpected shape: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  const s = parsed.data;
  for (const cap of requiredCapabilities) {
    if (!(cap in s.capabilities)) throw new JmapProtocolError(`JMAP session at ${finalUrl} lacks the capability ${cap}`);
  }
  const core = coreCapabilitySchema.safeParse(s.capabilities[CORE_CAPABILITY]);
  if (!core.success) {
    throw new JmapProtocolError(`JMAP session at ${finalUrl} has invalid core limits: ${z.prettifyError(core.error)}`, {
      cause: core.error,
    });
  }
  const limits: JmapLimits = {
    maxSizeRequest: core.data.maxSizeRequest,
    maxCallsInRequest: core.data.maxCallsInRequest,
    maxObjectsInGet: core.data.maxObjectsInGet,
    maxObjectsInSet: core.data.maxObjectsInSet,
    maxConcurrentRequests: core.data.maxConcurrentRequests,
    maxSizeUpload: core.data.maxSizeUpload,
  };
  return {
    sessionUrl: finalUrl,
    username: s.username,
    apiUrl: resolveSessionUrl(s.apiUrl, finalUrl),
    downloadUrl: s.downloadUrl === undefined ? undefined : resolveSessionUrl(s.downloadUrl, finalUrl),
    uploadUrl: s.uploadUrl === undefined ? undefined : resolveSessionUrl(s.uploadUrl, finalUrl),
    eventSourceUrl: s.eventSourceUrl === undefined ? undefined : resolveSessionUrl(s.eventSourceUrl, finalUrl),
    state: s.state,
    capabilities: s.capabilities,
    accounts: s.accounts,
    primaryAccounts: s.primaryAccounts,
    limits,
  };
}

/**
 * Resolves a possibly relative session URL against the session's final URL. Some of them are
 * RFC 6570 templates ("/jmap/download/{accountId}/..."): the URL parser would percent-encode the
 * braces, so they are swapped for inert tokens during resolution and put back afterwards.
 */
export function resolveSessionUrl(value: string, base: string): string {
  const vars: string[] = [];
  const masked = value.replace(/\{[^{}]*\}/g, (m) => `jmaptpl${vars.push(m) - 1}x`);
  let resolved: string;
  try {
    resolved = new URL(masked, base).href;
  } catch (err) {
    throw new JmapProtocolError(`JMAP session URL ${JSON.stringify(value)} cannot be resolved against ${base}`, { cause: err });
  }
  return resolved.replace(/jmaptpl(\d+)x/g, (_m, i: string) => vars[Number(i)] ?? '');
}

/**
 * Checks mail credentials the way a user links a mailbox: the session must load with Basic auth and
 * offer mail with a primary mail account, whose id (on Cyrus: the full address) is returned.
 */
export async function validateMailCredentials(
  sessionUrl: string,
  email: string,
  password: string,
  options: { timeoutMs?: number; fetchImpl?: FetchImpl } = {},
): Promise<{ accountId: string }> {
  const session = await fetchSession(sessionUrl, { kind: 'basic', username: email, password }, options);
  const accountId = session.primaryAccounts[MAIL_CAPABILITY];
  if (!accountId) throw new JmapProtocolError(`JMAP session for ${email} has no primary mail account`);
  const account = session.accounts[accountId];
  if (!account || !(MAIL_CAPABILITY in account.accountCapabilities)) {
    throw new JmapProtocolError(`JMAP primary mail account ${accountId} is not a mail account of ${email}`);
  }
  return { accountId };
}
