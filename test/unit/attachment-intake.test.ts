/**
 * The order of an outgoing email's attachments (src/sending/attachment-intake.ts). The end-to-end
 * tests in test/sending send through real Cyrus; this one makes the first upload answer last on
 * purpose, which real servers only do now and then.
 */
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { JmapClient } from '../../src/jmap/index.js';
import { AttachmentIntake, jmapUploads } from '../../src/sending/attachment-intake.js';

/** An upload endpoint that reads each body whole and answers after the delay its name asks for. */
function slowUploadServer(delayByType: Record<string, number>): JmapClient {
  let next = 0;
  const client = {
    session: async () => ({ uploadUrl: 'http://upload.invalid/{accountId}/' }),
    fetchBlob: async (_url: string, init: RequestInit) => {
      const bytes = Buffer.from(await new Response(init.body).arrayBuffer());
      const type = (init.headers as Record<string, string>)['Content-Type'];
      await new Promise((resolve) => setTimeout(resolve, delayByType[type] ?? 0));
      return Response.json({ blobId: `B${next++}`, size: bytes.length, type });
    },
  };
  return client as unknown as JmapClient;
}

describe('unit: attachment intake', () => {
  it("keeps the form's order when a later, smaller file finishes uploading first", async () => {
    const intake = new AttachmentIntake(jmapUploads(slowUploadServer({ 'application/x-slow': 50 }), 'acc'), { perFile: 1e6, total: 1e6 });
    const first = intake.add(Readable.from([Buffer.alloc(10_000, 1)]), 'zmluva.bin', 'application/x-slow');
    const second = intake.add(Readable.from([Buffer.from('%PDF-1.4\n')]), 'list.pdf', 'application/pdf');
    const finished: string[] = [];
    await Promise.all([first.then((a) => finished.push(a.name)), second.then((a) => finished.push(a.name))]);

    expect(finished, 'the second upload must answer first for this test to mean anything').to.deep.equal(['list.pdf', 'zmluva.bin']);
    expect(intake.attachments.map((a) => [a.name, a.size])).to.deep.equal([
      ['zmluva.bin', 10_000],
      ['list.pdf', 9],
    ]);
  });

  it('a refused file leaves no gap and no entry', async () => {
    const intake = new AttachmentIntake(jmapUploads(slowUploadServer({}), 'acc'), { perFile: 1e6, total: 1e6 });
    await intake.add(Readable.from([Buffer.from('a')]), 'a.txt', 'text/plain');
    const refused = await intake.add(Readable.from([Buffer.from('b')]), 'setup.exe', 'application/octet-stream').catch((e: Error) => e);
    await intake.add(Readable.from([Buffer.from('c')]), 'c.txt', 'text/plain');
    expect(refused).to.be.instanceOf(Error);
    expect(intake.attachments.map((a) => a.name)).to.deep.equal(['a.txt', 'c.txt']);
  });
});
