// Loaded with `node --import` by bench/cli-start-bench.ts. With CLI_START_CPU_FILE: writes the CPU time
// (user + system, ms) the process used, at exit. With CLI_START_COUNT_FILE: counts the files a crm-admin
// start loads: ES modules are seen by a load hook (bench/cli-start-hooks.mjs, in the hooks thread),
// CommonJS ones are read from require.cache at exit; both are appended, one per line.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';

const cpuFile = process.env.CLI_START_CPU_FILE;
if (cpuFile) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    fs.writeFileSync(cpuFile, String((user + system) / 1000));
  });
}

const out = process.env.CLI_START_COUNT_FILE;
if (out) {
  register('./cli-start-hooks.mjs', import.meta.url, { data: { out } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const lines = Object.keys(require.cache).map((file) => `file://${file}`);
    fs.appendFileSync(out, lines.length > 0 ? `${lines.join('\n')}\n` : '');
  });
}
