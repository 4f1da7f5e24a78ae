/**
 * Files of an outgoing email, streamed from the browser's upload straight to the mail server's upload
 * URL: the CRM holds one chunk at a time (plus the first few kB for the content check), never a file.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, PayloadTooLargeError } from '../errors/app-errors.js';
import { uploadBlob, type JmapClient } from '../jmap/index.js';
import { sanitiseFileName } from '../timesheets/file-name.js';
import type { OutgoingAttachment } from './compose.js';
import { ContentScan, isExecutableHead, isExecutableName } from './executable-content.js';

/** Enough of the start of a file for every signature file-type knows. */
const SNIFF_BYTES = 4100;

/** Files of one email's form, and of one draft. */
export const MAX_FILES = 20;

export const ATTACHMENT_NOT_ALLOWED = 'Spustiteľné súbory (programy, skripty) nie je možné posielať ako prílohu';

/** Where the checked bytes of a file go: the mail server's upload URL, or the file storage (a scheduled send, a draft). */
export interface UploadTarget {
  upload(body: AsyncIterable<Uint8Array>, type: string, signal?: AbortSignal): Promise<{ blobId: string; size: number }>;
}

/** The mail server's upload URL of an account. */
export function jmapUploads(client: JmapClient, jmapAccountId: string): UploadTarget {
  return { upload: (body, type, signal) => uploadBlob(client, jmapAccountId, body, type, { signal }) };
}

export interface IntakeLimits {
  /** One file (the session's maxSizeUpload). */
  perFile: number;
  /** All files of the email together. */
  total: number;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

export class AttachmentIntake {
  /** In the form's order: a slot is taken when a file starts, since a small later file can finish uploading first. */
  private readonly received: Array<OutgoingAttachment | undefined> = [];
  private total = 0;

  constructor(
    private readonly target: UploadTarget,
    private readonly limits: IntakeLimits,
    private readonly signal?: AbortSignal,
    /** Told the bytes of all files so far before they go on (the user's upload budget; throws beyond it). */
    private readonly reserve: (totalBytes: number) => Promise<void> = async () => undefined,
  ) {}

  get attachments(): OutgoingAttachment[] {
    return this.received.filter((a): a is OutgoingAttachment => a !== undefined);
  }

  /** Checks and uploads one file; throws (and uploads nothing usable) when it may not be sent. */
  async add(stream: Readable, rawName: string, declaredType: string): Promise<OutgoingAttachment> {
    const slot = this.received.push(undefined) - 1;
    const name = sanitiseFileName(rawName) || 'priloha';
    if (isExecutableName(name)) throw notAllowed();
    let detected: { mime: string } | undefined;
    const digest = createHash('sha256');
    const checked = this.checked(stream, digest, async (head) => {
      // file-type loads with the first attachment (ADR 0113), not with every process that imports this.
      const { fileTypeFromBuffer } = await import('file-type');
      const type = await fileTypeFromBuffer(head).catch(() => undefined);
      if (isExecutableHead(head, type?.ext)) throw notAllowed();
      detected = type;
      return new ContentScan(head);
    });
    // The type is decided by the content where it can be; the browser's claim only otherwise.
    const claimed = MEDIA_TYPE.test(declaredType.toLowerCase()) ? declaredType.toLowerCase() : 'application/octet-stream';
    const blob = await this.target.upload(checked, claimed, this.signal);
    const attachment = { blobId: blob.blobId, name, type: detected?.mime ?? claimed, size: blob.size, sha256: digest.digest('hex') };
    this.received[slot] = attachment;
    return attachment;
  }

  /** The stream again, after `inspect` saw its first bytes, counting sizes against the limits as it goes. */
  private async *checked(stream: Readable, digest: Hash, inspect: (head: Buffer) => Promise<ContentScan>): AsyncGenerator<Uint8Array> {
    let head: Buffer[] = [];
    let headBytes = 0;
    let scan: ContentScan | undefined;
    let size = 0;
    try {
      // destroyOnReturn false: leaving the loop early must not destroy the form's file stream (see finally).
      for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        this.total += chunk.length;
        digest.update(chunk);
        if (size > this.limits.perFile || this.total > this.limits.total) throw this.tooLarge();
        await this.reserve(this.total);
        if (scan) {
          if (scan.push(chunk)) throw notAllowed();
          yield chunk;
          continue;
        }
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes < SNIFF_BYTES) continue;
        const first = Buffer.concat(head, headBytes);
        head = [];
        scan = await inspect(first.subarray(0, SNIFF_BYTES));
        if (scan.push(first)) throw notAllowed();
        yield first;
      }
      if (!scan) {
        const first = Buffer.concat(head, headBytes);
        if ((await inspect(first)).push(first)) throw notAllowed();
        yield first;
      }
    } finally {
      // The rest of this file is read and dropped, so the form parser reaches the end of the request
      // and the error that stopped us (not a parser's "unexpected end") is what the user sees.
      if (!stream.readableEnded) stream.resume();
    }
  }

  private tooLarge(): PayloadTooLargeError {
    const mb = (bytes: number) => Math.floor(bytes / (1024 * 1024));
    return this.limits.perFile < this.limits.total
      ? new PayloadTooLargeError(`Príloha je príliš veľká (najviac ${mb(this.limits.perFile)} MB jedna, ${mb(this.limits.total)} MB spolu)`)
      : new PayloadTooLargeError(`Prílohy sú príliš veľké (najviac ${mb(this.limits.total)} MB spolu)`);
  }
}

function notAllowed(): AppError {
  return new AppError(ATTACHMENT_NOT_ALLOWED, 400, [{ field: 'attachments', message: ATTACHMENT_NOT_ALLOWED }], {}, 'attachment_not_allowed');
}
