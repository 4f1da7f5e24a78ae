import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Streams a body into the response. A client that stops reading mid-download is normal, not a
 * server error worth a 500 log line; a failure of the source after the headers went out ends the
 * response early (the client sees a short transfer, never a whole-looking one).
 */
export async function streamOut(source: NodeJS.ReadableStream, res: Response): Promise<void> {
  try {
    await pipeline(source, res);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' && res.destroyed) return;
    throw err;
  }
}
