// Type-aware lint (typescript-eslint): the rules that catch promises nobody awaits or handles — the
// service runs many background tasks (sync runs, read-state pushes, cache invalidation) where a
// forgotten rejection is a silent bug. Layer boundaries are checked by dependency-cruiser
// (.dependency-cruiser.cjs); both run in `npm run lint`.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'clients/**', 'data/**', '**/*.cjs', '**/*.mjs', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/jmap/client.js', '**/jmap/mail.js', '**/jmap/session.js', '**/jmap/errors.js', '**/jmap/types.js', '**/jmap/http.js'], message: 'Import the JMAP client from src/jmap/index.ts, its public surface.' }] },
      ],
    },
  },
  {
    // The JMAP client's own files import each other directly.
    files: ['src/jmap/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
