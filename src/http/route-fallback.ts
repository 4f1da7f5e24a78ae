import type { RequestHandler, Router } from 'express';
import { MethodNotAllowedError, NotFoundError } from '../errors/app-errors.js';

/**
 * docs/contract.md §7: a known path with a method it does not have is a 405 with `Allow`, whoever asks (before
 * authentication: a 401 would tell a client to log in, which would not help). OPTIONS on a known path
 * answers its methods (a CORS preflight from CORS_ORIGIN was already answered by the cors middleware).
 *
 * express has no public "which methods does this path have", so the router's own stack is walked with
 * the layers' own matchers (router 2.x `Layer#match`), the very matching that routing does. It runs
 * before routing, so the stack it walks is the complete one.
 */
export function methodNotAllowed(root: Router): RequestHandler {
  // The walk repeats the routing for every request: its answer per path is kept (bounded, so paths
  // with ids cannot grow it without limit; a forgotten path is only walked again). Routes are all
  // mounted before the first request, so a kept answer never goes stale.
  const known = new Map<string, string[]>();
  const methodsOf = (path: string): string[] => {
    let methods = known.get(path);
    if (!methods) {
      methods = allowedMethods(root.stack as unknown as RouterLayer[], path);
      if (known.size >= KNOWN_PATHS) known.clear();
      known.set(path, methods);
    }
    return methods;
  };
  return (req, res, next) => {
    const methods = methodsOf(req.path);
    if (methods.length === 0 || methods.includes(req.method)) {
      next();
      return;
    }
    if (req.method === 'OPTIONS') {
      res
        .set('Allow', [...methods, 'OPTIONS'].join(', '))
        .status(204)
        .end();
      return;
    }
    next(new MethodNotAllowedError(methods));
  };
}

/** The last handler: no route has this path (inside and outside /api: the service never serves HTML). */
export const routeNotFound: RequestHandler = (_req, _res, next) => {
  next(new NotFoundError('Cesta neexistuje', 'route_not_found'));
};

interface RouterLayer {
  match(path: string): false | { path: string; params?: Record<string, unknown> };
  route?: { methods: Record<string, boolean | undefined> };
  handle: { stack?: RouterLayer[] };
}

/**
 * The methods the routes matching `path` answer (GET implies HEAD), in a stable order. Where both a
 * fixed path and a template match (GET /timesheets/my beside DELETE /timesheets/:id), the fixed one
 * is the path, as in OpenAPI ("concrete paths are matched before templated ones"): only the routes
 * with the fewest parameters count, so DELETE /timesheets/my is a 405, not a 400 for a bad id.
 */
export function allowedMethods(stack: RouterLayer[], path: string): string[] {
  const matches: RouteMatch[] = [];
  collect(stack, path, 0, matches, 0);
  if (matches.length === 0) return [];
  const fewest = Math.min(...matches.map((m) => m.params));
  const found = new Set<string>();
  for (const match of matches) if (match.params === fewest) for (const method of match.methods) found.add(method);
  return [...found].sort();
}

interface RouteMatch {
  methods: string[];
  /** Path parameters bound on the way to the route (mounted routers' included). */
  params: number;
}

const MAX_DEPTH = 8;
const KNOWN_PATHS = 1000;

function collect(stack: RouterLayer[], path: string, params: number, out: RouteMatch[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const layer of stack) {
    if (typeof layer.match !== 'function') continue;
    const matched = layer.match(path);
    if (!matched) continue;
    const bound = params + Object.keys(matched.params ?? {}).length;
    if (layer.route) {
      const methods: string[] = [];
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (!on || method === '_all') continue;
        methods.push(method.toUpperCase());
        if (method === 'get') methods.push('HEAD');
      }
      out.push({ methods, params: bound });
    } else if (Array.isArray(layer.handle.stack)) {
      // A mounted router: the rest of the path is matched inside it, as routing does.
      const rest = path.slice(matched.path.length);
      if (rest === '' || rest.startsWith('/')) collect(layer.handle.stack, rest || '/', bound, out, depth + 1);
    }
  }
}
