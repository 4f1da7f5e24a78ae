import { createRequire } from 'node:module';

const loaders: Array<() => unknown> = [];

/**
 * An ES module of this program loaded the first time it is used, synchronously (require of an ES
 * module, Node >= 22.13: the first 22 where it prints no "experimental" warning; ADR 0126), so that the lazy getters of the composition root stay synchronous (ADR 0124).
 * `from` is the caller's import.meta.url, `file` relative to it; the type comes from
 * `typeof import(file)` at the call site. A one-shot crm-admin command then loads the modules of the
 * parts it builds, not those of every area.
 */
export function lazyModule<T>(from: string, file: string): () => T {
  const require = createRequire(from);
  let loaded: T | undefined;
  const load = () => (loaded ??= require(file) as T);
  loaders.push(load);
  return load;
}

/**
 * Loads every lazy module now, and those they declare in turn (serve): a module that fails to load
 * fails the start, not a request, and no request pays for a first load.
 */
export function loadEveryLazyModule(): void {
  for (let i = 0; i < loaders.length; i++) loaders[i]();
}
