import { describeFuzz, type SuiteRoute } from './support/fuzz.js';
import { filesIn } from './support/db-snapshot.js';
import { multipartBody } from './support/multipart.js';

const routes: SuiteRoute[] = [
  { method: 'POST', path: '/api/timesheets/upload', bodies: multipartBody, runs: 400, expectAccepted: true },
  { method: 'GET', path: '/api/timesheets/my', queryKeys: ['page', 'limit', 'year', 'month'], runs: 300, expectAccepted: true },
  { method: 'GET', path: '/api/timesheets/all', queryKeys: ['page', 'limit', 'year', 'month', 'userId'], runs: 300, expectAccepted: true },
  { method: 'GET', path: '/api/timesheets/:id/download', recordOf: (a) => a.timesheet.id, runs: 200, expectAccepted: true },
  { method: 'DELETE', path: '/api/timesheets/:id', recordOf: (a) => a.timesheet.id, runs: 150 },
];

// A rejected upload must not leave a file behind, not even one that no row points to.
describeFuzz('hardening: fuzzing /api/timesheets', routes, { sideState: (bench) => filesIn(bench.ctx.config.timesheetDir) });
