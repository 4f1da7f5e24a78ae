import type { Request, RequestHandler } from 'express';
import { ConcurrencyGate } from '../shared/concurrency-gate.js';
import { requireAuthContext } from './auth-context.js';

const BUSY = 'Príliš veľa súbežných vyhľadávaní alebo exportov; skúste to o chvíľu znova';
const RETRY_AFTER_SECONDS = 2;

/**
 * A per-user bound on the read paths that cost the database the most: list endpoints with a search
 * (emails, conversations, contacts, companies) and exports (issue 52 finding 13). One member firing
 * 100 searches at once held the pool and made everyone else's cheap request wait seconds; beyond
 * `perUser` in progress the caller gets 429 with Retry-After at once, nothing queues. In-process like
 * the other gates (src/shared/concurrency-gate.ts): behind a load balancer each instance has its own
 * bound, which is enough, since what it protects (the pool and the event loop) is per instance too.
 */
export interface ExpensiveRequests {
  /** An export: always counted. Mount after the authentication middleware. */
  always: RequestHandler;
  /** A list: counted when it has a non-empty `search` (a plain page is an index range, cheap). */
  whenSearching: RequestHandler;
}

export function expensiveRequests(perUser: number): ExpensiveRequests {
  // No process-wide total: the database pool bounds that already; this is about fairness between users.
  const gate = new ConcurrencyGate({ perKey: perUser, total: Number.POSITIVE_INFINITY }, BUSY, RETRY_AFTER_SECONDS);
  const counted =
    (applies: (req: Request) => boolean): RequestHandler =>
    (req, res, next) => {
      if (!applies(req)) return next();
      const release = gate.enter(requireAuthContext(req).userId);
      // 'close' comes once the answer is sent or the client has gone, streamed exports included.
      res.once('close', release);
      next();
    };
  return { always: counted(() => true), whenSearching: counted(hasSearch) };
}

function hasSearch(req: Request): boolean {
  const search = req.query.search;
  return Array.isArray(search) ? search.length > 0 : typeof search === 'string' && search.trim() !== '';
}
