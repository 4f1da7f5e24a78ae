import fs from 'node:fs';
import { expect } from 'chai';
import { ROWS_FILE, parseTables, rowTypesText } from '../../scripts/schema-rows.js';

const snapshot = fs.readFileSync(new URL('../../docs/schema.sql', import.meta.url), 'utf8');

describe('unit: row types from the schema (scripts/schema-rows.ts)', () => {
  it('the committed src/db/schema-rows.ts is what docs/schema.sql gives', () => {
    expect(fs.readFileSync(ROWS_FILE, 'utf8')).to.equal(rowTypesText(snapshot));
  });

  it('reads every column with its nullability, generated columns included', () => {
    const contacts = parseTables(snapshot).get('contacts')!;
    expect(contacts.find((c) => c.name === 'email')).to.deep.equal({ name: 'email', type: 'text', nullable: false });
    expect(contacts.find((c) => c.name === 'name')).to.deep.equal({ name: 'name', type: 'text', nullable: true });
    expect(contacts.find((c) => c.name === 'search_text')?.type).to.equal('text');
  });

  it('a renamed column leaves the row types under its new name only', () => {
    const renamed = snapshot.replace(/(CREATE TABLE public\.contacts \([\s\S]*?\n) {4}name text,/, '$1    full_name text,');
    expect(renamed).not.to.equal(snapshot);
    const text = rowTypesText(renamed);
    const contacts = /  contacts: \{\n([\s\S]*?)\n {2}\};/.exec(text)![1];
    expect(contacts).to.include('full_name: string | null;');
    expect(contacts).not.to.match(/^ {4}name:/m);
  });

  it('refuses a column type it has no mapping for rather than guess', () => {
    const odd = snapshot.replace(/(CREATE TABLE public\.contacts \([\s\S]*?\n) {4}notes text,/, '$1    notes money,');
    expect(() => rowTypesText(odd)).to.throw(/contacts\.notes: no TypeScript type for PostgreSQL type "money"/);
  });
});
