import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { EVENTS_CHANNEL } from '../events/outbox-repository.js';

/**
 * user.created and user.disabled into the events outbox (issue 48), in the transaction of the change:
 * a webhook hears of a user exactly when the change committed. Company news (user_id null, like a
 * triage change), so every webhook subscribed may get it; no stream of GET /api/events shows them
 * (they belong to no mailbox). Ids, the username and the role only, never a password.
 */
export class UserEvents {
  constructor(private readonly sql: Sql) {}

  async created(user: { id: string; username: string; role: string }, tx: Tx): Promise<void> {
    await this.emit('user.created', { userId: user.id, username: user.username, role: user.role }, tx);
  }

  async disabled(user: { id: string; username: string }, tx: Tx): Promise<void> {
    await this.emit('user.disabled', { userId: user.id, username: user.username }, tx);
  }

  private async emit(type: string, payload: Record<string, unknown>, tx: Tx): Promise<void> {
    await this.sql.execute(`INSERT INTO events (type, payload) VALUES ($type, $payload::jsonb)`, { type, payload: JSON.stringify(payload) }, tx);
    // The outbox's listeners look when told to (as the triggers of 0021 tell them).
    await this.sql.execute(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`, {}, tx);
  }
}
