import { createHash } from 'node:crypto';

/**
 * The content of a send request as one SHA-256, for its Idempotency-Key: the text fields (keys in
 * sorted order, so JSON key order does not matter) and each file's name and SHA-256, in form order.
 * A multipart form's boundary and a JSON body's spacing do not change it.
 */
export function requestHash(fields: unknown, files: ReadonlyArray<{ name: string; sha256: string }>): string {
  return createHash('sha256')
    .update(JSON.stringify({ fields: canonical(fields), files: files.map((f) => [f.name, f.sha256]) }))
    .digest('hex');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
