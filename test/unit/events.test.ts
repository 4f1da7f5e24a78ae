/**
 * The parts of live updates that are hard to provoke over HTTP: the outbox follower's ordering when
 * transactions commit out of id order (src/events/outbox-follower.ts), and dropping a client that
 * does not read instead of buffering for it (src/events/sse-response.ts).
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { OutboxEvent } from '../../src/events/event-types.js';
import { OutboxFollower } from '../../src/events/outbox-follower.js';
import type { OutboxPage, OutboxRepository } from '../../src/events/outbox-repository.js';
import { SseResponse } from '../../src/events/sse-response.js';

const event = (id: number): OutboxEvent => ({ id, type: 'email.updated', emailAccountId: 'a', userId: null, payload: {}, createdAt: new Date() });

/** An outbox whose visible rows and snapshot the test sets between reads. */
class FakeOutbox {
  rows: number[] = [];
  xmin = 100n;
  xmax = 105n;
  reads = 0;
  async after(after: number): Promise<OutboxPage> {
    this.reads++;
    return { events: this.rows.filter((id) => id > after).map(event), xmin: this.xmin, xmax: this.xmax };
  }
  async newest(): Promise<number> {
    return 10;
  }
  async bounds(): Promise<{ oldest: number | null; last: number }> {
    return { oldest: 1, last: 10 };
  }
}

async function settle(follower: OutboxFollower, outbox: FakeOutbox, reads: number): Promise<void> {
  const target = outbox.reads + reads;
  follower.wake();
  for (let i = 0; i < 200 && outbox.reads < target; i++) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 5));
}

describe('unit: live updates', () => {
  it('waits at an id still held by a running transaction, then delivers in id order', async () => {
    const outbox = new FakeOutbox();
    const seen: number[] = [];
    const follower = new OutboxFollower(outbox as unknown as OutboxRepository, { dispatch: (e) => seen.push(e.id), resyncAll: () => seen.push(-1) });
    await follower.resume();
    // 12 committed before 11: transactions (xmin 100) that were running may still hold 11.
    outbox.rows = [12];
    await settle(follower, outbox, 1);
    expect(seen).to.deep.equal([]);
    // 11 commits: both go out, in order.
    outbox.rows = [11, 12];
    await settle(follower, outbox, 1);
    expect(seen).to.deep.equal([11, 12]);
    follower.stop();
  });

  it('passes an id that was rolled back once every transaction running at the first sight has ended', async () => {
    const outbox = new FakeOutbox();
    const seen: number[] = [];
    const follower = new OutboxFollower(outbox as unknown as OutboxRepository, { dispatch: (e) => seen.push(e.id), resyncAll: () => seen.push(-1) });
    await follower.resume();
    outbox.rows = [12, 13];
    await settle(follower, outbox, 1);
    expect(seen).to.deep.equal([]);
    // Everything that ran then (ids below 105) has ended; 11 never appeared: it was rolled back.
    outbox.xmin = 105n;
    outbox.xmax = 107n;
    await settle(follower, outbox, 1);
    expect(seen).to.deep.equal([12, 13]);
    follower.stop();
  });

  it('drops a client whose socket holds more than the bound unsent, rather than buffering', () => {
    // A socket nobody reads: every write stays in its buffer.
    class StuckResponse extends EventEmitter {
      headersSent = true;
      socket = null;
      unsent = 0;
      destroyed = false;
      get writableLength(): number {
        return this.unsent;
      }
      writeHead(): this {
        return this;
      }
      write(chunk: string | Buffer): boolean {
        this.unsent += chunk.length;
        return false;
      }
      end(): void {}
      destroy(): void {
        this.destroyed = true;
      }
    }
    const res = new StuckResponse();
    const sink = new SseResponse(res as unknown as http.ServerResponse, 1024);
    sink.open();
    let accepted = 0;
    while (accepted < 10_000 && sink.send(accepted + 1, 'email.updated', { emailAccountId: 'a', count: 1, ids: ['x'.repeat(36)] })) accepted++;
    expect(res.destroyed).to.equal(true);
    expect(res.unsent).to.be.below(1024 + 200);
    expect(accepted).to.be.greaterThan(5);
  });
});
