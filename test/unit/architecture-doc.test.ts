import fs from 'node:fs';
import { expect } from 'chai';

/**
 * docs/architecture.md against what it describes: its table of areas against the folders of src/
 * (split the way .dependency-cruiser.cjs splits them), and "What the database does by itself" against
 * every trigger and function of the generated docs/schema.sql.
 */
describe('docs/architecture.md: the areas and what the database does by itself', () => {
  const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const doc = read('docs/architecture.md');
  const section = (heading: string) => {
    const start = doc.indexOf(`\n## ${heading}`);
    expect(start, heading).to.be.above(-1);
    const end = doc.indexOf('\n## ', start + 1);
    return doc.slice(start, end < 0 ? undefined : end);
  };

  it('lists every area folder of src/ in its table, and nothing else', () => {
    const config = read('.dependency-cruiser.cjs');
    const listed = (name: string) => [...(new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(config)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
    const notAreas = [...listed('ENTRY_POINTS'), ...listed('HTTP_HELPERS'), ...listed('FOUNDATION')];
    expect(notAreas).to.include.members(['app', 'http', 'db']);
    const folders = fs
      .readdirSync(new URL('../../src/', import.meta.url), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !notAreas.includes(e.name))
      .map((e) => e.name)
      .sort();
    const rows = [...section('The layers').matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    expect(rows).to.deep.equal(folders);
  });

  it('names every trigger and every function of docs/schema.sql', () => {
    const schema = read('docs/schema.sql');
    const names = [
      ...[...schema.matchAll(/^CREATE (?:CONSTRAINT )?TRIGGER (\w+)/gm)].map((m) => m[1]),
      ...[...schema.matchAll(/^CREATE FUNCTION public\.(\w+)\(/gm)].map((m) => m[1]),
    ];
    expect(names.length).to.be.above(40);
    const text = section('What the database does by itself');
    expect(names.filter((name) => !text.includes(`\`${name}\``) && !text.includes(`\`${name}(`))).to.deep.equal([]);
  });
});
