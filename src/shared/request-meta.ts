/**
 * Who asked, as every entry point (web, CLI, scheduler) describes it to the services: services
 * record it in the audit log without knowing which entry point they serve.
 */
export interface RequestMeta {
  ip?: string | null;
  userAgent?: string | null;
  /** "user:<id>" for the web, "cli:<os user>" for crm-admin, "sync" for the scheduler. */
  actor?: string | null;
}
