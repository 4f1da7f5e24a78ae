import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { until } from './poll.js';

/**
 * Polls pg_stat_activity until the backend `pid` waits on a lock (true), or is idle after running
 * `statement` (false: nothing held it back): whether `statement`, just sent on that connection, is
 * held back by another transaction's lock. Neither within 20 s fails (a timeout is no answer). Idle after an earlier
 * statement means `statement` has not reached the server yet (a loaded machine), not that it is done.
 */
export async function waitsOnLock(ctx: AppContext, pid: number, statement: string): Promise<boolean> {
  const value = await until(
    async () => {
      const [state] = await ctx.db.sequelize.query<{ state: string; wait: string | null; query: string }>(
        'SELECT state, wait_event_type AS wait, query FROM pg_stat_activity WHERE pid = $1',
        { bind: [pid], type: QueryTypes.SELECT },
      );
      if (state?.wait === 'Lock') return 'lock';
      return state?.state === 'idle' && state.query === statement ? 'idle' : undefined;
    },
    { what: `backend ${pid} to wait on a lock or finish`, timeoutMs: 20_000 },
  );
  return value === 'lock';
}
