import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Config, Errors, type Command } from '@oclif/core';
import { normalizeArgv } from '@oclif/core/help';
import { runWithHost } from '../../src/cli/command-host.js';
import { childEnv, repoRoot, runCli, type CliResult } from './cli.js';
import { baseTestEnv, testContext } from './harness.js';

/**
 * crm-admin run inside the test process (ADR 0127), for the tests about what a command does (its
 * output, its audit record, its refusal) rather than about the process: a spawned crm-admin costs
 * about a second of CPU to start, and the suite runs some two hundred. The command runs with a host
 * of its own (src/cli/command-host.ts): the environment the test gives it (as a child gets it from
 * runCli), a stdin holding `input`, stdout and stderr captured; it shares the harness's open
 * database, so it neither opens nor closes one and the models stay bound to the one Sequelize of the
 * process. The command classes are the TypeScript sources (commands/*.ts through tsx), the same
 * module instances as the src/ modules the test imports; the real process runs their compiled copy.
 *
 * Whatever cannot run here is spawned (runCli) instead, answering the same CliResult: another
 * database or data directory than the harness's (freshDatabase(), embedded PostgreSQL), commands that
 * are about the process (below), --help and --version, a usage error that oclif answers with help
 * text, and every call when TEST_CLI=process (the whole suite on the real process).
 */
export async function runCliInProcess(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  const hostEnv = commandEnv(env);
  const command = await inProcessCommand(args, hostEnv);
  if (!command) return runCli(args, env, input);
  const stdout = capture();
  const stderr = capture();
  let status = 0;
  try {
    const { db } = await testContext();
    const stdin = Readable.from(input === undefined ? [] : [Buffer.from(input)]);
    await runWithHost({ env: hostEnv, argv: args, stdin, stdout: stdout.stream, stderr: stderr.stream, db, isProcess: false }, () => command.run(command.argv, command.config));
  } catch (err) {
    const error = err as Error & { oclif?: { exit?: number }; parse?: unknown; showHelp?: boolean };
    // A parse error is raised before the command does anything; oclif's handler follows it with the
    // command's help, which it prints only on the process: the real one answers it.
    if (error.parse && error.showHelp) return runCli(args, env, input);
    // What oclif's top-level handler (Errors.handle) does with an error that reaches it.
    if (!(err instanceof Errors.ExitError)) stderr.stream.write(`${prettyPrint(error)}\n`);
    status = error.oclif?.exit ?? 1;
  }
  return { status, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Commands that are about the process and always spawn: serve, the database's lifecycle (db
 * backup/restore/migrate/seed: they open their own connections, read the database as a whole, write
 * archives through the process's stdout), doctor (checks the process's environment and files) and
 * sync resync (stops on SIGINT/SIGTERM).
 */
const ALWAYS_SPAWNED = /^(serve|doctor|db:.*|sync:resync)$/;

/** Whether runCliInProcess runs this command line in the test process (else it spawns crm-admin). */
export async function runsInProcess(args: string[], env: Record<string, string>): Promise<boolean> {
  return (await inProcessCommand(args, commandEnv(env))) !== undefined;
}

/** What a child started by runCli gets. */
function commandEnv(env: Record<string, string>): Record<string, string> {
  return { ...childEnv(), LOG_LEVEL: 'error', ...env };
}

function inProcessCommand(args: string[], env: Record<string, string>): Promise<FoundCommand | undefined> {
  if (process.env.TEST_CLI === 'process' || !isHarnessDatabase(env)) return Promise.resolve(undefined);
  return findCommand(args);
}

/** Only the harness's own database and data directory: the models are bound to its Sequelize. */
function isHarnessDatabase(env: Record<string, string>): boolean {
  const harness = baseTestEnv();
  return env.DATABASE_URL === harness.DATABASE_URL && env.CRM_DATA_DIR === harness.CRM_DATA_DIR;
}

interface FoundCommand {
  run: (argv: string[], config: Config) => Promise<unknown>;
  argv: string[];
  config: Config;
}

let loadedConfig: Promise<Config> | undefined;

/** The command `args` names, as oclif finds it (topics, aliases), loaded from its TypeScript source. */
async function findCommand(args: string[]): Promise<FoundCommand | undefined> {
  if (args.length === 0 || args.some((arg) => ['--help', '-h', '--version'].includes(arg))) return undefined;
  // Once per worker: the root plugin's package.json and oclif.manifest.json (built by scripts/test.sh).
  const config = await (loadedConfig ??= Config.load(repoRoot));
  const [id, ...argv] = normalizeArgv(config, args);
  const found = id === undefined ? undefined : config.findCommand(id);
  // The command's own file (dist/commands/email-accounts/attach.js), also when named by an alias
  // (mail-accounts attach): its source beside commands/, and its own id, as oclif's plugin gives it.
  const parts = found?.relativePath?.slice(2);
  if (!parts) return undefined;
  const canonicalId = parts.join(':').replace(/\.js$/, '');
  if (ALWAYS_SPAWNED.test(canonicalId)) return undefined;
  const file = path.join(repoRoot, 'commands', ...parts).replace(/\.js$/, '.ts');
  const { default: Cmd } = (await import(pathToFileURL(file).href)) as { default: Command.Class };
  Cmd.id = canonicalId;
  return { run: (a, c) => Cmd.run(a, c), argv, config };
}

/** A stream that keeps what is written to it (the bytes, decoded as runCli decodes a child's pipe). */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

// oclif's own rendering of an error (the "Error: ..." block with its indent and wrap) that its
// top-level handler prints; the package does not export it, so it is loaded by its file.
const oclifLib = path.join(path.dirname(createRequire(import.meta.url).resolve('@oclif/core/package.json')), 'lib');
const prettyPrint = (createRequire(import.meta.url)(path.join(oclifLib, 'errors/errors/pretty-print.js')) as { default: (err: Error) => string }).default;
