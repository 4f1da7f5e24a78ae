import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentAuditLog, type AuditLogView } from '../../src/admin/admin-presenters.js';
import { auditLogFilters } from '../../src/admin/admin-schemas.js';
import { parse } from '../../src/shared/validation.js';
import { listResult } from '../../src/shared/pagination.js';

export default class AuditList extends BaseCommand {
  static override description = 'Show audit records, newest first. The actor column tells web users (user:<id>), crm-admin (cli:<os user>) and ' + 'the sync apart.';

  static override examples = [
    '<%= config.bin %> audit list',
    '<%= config.bin %> audit list --user jana --since 2024-05-01',
    '<%= config.bin %> audit list --action "admin.*" --limit 200',
    '<%= config.bin %> audit list --action auth.login_attempt --success false --json',
  ];

  static override flags = {
    user: Flags.string({ char: 'u', description: 'records about this username (deleted users included)' }),
    action: Flags.string({ char: 'a', description: 'exact action (e.g. admin.role_changed), or a prefix ending in * (e.g. "auth.*")' }),
    since: Flags.string({ description: 'from this ISO date or time, inclusive (2024-05-01 or 2024-05-01T08:00:00Z)' }),
    until: Flags.string({ description: 'before this ISO date or time, exclusive' }),
    success: Flags.string({ description: 'only successful or only failed operations', options: ['true', 'false'] }),
    limit: Flags.integer({ char: 'n', description: 'number of records', min: 1, max: 10_000, default: 50 }),
    page: Flags.integer({ description: 'page number (with --limit records per page)', min: 1, default: 1 }),
  };

  async run(): Promise<ReturnType<typeof listResult<AuditLogView>>> {
    const { flags } = await this.parse(AuditList);
    const filters = parse(auditLogFilters, {
      username: flags.user,
      action: flags.action,
      since: flags.since,
      until: flags.until,
      success: flags.success,
    });
    const query = { ...filters, page: flags.page, limit: flags.limit };
    const ctx = await this.appContext();
    const { items, total } = await ctx.services.auditQuery.list(query);
    const records = items.map(presentAuditLog);
    if (records.length === 0) {
      this.log('No audit records match.');
    } else {
      this.log(
        renderTable(records, [
          { header: 'time', get: (r) => r.createdAt },
          { header: 'action', get: (r) => r.action },
          { header: 'ok', get: (r) => (r.success ? 'yes' : 'NO') },
          { header: 'user', get: (r) => r.username, maxWidth: 24 },
          { header: 'actor', get: (r) => r.actor, maxWidth: 44 },
          { header: 'ip', get: (r) => r.ip },
          { header: 'details', get: (r) => (Object.keys(r.details ?? {}).length ? r.details : null), maxWidth: 80 },
        ]),
      );
      this.log(`\n${records.length} of ${total}`);
    }
    return listResult(records, query, total);
  }
}
