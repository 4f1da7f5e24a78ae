import type { Request, RequestHandler } from 'express';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import type { AppMetrics } from './metrics.js';
import { createAllowMatcher } from '../shared/ip-allow-list.js';

/** Requests that matched no route (404s, bodies rejected before routing): one label, not one per URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

const ID_SEGMENT = /\/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)(?=\/|$)/gi;
const ROUTE = Symbol('route');
const PATTERN = Symbol('routePattern');

type Tracked = Request & { [ROUTE]?: unknown; [PATTERN]?: string };

/**
 * Counts and times every request by ROUTE PATTERN (/api/timesheets/:id/download), never by raw URL:
 * ids in label values would grow the series without bound.
 *
 * The pattern is taken at the moment the router assigns req.route, when req.baseUrl still holds the
 * mount path; by the time the response finishes an error has unwound baseUrl to the parent. The
 * setter sits on the app's request prototype once, not on every request object.
 */
export function httpMetricsMiddleware(metrics: AppMetrics): RequestHandler {
  let prototypeReady = false;
  // Label children by key: prom-client hashes the label object on every call otherwise.
  const series = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  const seriesFor = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status };
      found = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };
  return (req, res, next) => {
    if (!prototypeReady) {
      trackRoutePattern(Object.getPrototypeOf(req) as object);
      prototypeReady = true;
    }
    const started = process.hrtime.bigint();
    res.once('close', () => {
      // A client that hung up before the response ended is not a status the server chose.
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      const s = seriesFor(req.method, (req as Tracked)[PATTERN] ?? UNMATCHED_ROUTE, status);
      s.count.inc();
      s.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

function trackRoutePattern(requestPrototype: object): void {
  if (Object.getOwnPropertyDescriptor(requestPrototype, 'route')) return;
  Object.defineProperty(requestPrototype, 'route', {
    configurable: true,
    enumerable: true,
    get(this: Tracked) {
      return this[ROUTE];
    },
    set(this: Tracked, value: unknown) {
      this[ROUTE] = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      // A router mounted on a parameter path puts real values in baseUrl: fold ids back into :id.
      if (typeof path === 'string') this[PATTERN] = (this.baseUrl.replace(ID_SEGMENT, '/:id') + path).replace(/(.)\/$/, '$1');
    },
  });
}

export interface MetricsEndpointOptions {
  /** Parsed METRICS_ALLOW; empty = the endpoint is off. */
  allow: string[];
  /** TRUST_PROXY: with 0, a request that came through a proxy cannot be attributed to a client. */
  trustProxy: number;
}

/**
 * The Prometheus scrape endpoint. Not for the internet: only clients in METRICS_ALLOW (loopback by
 * default) get it; req.ip honours TRUST_PROXY, so behind a proxy the real client address decides.
 */
export function metricsEndpoint(metrics: AppMetrics, options: MetricsEndpointOptions): RequestHandler {
  const allowed = createAllowMatcher(options.allow);
  return async (req, res) => {
    if (options.allow.length === 0) throw new NotFoundError('Cesta neexistuje', 'route_not_found');
    if (!allowed(req.ip) || (options.trustProxy === 0 && cameThroughProxy(req))) throw new ForbiddenError();
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(body);
  };
}

/**
 * A same-host reverse proxy connects from 127.0.0.1: without TRUST_PROXY its forwarding headers are the
 * only sign that the real client is somewhere else, so such a request is refused.
 */
function cameThroughProxy(req: Request): boolean {
  return req.get('x-forwarded-for') !== undefined || req.get('forwarded') !== undefined || req.get('x-real-ip') !== undefined;
}
