import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

/** docs/adr/README.md is the index of docs/adr/: sorted, complete, and each status as its record states it. */
describe('decision records: the index and each status', () => {
  const dir = fileURLToPath(new URL('../../docs/adr/', import.meta.url));
  const records = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}-.*\.md$/.test(f))
    .sort();
  const rows = fs
    .readFileSync(path.join(dir, 'README.md'), 'utf8')
    .split('\n')
    .filter((l) => /^\| \[\d{4}\]/.test(l))
    .map((l) => {
      const [, number, file, status] = /^\| \[(\d{4})\]\(([^)]+)\) \| .* \| ([^|]+) \| [^|]+ \|$/.exec(l) ?? [];
      return { number, file, status: status?.trim() };
    });
  /** The first line of the record's "## Status" section. */
  const statusOf = (file: string) => /^## Status\n\n(.+)$/m.exec(fs.readFileSync(path.join(dir, file), 'utf8'))?.[1];
  const kind = (status: string | undefined) => /^(Accepted|Superseded by \d{4})/.exec(status ?? '')?.[1];

  it('lists every record once, in the order of their numbers', () => {
    expect(rows.map((r) => r.file)).to.deep.equal(records);
    expect(rows.map((r) => r.number)).to.deep.equal(records.map((f) => f.slice(0, 4)));
  });

  it('gives every record a status, Accepted or Superseded by NNNN, the same in the record and in the index', () => {
    const wrong = records.flatMap((file, i) => {
      const own = kind(statusOf(file));
      return own && own === kind(rows[i]?.status) ? [] : [`${file}: record "${statusOf(file) ?? 'no ## Status'}", index "${rows[i]?.status}"`];
    });
    expect(wrong).to.deep.equal([]);
  });
});
