import type { Request, RequestHandler } from 'express';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import type { AppMetrics } from './metrics.js';
import { createAllowMatcher } from '../shared/ip-allow-list.js';

/** Requests that matched no route (404s, bodies rejected before routing): one label, not one per URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

const KNOWN_REQUESTS = 1000;

const ID_SEGMENT = /\/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)(?=\/|$)/gi;

/**
 * Counts and times every request by ROUTE PATTERN (/api/timesheets/:id/download), never by raw URL:
 * ids in label values would grow the series without bound.
 *
 * The pattern is worked out when the response is over, by matching the request's method and original
 * path against the app's routing table (the same layers the router used, their declared paths joined
 * from the mount points down). So a request refused before it reached its route (bad JSON 400, 413,
 * an authentication 401 in a router middleware) still counts under the route it was meant for, and an
 * error that unwound req.baseUrl does not shorten the pattern. Nothing on express's prototypes.
 */
export function httpMetricsMiddleware(metrics: AppMetrics): RequestHandler {
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
  // Matching the routing table again was done for every request; its answer per method and path is kept
  // (bounded, like the 405 check's: paths with ids cannot grow it without limit). Routes are all mounted
  // before the first request, so a kept answer never goes stale.
  const patterns = new Map<string, string>();
  const patternOf = (req: Request): string => {
    const url = req.originalUrl || req.url;
    const q = url.indexOf('?');
    const key = `${req.method} ${q === -1 ? url : url.slice(0, q)}`;
    let pattern = patterns.get(key);
    if (pattern === undefined) {
      pattern = routePattern(req) ?? UNMATCHED_ROUTE;
      if (patterns.size >= KNOWN_REQUESTS) patterns.clear();
      patterns.set(key, pattern);
    }
    return pattern;
  };
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      // A client that hung up before the response ended is not a status the server chose.
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      const s = seriesFor(req.method, patternOf(req), status);
      s.count.inc();
      s.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

interface LayerLike {
  rawPath?: unknown;
  slash?: boolean;
  matchers?: Array<(path: string) => false | { path: string }>;
  route?: { path?: unknown; _handlesMethod?: (method: string) => boolean };
  handle?: { stack?: LayerLike[] };
}

/** The declared pattern of the route that matches the request, or undefined (no route: a 404). */
export function routePattern(req: Request): string | undefined {
  const stack = (req.app as unknown as { router?: { stack?: LayerLike[] } }).router?.stack;
  if (!stack) return undefined;
  const url = req.originalUrl || req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const found = findRoute(stack, req.method, path, '', 0);
  return found === undefined ? undefined : found.replace(ID_SEGMENT, '/:id').replace(/(.)\/$/, '$1') || '/';
}

function findRoute(stack: LayerLike[], method: string, path: string, prefix: string, depth: number): string | undefined {
  if (depth > 8) return undefined;
  for (const layer of stack) {
    const match = matchLayer(layer, path);
    if (!match) continue;
    if (layer.route) {
      if (layer.route._handlesMethod?.(method) ?? true) return prefix + declaredPath(layer.route.path);
      continue;
    }
    const inner = layer.handle?.stack;
    if (!Array.isArray(inner)) continue;
    // A mounted router: its declared mount path (with :params) goes into the pattern.
    const rest = path.slice(match.path.length);
    const mount = layer.slash ? '' : declaredPath(layer.rawPath);
    const found = findRoute(inner, method, rest.startsWith('/') ? rest : `/${rest}`, prefix + mount, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function matchLayer(layer: LayerLike, path: string): { path: string } | undefined {
  if (layer.slash) return { path: '' };
  for (const matcher of layer.matchers ?? []) {
    // A malformed percent-escape ('/users/%') makes the matcher's param decoding throw; express
    // answered that request with a 400 already, and for the label it matches nothing.
    let m: false | { path: string };
    try {
      m = matcher(path);
    } catch {
      continue;
    }
    if (m) return m;
  }
  return undefined;
}

function declaredPath(path: unknown): string {
  if (typeof path === 'string') return path === '/' ? '' : path;
  if (Array.isArray(path)) return declaredPath(path[0]);
  return '(regexp)';
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
