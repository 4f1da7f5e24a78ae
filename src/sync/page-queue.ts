/**
 * The pages of a full sync, fetched ahead of the writer: as soon as a page arrives the next one is
 * requested (query pages chain by anchor, so they come one after another), until `depth` pages are
 * ahead of the one being written. Fetching then never waits for a write, and a slow write never stalls the mail server's
 * side, while memory stays bounded (depth pages of at most batchSize emails).
 */
import type { Page } from './jmap-sync-calls.js';

export class PageQueue {
  /** Pages requested or waiting and not yet handed out, oldest first; null = there are no more. */
  private links: Array<Promise<Page | null>> = [];
  /** The newest page requested (handed out or not): the next request follows it. */
  private tail: Promise<Page | null> = Promise.resolve(null);

  constructor(
    private readonly fetchAfter: (anchor: string | null) => Promise<Page>,
    private readonly depth: number,
  ) {}

  /** (Re)starts after `anchor`; pages of an earlier start are abandoned. */
  start(anchor: string | null): void {
    this.tail = quiet(this.fetchAfter(anchor));
    this.links = [this.tail];
    this.fill();
  }

  /** The next page, null after the last one; rejects with the error of its request. */
  next(): Promise<Page | null> {
    const head = this.links.shift() ?? Promise.resolve(null);
    this.fill();
    return head;
  }

  private fill(): void {
    while (this.links.length < this.depth) {
      this.tail = quiet(this.tail.then((page) => (page && page.more && page.ids.length > 0 ? this.fetchAfter(page.ids[page.ids.length - 1]) : null)));
      this.links.push(this.tail);
    }
  }
}

/** Awaited later, or abandoned when the run stops or restarts: never an unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
