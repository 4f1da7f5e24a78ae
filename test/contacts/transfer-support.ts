/**
 * Shared steps of the import and export suites: a multipart upload to POST /api/contacts/import, an
 * export read as bytes, the contacts of a mailbox as the API lists them, and the fixtures of
 * test/contacts/fixtures with the run's unique domains put in.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { CrmUser } from '../sync/helpers.js';

export interface ImportAnswer {
  dryRun: boolean;
  format: 'csv' | 'vcf';
  created: number;
  updated: number;
  unchanged: number;
  invalid: Array<{ row: number; reason: string }>;
  warnings: Array<{ row: number; reason: string }>;
}

export interface ListedContact {
  id: string;
  email: string;
  name: string | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
  companyId: string | null;
  company: { id: string; name: string } | null;
}

export function importRequest(app: Express, who: CrmUser, accountId: string, file: Buffer | string, options: { dryRun?: boolean; name?: string } = {}): request.Test {
  const test = who
    .as(request(app).post('/api/contacts/import'))
    .field('emailAccountId', accountId)
    .field('dryRun', String(options.dryRun ?? false));
  return test.attach('file', Buffer.isBuffer(file) ? file : Buffer.from(file, 'utf8'), options.name ?? 'kontakty.csv');
}

/** An import that must succeed; answers data.import. */
export async function importOk(app: Express, who: CrmUser, accountId: string, file: Buffer | string, options: { dryRun?: boolean; name?: string } = {}): Promise<ImportAnswer> {
  const res = await importRequest(app, who, accountId, file, options);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.import as ImportAnswer;
}

/** The export's bytes (supertest buffers any type into a Buffer with this parser). */
export async function exportBytes(app: Express, who: CrmUser, accountId: string, query = 'format=csv'): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await who
    .as(request(app).get(`/api/contacts/export?emailAccountId=${accountId}&${query}`))
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return { status: res.status, type: String(res.headers['content-type']), body: res.body as Buffer };
}

/** Every contact of the mailbox, by address. */
export async function contactsOf(app: Express, who: CrmUser, accountId: string): Promise<Map<string, ListedContact>> {
  const res = await who.as(request(app).get(`/api/contacts?emailAccountId=${accountId}&limit=100&sort=name`));
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return new Map((res.body.data.items as ListedContact[]).map((c) => [c.email, c]));
}

/** A fixture file with RUN replaced by the run's tag (unique company domains per run). */
export function fixture(name: string, run: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8').replaceAll('RUN', run);
}
