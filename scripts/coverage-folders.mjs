#!/usr/bin/env node
// Lines and branches of src/ per folder, from c8's json-summary (scripts/coverage.sh).
// usage: node scripts/coverage-folders.mjs coverage/coverage-summary.json
import fs from 'node:fs';
import path from 'node:path';

const file = process.argv[2] ?? 'coverage/coverage-summary.json';
const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
const src = path.resolve('src') + path.sep;
const folders = new Map();
for (const [name, figures] of Object.entries(summary)) {
  if (name === 'total' || !name.startsWith(src)) continue;
  const rest = name.slice(src.length);
  const folder = rest.includes(path.sep) ? `src/${rest.split(path.sep)[0]}` : 'src (top level)';
  const sum = folders.get(folder) ?? { files: 0, lines: [0, 0], branches: [0, 0] };
  sum.files++;
  sum.lines[0] += figures.lines.covered;
  sum.lines[1] += figures.lines.total;
  sum.branches[0] += figures.branches.covered;
  sum.branches[1] += figures.branches.total;
  folders.set(folder, sum);
}
const pct = ([covered, total]) => (total === 0 ? '100.0' : ((100 * covered) / total).toFixed(1)).padStart(6);
const rows = [...folders.entries()].sort(([a], [b]) => a.localeCompare(b));
const width = Math.max(...rows.map(([name]) => name.length), 'folder'.length);
console.log(`\n${'folder'.padEnd(width)}  files   lines %  branches %`);
for (const [name, s] of rows) console.log(`${name.padEnd(width)}  ${String(s.files).padStart(5)}  ${pct(s.lines)}    ${pct(s.branches)}`);
const { lines, branches } = summary.total;
console.log(
  `${'all of src/'.padEnd(width)}  ${String(rows.reduce((n, [, s]) => n + s.files, 0)).padStart(5)}  ${pct([lines.covered, lines.total])}    ${pct([branches.covered, branches.total])}`,
);
