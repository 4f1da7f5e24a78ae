#!/usr/bin/env node
// Writes oclif.manifest.json after the build (`npm run build`): every command's id, description, flags
// and compiled file. With it crm-admin answers --version and --help without importing any command, and
// runs a command by importing that one file only; without it oclif imports every command (and with them
// the whole app) on each start just to learn their names.
// This is what the `oclif manifest` command of the oclif CLI does, written with the @oclif/core the
// program runs on, so the file always matches the version that reads it (the oclif CLI would pull in
// another @oclif/core major and the AWS SDK for one JSON file).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin, settings } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = path.join(root, 'oclif.manifest.json');
// The compiled commands in dist/, never the TypeScript sources (as bin/crm-admin).
settings.enableAutoTranspile = false;
fs.rmSync(file, { force: true });
const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
await plugin.load();
const count = Object.keys(plugin.manifest.commands).length;
if (count === 0) {
  console.error('oclif-manifest: no commands found in dist/commands (build first)');
  process.exit(1);
}
fs.writeFileSync(file, `${JSON.stringify(plugin.manifest, null, 2)}\n`);
