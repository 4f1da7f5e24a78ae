import type { Express } from 'express';

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * Every route the real app serves, as "METHOD /full/path", found by walking express's router stack
 * (router 2: each layer keeps the path it was mounted with in rawPath).
 */
export function mountedRoutes(app: Express): string[] {
  const found = new Set<string>();
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = join(prefix, String(layer.route.path));
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') found.add(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) {
        if (typeof layer.rawPath !== 'string') throw new Error(`a router mounted on a non-string path (${String(layer.rawPath)}): the matrix cannot name its routes`);
        walk(layer.handle.stack, join(prefix, layer.rawPath));
      }
    }
  };
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  walk(router.stack, '');
  return [...found].sort();
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
