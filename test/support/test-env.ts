/** Filled by the global setup before any test runs; read it inside before()/it(), never at describe time. */
export const testEnv: { databaseUrl?: string; jmapSessionUrl?: string; tmpRoot?: string } = {};

export function requireDatabaseUrl(): string {
  if (!testEnv.databaseUrl) throw new Error('test database not started (global setup did not run?)');
  return testEnv.databaseUrl;
}
