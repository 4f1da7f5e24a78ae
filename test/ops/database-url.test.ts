import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli.js';
import { baseTestEnv } from '../support/harness.js';

const PASSWORD = 'Tajne-Db-Heslo-52';

/**
 * Issue 52, finding 17: a malformed DATABASE_URL reached sequelize's url.parse, whose DEP0170 warning
 * printed the whole URL, password included, on stderr (the journal). Each is refused by the
 * configuration check first, with a message that names what is wrong and quotes none of the URL.
 */
const MALFORMED: Array<[what: string, url: string, message: RegExp]> = [
  ['a port that is not a number', `postgres://crm:${PASSWORD}@localhost:notaport/crm`, /port musí byť číslo/],
  ['a # in the password', `postgres://crm:${PASSWORD}#x@localhost/crm`, /nie je platná adresa URL/],
  ['a character url.parse refuses in the host', `postgres://crm:${PASSWORD}@data!base/crm`, /názov servera/],
  ['a broken %-escape in the password', `postgres://crm:${PASSWORD}%zz@localhost/crm`, /neplatnú %-sekvenciu/],
];

describe('DATABASE_URL is checked before it is used, and never printed', function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dburl-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const [what, url, message] of MALFORMED) {
    it(`refuses ${what}: a clear configuration error, no password, no DEP0170`, async () => {
      const env = { ...baseTestEnv(), DATABASE_URL: url, CRM_DATA_DIR: path.join(tmp, 'data') };
      for (const args of [
        ['doctor', '--json'],
        ['users', 'list'],
      ]) {
        const res = await runCli(args, env);
        const output = res.stdout + res.stderr;
        expect(output, args.join(' ')).to.not.contain(PASSWORD);
        expect(output, args.join(' ')).to.not.contain('DEP0170');
        expect(res.status, `${args.join(' ')}: ${output}`).to.equal(1);
        expect(output, args.join(' ')).to.match(message);
        expect(output, args.join(' ')).to.contain('DATABASE_URL');
      }
    });
  }
});
