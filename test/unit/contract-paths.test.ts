import fs from 'node:fs';
import { expect } from 'chai';
import { contractPathProblems } from '../../scripts/contract-paths.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

/** The lint's check that docs/contract.md §4 lists every operation of the OpenAPI document, and no other. */
describe('docs/contract.md path list against the OpenAPI document', () => {
  const contract = ['# C', '', '## 4. Endpoints', '', '| method and path | success |', '|---|---|'];
  const paths = { '/api/a': { get: {}, post: {} }, '/api/a/{id}': { delete: {} } };

  it('accepts a contract whose tables name each operation once or more, query strings aside', () => {
    const rows = ['| `GET /api/a?page=&limit=` | 200 |', '| `POST /api/a` `{ x }` | 201 |', '| `DELETE /api/a/{id}` | 200 |', '', '## 5. Next'];
    expect(contractPathProblems(paths, [...contract, ...rows].join('\n'))).to.deep.equal([]);
  });

  it('names an operation missing from the tables, one only in the prose, and a row of no operation', () => {
    const rows = ['| `GET /api/a` | 200 |', '| `PUT /api/gone` | 200 |', '', 'Prose mentions `POST /api/a` and `DELETE /api/a/{id}`.', '', '## 5. Next', '| `POST /api/a` |'];
    expect(contractPathProblems(paths, [...contract, ...rows].join('\n'))).to.deep.equal([
      'missing from docs/contract.md §4: POST /api/a',
      'missing from docs/contract.md §4: DELETE /api/a/{id}',
      'in docs/contract.md §4 but not in the OpenAPI document: PUT /api/gone',
    ]);
  });

  it('finds the committed contract complete', () => {
    const doc = buildOpenApiDocument({ metricsPath: '/api/metrics' }) as unknown as { paths: Record<string, Record<string, unknown>> };
    expect(contractPathProblems(doc.paths, fs.readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8'))).to.deep.equal([]);
  });
});
