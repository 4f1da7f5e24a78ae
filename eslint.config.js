// Type-aware lint (typescript-eslint's recommendedTypeChecked preset) plus the project's stricter rules
// on promises nobody awaits or handles — the service runs many background tasks (sync runs, read-state
// pushes, cache invalidation) where a forgotten rejection is a silent bug. Layer boundaries are checked
// by dependency-cruiser (.dependency-cruiser.cjs); both run in `npm run lint`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'clients/**', 'data/**', 'coverage/**', '.stryker-tmp/**', 'reports/**', '**/*.cjs', '**/*.mjs', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      // Relaxed: passing on a caught `unknown` (a stream's or socket's own error) is allowed, as
      // only-throw-error allows it by default; rate-limiter-flexible rejects with a RateLimiterRes by contract.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allow: [{ from: 'package', package: 'rate-limiter-flexible', name: 'RateLimiterRes' }] },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      complexity: ['warn', 15],
      'max-params': ['warn', 5],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/jmap/client.js', '**/jmap/mail.js', '**/jmap/session.js', '**/jmap/errors.js', '**/jmap/types.js', '**/jmap/http.js'],
              message: 'Import the JMAP client from src/jmap/index.ts, its public surface.',
            },
          ],
        },
      ],
      // ADR 0121: a request holds at most one pool connection at a time; findAndCountAll takes two at once.
      'no-restricted-properties': [
        'error',
        { property: 'findAndCountAll', message: 'Use findAndCountInTurn (src/db/find-and-count.ts): findAndCountAll runs its two queries on two pool connections at once.' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Off in tests and benchmarks only: supertest and fetch hand response bodies over as `any`; tests read
      // them field by field and assert each value, and every API response is checked against the OpenAPI
      // schema (test/support/openapi-hooks.ts). Typing each body would be ceremony, not safety.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off in tests: chai's property assertions (`.to.exist`, `.and.not.empty`) are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    // The JMAP client's own files import each other directly.
    files: ['src/jmap/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
