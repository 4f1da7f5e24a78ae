/**
 * docs/contract.md §4 promises every path of the API; this checks the promise against the OpenAPI
 * document (npm run lint, through scripts/contract-reference.ts --check). Each operation must appear
 * in a table row of §4 as `METHOD /api/path` (a query string after the path is allowed), and every
 * such row must name an operation that exists: a new route without its row fails, and so does a row
 * left behind by a removed one. The prose stays hand-written; only the list is checked.
 */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Paths = Record<string, Partial<Record<string, unknown>>>;

/** `GET /api/x/{id}` for each operation of the document. */
export function documentOperations(paths: Paths): string[] {
  const out: string[] = [];
  for (const [p, item] of Object.entries(paths)) {
    for (const method of METHODS) if (item[method]) out.push(`${method.toUpperCase()} ${p}`);
  }
  return out;
}

/** `METHOD /api/...` named in the table rows of §4 (the section ends at the next `## `). */
export function contractOperations(markdown: string): string[] {
  const start = markdown.indexOf('\n## 4. ');
  if (start < 0) throw new Error('docs/contract.md has no "## 4." section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const found = new Set<string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) continue;
    for (const [, method, p] of line.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]*)/g)) found.add(`${method} ${p}`);
  }
  return [...found];
}

/** What the contract misses and what it names that does not exist; empty when they agree. */
export function contractPathProblems(paths: Paths, markdown: string): string[] {
  const documented = new Set(contractOperations(markdown));
  const operations = new Set(documentOperations(paths));
  return [
    ...[...operations].filter((op) => !documented.has(op)).map((op) => `missing from docs/contract.md §4: ${op}`),
    ...[...documented].filter((op) => !operations.has(op)).map((op) => `in docs/contract.md §4 but not in the OpenAPI document: ${op}`),
  ];
}
