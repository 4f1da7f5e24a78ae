import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'chai';
import { Timesheet } from '../../src/models/index.js';
import type { TestSession } from '../support/auth.js';
import { testContext } from '../support/harness.js';
import { until } from '../support/poll.js';

export type FormPart = { name: string; value: string } | { name: string; filename: string; content: Buffer; contentType?: string };

/**
 * A multipart/form-data body built by hand, the way browsers write it (raw UTF-8 names, with only
 * `"`, CR and LF percent-escaped). supertest's form-data would strip paths and break on quotes,
 * which is exactly what these tests need to send.
 */
export function multipartBody(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----crmtest${crypto.randomBytes(12).toString('hex')}`;
  const escape = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(part.name)}"`;
    if ('filename' in part) {
      head += `; filename="${escape(part.filename)}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`;
    }
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'), 'filename' in part ? part.content : Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface UploadOptions {
  file?: { filename: string; content: Buffer; contentType?: string; field?: string };
  year?: string | number;
  month?: string | number;
  extra?: FormPart[];
}

export function uploadRequest(app: Express, session: TestSession | undefined, options: UploadOptions): request.Test {
  const parts: FormPart[] = [];
  if (options.year !== undefined) parts.push({ name: 'year', value: String(options.year) });
  if (options.month !== undefined) parts.push({ name: 'month', value: String(options.month) });
  if (options.file) {
    const { field = 'file', ...file } = options.file;
    parts.push({ name: field, ...file });
  }
  parts.push(...(options.extra ?? []));
  const { body, contentType } = multipartBody(parts);
  const req = request(app).post('/api/timesheets/upload').set('Content-Type', contentType);
  if (session) req.set('Authorization', session.bearer);
  return req.send(body);
}

export async function timesheetDir(): Promise<string> {
  return (await testContext()).config.timesheetDir;
}

/** The storage folder as it is on disk right now (sorted), [] before the first upload created it. */
export async function storedFiles(): Promise<string[]> {
  try {
    return (await fs.promises.readdir(await timesheetDir())).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** After a failed request the folder must be exactly as before it: no partial, no orphan. */
export async function expectNoStrayFiles(before: string[], context = ''): Promise<void> {
  expect(await storedFiles(), `stray files ${context}`).to.deep.equal(before);
}

/** Every file on disk belongs to a row: the store and the table agree. */
export async function expectEveryFileReferenced(): Promise<void> {
  const files = await storedFiles();
  const rows = await Timesheet.findAll({ attributes: ['filePath'] });
  const referenced = new Set(rows.map((r) => r.filePath));
  expect(
    files.filter((f) => !referenced.has(f)),
    'files without a row',
  ).to.deep.equal([]);
}

/** Reads a response body as raw bytes, whatever its Content-Type (superagent hands the raw response in). */
export const binaryParser = ((res: NodeJS.ReadableStream, callback: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
  res.on('error', (err: Error) => callback(err, Buffer.alloc(0)));
}) as unknown as (res: request.Response, callback: (err: Error | null, body: unknown) => void) => void;

/** Waits (bounded) for a condition that another part of the server completes asynchronously. */
export async function eventually(check: () => Promise<boolean>, what: string, deadlineMs = 10_000): Promise<void> {
  await until(check, { what, timeoutMs: deadlineMs, intervalMs: 20 });
}
