/**
 * How the SDK's errors read, in one place: S3 servers differ in the codes they send (a HEAD has no body,
 * so only its status tells 404), and the doctor and the storage layer must agree on them.
 */
interface S3ErrorShape {
  name?: string;
  Code?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

function shape(err: unknown): S3ErrorShape {
  return typeof err === 'object' && err !== null ? err : {};
}

export function s3Status(err: unknown): number | undefined {
  return shape(err).$metadata?.httpStatusCode;
}

export function s3Code(err: unknown): string {
  const e = shape(err);
  return e.Code ?? e.name ?? e.code ?? 'Error';
}

export function isNotFound(err: unknown): boolean {
  const code = s3Code(err);
  return code === 'NoSuchKey' || code === 'NotFound' || (s3Status(err) === 404 && code !== 'NoSuchBucket');
}

export type S3Problem = 'unreachable' | 'no-bucket' | 'credentials' | 'denied' | 'other';

/** What went wrong, in words an operator acts on; never the request, its signature or a secret. */
export function classifyS3Error(err: unknown): S3Problem {
  const code = s3Code(err);
  const status = s3Status(err);
  if (code === 'NoSuchBucket' || (status === 404 && code === 'NotFound')) return 'no-bucket';
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'AuthorizationHeaderMalformed'].includes(code)) return 'credentials';
  if (code === 'AccessDenied' || status === 403) return 'denied';
  if (status === undefined) return 'unreachable';
  return 'other';
}
