import { expect } from 'chai';
import { replaceable, replacedOnce } from '../../src/db/migration-sql.js';

/** Migrations that derive their SQL from an earlier migration's text (0082, 0083: src/db/migration-sql.ts). */
describe('unit: deriving a migration from an earlier one', () => {
  it('replaces the one occurrence, and refuses a text that has none or two', () => {
    expect(replacedOnce('SELECT a; SELECT b;', 'SELECT a;', 'SELECT c;', '0099')).to.equal('SELECT c; SELECT b;');
    expect(() => replacedOnce('SELECT b;', 'SELECT a;', 'x', '0099')).to.throw('migration 0099');
    expect(() => replacedOnce('SELECT a; SELECT a;', 'SELECT a;', 'x', '0099')).to.throw('migration 0099');
  });

  it('turns every function it creates into one it replaces', () => {
    expect(replaceable('CREATE FUNCTION f() ...; CREATE FUNCTION g() ...; CREATE TRIGGER t')).to.equal(
      'CREATE OR REPLACE FUNCTION f() ...; CREATE OR REPLACE FUNCTION g() ...; CREATE TRIGGER t',
    );
  });
});
