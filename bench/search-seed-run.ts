/** Seeds (or completes) the search benchmark's installation and keeps the database: `node --import=tsx/esm bench/search-seed-run.ts`. */
import { openBenchDatabase } from './bench-database.js';
import { oneUserInstall, searchInstall } from './search-install.js';

const db = await openBenchDatabase('search', { BCRYPT_ROUNDS: '4' });
console.log(`database: ${db.url}`);
const t0 = Date.now();
// BENCH_SHAPE=one-user: issue 49's shape (one user, three mailboxes of BENCH_EMAILS, default 333,334 each).
if (process.env.BENCH_SHAPE === 'one-user') await oneUserInstall(db.ctx, { mailboxes: 3, emails: Number(process.env.BENCH_EMAILS ?? 333_334), contacts: 500 });
else await searchInstall(db.ctx, { accounts: Number(process.env.BENCH_ACCOUNTS ?? 50), emails: Number(process.env.BENCH_EMAILS ?? 20_000), contacts: 500 });
console.log(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
await db.close({ keep: true });
