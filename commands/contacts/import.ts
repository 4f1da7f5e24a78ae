import { open } from 'node:fs/promises';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import type { ImportResult } from '../../src/contacts/import-records.js';
import { IMPORT_MAX_BYTES } from '../../src/contacts/import-file.js';
import { NotFoundError, ValidationError } from '../../src/errors/app-errors.js';
import { idParams } from '../../src/shared/validation.js';

export default class ContactsImport extends BaseCommand {
  static override description =
    "Import an address book file (CSV or vCard) into a user's mailbox, as that user would through POST /api/contacts/import: " +
    'the user must own or edit the mailbox; invalid rows are reported and left out, the rest is stored in one transaction. ' +
    'CSV: UTF-8, comma or semicolon separated, header name,email,phone,company,title,tags,notes in any order. Audited as the user.';

  static override examples = [
    '<%= config.bin %> contacts import --user jana --account jana@firma.sk --file kontakty.csv --dry-run',
    '<%= config.bin %> contacts import --user jana --account 3f0c… --file adresar.vcf --json',
  ];

  static override flags = {
    user: Flags.string({ description: 'login name or id of the user who imports', required: true }),
    account: Flags.string({ description: 'email account id or address (see email-accounts list)', required: true }),
    file: Flags.string({ description: 'path of the CSV or vCard file (at most 5 MB, 10,000 contacts)', required: true }),
    'dry-run': Flags.boolean({ description: 'report what would change, store nothing', default: false }),
  };

  async run(): Promise<{ import: ImportResult }> {
    const { flags } = await this.parse(ContactsImport);
    const file = await readLimited(path.resolve(flags.file));
    const ctx = await this.appContext();
    const { userAdmin, emailAccountAdmin, contactImport } = ctx.services;
    const user = idParams.safeParse({ id: flags.user }).success ? await userAdmin.get(flags.user) : await userAdmin.getByUsername(flags.user);
    const accountId = idParams.safeParse({ id: flags.account }).success ? flags.account : await accountByAddress(flags.account, () => emailAccountAdmin.list());
    const result = await contactImport.import(user.id, { emailAccountId: accountId, file, dryRun: flags['dry-run'] }, this.cliMeta());
    this.log(
      `${result.dryRun ? 'Dry run (nothing stored): ' : ''}${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged, ${result.invalid.length} invalid.`,
    );
    for (const problem of result.invalid) this.log(`  row ${problem.row}: ${problem.reason}`);
    for (const warning of result.warnings) this.log(`  row ${warning.row} (warning): ${warning.reason}`);
    return { import: result };
  }
}

/** The file, refused past the import's limit without reading more than one byte over it. */
async function readLimited(file: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    throw new ValidationError(`Súbor ${file} sa nedá otvoriť`, [{ field: 'file', message: 'Súbor sa nedá otvoriť' }]);
  }
  try {
    const buffer = Buffer.alloc(IMPORT_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function accountByAddress(address: string, list: () => Promise<Array<{ id: string; email: string }>>): Promise<string> {
  const wanted = address.trim().toLowerCase();
  const account = (await list()).find((a) => a.email.toLowerCase() === wanted);
  if (!account) throw new NotFoundError('Emailový účet neexistuje');
  return account.id;
}
