import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';

/**
 * Polls pg_stat_activity until the backend `pid` waits on a lock (true), or has run `statement` and
 * is idle again (false), or 5 s have passed (false): whether the statement is held back by another
 * transaction's lock. Idle before it has received `statement` (a loaded machine) is not an answer yet.
 */
export async function waitsOnLock(ctx: AppContext, pid: number, statement: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    const [state] = await ctx.db.sequelize.query<{ state: string; wait: string | null; query: string }>(
      'SELECT state, wait_event_type AS wait, query FROM pg_stat_activity WHERE pid = $1',
      { bind: [pid], type: QueryTypes.SELECT },
    );
    if (state?.wait === 'Lock') return true;
    if (state?.state === 'idle' && state.query === statement) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
