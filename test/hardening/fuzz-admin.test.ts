import fc from 'fast-check';
import { credentials, describeFuzz, type SuiteRoute } from './support/fuzz.js';
import type { World } from './support/world.js';

/** Mostly the admin (the interesting paths are behind requireRole), sometimes anybody else. */
const mostlyAdmin = (w: World) => fc.oneof({ weight: 3, arbitrary: fc.constant({ Authorization: w.admin.session.bearer }) }, { weight: 2, arbitrary: credentials(w) });
const victims = (w: World) => [...w.victims, w.other.id];

const routes: SuiteRoute[] = [
  {
    method: 'POST',
    path: '/api/admin/users',
    validBody: () => ({ username: `fuzz.${Date.now().toString(36)}`, role: 'member', firstName: 'Jana', lastName: 'Nová' }),
    auth: mostlyAdmin,
    runs: 300,
    allowUpstream: true,
    expectAccepted: true,
  },
  { method: 'GET', path: '/api/admin/users', queryKeys: ['page', 'limit', 'role', 'search'], auth: mostlyAdmin, runs: 250, expectAccepted: true },
  { method: 'GET', path: '/api/admin/users/:id', auth: mostlyAdmin, runs: 200, expectAccepted: true },
  {
    method: 'PATCH',
    path: '/api/admin/users/:id',
    idPool: victims,
    validBody: () => ({ role: 'member', firstName: 'Upravená', lastName: null }),
    auth: mostlyAdmin,
    runs: 250,
    expectAccepted: true,
  },
  { method: 'POST', path: '/api/admin/users/:id/reset-password', idPool: victims, auth: mostlyAdmin, runs: 150, expectAccepted: true },
  {
    method: 'GET',
    path: '/api/admin/audit-logs',
    queryKeys: ['page', 'limit', 'userId', 'username', 'action', 'since', 'until', 'success'],
    auth: mostlyAdmin,
    runs: 300,
    expectAccepted: true,
  },
  { method: 'DELETE', path: '/api/admin/users/:id', idPool: victims, auth: mostlyAdmin, runs: 150, expectAccepted: true },
];

describeFuzz('hardening: fuzzing /api/admin', routes);
