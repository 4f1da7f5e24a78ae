import type { SyncRepository, SyncStatusRow } from './sync-repository.js';

/**
 * Each mail account's sync state, as `crm-admin sync status` lists it. Apart from SyncService, whose
 * module brings the sync itself (the JMAP client, the page writers): reading the state needs none of
 * it, and a one-shot command loads only what it builds (ADR 0124).
 */
export class SyncStatusService {
  constructor(private readonly repository: Pick<SyncRepository, 'statusList'>) {}

  statusList(filter: { userId?: string } = {}): Promise<SyncStatusRow[]> {
    return this.repository.statusList(filter);
  }
}
