/**
 * Blob transfer (RFC 8620 §6): upload to the session's uploadUrl and download from its downloadUrl,
 * both STREAMED: a 25 MB attachment crosses the CRM in chunks, never as one buffer.
 */
import { Readable } from 'node:stream';
import type { JmapClient } from './client.js';
import { JmapProtocolError, JmapTimeoutError } from './errors.js';

export interface UploadedBlob {
  blobId: string;
  /** Bytes the server stored. */
  size: number;
  type: string;
}

export interface BlobDownload {
  body: Readable;
  /** Content-Length of the server's answer, when it sent one. */
  size?: number;
  /** The server's Content-Type. */
  type: string;
}

/** An upload may last as long as the client sending it takes; this bounds a stalled one. */
export const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/**
 * RFC 6570 level-1 expansion of a session URL template ("/jmap/download/{accountId}/{blobId}/{name}?accept={type}"):
 * each variable percent-encoded, so a file name with "/" or "?" stays one path segment.
 */
export function expandUrlTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
}

/**
 * Streams `body` to the upload URL (chunked: the size need not be known) and answers the new blob.
 * `signal` aborts the transfer (e.g. the browser went away); an error thrown by `body` itself (a size
 * limit, a content check) aborts it too and is what the caller sees.
 */
export async function uploadBlob(
  client: JmapClient,
  accountId: string,
  body: AsyncIterable<Uint8Array>,
  type: string,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<UploadedBlob> {
  const session = await client.session();
  if (!session.uploadUrl) throw new JmapProtocolError('JMAP session has no uploadUrl');
  const url = expandUrlTemplate(session.uploadUrl, { accountId });
  let sourceError: Error | undefined;
  // Remember the body's own failure (before fetch sees it): fetch reports it only as "fetch failed".
  async function* remembering(): AsyncGenerator<Uint8Array> {
    try {
      yield* body;
    } catch (err) {
      sourceError ??= err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  }
  const source = Readable.from(remembering());
  let res: Response;
  try {
    res = await client.fetchBlob(
      url,
      // duplex 'half' lets undici send a stream of unknown length (Transfer-Encoding: chunked).
      { method: 'POST', headers: { 'Content-Type': type, Accept: 'application/json' }, body: Readable.toWeb(source) as ReadableStream, duplex: 'half' } as RequestInit,
      { signal: options.signal, timeoutMs: options.timeoutMs ?? UPLOAD_TIMEOUT_MS },
    );
  } catch (err) {
    throw sourceError ?? err;
  }
  if (sourceError) {
    await res.body?.cancel().catch(() => {});
    throw sourceError;
  }
  const answer = (await res.json().catch(() => null)) as { blobId?: unknown; size?: unknown; type?: unknown } | null;
  if (!answer || typeof answer.blobId !== 'string' || typeof answer.size !== 'number') {
    throw new JmapProtocolError(`JMAP upload to ${url} answered without blobId/size`, { status: res.status });
  }
  return { blobId: answer.blobId, size: answer.size, type: typeof answer.type === 'string' ? answer.type : type };
}

/**
 * Opens a blob for streaming (node:http, so a slow reader slows the mail server down instead of
 * filling memory). A blob the server does not have is a JmapProtocolError with status 404; the
 * caller owns `body` and must consume or destroy it (destroying ends the transfer).
 */
export async function downloadBlob(
  client: JmapClient,
  accountId: string,
  blobId: string,
  options: { name?: string; type?: string; signal?: AbortSignal; idleTimeoutMs?: number } = {},
): Promise<BlobDownload> {
  const session = await client.session();
  if (!session.downloadUrl) throw new JmapProtocolError('JMAP session has no downloadUrl');
  const type = options.type ?? 'application/octet-stream';
  const url = expandUrlTemplate(session.downloadUrl, { accountId, blobId, name: options.name || 'blob', type });
  const body = await client.getBlobStream(url, { signal: options.signal });
  if (options.idleTimeoutMs !== undefined) {
    // No byte moved for this long, either way (a stalled server, or a reader that stopped reading and
    // so paused the socket): the transfer ends and the mail server's worker is free again.
    const idleMs = options.idleTimeoutMs;
    body.setTimeout(idleMs, () => body.destroy(new JmapTimeoutError(idleMs, url)));
  }
  const length = Number(body.headers['content-length']);
  return { body, size: body.headers['content-length'] !== undefined && Number.isFinite(length) ? length : undefined, type: body.headers['content-type'] ?? type };
}
