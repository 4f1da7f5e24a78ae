import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { ServiceUnavailableError } from '../errors/app-errors.js';
import { newestAppliedMigration, schemaIsCurrent } from '../db/migration-check.js';
import { releaseVersion } from '../shared/release-version.js';
import { ok } from '../http/respond.js';
import type { LivenessData, ReadinessData } from './health-responses.js';

/**
 * Liveness says the process answers; readiness says it can serve: the database answers and the schema
 * is current. Load balancers route on readiness, systemd/k8s restart on liveness. Readiness also lists
 * configuration warnings (`data.warnings`) that do not stop the service but need an operator.
 */
export function createHealthRouter(sequelize: Sequelize, options: { warnings?: () => string[] } = {}): Router {
  const router = Router();
  let schemaCurrent = false;

  router.get('/', (_req, res) => {
    ok(res, { status: 'ok', uptimeSeconds: Math.round(process.uptime()) } satisfies LivenessData, 'Služba beží');
  });

  router.get('/ready', async (_req, res) => {
    let schema: string | null;
    try {
      await sequelize.query('SELECT 1');
      // Migrations only move forward while running; once current, checking again is wasted work.
      if (!schemaCurrent) schemaCurrent = await schemaIsCurrent(sequelize);
      schema = await newestAppliedMigration(sequelize);
    } catch {
      throw new ServiceUnavailableError('Databáza nie je dostupná');
    }
    if (!schemaCurrent || schema === null) throw new ServiceUnavailableError('Schéma databázy nie je aktuálna');
    // Ready, but configured in a way an operator must fix (e.g. TRUST_PROXY behind a proxy).
    ok(res, { status: 'ready', version: releaseVersion(), schema, warnings: options.warnings?.() ?? [] } satisfies ReadinessData, 'Služba je pripravená');
  });

  return router;
}
