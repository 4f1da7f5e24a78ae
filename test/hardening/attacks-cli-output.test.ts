import crypto from 'node:crypto';
import { expect } from 'chai';
import { AuditLog } from '../../src/models/index.js';
import { cli } from '../admin/cli-helpers.js';
import { testContext } from '../support/harness.js';

/**
 * Issue 13 (outside attack): stored text that a client chose (a username tried at login, details of a
 * record) reaches an admin's terminal through `crm-admin ... list`. C0 controls were replaced, but an
 * 8-bit CSI (U+009B, a C1 control that many terminals honour like ESC [) or a bidi override (U+202E)
 * went through: they recolour, move or visually reorder what the admin reads.
 */
const C1_OR_BIDI = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const C0 = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe('attack: terminal control characters in crm-admin output', function () {
  this.timeout(60_000);
  before(() => testContext());

  it('audit list (table and --json) carries no C1 control or bidi override from stored data', async () => {
    const action = `test.hostile_${crypto.randomBytes(4).toString('hex')}`;
    await AuditLog.create({
      action,
      username: 'mallory\u009b31mRED\u202eexe.txt\u0085',
      userId: null,
      actor: 'anonymous',
      success: false,
      ip: '10.0.0.1',
      userAgent: 'agent\u009b2J\u2066',
      details: { error: 'x\u009b\u202ey', note: '\u2067hidden\u2069' },
    });

    const table = await cli(['audit', 'list', '--action', action]);
    expect(table.status, table.stderr).to.equal(0);
    expect(table.stdout).to.include('mallory');
    expect(table.stdout, 'C1/bidi in the table').not.to.match(C1_OR_BIDI);
    expect(table.stdout, 'C0 in the table').not.to.match(C0);

    const json = await cli(['audit', 'list', '--action', action, '--json']);
    expect(json.status, json.stderr).to.equal(0);
    expect(json.stdout, 'C1/bidi in --json').not.to.match(C1_OR_BIDI);
    // The data itself is not lost: --json escapes, so a script still reads the exact stored value.
    const parsed = JSON.parse(json.stdout) as { items: Array<{ username: string }> };
    expect(parsed.items[0].username).to.equal('mallory\u009b31mRED\u202eexe.txt\u0085');
  });
});
