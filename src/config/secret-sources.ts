import fs from 'node:fs';
import path from 'node:path';

/**
 * The variables that hold secrets. Each may come from one of three places: the variable itself, a
 * file named by `<NAME>_FILE`, or a systemd credential read from `$CREDENTIALS_DIRECTORY`: one file
 * (`LoadCredential=<NAME>:/etc/...`, read as `<NAME>`) or a whole directory of them
 * (`LoadCredential=staff-crm:/etc/staff-crm/credentials`, each read as `staff-crm_<NAME>`: what the units
 * and the crm-admin wrapper pass, so an optional secret such as BACKUP_SIGNING_KEY reaches every command
 * once its file exists; issue 52, finding 12). Files keep secrets out of the environment, which every
 * child process inherits and /proc/<pid>/environ shows to the same user.
 */
export const SECRET_VARIABLES = [
  'JWT_ACCESS_SECRET',
  'JWT_REFRESH_SECRET',
  'CRM_ENCRYPTION_KEY',
  'CRM_ENCRYPTION_OLD_KEYS',
  'DATABASE_URL',
  'DATABASE_LISTEN_URL',
  'DATABASE_OWNER_URL',
  'BACKUP_SIGNING_KEY',
  'BACKUP_SIGNING_KEYS_RETIRED',
  'CRM_S3_ACCESS_KEY_ID',
  'CRM_S3_SECRET_ACCESS_KEY',
] as const;

/** The ID of the credential directory in the units (systemd names each file `<ID>_<file name>`). */
export const CREDENTIAL_DIRECTORY_ID = 'staff-crm';

export type ReadSecretFile = (file: string) => string;

export interface ResolvedSecrets {
  /** The environment with each secret's value in place of its file (the `_FILE` names removed). */
  env: Record<string, string | undefined>;
  /** One line per problem, in the form of the other configuration problems (`NAME: why`). */
  problems: string[];
}

const readUtf8: ReadSecretFile = (file) => fs.readFileSync(file, 'utf8');

/**
 * Picks each secret's one source. Two sources for one secret are a start error (which one would win is
 * a guess an operator should not have to make); so is a file that cannot be read or is empty. A file's
 * value is its content without the line break editors add at the end.
 */
export function resolveSecretSources(
  input: Record<string, string | undefined>,
  readFile: ReadSecretFile = readUtf8,
  exists: (file: string) => boolean = fs.existsSync,
): ResolvedSecrets {
  const env: Record<string, string | undefined> = { ...input };
  const problems: string[] = [];
  const credentialsDir = nonEmpty(input.CREDENTIALS_DIRECTORY);
  for (const name of SECRET_VARIABLES) {
    const sources: Array<{ label: string; file?: string; value?: string }> = [];
    if (nonEmpty(input[name]) !== undefined) sources.push({ label: name, value: input[name] });
    const named = nonEmpty(input[`${name}_FILE`]);
    if (named !== undefined) sources.push({ label: `${name}_FILE`, file: named });
    const credentials = (credentialsDir ? [name, `${CREDENTIAL_DIRECTORY_ID}_${name}`] : [])
      .map((id) => ({ label: `systémový credential ${id} ($CREDENTIALS_DIRECTORY)`, file: path.join(credentialsDir!, id) }))
      .filter((c) => exists(c.file));
    // A drop-in of an older install (LoadCredential=NAME:/etc/staff-crm/credentials/NAME) beside the
    // directory credential delivers the same file twice: one source, unless the two differ.
    if (credentials.length === 2 && sameContent(credentials[0].file, credentials[1].file, readFile)) credentials.shift();
    sources.push(...credentials);
    delete env[`${name}_FILE`];
    if (sources.length > 1) {
      problems.push(`${name}: zadané viackrát (${sources.map((s) => s.label).join(', ')}); ponechajte jeden zdroj`);
      continue;
    }
    const [source] = sources;
    if (!source?.file) continue;
    try {
      const value = readFile(source.file).replace(/\r?\n$/, '');
      if (value === '') problems.push(`${source.label}: súbor ${source.file} je prázdny`);
      else env[name] = value;
    } catch (err) {
      problems.push(`${source.label}: súbor ${source.file} sa nedá prečítať (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  return { env, problems };
}

function sameContent(a: string, b: string, readFile: ReadSecretFile): boolean {
  try {
    return readFile(a) === readFile(b);
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
