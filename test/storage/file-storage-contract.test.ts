import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { StorageWriteError, StoredObjectNotFoundError, type FileStorage, type KeyedFileStore } from '../../src/storage/file-storage.js';
import { LocalFileStorage } from '../../src/storage/local-storage.js';
import { S3FileStorage } from '../../src/storage/s3-storage.js';
import { runInTransactionScope, NetworkInTransactionError } from '../../src/db/transaction-scope.js';
import { s3Server } from '../support/s3-server.js';
import { testEnv } from '../support/test-env.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A body in chunks, as an upload arrives; `failAfter` bytes in, the source breaks (a client that went away). */
function chunked(bytes: Buffer, failAfter?: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) return void this.destroy(new Error('ECONNRESET: the client went away'));
      if (sent >= bytes.length) return void this.push(null);
      const next = bytes.subarray(sent, sent + 64 * 1024);
      sent += next.length;
      this.push(next);
    },
  });
}

async function listed(store: KeyedFileStore): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for await (const object of store.list()) found.set(object.key, object.size);
  return found;
}

interface Backend {
  name: string;
  open(): FileStorage;
}

/**
 * The one contract of src/storage/file-storage.ts, run against both backends: the local directory and
 * the real S3 server (scripts/s3/start.sh). A fake store in a unit test is only as good as this suite.
 */
const backends: Backend[] = [
  { name: 'local directory', open: () => new LocalFileStorage(path.join(testEnv.tmpRoot ?? '/tmp', `storage-contract-${crypto.randomBytes(4).toString('hex')}`)) },
  {
    name: 'S3 (Swift s3api)',
    open: () => {
      const env = s3Server();
      return new S3FileStorage({
        endpoint: env.CRM_S3_ENDPOINT,
        bucket: env.CRM_S3_BUCKET,
        region: env.CRM_S3_REGION,
        accessKeyId: env.CRM_S3_ACCESS_KEY_ID,
        secretAccessKey: env.CRM_S3_SECRET_ACCESS_KEY,
      });
    },
  },
];

for (const backend of backends) {
  describe(`file storage contract: ${backend.name}`, function () {
    // The S3 server may have to be installed and started by the first test (apt, Swift: a minute or two).
    this.timeout(600_000);
    let storage: FileStorage;
    let store: KeyedFileStore;

    before(() => {
      storage = backend.open();
    });
    after(async () => {
      await storage.close();
    });
    beforeEach(() => {
      // A store of its own per test: list() sees exactly what the test put.
      store = storage.store(`contract-${crypto.randomBytes(4).toString('hex')}`);
    });

    it('puts a stream under a generated key, reads the same bytes back with their size, and lists it', async () => {
      const bytes = crypto.randomBytes(300_000);
      const stored = await store.put(chunked(bytes));
      expect(stored.size).to.equal(bytes.length);
      expect(stored.key).to.match(/^[0-9a-f-]{36}$/);
      const opened = await store.get(stored.key);
      expect(opened.size).to.equal(bytes.length);
      expect((await readAll(opened.stream)).equals(bytes)).to.equal(true);
      expect(await store.size(stored.key)).to.equal(bytes.length);
      const objects = [];
      for await (const object of store.list()) objects.push(object);
      expect(objects.map((o) => [o.key, o.size])).to.deep.equal([[stored.key, bytes.length]]);
      expect(Math.abs(objects[0].modifiedAt.getTime() - Date.now())).to.be.below(10 * 60_000);
    });

    it('streams a body larger than one multipart part (12 MiB) whole', async () => {
      const bytes = crypto.randomBytes(12 * 1024 * 1024);
      const stored = await store.put(chunked(bytes));
      expect(stored.size).to.equal(bytes.length);
      const back = await readAll((await store.get(stored.key)).stream);
      expect(crypto.createHash('sha256').update(back).digest('hex')).to.equal(crypto.createHash('sha256').update(bytes).digest('hex'));
    });

    it("leaves nothing behind and answers the source's own error when the source fails half-way", async () => {
      const err = await store.put(chunked(crypto.randomBytes(7 * 1024 * 1024), 6 * 1024 * 1024)).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(err).not.to.be.instanceOf(StorageWriteError);
      expect((err as Error).message).to.match(/ECONNRESET/);
      expect([...(await listed(store)).keys()]).to.deep.equal([]);
    });

    it('deletes an object (and deleting it again, or a key it never made, is no error)', async () => {
      const keep = await store.put(chunked(Buffer.from('keep')));
      const gone = await store.put(chunked(Buffer.from('gone')));
      await store.delete(gone.key);
      await store.delete(gone.key);
      await store.delete('../../etc/passwd');
      expect(await store.get(gone.key).catch((e: unknown) => e)).to.be.instanceOf(StoredObjectNotFoundError);
      expect(await store.size(gone.key).catch((e: unknown) => e)).to.be.instanceOf(StoredObjectNotFoundError);
      expect([...(await listed(store)).keys()]).to.deep.equal([keep.key]);
    });

    it('answers not found for a key it did not generate, without touching anything outside the store', async () => {
      for (const key of ['../timesheets', '/etc/passwd', 'not-a-key', `${crypto.randomUUID()}/x`]) {
        expect(await store.get(key).catch((e: unknown) => e), key).to.be.instanceOf(StoredObjectNotFoundError);
      }
      expect(await store.get(crypto.randomUUID()).catch((e: unknown) => e)).to.be.instanceOf(StoredObjectNotFoundError);
    });

    it('writes under a given key (restore, migration): whole, and a second write replaces the first', async () => {
      const key = crypto.randomUUID();
      await store.putAt(key, chunked(Buffer.from('first')));
      const second = await store.putAt(key, chunked(Buffer.from('second version')));
      expect(second).to.deep.equal({ key, size: 14 });
      expect((await readAll((await store.get(key)).stream)).toString()).to.equal('second version');
      expect([...(await listed(store)).entries()]).to.deep.equal([[key, 14]]);
    });

    it("keeps stores apart: one store lists and reads none of another's objects", async () => {
      const other = storage.store(`contract-${crypto.randomBytes(4).toString('hex')}`);
      const mine = await store.put(chunked(Buffer.from('mine')));
      const theirs = await other.put(chunked(Buffer.from('theirs')));
      expect([...(await listed(store)).keys()]).to.deep.equal([mine.key]);
      expect(await store.get(theirs.key).catch((e: unknown) => e)).to.be.instanceOf(StoredObjectNotFoundError);
    });

    if (backend.name.startsWith('S3')) {
      it('refuses to talk to the bucket while a database transaction is open', async () => {
        const err = await runInTransactionScope(() => store.put(chunked(Buffer.from('x')))).catch((e: unknown) => e);
        expect(err).to.be.instanceOf(NetworkInTransactionError);
        expect([...(await listed(store)).keys()]).to.deep.equal([]);
      });

      it("reports a bucket that refuses the write as StorageWriteError (the server's problem, not the upload's)", async () => {
        const env = s3Server();
        const wrong = new S3FileStorage({
          endpoint: env.CRM_S3_ENDPOINT,
          bucket: env.CRM_S3_BUCKET,
          region: env.CRM_S3_REGION,
          accessKeyId: env.CRM_S3_ACCESS_KEY_ID,
          secretAccessKey: 'not-the-secret',
        });
        try {
          const err = await wrong
            .store(store.name)
            .put(chunked(Buffer.from('x')))
            .catch((e: unknown) => e);
          expect(err).to.be.instanceOf(StorageWriteError);
        } finally {
          await wrong.close();
        }
      });
    } else {
      it('keeps files private to the service (0600) and leaves no temporary file after putAt', async () => {
        const stored = await store.put(chunked(Buffer.from('private')));
        await store.putAt(crypto.randomUUID(), chunked(Buffer.from('restored')));
        const dir = path.join((storage as LocalFileStorage).root, store.name);
        expect(fs.statSync(path.join(dir, stored.key)).mode & 0o777).to.equal(0o600);
        expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).to.deep.equal([]);
      });
    }
  });
}
