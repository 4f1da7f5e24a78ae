import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on first use instead of when the importing module loads. A crm-admin
 * command imports the whole composition root but runs one area of it: loading the libraries of the
 * others (HTML sanitising, JWT, Prometheus, archives, rate limiting) was most of a command's start
 * (ADR 0113). Synchronous, so the callers keep their synchronous APIs. Types come from an
 * `import type` at the call site.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
