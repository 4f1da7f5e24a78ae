/**
 * Asks for a mail sync of an account soon (SyncService.requestSync in the wiring): the account is
 * marked requested, so any instance's next scheduler tick takes it, and a process that runs syncs
 * starts it at once. Linking an account, fixing its credentials or switching it back on should fill
 * the CRM now, not at the next turn; EmailAccountService asks for it itself, so the HTTP API,
 * crm-admin and user creation get the same follow-up.
 */
export interface SyncRequests {
  requestSync(accountId: string): Promise<void>;
}
