/**
 * A JMAP server in the test process, reached through the client's injectable `fetchImpl` (no socket:
 * the unit tier runs in a network namespace without even loopback). The session answer is the one
 * Cyrus 3.6 (scripts/jmap/start.sh) gave for alice, trimmed of capabilities the client ignores;
 * method answers come from a handler per method name, so each test scripts only what it needs.
 */
import type { FetchImpl, MethodCall, MethodResponse } from '../../../src/jmap/index.js';

export const BASE = 'http://jmap.test';
export const SESSION_URL = `${BASE}/.well-known/jmap`;
export const ACCOUNT = 'alice@example.test';

/** Recorded from Cyrus 3.6: relative URLs and RFC 6570 templates, as the server sends them. */
export function recordedSession(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    username: ACCOUNT,
    apiUrl: '/jmap/',
    downloadUrl: '/jmap/download/{accountId}/{blobId}/{name}?accept={type}',
    uploadUrl: '/jmap/upload/{accountId}/',
    eventSourceUrl: '/jmap/eventsource/?types={types}&closeafter={closeafter}&ping={ping}',
    state: '0',
    capabilities: {
      'urn:ietf:params:jmap:core': {
        maxSizeUpload: 1073741824,
        maxConcurrentUpload: 5,
        maxSizeRequest: 10485760,
        maxConcurrentRequests: 5,
        maxCallsInRequest: 50,
        maxObjectsInGet: 4096,
        maxObjectsInSet: 4096,
        collationAlgorithms: [],
      },
      'urn:ietf:params:jmap:mail': {},
      'urn:ietf:params:jmap:submission': {},
    },
    accounts: {
      [ACCOUNT]: {
        name: ACCOUNT,
        isPrimary: true,
        isPersonal: true,
        isReadOnly: false,
        accountCapabilities: { 'urn:ietf:params:jmap:core': {}, 'urn:ietf:params:jmap:mail': { maxMailboxesPerEmail: 20 }, 'urn:ietf:params:jmap:submission': {} },
      },
    },
    primaryAccounts: { 'urn:ietf:params:jmap:mail': ACCOUNT, 'urn:ietf:params:jmap:submission': ACCOUNT },
    ...overrides,
  };
}

/** Mailbox/get as Cyrus answered it for a fresh account (autocreate_inbox_folders). */
export const RECORDED_MAILBOXES = [
  { id: 'n2dj0nxu3cprmopl2g8nuicp', name: 'Inbox', parentId: null, role: 'inbox' },
  { id: 'dbfp7w6gxabb6cxp8o5nm9j8', name: 'Archive', parentId: null, role: 'archive' },
  { id: 'otg5gezzq4qcsgdaclxmkpb9', name: 'Drafts', parentId: null, role: 'drafts' },
  { id: 'jo407fn9pjuibq9ww1g91ofy', name: 'Junk', parentId: null, role: 'junk' },
  { id: 'b36lf7ihr8tg0xd3op3jujjv', name: 'Sent', parentId: null, role: 'sent' },
  { id: '0b0sjto07hjb6mugltsvb4qs', name: 'Trash', parentId: null, role: 'trash' },
];

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | null;
  /** The JSON body of an API request. */
  body?: { using: string[]; methodCalls: MethodCall[] };
}

/** Answers one method call: its response arguments, or a full list of responses for that call. */
export type MethodHandler = (args: Record<string, unknown>, callId: string) => Record<string, unknown> | MethodResponse[];

export interface FakeJmapOptions {
  session?: Record<string, unknown>;
  /** sessionState of API answers (the session's `state` by default). */
  sessionState?: () => string;
  methods?: Record<string, MethodHandler>;
  /** Replaces the whole answer to a request (status codes, broken bodies). */
  respond?: (request: RecordedRequest) => Response | undefined;
}

export class FakeJmap {
  readonly requests: RecordedRequest[] = [];
  readonly fetch: FetchImpl;

  constructor(private readonly options: FakeJmapOptions = {}) {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the client passes a string or a URL
    this.fetch = async (input: string | URL | Request, init?: RequestInit) => this.answer(String(input), init ?? {});
  }

  /** The method calls of every API request so far, in order. */
  get calls(): MethodCall[] {
    return this.requests.flatMap((r) => r.body?.methodCalls ?? []);
  }

  get apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.body);
  }

  private answer(url: string, init: RequestInit): Response {
    init.signal?.throwIfAborted();
    const headers = new Headers(init.headers);
    const request: RecordedRequest = { method: init.method ?? 'GET', url, authorization: headers.get('authorization') };
    if (typeof init.body === 'string') request.body = JSON.parse(init.body) as RecordedRequest['body'];
    this.requests.push(request);
    const custom = this.options.respond?.(request);
    if (custom) return custom;
    const session = this.options.session ?? recordedSession();
    if (url === SESSION_URL) return json(session);
    if (url === `${BASE}/jmap/` && request.body) {
      const methodResponses = request.body.methodCalls.flatMap((call) => this.answerCall(call));
      const sessionState = this.options.sessionState?.() ?? String(session.state);
      return json({ methodResponses, sessionState });
    }
    return new Response('not found', { status: 404 });
  }

  /** One method call: its handler's answer (one response or several), or unknownMethod as a server says. */
  private answerCall([name, args, callId]: MethodCall): MethodResponse[] {
    const handler = this.options.methods?.[name];
    if (!handler) return [['error', { type: 'unknownMethod' }, callId]];
    const out = handler(args, callId);
    return Array.isArray(out) ? out : [[name, out, callId]];
  }
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
