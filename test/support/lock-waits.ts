import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { poll } from './poll.js';

/**
 * Polls pg_stat_activity until the backend `pid` waits on a lock (true), or is idle again, or 5 s
 * have passed (false): whether a statement it runs is held back by another transaction's lock.
 */
export async function waitsOnLock(ctx: AppContext, pid: number): Promise<boolean> {
  const { value } = await poll(
    async () => {
      const [state] = await ctx.db.sequelize.query<{ state: string; wait: string | null }>(
        'SELECT state, wait_event_type AS wait FROM pg_stat_activity WHERE pid = $1',
        { bind: [pid], type: QueryTypes.SELECT },
      );
      if (state?.wait === 'Lock') return 'lock';
      return state?.state === 'idle' ? 'idle' : undefined;
    },
    { what: `backend ${pid} to wait on a lock or finish`, timeoutMs: 5000 },
  );
  return value === 'lock';
}
