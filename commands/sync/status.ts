import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { describeHolder } from '../../src/sync/lease-holder.js';
import type { SyncStatusRow } from '../../src/sync/sync-service.js';

function statusText(r: SyncStatusRow): string {
  if (r.lease?.expired) return `${r.status} (lease expired)`;
  if (r.running) return `${r.status} (running)`;
  return r.isActive ? r.status : `${r.status} (inactive)`;
}

export default class SyncStatus extends BaseCommand {
  static override description =
    "Show the mail sync state of every email account (or one user's): status, the lease holder (host, pid, role) " +
    'and its expiry, last success, last error, failures in a row and the next attempt. "lease expired" means the ' +
    'process that held it stopped renewing it (crashed or hung): another one takes it over at its next turn. ' +
    'auth_failed means the credentials must be changed before it retries.';

  static override examples = ['<%= config.bin %> sync status', '<%= config.bin %> sync status jana --json'];

  static override args = {
    username: Args.string({ description: 'only the accounts of this user' }),
  };

  async run(): Promise<{ items: SyncStatusRow[] }> {
    const { args } = await this.parse(SyncStatus);
    const ctx = await this.appContext();
    const owner = args.username ? await ctx.services.userAdmin.getByUsername(args.username) : undefined;
    const items = await ctx.services.syncStatus.statusList({ userId: owner?.id });
    if (items.length === 0) {
      this.log(owner ? `"${owner.username}" has no email accounts.` : 'No email accounts.');
    } else {
      this.log(
        renderTable(items, [
          { header: 'account', get: (r) => r.accountId },
          { header: 'user', get: (r) => r.username },
          { header: 'email', get: (r) => r.email },
          { header: 'status', get: statusText },
          { header: 'lease holder', get: (r) => (r.lease ? describeHolder(r.lease.holder.id) : null), maxWidth: 50 },
          { header: 'lease until', get: (r) => r.lease?.until },
          { header: 'last success', get: (r) => r.lastSuccessAt },
          { header: 'failures', get: (r) => r.consecutiveFailures },
          { header: 'next attempt', get: (r) => r.nextAttemptAt },
          { header: 'last error', get: (r) => r.lastError, maxWidth: 60 },
        ]),
      );
    }
    return { items };
  }
}
