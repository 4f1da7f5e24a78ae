#!/usr/bin/env node
// Checks that package.json's `engines.node` is true for every installed runtime dependency (part of
// npm run lint): each package the lockfile does not mark dev-only, direct or transitive, must accept
// every Node version we claim to support, i.e. our range is a subset of its `engines.node`
// (semver's subset logic). Without this, `engines` drifted: it said >=20.19 while sanitize-html
// needed >=22.12 (docs/adr/0115-node-22-floor.md). It also checks that @types/node describes the floor
// (same major, a minor no later than the floor's): typings of a later Node would let code use an API
// the oldest supported Node lacks, and typecheck would not say so.
//   node scripts/check-engines.mjs        lists each package whose range does not cover ours, exit 1 if any
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const ownPackage = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
const ours = ownPackage.engines?.node;
if (!ours || !semver.validRange(ours)) {
  console.error(`package.json engines.node is missing or not a semver range: ${ours}`);
  process.exit(1);
}

const problems = [];
let checked = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  if (location === '' || entry.dev) continue; // the project itself; dev-only tools do not run in production
  const manifestPath = path.join(repoRoot, location, 'package.json');
  if (!fs.existsSync(manifestPath)) continue; // an optional dependency for another platform
  const theirs = JSON.parse(fs.readFileSync(manifestPath, 'utf8')).engines?.node;
  checked += 1;
  if (theirs === undefined) continue;
  if (!semver.validRange(theirs) || !semver.subset(ours, theirs)) problems.push(`${location}: engines.node "${theirs}"`);
}

const floor = semver.minVersion(ours);
const typesRange = ownPackage.devDependencies?.['@types/node'];
const types = typesRange ? semver.coerce(typesRange) : null;
if (!types || types.major !== floor.major || types.minor > floor.minor) {
  problems.push(`@types/node "${typesRange}": must be the typings of the engines floor (${floor.major}.x, at most ${floor.major}.${floor.minor})`);
}

if (problems.length > 0) {
  console.error(`engines.node "${ours}" claims Node versions these runtime dependencies (or the typings) do not match:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`engines.node "${ours}": accepted by all ${checked} runtime dependencies; @types/node ${typesRange} matches its floor`);
